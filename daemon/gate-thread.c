// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's thread: its own sd-event loop, so that the answer to an
 * exec never waits behind the main loop's work.
 *
 * While the kernel holds an exec on a gated file system, the exec'ing task waits for
 * our answer. On the main loop that answer could wait for a whole request (its mounts
 * counted against a budget of up to 4 s, mount-guard.h), a burst of denial records or
 * a reload. Here the gate's sources (fanotify, BPF's invalidations, the mounts, the
 * key ring, the library directories, the turns of the files being verified) have a
 * loop and a thread of their own; inside it they keep their order and the turns per
 * owner (event-priority.h, gate-verify.c) as before.
 *
 * What the gate shares with the main thread has one owner or a lock: the gate's state
 * is its thread's, under g->lock (loop-lock.h), which the main thread's three calls
 * (exec_gate_flush(), exec_gate_reload_keyring(), and the count of rejected key files,
 * an atomic) take; the layers of signed policies are the main loop's, and the gate
 * takes main_loop_lock to make or look one up (gate-policies.c): only the exec of a
 * signed binary whose policy needs it can wait for the main loop's current event.
 * umb_ctl's read, modify, write is under state.c's lock. The messages are whole lines
 * (log.c writes each under stdio's lock; journal-writer.c's rate limit is the main
 * loop's, the gate writes none of it).
 *
 * Every signal stays the main thread's (sd-event's signalfd), as for closer.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event-priority.h"
#include "gate-internal.h"
#include "log.h"
#include "loop-lock.h"
#include "macro.h"

/* exec_gate_stop(): the loop ends after the event it serves. */
static int on_stop(sd_event_source *s, _unused_ int fd, _unused_ uint32_t revents,
		   _unused_ void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void *run(void *arg)
{
	struct exec_gate *g = arg;
	int r = loop_lock_run(g->loop, &g->lock);

	/* The execs it held are answered by the kernel when the group closes, and BPF
	 * decides by the pinned verdicts meanwhile: say why the gate stopped. */
	if (r < 0)
		log_error_errno(r, "exec gate: its event loop failed: %m");
	return NULL;
}

int exec_gate_start(struct exec_gate *g)
{
	sigset_t all, old;
	int r;

	r = sd_event_new(&g->loop);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot create its event loop: %m");
	g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->stop_fd < 0)
		return log_error_errno(errno, "exec gate: cannot create its stop event: %m");
	r = event_add_io(g->loop, &g->stop_source, g->stop_fd, EPOLLIN, PRIORITY_SIGNAL, on_stop,
			 g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch its stop event: %m");
	r = exec_gate_attach(g, g->loop);
	if (r < 0)
		return r;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&g->thread, NULL, run, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot start its thread: %m");
	g->running = true;
	return 0;
}

void exec_gate_stop(struct exec_gate *g)
{
	if (!g || !g->running)
		return;
	(void)eventfd_write(g->stop_fd, 1);
	(void)pthread_join(g->thread, NULL);
	g->running = false;
}

void gate_lock_from_main(struct exec_gate *g)
{
	pthread_mutex_unlock(&main_loop_lock);
	pthread_mutex_lock(&g->lock);
}

void gate_unlock_to_main(struct exec_gate *g)
{
	pthread_mutex_unlock(&g->lock);
	pthread_mutex_lock(&main_loop_lock);
}
