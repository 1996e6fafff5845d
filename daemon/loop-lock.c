// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - an sd-event loop run under a lock (loop-lock.h) */
#include <errno.h>
#include <poll.h>

#include "loop-lock.h"

pthread_mutex_t main_loop_lock = PTHREAD_MUTEX_INITIALIZER;

int loop_lock_run(sd_event *e, pthread_mutex_t *lock)
{
	int r, code = 0;

	pthread_mutex_lock(lock);
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

			pthread_mutex_unlock(lock);
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				r = -errno;
			pthread_mutex_lock(lock);
			if (r < 0)
				break;
			r = sd_event_wait(e, 0);
		}
		if (r > 0)
			r = sd_event_dispatch(e);
		if (r < 0)
			break;
	}
	pthread_mutex_unlock(lock);
	return r;
}
