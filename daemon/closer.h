/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - a thread that closes what callers sent, so that no close() of theirs can
 * block the event loop
 *
 * A descriptor's last close() runs its file's release, and close() of any copy its
 * flush: a TCP socket with SO_LINGER and unsent data waits up to its linger time, a
 * FUSE file sends FLUSH and waits (uninterruptibly) for a server the caller may run.
 * umbrellad's one loop thread closes only what cannot wait (O_PATH files, pidfds, its
 * own sockets once nothing can be queued on them); whatever else a caller sent is
 * closed here, in order. Such a close may take for ever: only the jobs queued behind
 * it wait, and every job holds a connection slot of the uid that sent it (server.c),
 * so the queue never holds more jobs than there are slots.
 */
#ifndef UMBRELLA_CLOSER_H
#define UMBRELLA_CLOSER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "request-fds.h"

/* The descriptors of one job: those of a request, and its connection. */
#define CLOSER_JOB_FDS (REQUEST_FDS_MAX + 2)

struct closer_job {
	int fds[CLOSER_JOB_FDS];
	size_t count;
	atomic_bool done; /* every descriptor closed (set by the thread) */
};

struct closer {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct closer_job **queue; /* a ring of @capacity jobs */
	size_t capacity, head, count;
	bool busy; /* closing a job's descriptors */
	bool stop;
	int done_fd; /* an eventfd, readable once a job is done */
};

/* closer_start() - start the thread, with room for @capacity jobs. Return: 0 or -errno. */
int closer_start(struct closer *c, size_t capacity);

/*
 * closer_push() - queue @j: its descriptors are closed in order, then j->done is set
 * and c->done_fd made readable. @j must stay allocated until then.
 * Return: 0, or -ENOSPC when @capacity jobs wait (the caller keeps @j: never blocks).
 */
int closer_push(struct closer *c, struct closer_job *j);

/* closer_stop() - let the thread end once its queue is empty; waits for it only if it
 * is idle (a close that never returns must not keep umbrellad from exiting). */
void closer_stop(struct closer *c);

#endif /* UMBRELLA_CLOSER_H */
