// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad's recent denials per uid (daemon/history.c): the bounds, and that a caller
 * gets its own uid's records only. */
#include <stdio.h>
#include <stdlib.h>

#include "history.h"
#include "tap.h"

static struct umb_event_record out[UMB_EVENTS_MAX];

static void add(struct history *h, uint32_t uid, uint32_t pid)
{
	struct umb_denial d = { .kind = UMB_DENIAL_RECORD, .layer = uid, .pid = pid, .dropped = 7 };

	snprintf(d.object, sizeof(d.object), "/uid/%u/%u", uid, pid);
	history_add(h, uid, &d, 1000 + pid);
}

/* Whether every record of @out (@n) is @uid's (its layer says so here). */
static bool all_of(size_t n, uint32_t uid)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].denial.layer != uid)
			return false;
	return true;
}

int main(void)
{
	struct history h = {};
	size_t n;

	add(&h, 1000, 1);
	add(&h, 2000, 2);
	add(&h, 1000, 3);
	n = history_get(&h, 1000, false, out);
	TAP_EQ(n, 2, "uid 1000 gets its two records");
	TAP_OK(all_of(n, 1000) && out[0].denial.pid == 1 && out[1].denial.pid == 3,
	       "only its own, oldest first");
	TAP_OK(out[0].denial.dropped == 0 && out[0].time_usec == 1001 && out[0].seq < out[1].seq,
	       "dropped is 0, the time and seq are kept");
	TAP_EQ(history_get(&h, 3000, false, out), 0, "a uid without records gets none");

	/* uid 2000 makes many records: uid 1000's stay. */
	for (uint32_t i = 0; i < 10 * UMB_EVENTS_MAX; i++)
		add(&h, 2000, 100 + i);
	n = history_get(&h, 2000, false, out);
	TAP_EQ(n, UMB_EVENTS_MAX, "a uid keeps its last UMB_EVENTS_MAX");
	TAP_EQ(out[n - 1].denial.pid, 100 + 10 * UMB_EVENTS_MAX - 1, "the newest last");
	TAP_EQ(out[0].denial.pid, 100 + 9 * UMB_EVENTS_MAX, "the oldest kept first");
	TAP_EQ(history_get(&h, 1000, false, out), 2, "another uid's flood leaves its records");

	/* Every uid's, for root: the newest UMB_EVENTS_MAX of all, in order. */
	add(&h, 1000, 5);
	n = history_get(&h, 0, true, out);
	TAP_EQ(n, UMB_EVENTS_MAX, "all uids: the newest UMB_EVENTS_MAX");
	TAP_OK(out[n - 1].denial.layer == 1000 && out[n - 2].denial.layer == 2000, "merged by seq");

	/* Many uids, each with a record: all kept (the old table kept 64). */
	for (uint32_t uid = 1; uid <= 1000; uid++)
		add(&h, 10000 + uid, uid);
	TAP_EQ(h.count, 1002, "1000 more uids: every uid kept");
	TAP_OK(history_get(&h, 10001, false, out) == 1 && all_of(1, 10001),
	       "the first of them has its record, and only it");
	TAP_EQ(history_get(&h, 2000, false, out), UMB_EVENTS_MAX, "uid 2000 keeps its records");

	/* The total: full histories of new uids until it is reached; the uids whose newest
	 * records are the oldest go, whole, and uid 1000, active again, stays. */
	add(&h, 1000, 6);
	for (uint32_t uid = 0; uid < HISTORY_RECORDS_MAX / UMB_EVENTS_MAX; uid++) {
		for (uint32_t i = 0; i < UMB_EVENTS_MAX; i++)
			add(&h, 50000 + uid, i);
		if (uid == HISTORY_RECORDS_MAX / UMB_EVENTS_MAX / 2)
			add(&h, 1000, 7);
	}
	TAP_OK(h.records <= HISTORY_RECORDS_MAX, "at most HISTORY_RECORDS_MAX records in all (%zu)",
	       h.records);
	TAP_EQ(history_get(&h, 2000, false, out), 0,
	       "uid 2000 (its newest among the oldest) forgotten");
	TAP_EQ(history_get(&h, 10001, false, out), 0, "and the 1000 uids of one record");
	n = history_get(&h, 1000, false, out);
	TAP_OK(n == 5 && out[n - 1].denial.pid == 7,
	       "uid 1000, active meanwhile, kept all five (%zu)", n);
	n = history_get(&h, 50000 + HISTORY_RECORDS_MAX / UMB_EVENTS_MAX - 1, false, out);
	TAP_EQ(n, UMB_EVENTS_MAX, "the newest uid has its full history");
	n = history_get(&h, 0, true, out);
	TAP_OK(n == UMB_EVENTS_MAX &&
		       out[n - 1].denial.layer == 50000 + HISTORY_RECORDS_MAX / UMB_EVENTS_MAX - 1,
	       "all uids: the newest UMB_EVENTS_MAX");
	history_free(&h);
	return tap_finish();
}
