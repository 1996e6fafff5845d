// SPDX-License-Identifier: GPL-2.0-only
/* The order of umbrellad's turns by uid and each uid's charge (daemon/turns.c): one turn
 * per uid, whatever it has waiting; past its budget a uid is refused, others are not,
 * root never; the charge drains by the budget each minute. */
#include "tap.h"
#include "time-util.h"
#include "turns.h"

#define MIN (60 * USEC_PER_SEC)

int main(void)
{
	static struct turns t = { .budget_usec = 10 * USEC_PER_SEC };
	uint32_t uid, order[8];
	size_t n = 0;
	bool first;

	/* A queues three requests, then root and B one each: the turns go A, 0, B, and A
	 * takes its place at the end again (as server.c's on_turn does while it has
	 * more). */
	turns_enter(&t, 1000);
	turns_enter(&t, 1000);
	turns_enter(&t, 0);
	turns_enter(&t, 2000);
	TAP_EQ(t.order_count, 3, "a uid has one place in the order, however many it queues");
	while (n < 5 && turns_next(&t, &uid)) {
		order[n++] = uid;
		if (uid == 1000 && n < 3)
			turns_enter(&t, 1000);
	}
	TAP_OK(n == 4 && order[0] == 1000 && order[1] == 0 && order[2] == 2000 && order[3] == 1000,
	       "the turns: A, root, B, then A again");
	TAP_OK(!turns_next(&t, &uid), "none left");
	t.serving = true;
	t.serving_uid = 1000;
	turns_enter(&t, 1000);
	TAP_EQ(t.order_count, 0, "the uid being served does not enter (it goes last, after)");
	t.serving = false;

	/* The budget: 10 s a minute. */
	TAP_OK(!turns_over_budget(&t, 1000, MIN, &first), "a uid never charged is not over");
	turns_charge(&t, 1000, 6 * USEC_PER_SEC, MIN);
	TAP_OK(!turns_over_budget(&t, 1000, MIN, &first), "6 s of 10: not over");
	turns_charge(&t, 1000, 4500000, MIN);
	TAP_OK(turns_over_budget(&t, 1000, MIN, &first) && first,
	       "10.5 s of 10: over, the first refusal");
	TAP_OK(turns_over_budget(&t, 1000, MIN + USEC_PER_SEC, &first) && !first,
	       "a second later (drained by 1/6 s): still over, not the first refusal");
	TAP_OK(!turns_over_budget(&t, 2000, MIN, &first), "another uid is not");
	turns_charge(&t, 0, 100 * USEC_PER_SEC, MIN);
	TAP_OK(!turns_over_budget(&t, 0, MIN, &first), "root is never over");
	/* 10 s a minute drain: after 6 s, 1 s has gone. */
	TAP_OK(!turns_over_budget(&t, 1000, MIN + 6 * USEC_PER_SEC, &first),
	       "six seconds later (drained by 1 s): under again");
	turns_charge(&t, 1000, 2 * USEC_PER_SEC, MIN + 6 * USEC_PER_SEC);
	TAP_OK(turns_over_budget(&t, 1000, MIN + 6 * USEC_PER_SEC, &first) && first,
	       "charged 2 s more (11.5 s): over again");
	TAP_OK(!turns_over_budget(&t, 1000, 3 * MIN, &first), "two minutes later: drained");

	/* No budget: nobody is refused. */
	t.budget_usec = 0;
	turns_charge(&t, 3000, 100 * USEC_PER_SEC, MIN);
	TAP_OK(!turns_over_budget(&t, 3000, MIN, &first), "no budget: not over");
	return tap_finish();
}
