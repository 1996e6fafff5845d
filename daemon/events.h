/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - denial records from the ring buffer (umb_events) */
#ifndef UMBRELLA_EVENTS_H
#define UMBRELLA_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-event.h>

#include <umbrella/bpf-abi.h>

struct follows;
struct history;
struct layers;
struct ring_buffer;

/* Where each denial record goes, beside the journal. */
struct event_sinks {
	struct follows *follows;     /* the connections that follow its layer */
	struct history *history;     /* its layer's uid's recent denials (UMB_OP_EVENTS) */
	const struct layers *layers; /* whose layer it is */
};

/* Starts reading @ringbuf_fd (umb_events); each record goes to the journal and to
 * @sinks (which must outlive the ring buffer). NULL with errno set on failure. */
struct ring_buffer *events_open(int ringbuf_fd, struct event_sinks *sinks);

/* What a denial record says, as text: for the journal and the followers alike. */
struct event_text {
	char comm[UMB_COMM_LEN + 1];
	const char *hook;		      /* umb_hook_name() */
	char item[64];			      /* event_item_text() */
	char inode[48];			      /* "DEV:INO", or "" when the record names none */
	char object[UMB_EVENT_PATH_MAX + 64]; /* what was denied: a path, a socket... */
};

/* The text of @e's restriction item ("fs:r", "net", "net:inet6", "cap:net_raw") in @buf. */
const char *event_item_text(const struct umb_event *e, char *buf, size_t size);

/* What every ring buffer callback of the loop's returns once it has read a record: 0,
 * or -EAGAIN when the turn's share of that ring is read (libbpf then stops reading it
 * until the next turn, events.c). */
int events_record_read(void);

/* Writes the count of records dropped since the last call to the journal, so that no
 * drop goes unnoticed: per uid (umb_event_budget), and what no uid's count explains
 * (umb_stats, @stats_fd). */
void events_report_drops(int stats_fd);

/*
 * events_attach() - read @rb (events_open()'s, with any ring buffer added to it) from
 * the loop @e whenever records wait (at PRIORITY_WORK, event-priority.h: a flood of
 * denials takes turns with the requests), and every second write what was dropped
 * (umb_stats, @stats_fd; per uid, umb_event_budget, @budget_fd, -1: none) and what the
 * rate limit suppressed. events_detach() stops.
 * Return: 0 or -errno (logged).
 */
int events_attach(struct ring_buffer *rb, int stats_fd, int budget_fd, sd_event *e);
void events_detach(void);

#endif /* UMBRELLA_EVENTS_H */
