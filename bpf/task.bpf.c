// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - task lifecycle: restrictions follow a task into its children and across
 * exec, and layers are pushed only here.
 *
 * Architecture:
 *   lsm/task_alloc             copies the creating task's state into the new task
 *                              (processes and threads alike); for a process created by a
 *                              thread that umbrellad armed (rfork), pushes the armed layer
 *                              on the child's stack, or leaves it pending until the
 *                              child's next exec. Fails the fork rather than let a child
 *                              run without a layer it should have.
 *   lsm/task_prctl             UMB_PRCTL_APPLY: a thread armed for itself
 *                              (restrict_self) pushes its layer.
 *   lsm/bprm_creds_for_exec    refuses an exec that could not take the pending layer.
 *   lsm/bprm_committed_creds   pushes the pending layer once the exec cannot fail, then
 *                              the layer of the signed binary it runs (carried in
 *                              umb_exec by exec.bpf.c's bprm_check_security, which
 *                              made sure it fits).
 * Task storage survives exec, so everything else is kept across it.
 * Every refusal here stands in permissive mode too (umb_ctl.flags is not read): it is
 * a layer that could not be applied, and letting the fork or exec go on would run a
 * task without a layer its parent asked for, which no later "mode = enforcing" can put
 * back. Permissive mode relaxes what layers deny, never whether a task gets them.
 */
#include "maps.bpf.h"
#include "lib/layers.bpf.h"

/*
 * The armed request of the current thread, for itself (@self_flag UMB_ARM_SELF) or for
 * its next child (0), or NULL. The process id guards against a thread id reused by
 * another process since umbrellad armed it.
 */
static __always_inline struct umb_arm *current_arm(__u32 self_flag)
{
	struct umb_ctl *ctl = umb_ctl_get();
	struct umb_arm *arm;
	__u64 pid_tgid;
	__u32 tid;

	if (!ctl || !ctl->arm_count)
		return NULL; /* nothing armed anywhere: the usual case, one array lookup */
	pid_tgid = bpf_get_current_pid_tgid();
	tid = (__u32)pid_tgid;
	arm = bpf_map_lookup_elem(&umb_arm, &tid);
	if (!arm || arm->state != UMB_ARM_ARMED || (arm->flags & UMB_ARM_SELF) != self_flag ||
	    arm->tgid != pid_tgid >> 32)
		return NULL;
	return arm;
}

/* Gives @state the armed layer, now or at the next exec. Returns 0 or -EPERM. */
static __always_inline int take_arm(struct umb_task_state *state, struct umb_arm *arm)
{
	int r;

	if (arm->flags & UMB_ARM_ON_EXEC) {
		/* One pending layer at a time, and it must fit when the exec comes. */
		if (state->pending_layer || state->layer_count >= UMB_MAX_LAYERS ||
		    !bpf_map_lookup_elem(&umb_layers, &arm->layer))
			r = -EPERM;
		else {
			state->pending_layer = arm->layer;
			r = 0;
		}
	} else {
		r = umb_push_layer(state, arm->layer);
	}
	arm->state = r ? UMB_ARM_REFUSED : UMB_ARM_APPLIED;
	return r;
}

/* A new task's state: a copy of @parent's (if any). NULL when out of memory. */
static __always_inline struct umb_task_state *inherit(struct task_struct *task,
						      const struct umb_task_state *parent)
{
	struct umb_task_state *child;

	child = bpf_task_storage_get(&umb_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (child && parent)
		*child = *parent;
	return child;
}

SEC("lsm/task_alloc")
int BPF_PROG(umb_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct umb_task_state *parent, *child;
	struct umb_arm *arm = NULL;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	parent = umb_current_state();
	if (!(clone_flags & CLONE_THREAD))
		arm = current_arm(0);

	if (!arm) {
		/* Quick return: an unrestricted parent has nothing to pass on. */
		if (!parent)
			return 0;
		/* No memory for the child's state: refuse the fork (fail closed), never
		 * let the child run without its parent's restrictions. */
		return inherit(task, parent) ? 0 : -ENOMEM;
	}

	child = inherit(task, parent);
	if (!child) {
		arm->state = UMB_ARM_REFUSED;
		return -ENOMEM;
	}
	return take_arm(child, arm);
}

SEC("lsm/task_prctl")
int BPF_PROG(umb_task_prctl, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5, int ret)
{
	struct umb_task_state *state;
	struct umb_arm *arm;

	if (ret)
		return ret;
	/* Every other option is not ours: 0 leaves it to the kernel. */
	if (option != UMB_PRCTL_APPLY)
		return 0;

	arm = current_arm(UMB_ARM_SELF);
	if (!arm)
		return -EPERM; /* nothing armed for this thread */
	state = bpf_task_storage_get(&umb_task, bpf_get_current_task_btf(), NULL,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!state) {
		arm->state = UMB_ARM_REFUSED;
		return -ENOMEM;
	}
	return take_arm(state, arm);
}

SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(umb_bprm_creds_for_exec, struct linux_binprm *bprm, int ret)
{
	struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!state || !state->pending_layer)
		return 0;
	/* The pending layer must be pushed once the exec is committed, where nothing can
	 * fail any more: refuse the exec now if it would not fit (fail closed). */
	if (state->layer_count >= UMB_MAX_LAYERS)
		return -EPERM;
	return 0;
}

SEC("lsm/bprm_committed_creds")
int BPF_PROG(umb_bprm_committed_creds, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct umb_task_state *state = umb_task_state_get(task);
	struct umb_exec_layer *carry;
	__u32 pending, layer;

	if (!state)
		return 0; /* unrestricted, and no signed binary's layer (it creates the state) */
	if (state->pending_layer) {
		pending = state->pending_layer;
		state->pending_layer = 0;
		/* Checked in bprm_creds_for_exec; layers are never deleted while referenced. */
		umb_push_layer(state, pending);
	}
	carry = bpf_task_storage_get(&umb_exec, task, NULL, 0);
	if (!carry)
		return 0;
	layer = carry->layer;
	bpf_task_storage_delete(&umb_exec, task);
	/* On top of the pending layer: the binary's own restrictions are the innermost.
	 * Checked in bprm_check_security; should the push fail all the same, the binary
	 * must not run without its layer: the exec is past its point of no return, so the
	 * new program is killed before it runs an instruction. */
	if (layer && umb_push_layer(state, layer))
		bpf_send_signal(9 /* SIGKILL */);
	return 0;
}
