// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - the thread that closes what callers sent (closer.h) */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "closer.h"

/*
 * Closes @fd. A socket's SO_LINGER is turned off first, so that its release does not
 * wait for unsent data (the data still goes, as after any close). What else waits
 * (a FUSE or NFS flush, a tty draining) waits here.
 */
static void close_one(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){ .l_onoff = 0 },
				 sizeof(struct linger));
	(void)close(fd);
}

static void *run(void *arg)
{
	struct closer *c = arg;

	for (;;) {
		struct closer_job *j;

		pthread_mutex_lock(&c->lock);
		while (!c->count && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		if (!c->count) {
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		j = c->queue[c->head];
		c->head = (c->head + 1) % c->capacity;
		c->count--;
		c->busy = true;
		pthread_mutex_unlock(&c->lock);

		for (size_t i = 0; i < j->count; i++)
			close_one(j->fds[i]);
		j->count = 0;
		pthread_mutex_lock(&c->lock);
		c->busy = false;
		pthread_mutex_unlock(&c->lock);
		atomic_store(&j->done, true);
		(void)eventfd_write(c->done_fd, 1);
	}
}

int closer_start(struct closer *c, size_t capacity)
{
	sigset_t all, old;
	int r;

	*c = (struct closer){ .capacity = capacity, .done_fd = -1 };
	c->queue = calloc(capacity, sizeof(*c->queue));
	if (!c->queue)
		return -ENOMEM;
	c->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->done_fd < 0) {
		r = -errno;
		goto fail;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	/* Every signal stays the loop thread's (sd-event's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&c->thread, NULL, run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		goto fail;
	c->started = true;
	return 0;

fail:
	if (c->done_fd >= 0)
		close(c->done_fd);
	free(c->queue);
	*c = (struct closer){ .done_fd = -1 };
	return r;
}

int closer_push(struct closer *c, struct closer_job *j)
{
	int r = 0;

	atomic_store(&j->done, false);
	pthread_mutex_lock(&c->lock);
	if (c->count == c->capacity) {
		r = -ENOSPC;
	} else {
		c->queue[(c->head + c->count) % c->capacity] = j;
		c->count++;
		pthread_cond_signal(&c->wake);
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

void closer_stop(struct closer *c)
{
	bool idle;

	if (!c->started)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	idle = c->count == 0 && !c->busy;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	if (idle)
		(void)pthread_join(c->thread, NULL);
	else
		(void)pthread_detach(c->thread);
	c->started = false;
}
