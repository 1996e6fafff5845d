// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the recent denials of each uid's layers (history.h)
 *
 * A user cannot read the system journal (journald keeps root's messages there, never in
 * a user's), so umbrellad keeps the last denials of each uid's layers for UMB_OP_EVENTS.
 * Bounded twice: UMB_EVENTS_MAX records per uid, HISTORY_UIDS uids. A user's records
 * push out only that user's older ones; another uid's whole history goes only when
 * HISTORY_UIDS other uids made records since its newest, which takes that many uids.
 */
#include <stdlib.h>
#include <string.h>

#include "history.h"

struct history_uid {
	uint32_t uid;
	unsigned int head, count; /* ring: the oldest at head when full */
	struct umb_event_record records[UMB_EVENTS_MAX];
};

/* The seq of @u's newest record (every kept uid has one). */
static uint64_t newest_seq(const struct history_uid *u)
{
	return u->records[(u->head + u->count - 1) % UMB_EVENTS_MAX].seq;
}

static struct history_uid *find_or_add(struct history *h, uint32_t uid)
{
	struct history_uid *u;
	size_t oldest = 0;

	for (size_t i = 0; i < h->count; i++)
		if (h->uids[i]->uid == uid)
			return h->uids[i];
	if (h->count < HISTORY_UIDS) {
		u = malloc(sizeof(*u));
		if (!u)
			return NULL;
		h->uids[h->count++] = u;
	} else {
		for (size_t i = 1; i < h->count; i++)
			if (newest_seq(h->uids[i]) < newest_seq(h->uids[oldest]))
				oldest = i;
		u = h->uids[oldest];
	}
	u->uid = uid;
	u->head = u->count = 0;
	return u;
}

void history_add(struct history *h, uint32_t uid, const struct umb_denial *d, uint64_t time_usec)
{
	struct history_uid *u = find_or_add(h, uid);
	struct umb_event_record *rec;

	if (!u)
		return;
	if (u->count < UMB_EVENTS_MAX) {
		rec = &u->records[(u->head + u->count) % UMB_EVENTS_MAX];
		u->count++;
	} else {
		rec = &u->records[u->head];
		u->head = (u->head + 1) % UMB_EVENTS_MAX;
	}
	*rec = (struct umb_event_record){ .seq = ++h->seq, .time_usec = time_usec, .denial = *d };
	rec->denial.kind = UMB_DENIAL_RECORD;
	rec->denial.dropped = 0;
}

static const struct umb_event_record *record_at(const struct history_uid *u, unsigned int i)
{
	return &u->records[(u->head + i) % UMB_EVENTS_MAX];
}

size_t history_get(const struct history *h, uint32_t uid, bool all, struct umb_event_record *out)
{
	/* Where each uid's merge stands: from its end back, the newest first. */
	unsigned int left[HISTORY_UIDS];
	size_t n = 0;

	/* One uid's: its ring, in order. */
	for (size_t i = 0; !all && i < h->count; i++) {
		if (h->uids[i]->uid != uid)
			continue;
		for (unsigned int j = 0; j < h->uids[i]->count; j++)
			out[j] = *record_at(h->uids[i], j);
		return h->uids[i]->count;
	}
	if (!all)
		return 0;
	for (size_t i = 0; i < h->count; i++)
		left[i] = all || h->uids[i]->uid == uid ? h->uids[i]->count : 0;
	/* The newest UMB_EVENTS_MAX of the uids asked for, newest first into the end. */
	while (n < UMB_EVENTS_MAX) {
		const struct umb_event_record *best = NULL;
		size_t from = 0;

		for (size_t i = 0; i < h->count; i++) {
			const struct umb_event_record *r;

			if (!left[i])
				continue;
			r = record_at(h->uids[i], left[i] - 1);
			if (!best || r->seq > best->seq) {
				best = r;
				from = i;
			}
		}
		if (!best)
			break;
		left[from]--;
		out[UMB_EVENTS_MAX - 1 - n++] = *best;
	}
	memmove(out, out + UMB_EVENTS_MAX - n, n * sizeof(*out));
	return n;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->count; i++)
		free(h->uids[i]);
	*h = (struct history){};
}
