// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - task lifecycle: restrictions follow a task into its children.
 *
 * Architecture:
 *   lsm/task_alloc   copies the creating task's state into the new task (processes and
 *                    threads alike), so a child starts with every layer its parent has.
 *                    Task storage survives exec, so restrictions are kept across it.
 */
#include "maps.bpf.h"

SEC("lsm/task_alloc")
int BPF_PROG(umb_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct umb_task_state *parent, *child;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	/* Quick return: an unrestricted parent has nothing to pass on. */
	parent = umb_task_state_get(bpf_get_current_task_btf());
	if (!parent)
		return 0;

	child = bpf_task_storage_get(&umb_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	/* No memory for the child's state: refuse the fork (fail closed), never let the
	 * child run without its parent's restrictions. */
	if (!child)
		return -ENOMEM;
	*child = *parent;
	return 0;
}
