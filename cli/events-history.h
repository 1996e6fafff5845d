/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli events for a user: the recent denials of their layers, from umbrellad */
#ifndef UMBRELLA_CLI_EVENTS_HISTORY_H
#define UMBRELLA_CLI_EVENTS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which records to print: every one since @since (CLOCK_REALTIME µs), or else the last
 * @lines; only process @pid's, layer @layer's when not 0. */
struct events_filter {
	uint32_t pid, layer;
	uint64_t since;
	unsigned long lines;
};

/*
 * events_history() - asks umbrellad (UMB_OP_EVENTS) for the recent denials of the
 * caller's layers, which it keeps in memory since it started (not the journal), and
 * prints those @f selects as the journal's lines are printed; with @json an array.
 * With @follow, asks again every second and prints the new ones (one JSON object per
 * line), until it fails or is killed. Return: the exit code.
 */
int events_history(const struct events_filter *f, bool follow, bool json);

/* @usec (CLOCK_REALTIME) as "2025-06-01T12:00:00.123456Z" for JSON, local for text. */
const char *events_format_time(uint64_t usec, bool json, char *buf, size_t size);

#endif /* UMBRELLA_CLI_EVENTS_HISTORY_H */
