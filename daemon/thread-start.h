/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - a thread's start time, the identity an arm is bound to */
#ifndef UMBRELLA_THREAD_START_H
#define UMBRELLA_THREAD_START_H

#include <stdint.h>

/*
 * thread_start() - the start time of the thread whose stat file is @path (relative to
 * @dir_fd, or AT_FDCWD), in the clock ticks of field 22 of /proc/TID/stat: what the
 * kernel compares with task->start_boottime / UMB_TICK_NS before it uses an arm.
 *
 * Return: 0, -ENOENT or -ESRCH when the thread is gone, -EBADMSG, or -errno.
 */
int thread_start(int dir_fd, const char *path, uint64_t *ret_start);

#endif /* UMBRELLA_THREAD_START_H */
