/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - a process's uids, as its /proc/PID/status tells them */
#ifndef UMBRELLA_PROC_STATUS_H
#define UMBRELLA_PROC_STATUS_H

#include <sys/types.h>

/*
 * proc_status_uids() - the real, effective, saved and file system uids (in this order,
 * in the reader's user namespace) of the process whose /proc directory is @dir: its
 * "Uid:" line
 *
 * Return: 0, or -errno (-EBADMSG: no such line).
 */
int proc_status_uids(int dir, uid_t ret_uids[4]);

#endif
