/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - an sd-event loop run under a lock, and the main loop's lock.
 *
 * umbrellad has two loops on two threads: the main one (the socket, the denial and
 * release records, the layers, the signals, the watchdog) and the exec gate's
 * (gate-thread.c), so that no request delays the answer to an exec. sd-event is not
 * thread-safe, and the two share a little: the gate makes the layers of signed
 * policies (layers.c, fs-watch.c, whose sources are the main loop's), and the main
 * thread flushes the gate's verdicts and reloads its key ring. So each loop runs under
 * a lock of its own, held while its thread serves an event or touches the loop, and let
 * go only while it waits for one (poll() on sd_event_get_fd()): the other thread takes
 * that lock to reach what the loop owns, between two of its events.
 *
 * Lock order: the gate's lock, then the main loop's (the gate makes a layer while it
 * serves an exec). The main thread never holds both: it lets go of its own before it
 * takes the gate's (exec-gate.c), so neither can wait for the other in a circle.
 */
#ifndef UMBRELLA_LOOP_LOCK_H
#define UMBRELLA_LOOP_LOCK_H

#include <pthread.h>

#include <systemd/sd-event.h>

/*
 * loop_lock_run() - runs @e until sd_event_exit(), as sd_event_loop() would, holding
 * @lock except while it waits for the next event (sd-event's watchdog, timers and
 * exit work unchanged: prepare, poll, wait, dispatch, sd_event_prepare(3)).
 * Return: the exit code, or -errno.
 */
int loop_lock_run(sd_event *e, pthread_mutex_t *lock);

/* The main loop's lock (see above): loop_lock_run()'s @lock for the main loop. */
extern pthread_mutex_t main_loop_lock;

#endif /* UMBRELLA_LOOP_LOCK_H */
