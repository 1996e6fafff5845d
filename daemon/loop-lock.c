// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - an sd-event loop run under a lock handed over in turn (loop-lock.h) */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>

#include "loop-lock.h"

struct loop_lock main_loop_lock = LOOP_LOCK_INIT;

void loop_lock_init(struct loop_lock *l)
{
	*l = (struct loop_lock){};
	pthread_mutex_init(&l->mutex, NULL);
	pthread_cond_init(&l->turn, NULL);
}

void loop_lock_destroy(struct loop_lock *l)
{
	pthread_cond_destroy(&l->turn);
	pthread_mutex_destroy(&l->mutex);
}

void loop_lock_take(struct loop_lock *l)
{
	unsigned long ticket;

	pthread_mutex_lock(&l->mutex);
	ticket = l->next++;
	while (ticket != l->serving)
		pthread_cond_wait(&l->turn, &l->mutex);
	pthread_mutex_unlock(&l->mutex);
}

void loop_lock_give(struct loop_lock *l)
{
	pthread_mutex_lock(&l->mutex);
	l->serving++;
	pthread_cond_broadcast(&l->turn);
	pthread_mutex_unlock(&l->mutex);
}

/* Lets the threads that wait for @l (held by the caller) in first, then takes it back. */
static void yield_to_waiters(struct loop_lock *l)
{
	bool waiting;

	pthread_mutex_lock(&l->mutex);
	waiting = l->next != l->serving + 1;
	pthread_mutex_unlock(&l->mutex);
	if (waiting) {
		loop_lock_give(l);
		loop_lock_take(l);
	}
}

int loop_lock_run(sd_event *e, struct loop_lock *lock)
{
	int r, code = 0;

	loop_lock_take(lock);
	for (;;) {
		r = sd_event_get_state(e);
		if (r < 0)
			break;
		if (r == SD_EVENT_FINISHED) {
			r = sd_event_get_exit_code(e, &code);
			if (r >= 0)
				r = code;
			break;
		}
		/* Arms the timers (and the watchdog's) in the loop's epoll set. */
		r = sd_event_prepare(e);
		if (r == 0) {
			struct pollfd p = { .fd = sd_event_get_fd(e), .events = POLLIN };

			loop_lock_give(lock);
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				r = -errno;
			loop_lock_take(lock);
			if (r < 0)
				break;
			r = sd_event_wait(e, 0);
		}
		if (r > 0)
			r = sd_event_dispatch(e);
		if (r < 0)
			break;
		/* A busy loop has no idle moment: the other thread gets its turn here. */
		yield_to_waiters(lock);
	}
	loop_lock_give(lock);
	return r;
}
