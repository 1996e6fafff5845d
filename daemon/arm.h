/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - arming a thread: the layer its next fork (or its prctl) applies */
#ifndef UMBRELLA_ARM_H
#define UMBRELLA_ARM_H

#include <stdint.h>

#include "layers.h"

/*
 * The arm protocol, the one copy (umbrellad's server, the VM tests, the benchmark):
 *  1. arm_thread_at() gives the arm a reference on the layer, counts it in umb_live.arms
 *     and writes umb_arm[tid] (in that order: the kernel never finds an entry while
 *     the count says there is none).
 *  2. The thread forks: task.bpf.c's task_alloc takes the entry out of the map and
 *     gives the child the layer (its reference becomes the child's), or refuses the
 *     fork (and drops it). With UMB_ARM_SELF, the thread's prctl(UMB_PRCTL_APPLY) does
 *     the same for itself.
 *  3. The thread learns the outcome from the kernel, without asking umbrellad: the fork
 *     failed, or prctl(UMB_PRCTL_DISARM) answers UMB_PRCTL_YES (the fork used the arm)
 *     or takes back an arm the fork did not use (the fork failed before task_alloc).
 *     An arm its thread never uses goes with the thread (task_free).
 */

/*
 * arm_thread_at() - arm thread @tid of process @tgid, started at @start (thread_start()),
 * with the live layer @layer
 * @flags: UMB_ARM_ON_EXEC (the child gets it at its next exec), UMB_ARM_SELF
 *
 * The kernel uses the arm only for that thread: a task that reuses the thread id (the
 * thread ended before the arm was written) has another start time, and the kernel
 * deletes the arm at its first fork, prctl or exit.
 *
 * Return: 0, -EEXIST when the thread is armed already (it takes its arm back with
 * prctl(UMB_PRCTL_DISARM)), -EBUSY when umb_arm is full, -ENOENT when @layer is not
 * live, or -errno.
 */
int arm_thread_at(struct layers *l, uint32_t tid, uint32_t tgid, uint64_t start, uint32_t layer,
		  uint32_t flags);

/* arm_thread() - arm_thread_at() with the start time /proc/TGID/task/TID/stat shows now
 * (the VM tests and the benchmark, which arm their own threads); -ESRCH when there is
 * no such thread. */
int arm_thread(struct layers *l, uint32_t tid, uint32_t tgid, uint32_t layer, uint32_t flags);

/*
 * arm_take() - take back thread @tid's arm, if it is there (umbrellad: a thread that
 * is gone). Return: whether there was one.
 */
int arm_take(struct layers *l, uint32_t tid);

/* arm_sweep() - take back the arms of threads that are gone, or whose thread id another
 * thread has now (the kernel deletes them at the thread's exit, but Linux 6.1 may fail
 * that under contention). Return: how many.
 * 6.1: remove when 6.1 goes (the whole sweep: only 6.1 leaves such arms). */
unsigned int arm_sweep(struct layers *l);

#endif /* UMBRELLA_ARM_H */
