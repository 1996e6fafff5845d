// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the order in which uids take their turns on the socket, and the charge
 * of each uid's requests (turns.h). Pure bookkeeping: server.c queues the connections
 * and serves them.
 */
#include <string.h>

#include "turns.h"

void turns_enter(struct turns *t, uint32_t uid)
{
	if (t->serving && t->serving_uid == uid)
		return;
	for (size_t i = 0; i < t->order_count; i++)
		if (t->order[i] == uid)
			return;
	/* Room for one uid per connection: only a caller's bug could fill it. */
	if (t->order_count < TURNS_ORDER_MAX)
		t->order[t->order_count++] = uid;
}

bool turns_next(struct turns *t, uint32_t *ret_uid)
{
	if (!t->order_count)
		return false;
	*ret_uid = t->order[0];
	memmove(t->order, t->order + 1, --t->order_count * sizeof(t->order[0]));
	return true;
}

/* @c's charge at @now: what it was, less what drained since. */
static uint64_t drained(const struct turns *t, const struct turn_charge *c, uint64_t now)
{
	uint64_t gone = now > c->at ? now - c->at : 0;

	/* budget_usec per TURNS_WINDOW_USEC; in that order, so that nothing overflows
	 * before a charge has had years to drain. */
	gone = gone / 1000 * (t->budget_usec / 1000) / (TURNS_WINDOW_USEC / 1000000);
	return c->usec > gone ? c->usec - gone : 0;
}

static struct turn_charge *charge_find(struct turns *t, uint32_t uid)
{
	for (size_t i = 0; i < t->charge_count; i++)
		if (t->charges[i].uid == uid)
			return &t->charges[i];
	return NULL;
}

bool turns_over_budget(struct turns *t, uint32_t uid, uint64_t now, bool *ret_first)
{
	struct turn_charge *c = charge_find(t, uid);
	bool over;

	*ret_first = false;
	if (uid == 0 || !t->budget_usec || !c)
		return false;
	over = drained(t, c, now) >= t->budget_usec;
	*ret_first = over && !c->refusing;
	c->refusing = over;
	return over;
}

void turns_charge(struct turns *t, uint32_t uid, uint64_t usec, uint64_t now)
{
	struct turn_charge *c;

	if (uid == 0 || !t->budget_usec)
		return;
	c = charge_find(t, uid);
	if (!c && t->charge_count < TURNS_CHARGED_MAX) {
		c = &t->charges[t->charge_count++];
		*c = (struct turn_charge){ .uid = uid, .at = now };
	} else if (!c) {
		/* Full: the entry with the least charge left makes room. */
		c = &t->charges[0];
		for (size_t i = 1; i < t->charge_count; i++)
			if (drained(t, &t->charges[i], now) < drained(t, c, now))
				c = &t->charges[i];
		*c = (struct turn_charge){ .uid = uid, .at = now };
	}
	c->usec = drained(t, c, now) + usec;
	c->at = now;
}
