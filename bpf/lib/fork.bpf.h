/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the verdict on a new task: the "fork" item, and the scope's rule on
 * clone3(CLONE_INTO_CGROUP). Called first by task.bpf.c's task_alloc program, before
 * the new task inherits anything (see there why the order matters).
 */
#ifndef UMBRELLA_FORK_BPF_H
#define UMBRELLA_FORK_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "domain.bpf.h"
#include "layers.bpf.h"
#include "scope.bpf.h"

/* include/uapi/linux/sched.h */
#define UMB_CLONE_INTO_CGROUP 0x200000000ULL

/*
 * umb_fork_verdict() - whether the current task, whose state is @state (NULL:
 * unrestricted), may create a task with @clone_flags: 0, or the denial's verdict
 * (-EPERM, or 0 in permissive mode), recorded as task_alloc.
 */
static __always_inline int umb_fork_verdict(const struct umb_task_state *state,
					    unsigned long clone_flags)
{
	/* The scope: clone3(CLONE_INTO_CGROUP) places the child in a cgroup that the
	 * task only had to open for reading: umbrellad's, to use up its limits. */
	if ((clone_flags & UMB_CLONE_INTO_CGROUP) && umb_is_restricted(state))
		return umb_scope_deny(UMB_HOOK_TASK_ALLOC, UMB_SCOPE_KERNEL, 0);
	/* "fork": new processes. Threads (pthread_create, io_uring workers) stay allowed. */
	if ((clone_flags & CLONE_THREAD) || !state || !(state->denied_caps & UMB_CR_FORK))
		return 0;
	return umb_deny(UMB_HOOK_TASK_ALLOC, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_FORK),
			UMB_ITEM_CAP, UMB_CR_FORK, 0);
}

#endif /* UMBRELLA_FORK_BPF_H */
