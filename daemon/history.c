// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the recent denials of each uid's layers (history.h)
 *
 * A user cannot read the system journal (journald keeps root's messages there, never in
 * a user's), so umbrellad keeps the last denials of each uid's layers for UMB_OP_EVENTS.
 * Bounded twice: UMB_EVENTS_MAX records per uid, HISTORY_RECORDS_MAX in all. A user's
 * records push out only that user's older ones; another uid's whole history goes only
 * when the total is reached and that uid's newest record is the oldest of all, which
 * takes more than a hundred other uids with full histories.
 */
#include <stdlib.h>
#include <string.h>

#include "history.h"

struct history_uid {
	uint32_t uid;
	unsigned int head, count, cap; /* ring of cap records: the oldest at head when full */
	struct umb_event_record *records;
	struct history_uid *next;	   /* in its bucket */
	struct history_uid *newer, *older; /* in the list by newest record */
};

static struct history_uid **bucket_of(struct history *h, uint32_t uid)
{
	return &h->buckets[(uid * 2654435761U) % HISTORY_BUCKETS];
}

static struct history_uid *find(const struct history *h, uint32_t uid)
{
	struct history_uid *u = h->buckets[(uid * 2654435761U) % HISTORY_BUCKETS];

	while (u && u->uid != uid)
		u = u->next;
	return u;
}

static void list_unlink(struct history *h, struct history_uid *u)
{
	if (u->newer)
		u->newer->older = u->older;
	else
		h->newest = u->older;
	if (u->older)
		u->older->newer = u->newer;
	else
		h->oldest = u->newer;
	u->newer = u->older = NULL;
}

static void list_push_newest(struct history *h, struct history_uid *u)
{
	u->older = h->newest;
	u->newer = NULL;
	if (h->newest)
		h->newest->newer = u;
	else
		h->oldest = u;
	h->newest = u;
}

/* Forgets @u and its records. */
static void evict(struct history *h, struct history_uid *u)
{
	struct history_uid **p = bucket_of(h, u->uid);

	while (*p != u)
		p = &(*p)->next;
	*p = u->next;
	list_unlink(h, u);
	h->records -= u->count;
	h->count--;
	free(u->records);
	free(u);
}

/* Makes room for one more record of @u (not full): another slot in its ring, grown if
 * need be. Return: whether there is one (no memory: its oldest is replaced). */
static bool make_room(struct history *h, struct history_uid *u)
{
	struct umb_event_record *grown;
	unsigned int cap;

	while (h->records >= HISTORY_RECORDS_MAX && h->oldest && h->oldest != u)
		evict(h, h->oldest);
	if (h->records >= HISTORY_RECORDS_MAX)
		return false;
	if (u->count < u->cap)
		return true;
	cap = u->cap ? u->cap * 2 : 4;
	if (cap > UMB_EVENTS_MAX)
		cap = UMB_EVENTS_MAX;
	grown = malloc(cap * sizeof(*grown));
	if (!grown)
		return false;
	/* The ring is full: its records in order, from the oldest. */
	for (unsigned int i = 0; i < u->count; i++)
		grown[i] = u->records[(u->head + i) % u->cap];
	free(u->records);
	u->records = grown;
	u->cap = cap;
	u->head = 0;
	return true;
}

void history_add(struct history *h, uint32_t uid, const struct umb_denial *d, uint64_t time_usec)
{
	struct history_uid *u = find(h, uid), **bucket;
	struct umb_event_record *rec;

	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return;
		u->uid = uid;
		bucket = bucket_of(h, uid);
		u->next = *bucket;
		*bucket = u;
		h->count++;
	} else {
		list_unlink(h, u);
	}
	list_push_newest(h, u);
	if (u->count < UMB_EVENTS_MAX && make_room(h, u)) {
		rec = &u->records[(u->head + u->count) % u->cap];
		u->count++;
		h->records++;
	} else if (u->count && u->count == u->cap) {
		rec = &u->records[u->head]; /* its oldest goes */
		u->head = (u->head + 1) % u->cap;
	} else {
		if (!u->count)
			evict(h, u); /* no memory for its first record */
		return;
	}
	*rec = (struct umb_event_record){ .seq = ++h->seq, .time_usec = time_usec, .denial = *d };
	rec->denial.kind = UMB_DENIAL_RECORD;
	rec->denial.dropped = 0;
}

static const struct umb_event_record *record_at(const struct history_uid *u, unsigned int i)
{
	return &u->records[(u->head + i) % u->cap];
}

size_t history_get(const struct history *h, uint32_t uid, bool all, struct umb_event_record *out)
{
	/* The uids whose records can be among the newest UMB_EVENTS_MAX: the first
	 * UMB_EVENTS_MAX by newest record (each has a record newer than all of any uid
	 * after them), and where each one's merge stands, from its end back. */
	const struct history_uid *from[UMB_EVENTS_MAX];
	unsigned int left[UMB_EVENTS_MAX];
	const struct history_uid *u;
	size_t n = 0, uids = 0;

	if (!all) {
		u = find(h, uid);
		if (!u)
			return 0;
		for (unsigned int j = 0; j < u->count; j++)
			out[j] = *record_at(u, j);
		return u->count;
	}
	for (u = h->newest; u && uids < UMB_EVENTS_MAX; u = u->older, uids++) {
		from[uids] = u;
		left[uids] = u->count;
	}
	/* The newest UMB_EVENTS_MAX, newest first into the end. */
	while (n < UMB_EVENTS_MAX) {
		const struct umb_event_record *best = NULL;
		size_t at = 0;

		for (size_t i = 0; i < uids; i++) {
			const struct umb_event_record *r;

			if (!left[i])
				continue;
			r = record_at(from[i], left[i] - 1);
			if (!best || r->seq > best->seq) {
				best = r;
				at = i;
			}
		}
		if (!best)
			break;
		left[at]--;
		out[UMB_EVENTS_MAX - 1 - n++] = *best;
	}
	memmove(out, out + UMB_EVENTS_MAX - n, n * sizeof(*out));
	return n;
}

void history_free(struct history *h)
{
	while (h->oldest)
		evict(h, h->oldest);
	*h = (struct history){};
}
