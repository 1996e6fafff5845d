// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - task lifecycle: restrictions follow a task into its children and across
 * exec, layers are pushed only here, and the references of a task's layers are taken
 * and dropped only here.
 *
 * Architecture:
 *   lsm/task_alloc             first the verdict on the new task ("fork", and the
 *                              scope's CLONE_INTO_CGROUP: lib/fork.bpf.h), then copies
 *                              the creating task's state into the new task
 *                              (processes and threads alike), with a reference on each
 *                              of its layers; for a process created by a thread that
 *                              umbrellad armed (rfork), pushes the armed layer on the
 *                              child's stack, or leaves it pending until the child's next
 *                              exec, and deletes the arm. Fails the fork rather than let
 *                              a child run without a layer it should have.
 *   tp_btf/sched_process_exit  drops the task's references, and an arm its thread
 *                              left, at its exit (process context).
 *   lsm/task_free              the same for a task that never ran (a fork refused
 *                              after task_alloc) or whose exit missed it; notices
 *                              umbrellad's end (lib/protect.bpf.h).
 *   lsm/task_prctl             UMB_PRCTL_APPLY: a thread armed for itself
 *                              (restrict_self) pushes its layer; UMB_PRCTL_DISARM and
 *                              UMB_PRCTL_CARRIES tell rfork() whether the child got it.
 *   (lsm/bprm_creds_for_exec   exec.bpf.c's program refuses an exec that could not
 *                              take the pending layer.)
 *   lsm/bprm_committed_creds   pushes the pending layer once the exec cannot fail, then
 *                              the layer of the signed binary it runs (carried in
 *                              umb_exec by exec.bpf.c's bprm_check_security, which
 *                              made sure it fits).
 * Task storage survives exec, so everything else is kept across it.
 * Every refusal here stands in permissive mode too (umb_ctl.flags is not read): it is
 * a layer that could not be applied, and letting the fork or exec go on would run a
 * task without a layer its parent asked for, which no later "mode = enforcing" can put
 * back. Permissive mode relaxes what layers deny, never whether a task gets them.
 *
 * Two versions of these programs may be attached at once (during an upgrade, before
 * the old links go), both run for each task: only the first to see a new task counts
 * its references (the second finds its state there already), and only the first to
 * see it freed drops them (the second finds it no longer UMB_TASK_COUNTED).
 */
#include "maps.bpf.h"
#include "lib/backing.bpf.h"
#include "lib/fork.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/protect.bpf.h"

/*
 * Takes the arm of thread @tid out of umb_arm, into @copy: from then on the caller owns
 * its reference on the layer. Returns 0, or -EAGAIN when the entry could not be deleted
 * (someone else took it, or the map was busy: the caller must not use it).
 */
static __always_inline int take_arm_entry(__u32 tid, const struct umb_arm *arm,
					  struct umb_arm *copy)
{
	struct umb_live *live = umb_live_get();

	*copy = *arm;
	if (bpf_map_delete_elem(&umb_arm, &tid))
		return -EAGAIN;
	if (live)
		__sync_fetch_and_sub(&live->arms, 1);
	return 0;
}

/*
 * The armed request of @task, or NULL. The process id and the start time guard against
 * a thread id reused by another task since umbrellad armed it: such an arm was left by
 * a thread that is gone (its exit did not delete it, or umbrellad wrote it after that
 * exit), so it is deleted here, its reference dropped, never used.
 */
static __always_inline struct umb_arm *find_arm(struct task_struct *task)
{
	__u32 tid = (__u32)task->pid;
	struct umb_arm *arm, stale;

	if (!umb_live_has_arms())
		return NULL; /* nothing armed anywhere: the usual case, one array lookup */
	arm = bpf_map_lookup_elem(&umb_arm, &tid);
	if (!arm || arm->state != UMB_ARM_ARMED)
		return NULL;
	if (arm->tgid == (__u32)task->tgid && arm->start == task->start_boottime / UMB_TICK_NS)
		return arm;
	if (!take_arm_entry(tid, arm, &stale))
		umb_layer_put(stale.layer);
	return NULL;
}

/* The current thread's arm for itself (@self_flag UMB_ARM_SELF) or for its next child
 * (0), or NULL. */
static __always_inline struct umb_arm *current_arm(__u32 self_flag)
{
	struct umb_arm *arm = find_arm(bpf_get_current_task_btf());

	if (!arm || (arm->flags & UMB_ARM_SELF) != self_flag)
		return NULL;
	return arm;
}

/* Gives @state the layer of the arm @arm (taken out of the map, with its reference),
 * now or at the next exec. Returns 0, or -EPERM after dropping the reference. */
static __always_inline int apply_arm(struct umb_task_state *state, const struct umb_arm *arm)
{
	if (arm->flags & UMB_ARM_ON_EXEC) {
		/* One pending layer at a time, and it must fit when the exec comes. */
		if (!state->pending_layer && state->layer_count < UMB_MAX_LAYERS &&
		    umb_layer_get(arm->layer)) {
			state->pending_layer = arm->layer;
			return 0;
		}
	} else if (!umb_push_layer(state, arm->layer)) {
		return 0;
	}
	umb_layer_put(arm->layer);
	return -EPERM;
}

/*
 * A new task's state: a copy of @parent's (if any), holding its layers. NULL when out
 * of memory or when a layer could not be held (with *@ret_error set). A state already
 * counted was made by another version of this program for the same task (see the top):
 * *@ret_exists is set and nothing is done. (A new task has no storage before this hook:
 * a state found here is never the parent's.)
 */
static __always_inline struct umb_task_state *inherit(struct task_struct *task,
						      const struct umb_task_state *parent,
						      int *ret_error, bool *ret_exists)
{
	struct umb_task_state *child;

	*ret_exists = false;
	*ret_error = -ENOMEM;
	child = bpf_task_storage_get(&umb_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!child)
		return NULL;
	if (child->flags & UMB_TASK_COUNTED) {
		*ret_exists = true;
		return NULL;
	}
	if (parent) {
		*child = *parent;
		if (umb_state_hold(child)) {
			/* Nothing is held: the task_free that follows the refusal drops nothing. */
			*ret_error = -EPERM;
			return NULL;
		}
	} else {
		child->flags = UMB_TASK_COUNTED; /* holds nothing yet */
	}
	return child;
}

/* What parent_state() returns when it cannot tell. */
#define UMB_STATE_UNKNOWN ((struct umb_task_state *)1)

/*
 * The state of the current task, to pass on to its new task: NULL when it is
 * unrestricted, UMB_STATE_UNKNOWN when that cannot be told. Linux 6.1 fails a task
 * storage lookup when the CPU's storage lock is busy (a program interrupted or
 * preempted in the middle of one), which reads as "no state": a task that has task
 * storage of any map is asked again with F_CREATE, which makes an empty state (nothing
 * to hold: unrestricted) only if there is none; a second failure fails the fork.
 */
static __always_inline struct umb_task_state *parent_state(void)
{
	struct task_struct *current = bpf_get_current_task_btf();
	struct umb_task_state *state = umb_task_state_get(current);

	if (state || !current->bpf_storage)
		return state;
	/* 6.1: remove when 6.1 goes (a lookup that fails on a busy storage lock: the retry). */
	state = umb_state_create(current);
	return state ?: UMB_STATE_UNKNOWN;
}

/*
 * The one program on task_alloc: the verdict, then the inheritance. In this order
 * because the inheritance has effects that a refused fork must not have: it takes the
 * thread's arm out of umb_arm (an rfork's layer), and UMB_PRCTL_DISARM would then tell
 * the caller that its child got the layer, of a fork that failed. (Two programs on the
 * hook, as before, ran in the order of their links, which an upgrade that kept one
 * link and replaced the other could reverse.)
 */
SEC("lsm/task_alloc")
int BPF_PROG(umb_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct umb_task_state *parent, *child;
	struct umb_arm *arm = NULL, taken;
	__u32 tid;
	bool exists;
	int r;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	parent = parent_state();
	if (parent == UMB_STATE_UNKNOWN)
		return -EAGAIN;
	r = umb_fork_verdict(parent, clone_flags);
	if (r)
		return r;
	if (!(clone_flags & CLONE_THREAD))
		arm = current_arm(0);

	if (!arm) {
		/* Quick return: an unrestricted parent has nothing to pass on. */
		if (!parent)
			return 0;
		/* No memory for the child's state: refuse the fork (fail closed), never
		 * let the child run without its parent's restrictions. */
		child = inherit(task, parent, &r, &exists);
		return child || exists ? 0 : r;
	}

	tid = (__u32)bpf_get_current_pid_tgid();
	if (take_arm_entry(tid, arm, &taken))
		return -EAGAIN;
	child = inherit(task, parent, &r, &exists);
	if (!child) {
		umb_layer_put(taken.layer);
		return exists ? -EAGAIN : r;
	}
	return apply_arm(child, &taken);
}

/*
 * Drops what @task holds: its arm, if its thread never used one (an rfork whose fork
 * failed before task_alloc), and the references of its state. Once, whoever comes
 * first: the exit of the task or its free (umb_state_put() and the arm's deletion are
 * idempotent).
 */
static __always_inline void release_task(struct task_struct *task)
{
	struct umb_task_state *state;
	struct umb_arm *arm, taken;
	__u32 tid = (__u32)task->pid;

	arm = find_arm(task);
	if (arm && !take_arm_entry(tid, arm, &taken))
		umb_layer_put(taken.layer);
	state = umb_task_state_get(task);
	if (state)
		umb_state_put(state);
}

/*
 * A task that exits can fork and exec no more: its references go here, in process
 * context. task_free is often later, from the RCU softirq, where Linux 6.1 fails a task
 * storage lookup if it interrupted another on the same CPU (about one exit in 250 in
 * the test VM, measured): the references would stay, and with them the layer, forever.
 * A tracing program, not an LSM hook: no LSM hook runs at exit.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(umb_sched_process_exit, struct task_struct *p)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->bpf_storage || umb_live_has_arms())
		release_task(task);
	return 0;
}

SEC("lsm/task_free")
int BPF_PROG(umb_task_free, struct task_struct *task)
{
	/* Usually done at exit already; not for a task whose fork failed after
	 * task_alloc, which never ran. */
	release_task(task);
	umb_protect_task_free(task);
	return 0;
}

/* Whether @state carries layer @id, on its stack or pending. */
static __always_inline bool carries(const struct umb_task_state *state, __u32 id)
{
	if (!state || !id)
		return false;
	return state->pending_layer == id || umb_state_has_layer(state, id);
}

SEC("lsm/task_prctl")
int BPF_PROG(umb_task_prctl, int option, unsigned long arg2, unsigned long arg3, unsigned long arg4,
	     unsigned long arg5, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct umb_task_state *state;
	struct umb_arm *arm, taken;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;

	if (ret)
		return ret;
	switch (option) {
	case UMB_PRCTL_CARRIES:
		return carries(umb_task_state_get(task), (__u32)arg2) ? -UMB_PRCTL_YES : -ENOENT;
	case UMB_PRCTL_DISARM:
		/* The fork used the arm (task_alloc deleted it), or it is still here (for a
		 * child, or for the thread itself after a failed request). */
		arm = find_arm(task);
		if (!arm)
			return -UMB_PRCTL_YES;
		if (!take_arm_entry(tid, arm, &taken))
			umb_layer_put(taken.layer);
		return -ENOENT;
	case UMB_PRCTL_APPLY:
		break;
	default:
		return 0; /* not ours: left to the kernel */
	}

	arm = current_arm(UMB_ARM_SELF);
	if (!arm)
		return -EPERM; /* nothing armed for this thread */
	/* The layer umbrellad answered this thread with (arg2), not one armed by anyone
	 * else: otherwise the arm stays, for UMB_PRCTL_DISARM. */
	if (arm->layer != (__u32)arg2)
		return -EPERM;
	if (take_arm_entry(tid, arm, &taken))
		return -EAGAIN;
	state = umb_state_create(task);
	if (!state) {
		umb_layer_put(taken.layer);
		return -ENOMEM;
	}
	return apply_arm(state, &taken) ?: -UMB_PRCTL_YES;
}

SEC("lsm/bprm_committed_creds")
int BPF_PROG(umb_bprm_committed_creds, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct umb_task_state *state = umb_task_state_get(task);
	struct umb_exec_layer *carry;
	__u32 pending, layer;

	umb_backing_exec_forget(task); /* before the test of task->bpf_storage below */
	if (!state) {
		if (!task->bpf_storage)
			return 0; /* unrestricted, and no signed binary's layer (it makes a state) */
		/* A lookup that failed (Linux 6.1 under contention, see parent_state()) must
		 * not run the new program without its layers: ask again; the exec is past its
		 * point of no return, so if that fails too it is killed.
		 * 6.1: remove when 6.1 goes (the lookup no longer fails: no retry, no kill). */
		state = umb_state_create(task);
		if (!state) {
			bpf_send_signal(9 /* SIGKILL */);
			return 0;
		}
	}
	if (state->pending_layer) {
		pending = state->pending_layer;
		state->pending_layer = 0;
		/* Checked in bprm_creds_for_exec (exec.bpf.c); the pending layer's reference
		 * becomes the stack's. */
		if (umb_push_layer(state, pending)) {
			umb_layer_put(pending);
			bpf_send_signal(9 /* SIGKILL */);
		}
	}
	if (!(state->flags & UMB_TASK_CARRYING))
		return 0;
	state->flags &= ~UMB_TASK_CARRYING;
	carry = bpf_task_storage_get(&umb_exec, task, NULL, 0);
	if (!carry) {
		/* bprm_check_security carried a layer that cannot be read now: never run the
		 * binary without it. */
		bpf_send_signal(9 /* SIGKILL */);
		return 0;
	}
	layer = carry->layer;
	bpf_task_storage_delete(&umb_exec, task);
	if (!layer)
		return 0;
	/* On top of the pending layer: the binary's own restrictions are the innermost.
	 * Its reference is taken here: the exec gate holds the layer while its verdict may
	 * be cached (daemon/exec-gate.c), so it is alive. Checked in bprm_check_security;
	 * should the push fail all the same, the binary must not run without its layer: the
	 * exec is past its point of no return, so the new program is killed before it runs
	 * an instruction. */
	if (umb_layer_hold(layer)) {
		bpf_send_signal(9 /* SIGKILL */);
		return 0;
	}
	if (umb_push_layer(state, layer)) {
		umb_layer_put(layer);
		bpf_send_signal(9 /* SIGKILL */);
	}
	return 0;
}
