/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - systemd's watchdog, petted while both loops turn */
#ifndef UMBRELLA_WATCHDOG_H
#define UMBRELLA_WATCHDOG_H

#include <systemd/sd-event.h>

struct exec_gate;

/*
 * watchdog_attach() - under WatchdogSec= (sd_watchdog_enabled(3)), pets systemd's
 * watchdog from the main loop @e at half its interval, while the gate @gate (may be
 * NULL) is alive (exec_gate_alive()). Without a watchdog it does nothing.
 * Return: 0 or -errno (logged).
 */
int watchdog_attach(sd_event *e, struct exec_gate *gate);

#endif
