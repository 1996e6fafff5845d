/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - the order in which its event sources are served (sd-event priorities).
 *
 * sd-event dispatches one pending source per turn of the loop, the one with the lowest
 * priority value first, and among equals the one pending the longest. These values keep
 * the order of umbrellad's earlier poll() loop where it matters: a stop or reload first,
 * then BPF's invalidations (an ignore mark must not outlive its verdict), then the exec
 * gate's fanotify events (an exec waits on each), then what changes the gate's view
 * (mounts, the key ring, library directories), then the denial and release records (a
 * released layer no longer counts against its user before the next request is served),
 * and last, in turn by age, the requests on the socket, new connections, a step of the
 * files being verified and the timers: a large file being verified never blocks the
 * socket, and a busy socket never stalls a verification.
 */
#ifndef UMBRELLA_EVENT_PRIORITY_H
#define UMBRELLA_EVENT_PRIORITY_H

#include <systemd/sd-event.h>

enum {
	PRIORITY_SIGNAL = SD_EVENT_PRIORITY_IMPORTANT - 20,
	PRIORITY_INVALIDATED = SD_EVENT_PRIORITY_IMPORTANT - 10,
	PRIORITY_FANOTIFY = SD_EVENT_PRIORITY_IMPORTANT,
	PRIORITY_GATE_WATCH = SD_EVENT_PRIORITY_IMPORTANT + 10,
	PRIORITY_RECORDS = SD_EVENT_PRIORITY_NORMAL - 10,
	PRIORITY_WORK = SD_EVENT_PRIORITY_NORMAL,
};

#endif /* UMBRELLA_EVENT_PRIORITY_H */
