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
 * UMB_UID_RESTRICTED_ROOT), and the uids take turns, one request each, oldest first
 * within a uid (server.c). The order:
 *
 *  - a uid enters at the end when a request of its is queued, unless it is in already;
 *  - the uid just served goes back at the end only at the next turn (turns_next()),
 *    behind every uid whose request arrived while it was served: server.c gathers
 *    those arrivals (accepts and polls the connections) before each turn, so that
 *    neither sd-event's order of dispatch nor a flood of ready sources can put a uid's
 *    next request ahead of them;
 *  - root that carries no layer (uid 0) enters at the front: the administrator waits
 *    behind the request being served at most, never behind a queue of a user's.
 *
 * So a uid's oldest request waits behind at most one request of each other uid that has
 * one waiting, and root's behind none but the one in progress.
 *
 * A turn is not enough when one user has many uids (subordinate ids) or sends a heavy
 * request at every turn: the loop time each request takes is charged to its uid in a
 * leaky bucket that drains @budget_usec per TURNS_WINDOW_USEC (a sliding minute). A
 * uid whose charge is at @budget_usec or more gets its requests refused, at once and at
 * no cost (EAGAIN), until it has drained below: that uid only. Root that carries no
 * layer (uid 0) is never refused nor charged.
 */
#define TURNS_WINDOW_USEC (60 * 1000000ULL)
/* The uids whose charge is remembered at once: one more evicts the one that drained
 * most (its charge is forgotten, an under-charge of a uid that asked least lately). */
#define TURNS_CHARGED_MAX 1024
/* The uids in turn at once: at most one per connection (SERVER_SLOTS). */
#define TURNS_ORDER_MAX	  512

struct turn_charge {
	uint32_t uid;
	bool refusing;	     /* it is past its budget (logged when it starts, once a minute) */
	bool noticed;	     /* @noticed_at is set */
	uint64_t noticed_at; /* the last refusal told (turns_over_budget()'s *ret_first) */
	uint64_t usec;	     /* its charge at @at, before draining */
	uint64_t at;	     /* CLOCK_MONOTONIC µs */
};

struct turns {
	uint32_t order[TURNS_ORDER_MAX]; /* the uids with a request waiting, next first */
	size_t order_count;
	bool has_last;	   /* @last was served at the last turn: it goes back at the */
	bool last_waiting; /* end at the next one (turns_next()), if it has more waiting */
	uint32_t last;
	uint64_t queued;      /* requests queued so far (their order within a uid) */
	uint64_t served;      /* requests served so far: turns taken */
	uint64_t budget_usec; /* per TURNS_WINDOW_USEC and uid; 0: no budget */
	struct turn_charge charges[TURNS_CHARGED_MAX];
	size_t charge_count;
};

/* turns_enter() - @uid has a request waiting: it takes its place at the end of the
 * order (uid 0 at the front), unless it has one there already; the uid served last
 * waits for the next turns_next(). */
void turns_enter(struct turns *t, uint32_t uid);

/* turns_next() - the uid whose turn it is, taken out of the order, after the uid served
 * last went back at the end if turns_enter() was called for it meanwhile (the caller
 * does so when it has more waiting). Return: false when none waits. */
bool turns_next(struct turns *t, uint32_t *ret_uid);

/* turns_waiting() - how many uids wait for a turn: those in the order, and the uid
 * served last once it was entered again. 0: no turn to take. */
size_t turns_waiting(const struct turns *t);

/* turns_over_budget() - whether @uid's requests are to be refused at @now (never uid
 * 0's). Sets *@ret_first when this is the first refusal since it was under, and none was
 * told for @uid within TURNS_WINDOW_USEC: a uid that drains just below its budget and
 * goes past it again with each cheap request would otherwise log a line each time. */
bool turns_over_budget(struct turns *t, uint32_t uid, uint64_t now, bool *ret_first);

/* turns_charge() - @uid's request took @usec of the loop, ending at @now (uid 0 is not
 * charged). */
void turns_charge(struct turns *t, uint32_t uid, uint64_t usec, uint64_t now);

#endif /* UMBRELLA_TURNS_H */
