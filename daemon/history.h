/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the recent denials of each uid's layers, in memory (UMB_OP_EVENTS) */
#ifndef UMBRELLA_HISTORY_H
#define UMBRELLA_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <umbrella/protocol.h>

/* Records kept per uid, and uids kept: at most HISTORY_UIDS * UMB_EVENTS_MAX records of
 * 472 bytes, 3.8 MiB, allocated per uid as its first record comes (59 KiB each). */
#define HISTORY_UIDS 64

struct history_uid;

struct history {
	struct history_uid *uids[HISTORY_UIDS];
	size_t count;
	uint64_t seq; /* records kept so far */
};

/*
 * history_add() - keep @d, a denial by a layer of @uid, read at @time_usec
 *
 * Each uid has its own ring of UMB_EVENTS_MAX: only its own records push its oldest
 * out. A new uid when HISTORY_UIDS are kept takes the place of the uid whose newest
 * record is the oldest of all. Nothing is kept when memory runs out.
 */
void history_add(struct history *h, uint32_t uid, const struct umb_denial *d, uint64_t time_usec);

/*
 * history_get() - the last records (at most UMB_EVENTS_MAX, oldest first) of @uid, or of
 * every uid with @all, into @out. Return: how many.
 */
size_t history_get(const struct history *h, uint32_t uid, bool all, struct umb_event_record *out);

void history_free(struct history *h);

#endif /* UMBRELLA_HISTORY_H */
