// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's thread: its own sd-event loop, so that the answer to an
 * exec never waits behind the main loop's work.
 *
 * While the kernel holds an exec on a gated file system, the exec'ing task waits for
 * our answer. On the main loop that answer could wait for a whole request (its mounts
 * counted against a budget of up to MOUNT_BUDGET_USEC), a burst of denial records or a
 * reload. Here the gate's sources (fanotify, BPF's invalidations, the mounts, the key
 * ring, the library directories, the turns of the files being verified) have a loop and
 * a thread of their own; inside it they keep their order and the turns per owner
 * (event-priority.h, gate-verify.c) as before.
 *
 * Both loops run plainly (sd_event_loop()), each touched by its own thread only, and
 * no lock is held around a wait: an earlier design let go of a lock around a poll() of
 * sd-event's epoll descriptor, and that nested epoll consumed the POLLPRI of every
 * followed /proc/PID/mountinfo (the kernel's mounts_poll() records the change as seen),
 * so new mounts below restricted directories went unfollowed. What one thread needs of
 * the other goes as a message to the other's loop (gate-bridge.c): the layer of a signed
 * policy (the main loop's), a flush or a key ring reload (the gate's). The rest they
 * share is thread-safe: umb_ctl's read, modify, write is under state.c's lock, the count
 * of rejected key files is an atomic, log.c writes each message whole under stdio's
 * lock, sd_journal_send() is thread-safe and journal-writer.c's rate limit is the main
 * loop's (the gate writes none of it).
 *
 * Every signal stays the main thread's (sd-event's signalfd), as for closer.c. A gate
 * loop that fails ends umbrellad at once: a gate that stopped serving would hold every
 * exec it is asked about for ever (the kernel has no time limit), while the main loop,
 * alive, keeps the watchdog quiet. The group closes, the kernel answers the held execs,
 * BPF decides by the pinned verdicts and the mode, and systemd starts umbrellad again.
 *
 * A gate loop that is stuck, not failed (a read that never returns, a bug), holds every
 * exec the same way, and only the watchdog can end it: the main loop pets systemd only
 * while the gate's loop turns (watchdog.c, exec_gate_alive()). The gate stamps each turn
 * (a post source, dispatched first after any other, so a flood of events does not
 * starve it) and each event and job's step within a turn (gate_progress(): a long turn
 * of many budgeted events is busy, not stuck), and the main thread pings the gate's
 * loop at each pet so that an idle gate turns too: past GATE_STALL_USEC with a ping
 * unanswered and no progress stamped the gate is stuck.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event-priority.h"
#include "gate-internal.h"
#include "log.h"
#include "macro.h"

/* exec_gate_stop(): the loop ends after the event it serves. */
static int on_stop(sd_event_source *s, _unused_ int fd, _unused_ uint32_t revents,
		   _unused_ void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* A turn of the gate's loop: the watchdog's proof that it is not stuck. */
static int on_turn(_unused_ sd_event_source *s, void *userdata)
{
	struct exec_gate *g = userdata;

	atomic_store(&g->turn_usec, now_usec());
	return 0;
}

/* The main thread's ping: it makes a turn (on_turn() stamps it). */
static int on_ping(_unused_ sd_event_source *s, int fd, _unused_ uint32_t revents, void *userdata)
{
	struct exec_gate *g = userdata;
	eventfd_t n;

	(void)eventfd_read(fd, &n);
	atomic_store(&g->turn_usec, now_usec());
	return 0;
}

/* Makes the gate's loop and attaches its sources. Return: 0 or -errno (logged). */
static int loop_start(struct exec_gate *g)
{
	int r;

	r = sd_event_new(&g->loop);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot create its event loop: %m");
	r = event_add_io(g->loop, &g->stop_source, g->stop_fd, EPOLLIN, PRIORITY_SIGNAL, on_stop,
			 g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch its stop event: %m");
	r = event_add_io(g->loop, &g->ping_source, g->ping_fd, EPOLLIN, PRIORITY_SIGNAL, on_ping,
			 g);
	if (r >= 0)
		r = sd_event_add_post(g->loop, &g->turn_source, on_turn, g);
	if (r >= 0)
		r = sd_event_source_set_priority(g->turn_source, PRIORITY_SIGNAL);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot stamp its turns: %m");
	r = gate_bridge_attach_gate(g, g->loop);
	if (r < 0)
		return r;
	return gate_attach(g, g->loop);
}

static void *run(void *arg)
{
	struct exec_gate *g = arg;
	int r;

	/* Its name, for ps and for the tests that stop it (test-gate-thread). */
	(void)pthread_setname_np(pthread_self(), "umbrellad-gate");
	r = loop_start(g);

	pthread_mutex_lock(&g->bridge_lock);
	g->start_result = r;
	pthread_cond_broadcast(&g->bridge_changed);
	pthread_mutex_unlock(&g->bridge_lock);
	if (r >= 0) {
		r = sd_event_loop(g->loop);
		if (r < 0) {
			log_error_errno(r,
					"exec gate: its event loop failed (%m): umbrellad exits");
			_exit(EXIT_FAILURE);
		}
	}
	/* The loop's sources go with it, on its thread. */
	gate_detach(g);
	g->loop = sd_event_unref(g->loop);
	return NULL;
}

int exec_gate_start(struct exec_gate *g)
{
	sigset_t all, old;
	int r;

	g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->stop_fd < 0)
		return log_error_errno(errno, "exec gate: cannot create its stop event: %m");
	g->ping_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->ping_fd < 0)
		return log_error_errno(errno, "exec gate: cannot create its ping event: %m");
	atomic_store(&g->turn_usec, now_usec());
	g->ping_usec = 0;
	g->stall_said = false;
	g->start_result = 1;
	/* Before the thread exists: from now on the main thread asks it (gate-bridge.c). */
	g->running = true;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&g->thread, NULL, run, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		g->running = false;
		return log_error_errno(r, "exec gate: cannot start its thread: %m");
	}
	pthread_mutex_lock(&g->bridge_lock);
	while (g->start_result > 0)
		pthread_cond_wait(&g->bridge_changed, &g->bridge_lock);
	r = g->start_result;
	pthread_mutex_unlock(&g->bridge_lock);
	if (r < 0) {
		(void)pthread_join(g->thread, NULL);
		g->running = false;
	}
	return r;
}

void exec_gate_stop(struct exec_gate *g)
{
	if (!g || !g->running)
		return;
	/* A layer the gate waits for will not come: it refuses that exec at once. */
	gate_bridge_close(g);
	(void)eventfd_write(g->stop_fd, 1);
	(void)pthread_join(g->thread, NULL);
	g->running = false;
}

bool exec_gate_alive(struct exec_gate *g)
{
	uint64_t now = now_usec(), turn;

	if (!g || !g->running)
		return true;
	turn = atomic_load(&g->turn_usec);
	if (turn >= g->ping_usec) {
		/* The last ping was answered: ping again, for the next look. Stamped
		 * first, so the gate's answer is later than it. */
		g->ping_usec = now;
		(void)eventfd_write(g->ping_fd, 1);
		if (g->stall_said)
			log_notice("exec gate: its loop turns again: the watchdog is petted again");
		g->stall_said = false;
		return true;
	}
	if (now - g->ping_usec <= GATE_STALL_USEC)
		return true; /* busy with an event, for now */
	if (!g->stall_said)
		log_error("exec gate: its loop has not turned for %llu s with work waiting "
			  "(a ping unanswered since %llu s): it is stuck and holds every exec, "
			  "so umbrellad stops petting systemd's watchdog",
			  (unsigned long long)((now - turn) / USEC_PER_SEC),
			  (unsigned long long)((now - g->ping_usec) / USEC_PER_SEC));
	g->stall_said = true;
	return false;
}
