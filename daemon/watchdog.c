// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - systemd's watchdog (WatchdogSec= in the unit), petted by the main loop.
 *
 * sd-event's own watchdog (sd_event_set_watchdog()) proves only that the main loop
 * turns. The exec gate has a loop and thread of its own (gate-thread.c): stuck there (a
 * read that never returns, a bug), it holds every exec on a gated file system, for
 * ever, while the main loop pets on. So the pet also asks whether the gate's loop
 * turns (exec_gate_alive(): it answers a ping within GATE_STALL_USEC); when it does
 * not, the pets stop (logged), systemd kills umbrellad and starts it again, and the
 * kernel answers the held execs when the fanotify group closes. A gate that is only busy
 * (a flood of events, a layer it waits for) still turns, and is not killed.
 */
#include <errno.h>
#include <stdlib.h>

#include <systemd/sd-daemon.h>

#include "event-priority.h"
#include "exec-gate.h"
#include "log.h"
#include "macro.h"
#include "watchdog.h"

struct watchdog {
	struct exec_gate *gate;
	uint64_t interval; /* µs between two pets: half of WatchdogSec= */
};

static int on_pet(sd_event_source *s, _unused_ uint64_t usec, void *userdata)
{
	struct watchdog *w = userdata;

	if (exec_gate_alive(w->gate))
		(void)sd_notify(0, "WATCHDOG=1");
	return sd_event_source_set_time_relative(s, w->interval);
}

static void watchdog_free(void *userdata)
{
	free(userdata);
}

int watchdog_attach(sd_event *e, struct exec_gate *gate)
{
	sd_event_source *s = NULL;
	struct watchdog *w;
	uint64_t usec = 0;
	int r;

	r = sd_watchdog_enabled(0, &usec);
	if (r < 0)
		return log_error_errno(r, "Failed to read the watchdog's interval: %m");
	if (r == 0 || usec == 0)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return log_error_errno(-ENOMEM, "Failed to set up the watchdog: %m");
	*w = (struct watchdog){ .gate = gate, .interval = usec / 2 };
	r = sd_event_add_time_relative(e, &s, CLOCK_MONOTONIC, w->interval, 0, on_pet, w);
	if (r < 0) {
		free(w);
		return log_error_errno(r, "Failed to set up the watchdog: %m");
	}
	/* Floating: the loop owns it, and it owns w. */
	r = sd_event_source_set_destroy_callback(s, watchdog_free);
	if (r >= 0)
		r = sd_event_source_set_priority(s, PRIORITY_SIGNAL);
	if (r >= 0)
		r = sd_event_source_set_enabled(s, SD_EVENT_ON);
	if (r >= 0)
		r = sd_event_source_set_floating(s, 1);
	sd_event_source_unref(s);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the watchdog: %m");
	/* The first pet now: starting took a while. */
	(void)sd_notify(0, "WATCHDOG=1");
	return 0;
}
