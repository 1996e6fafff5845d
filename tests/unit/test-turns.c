// SPDX-License-Identifier: GPL-2.0-only
/* The order of umbrellad's turns by uid and each uid's charge (daemon/turns.c): one turn
 * per uid, whatever it has waiting; the uid served goes back behind those that arrived
 * meanwhile; root that carries no layer goes first; past its budget a uid is refused,
 * others are not, root never; the charge drains by the budget each minute. */
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

	/* A queues two requests, then root and B one each: root goes first (the
	 * administrator waits behind no queue), then A and B in the order they came. */
	turns_enter(&t, 1000);
	turns_enter(&t, 1000);
	turns_enter(&t, 0);
	turns_enter(&t, 2000);
	TAP_EQ(t.order_count, 3, "a uid has one place in the order, however many it queues");
	TAP_OK(turns_next(&t, &uid) && uid == 0, "root that carries no layer goes first");
	TAP_OK(turns_next(&t, &uid) && uid == 1000, "then A, which came first");
	/* A has one more waiting (server.c's on_turn enters it again before serving), and
	 * C's request arrives while A's is served: A's next goes behind C. */
	turns_enter(&t, 1000);
	TAP_EQ(t.order_count, 1, "the uid being served waits for the next turn to go back");
	turns_enter(&t, 3000);
	while (n < 8 && turns_next(&t, &uid))
		order[n++] = uid;
	TAP_OK(n == 3 && order[0] == 2000 && order[1] == 3000 && order[2] == 1000,
	       "then B, then C that arrived while A was served, then A's next");
	TAP_OK(!turns_next(&t, &uid) && !turns_waiting(&t), "none left");

	/* A floods: while each of its requests is served, root's arrives: root is next,
	 * ahead of A's next and of B, which waited before it. */
	turns_enter(&t, 1000);
	turns_enter(&t, 2000);
	TAP_OK(turns_next(&t, &uid) && uid == 1000, "A's turn");
	turns_enter(&t, 1000);
	turns_enter(&t, 0);
	TAP_OK(turns_waiting(&t) == 3 && turns_next(&t, &uid) && uid == 0,
	       "root's request, arrived while A's was served, is next: behind that one only");
	TAP_OK(turns_next(&t, &uid) && uid == 2000, "then B");
	TAP_OK(turns_next(&t, &uid) && uid == 1000, "then A again");
	TAP_OK(!turns_waiting(&t) && !turns_next(&t, &uid), "none left");
	/* The uid served last, with nothing else waiting, takes the next turn itself. */
	turns_enter(&t, 1000);
	TAP_OK(turns_waiting(&t) == 1 && turns_next(&t, &uid) && uid == 1000,
	       "alone, A is served again at the next turn");
	TAP_OK(!turns_next(&t, &uid), "none left");

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
	TAP_OK(turns_over_budget(&t, 1000, MIN + 6 * USEC_PER_SEC, &first) && !first,
	       "charged 2 s more (11.5 s): over again, not told again within a minute");
	TAP_OK(!turns_over_budget(&t, 1000, 3 * MIN, &first), "two minutes later: drained");
	turns_charge(&t, 1000, 11 * USEC_PER_SEC, 3 * MIN);
	TAP_OK(turns_over_budget(&t, 1000, 3 * MIN, &first) && first,
	       "over again after a minute: told again");

	/* No budget: nobody is refused. */
	t.budget_usec = 0;
	turns_charge(&t, 3000, 100 * USEC_PER_SEC, MIN);
	TAP_OK(!turns_over_budget(&t, 3000, MIN, &first), "no budget: not over");
	return tap_finish();
}
