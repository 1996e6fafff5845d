/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the requests on the socket served in turns by uid, each uid's work rationed */
#ifndef UMBRELLA_TURNS_H
#define UMBRELLA_TURNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Requests are served one at a time on umbrellad's loop, and one may cost seconds (a
 * request at its budget of mount steps, mount-guard.h). Served as the loop found them
 * ready, a user with many connections, each sending such a request, held root's rfork
 * past the client's 10 s. So a connection with a request waiting is queued under the
 * uid it is charged as (struct client.uid: a restricted root is
 * UMB_UID_RESTRICTED_ROOT), and the uids take turns, one request each: a uid's oldest
 * request waits behind at most one request of each other uid that has one waiting.
 *
 * A turn is not enough when one user has many uids (subordinate ids) or sends a heavy
 * request at every turn: the loop time each request takes is charged to its uid in a
 * leaky bucket that drains @budget_usec per TURNS_WINDOW_USEC (a sliding minute). A
 * uid whose charge is at @budget_usec or more gets its requests refused, at once and at
 * no cost (EAGAIN), until it has drained below: that uid only. Root that carries no
 * layer (uid 0) is never refused; it still waits for its turn like anyone.
 */
#define TURNS_WINDOW_USEC (60 * 1000000ULL)
/* The uids whose charge is remembered at once: one more evicts the one that drained
 * most (its charge is forgotten, an under-charge of a uid that asked least lately). */
#define TURNS_CHARGED_MAX 1024
/* The uids in turn at once: at most one per connection (SERVER_SLOTS). */
#define TURNS_ORDER_MAX	  512

struct turn_charge {
	uint32_t uid;
	bool refusing; /* it is past its budget (logged once when it starts) */
	uint64_t usec; /* its charge at @at, before draining */
	uint64_t at;   /* CLOCK_MONOTONIC µs */
};

struct turns {
	uint32_t order[TURNS_ORDER_MAX]; /* the uids with a request waiting, next first */
	size_t order_count;
	uint64_t queued;      /* requests queued so far (their order within a uid) */
	uint64_t served;      /* requests served so far: turns taken */
	bool serving;	      /* serving_uid's turn is being taken: turns_enter() leaves */
	uint32_t serving_uid; /* it out, so that it goes behind those arriving meanwhile */
	uint64_t budget_usec; /* per TURNS_WINDOW_USEC and uid; 0: no budget */
	struct turn_charge charges[TURNS_CHARGED_MAX];
	size_t charge_count;
};

/* turns_enter() - @uid has a request waiting: it takes its place at the end of the
 * order, unless it has one there already. */
void turns_enter(struct turns *t, uint32_t uid);

/* turns_next() - the uid whose turn it is, taken out of the order (turns_enter() puts
 * it back at the end while it has more waiting). Return: false when none waits. */
bool turns_next(struct turns *t, uint32_t *ret_uid);

/* turns_over_budget() - whether @uid's requests are to be refused at @now (never uid
 * 0's). Sets *@ret_first when this is the first refusal since it was under. */
bool turns_over_budget(struct turns *t, uint32_t uid, uint64_t now, bool *ret_first);

/* turns_charge() - @uid's request took @usec of the loop, ending at @now (uid 0 is not
 * charged). */
void turns_charge(struct turns *t, uint32_t uid, uint64_t usec, uint64_t now);

#endif /* UMBRELLA_TURNS_H */
