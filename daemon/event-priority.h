/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - the order in which its event sources are served (sd-event priorities).
 *
 * umbrellad has two loops, on two threads (gate-thread.c): the main one (signals, the
 * socket, the denial and release records, the mounts below restricted directories) and
 * the exec gate's (fanotify, BPF's invalidations, its own mounts, the key ring, library
 * directories, the files being verified). sd-event dispatches one pending source per
 * turn of a loop, the one with the lowest priority value first, and among equals the one
 * pending the longest. So a source above another that stays pending starves it: only
 * what no user can keep pending sits above the rest. First a stop or reload, then what
 * one thread asks of the other's loop (gate-bridge.c: one thing at a time, served after
 * the event in progress), then BPF's invalidations (an ignore mark must not outlive its
 * verdict; one needs a verification first, so no user can keep them coming), then what
 * root changes of the gate's view (mounts in umbrellad's namespace, the key ring). Last,
 * in turn by age, what any user can make busy: the exec gate's fanotify events (a loop
 * that makes and execs new files; the handler reads the invalidations first itself),
 * library directories a user can write to and a step of the files being verified, in
 * the gate's loop; the denial and release records (a loop of denied calls), the
 * requests on the socket, new connections and the timers, in the main loop. A large
 * file being verified never blocks another owner's exec, and a flood of execs or
 * denials stalls neither loop; no request delays an exec's answer (but the exec of a
 * signed binary whose policy's layer the main loop makes, gate-bridge.c).
 */
#ifndef UMBRELLA_EVENT_PRIORITY_H
#define UMBRELLA_EVENT_PRIORITY_H

#include <stdint.h>
#include <time.h>

#include <systemd/sd-event.h>

enum {
	PRIORITY_SIGNAL = SD_EVENT_PRIORITY_IMPORTANT - 20,
	PRIORITY_BRIDGE = SD_EVENT_PRIORITY_IMPORTANT - 15,
	PRIORITY_INVALIDATED = SD_EVENT_PRIORITY_IMPORTANT - 10,
	PRIORITY_GATE_WATCH = SD_EVENT_PRIORITY_IMPORTANT + 10,
	PRIORITY_WORK = SD_EVENT_PRIORITY_NORMAL,
};

/* sd_event_add_io() with its place in that order, @priority. *@ret is set only when
 * both succeed. Return: 0 or -errno. */
static inline int event_add_io(sd_event *e, sd_event_source **ret, int fd, uint32_t events,
			       int64_t priority, sd_event_io_handler_t handler, void *userdata)
{
	sd_event_source *s = NULL;
	int r;

	r = sd_event_add_io(e, &s, fd, events, handler, userdata);
	if (r < 0)
		return r;
	r = sd_event_source_set_priority(s, priority);
	if (r < 0) {
		sd_event_source_unref(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* A CLOCK_MONOTONIC timer of @handler (@accuracy in usec), at @priority, off until
 * armed (sd_event_source_set_time(), then SD_EVENT_ONESHOT). *@ret is set only when
 * all succeed. Return: 0 or -errno. */
static inline int event_add_timer_off(sd_event *e, sd_event_source **ret, uint64_t accuracy,
				      int64_t priority, sd_event_time_handler_t handler,
				      void *userdata)
{
	sd_event_source *s = NULL;
	int r;

	r = sd_event_add_time(e, &s, CLOCK_MONOTONIC, 0, accuracy, handler, userdata);
	if (r < 0)
		return r;
	r = sd_event_source_set_priority(s, priority);
	if (r >= 0)
		r = sd_event_source_set_enabled(s, SD_EVENT_OFF);
	if (r < 0) {
		sd_event_source_unref(s);
		return r;
	}
	*ret = s;
	return 0;
}

#endif /* UMBRELLA_EVENT_PRIORITY_H */
