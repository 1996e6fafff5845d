/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the recent denials of each uid's layers, in memory (UMB_OP_EVENTS) */
#ifndef UMBRELLA_HISTORY_H
#define UMBRELLA_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <umbrella/protocol.h>

/*
 * Records kept in all: at most 16384 of 472 bytes, 7.4 MiB. Each uid keeps its last
 * UMB_EVENTS_MAX, in memory that grows with its records (a uid with one record costs
 * one), so every uid with records is kept until the total is reached, which takes at
 * least HISTORY_RECORDS_MAX / UMB_EVENTS_MAX = 128 uids with full histories.
 */
#define HISTORY_RECORDS_MAX 16384
#define HISTORY_BUCKETS	    1024 /* of the hash table by uid */

struct history_uid;

struct history {
	struct history_uid *buckets[HISTORY_BUCKETS];
	/* Every kept uid, the one with the newest record first */
	struct history_uid *newest, *oldest;
	size_t count;	/* uids kept */
	size_t records; /* records kept, of all uids */
	uint64_t seq;	/* records kept so far */
};

/*
 * history_add() - keep @d, a denial by a layer of @uid, read at @time_usec
 *
 * Each uid has its own ring of UMB_EVENTS_MAX: only its own records push its oldest
 * out. A record that would pass HISTORY_RECORDS_MAX takes the place of the whole
 * history of the uid whose newest record is the oldest of all (never @uid's). Nothing
 * is kept when memory runs out.
 */
void history_add(struct history *h, uint32_t uid, const struct umb_denial *d, uint64_t time_usec);

/*
 * history_get() - the last records (at most UMB_EVENTS_MAX, oldest first) of @uid, or of
 * every uid with @all, into @out. Return: how many.
 */
size_t history_get(const struct history *h, uint32_t uid, bool all, struct umb_event_record *out);

void history_free(struct history *h);

#endif /* UMBRELLA_HISTORY_H */
