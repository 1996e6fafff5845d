// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the order in which uids take their turns on the socket, and the charge
 * of each uid's requests (turns.h). Pure bookkeeping: server.c queues the connections
 * and serves them.
 */
#include <string.h>

#include "turns.h"

static bool in_order(const struct turns *t, uint32_t uid)
{
	for (size_t i = 0; i < t->order_count; i++)
		if (t->order[i] == uid)
			return true;
	return false;
}

/* @uid takes its place: root that carries no layer at the front, any other at the end. */
static void place(struct turns *t, uint32_t uid)
{
	/* Room for one uid per connection: only a caller's bug could fill it. */
	if (in_order(t, uid) || t->order_count >= TURNS_ORDER_MAX)
		return;
	if (uid == 0) {
		memmove(t->order + 1, t->order, t->order_count * sizeof(t->order[0]));
		t->order[0] = 0;
		t->order_count++;
	} else {
		t->order[t->order_count++] = uid;
	}
}

void turns_enter(struct turns *t, uint32_t uid)
{
	if (t->has_last && t->last == uid)
		t->last_waiting = true;
	else
		place(t, uid);
}

bool turns_next(struct turns *t, uint32_t *ret_uid)
{
	/* Behind those that arrived while it was served (gathered before this call). */
	if (t->last_waiting)
		place(t, t->last);
	t->has_last = t->last_waiting = false;
	if (!t->order_count)
		return false;
	*ret_uid = t->order[0];
	memmove(t->order, t->order + 1, --t->order_count * sizeof(t->order[0]));
	t->last = *ret_uid;
	t->has_last = true;
	return true;
}

/* The uids in the order, and the uid served last if it has more waiting. */
size_t turns_waiting(const struct turns *t)
{
	return t->order_count + t->last_waiting;
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
	if (over && !c->refusing && (!c->noticed || now - c->noticed_at >= TURNS_WINDOW_USEC)) {
		*ret_first = true;
		c->noticed = true;
		c->noticed_at = now;
	}
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
