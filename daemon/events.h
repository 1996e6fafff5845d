/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - denial records from the ring buffer */
#ifndef UMBRELLA_EVENTS_H
#define UMBRELLA_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include <umbrella/bpf-abi.h>

struct follows;
struct ring_buffer;

/* Starts reading @ringbuf_fd (umb_events); each record goes to the journal and to the
 * connections of @follows that follow its layer. NULL with errno set on failure. */
struct ring_buffer *events_open(int ringbuf_fd, struct follows *follows);

/* The text of @e's restriction item ("fs:r", "net", "net:inet6", "cap:net_raw") in @buf. */
const char *event_item_text(const struct umb_event *e, char *buf, size_t size);

/*
 * At most @burst denials are logged per @interval_sec seconds; the rest are counted and
 * summed up in one message when the interval ends. 0 for either turns the limit off.
 */
void events_set_rate_limit(unsigned int burst, unsigned int interval_sec);

/*
 * Logs "N denials suppressed" once the interval that suppressed them has ended, or at
 * once with @now (before exiting). Called on every tick of the daemon's loop.
 */
void events_flush_suppressed(bool now);

/* Logs records dropped since the last call (umb_stats), so no drop goes unnoticed. */
void events_report_drops(int stats_fd);

/*
 * events_log_refused_binary() - log that the exec gate refused the exec of @path by
 * @pid: @reason, the signature's @key_id (hex, or "-"), @verdict ("refused": the verdict
 * is cached; "not verified": it is not). Not rate limited: each needs a verification.
 */
void events_log_refused_binary(const char *path, unsigned int pid, const char *reason,
			       const char *key_id, const char *verdict);

#endif /* UMBRELLA_EVENTS_H */
