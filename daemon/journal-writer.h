/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - denials and refused binaries as journal entries with UMBRELLA_* fields */
#ifndef UMBRELLA_JOURNAL_WRITER_H
#define UMBRELLA_JOURNAL_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include <umbrella/bpf-abi.h>

#include "events.h"

/*
 * At most @burst denials of each uid are written per @interval_sec seconds; the rest
 * are counted and summed up in one entry per uid when the interval ends. 0 for either
 * turns the limit off.
 */
void journal_set_rate_limit(unsigned int burst, unsigned int interval_sec);

/*
 * Writes "N denials suppressed" once the interval that suppressed them has ended, or at
 * once with @now (before exiting). Called at least once a second (events.c's tick).
 */
void journal_flush_suppressed(bool now);

/* Whether the next denial of @uid (struct umb_event.uid) is within its rate limit (then
 * journal_write_denial() it); counts it as suppressed if not. */
bool journal_denial_within_limit(uint32_t uid);

/* Writes the denial @e, described by @t (journal_denial_within_limit() said yes). */
void journal_write_denial(const struct umb_event *e, const struct event_text *t);

/* Writes that @n denial records of @uid (unknown without @uid_known) were dropped:
 * beyond the uid's budget, or the ring buffer was full. */
void journal_write_dropped(bool uid_known, uint32_t uid, unsigned long long n);

/*
 * journal_write_refused_binary() - write that the exec gate refused the exec of @path by
 * @pid: @reason, the signature's @key_id (hex, or "-"), @verdict ("refused": the verdict
 * is cached; "not verified": it is not). Not rate limited: each needs a verification.
 */
void journal_write_refused_binary(const char *path, unsigned int pid, const char *reason,
				  const char *key_id, const char *verdict);

#endif /* UMBRELLA_JOURNAL_WRITER_H */
