/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - whether the umbrellad that umb_ctl names is still there, as user space can
 * tell.
 *
 * umbrellad registers its pid in umb_ctl.daemon_tgid (daemon/state.c), and the BPF side
 * clears it when umbrellad's thread group leader is freed (bpf/lib/protect.bpf.h): that
 * is what protection goes by. User space also has to tell a registration whose
 * process is gone but not cleared yet (a zombie not reaped, the RCU grace period
 * before the free, an umbrellad whose programs never attached and so cannot clear it),
 * or whose pid a new process reused: it reads the process's name. umbrellad (before it
 * takes over the pin directory) and umbrella-cli (status, metrics) use this one check.
 */
#ifndef UMBRELLA_COMMON_DAEMON_PID_H
#define UMBRELLA_COMMON_DAEMON_PID_H

#include <stdbool.h>
#include <stdint.h>

/* Whether process @pid exists and is named "umbrellad" (/proc/PID/comm), also one that
 * has exited and is not reaped yet. false for 0. */
bool daemon_pid_is_umbrellad(uint32_t pid);

/* A directory fd of /proc/@pid when that process is root's and named "umbrellad".
 * Files read through it are that process's or fail (ENOENT, ESRCH) once it is gone,
 * even when a new process has the same pid: what is read of it at different times
 * (its command line, its working directory) belongs to the one process.
 * Return: the fd (O_CLOEXEC), or -ESRCH when there is no such umbrellad, -errno. */
int daemon_pid_open(uint32_t pid);

#endif /* UMBRELLA_COMMON_DAEMON_PID_H */
