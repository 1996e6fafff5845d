// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - processes acting on processes: signals, ptrace, creating processes and
 * changing ids. The capability restrictions "signal", "ptrace", "fork" and "setid",
 * and the protection of umbrellad from restricted tasks.
 *
 * Architecture:
 *   lsm/task_kill              "signal": kill(2), tgkill(2), rt_sigqueueinfo(2),
 *                              pidfd_send_signal(2)... to a task outside the sender's
 *                              domain (signal 0 too). Any restricted task: umbrellad.
 *   lsm/file_fcntl             "signal", the SIGIO/SIGURG route: the owner of a file
 *   lsm/file_ioctl             (who gets its SIGIO) may be set only to the task itself,
 *   lsm/file_ioctl_compat      and the signal or async mode only of a file the task
 *                              owns (see may_own_sigio() for why not the whole domain).
 *                              Any restricted task: no TIOCSTI, TIOCLINUX (the scope,
 *                              lib/scope.bpf.h); no inode-flag ioctls (chattr +i,
 *                              lib/fsattr.bpf.h) on Umbrella's files
 *                              (lib/protect-files.bpf.h). fs rules: those ioctls ask w.
 *                              The compat hook exists since 6.8.
 *   lsm/file_send_sigiotask    no SIGIO/SIGURG ever reaches umbrellad.
 *   lsm/ptrace_access_check    the scope of every restricted task: PTRACE_ATTACH/SEIZE,
 *   lsm/ptrace_traceme         process_vm_readv/writev, /proc/PID/mem, pidfd_getfd and
 *                              every other ptrace access mode only inside the domain,
 *                              never umbrellad; PTRACE_TRACEME only to a parent inside.
 *                              "ptrace": none at all; "exec-unsigned": no
 *                              PTRACE_MODE_ATTACH (code changes) inside either.
 *   lsm/task_setrlimit         "signal": the limits of a process outside the domain
 *                              (RLIMIT_CPU kills). Any restricted task: umbrellad's.
 *   lsm/task_setscheduler      any restricted task: not umbrellad's scheduling,
 *   lsm/task_setnice           priority, I/O priority or memory placement.
 *   lsm/task_setioprio
 *   lsm/task_movememory
 *   lsm/task_alloc             "fork": new processes (threads stay allowed): in
 *                              lib/fork.bpf.h, called by task.bpf.c's program, the
 *                              one program on that hook.
 *   lsm/task_fix_setuid        "setid": setuid(2) & co. when an id would change,
 *   lsm/task_fix_setgid        setgroups(2) always, and the exec of a set-user-ID or
 *   lsm/task_fix_setgroups     set-group-ID program that would change the effective
 *   lsm/bprm_creds_from_file   ids. And the scope (UMB_SCOPE_PRIVILEGE): any exec that
 *                              gains privilege (ids, file capabilities) under a layer
 *                              a user other than root chose, even in permissive mode.
 * In permissive mode (umb_ctl.flags) the restrictions are only recorded; keeping
 * restricted tasks away from umbrellad is enforced all the same (umb_deny_strict()).
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/domain.bpf.h"
#include "lib/fsattr.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/protect.bpf.h"
#include "lib/scope.bpf.h"

/*
 * reach() - the verdict on the restricted current task signalling @target, recorded as
 * @hook
 *
 * umbrellad is out of reach of every restricted task, whatever its restrictions: such a
 * denial is recorded with layer 0 (no layer denied it: self-protection), and enforced
 * in permissive mode too (umb_deny_strict()).
 */
static __always_inline int reach(const struct umb_task_state *state, struct task_struct *target,
				 __u32 hook, __u64 cr)
{
	if (umb_is_daemon(target))
		return umb_deny_strict(hook, 0, UMB_ITEM_CAP, cr, target->tgid);
	if (!(state->denied_caps & cr))
		return 0;
	if (umb_in_domain(state, umb_task_state_get(target)))
		return 0;
	return umb_deny(hook, umb_layer_denying(state, UMB_SET_CAPS, cr), UMB_ITEM_CAP, cr,
			target->tgid);
}

/* PTRACE_MODE_* of include/linux/ptrace.h */
#define UMB_PTRACE_MODE_ATTACH	0x02
#define UMB_PTRACE_MODE_NOAUDIT 0x04

/*
 * trace() - the verdict on the restricted current task tracing @target, or being traced
 * by it (PTRACE_TRACEME), with the ptrace access @mode, recorded as @hook
 *
 * The scope of every layer, as Landlock has it: no task outside the domain, whatever the
 * layers say (UMB_SCOPE_PROCESS; umbrellad first of all). Inside it, "ptrace" refuses
 * tracing altogether, and "exec-unsigned" every mode that can change the target's code
 * (PTRACE_MODE_ATTACH: ptrace(2) itself, /proc/PID/mem, process_vm_writev(2)): a task that
 * may run only signed code must not write into a signed program. Probes the kernel makes
 * quietly (PTRACE_MODE_NOAUDIT: ps reading /proc/PID/stat) are refused unrecorded.
 */
static __always_inline int trace(const struct umb_task_state *state, struct task_struct *target,
				 unsigned int mode, __u32 hook)
{
	struct umb_denial_pick p = {};

	if (umb_is_daemon(target) || !umb_in_domain(state, umb_task_state_get(target))) {
		if (mode & UMB_PTRACE_MODE_NOAUDIT)
			return -EPERM;
		if (umb_is_daemon(target))
			return umb_deny_strict(hook, 0, UMB_ITEM_CAP, UMB_CR_PTRACE, target->tgid);
		return umb_scope_deny(hook, UMB_SCOPE_PROCESS, target->tgid);
	}
	/* ptrace first; exec-unsigned when ptrace's layer only records (umb_denial_pick()) */
	if (!((state->denied_caps & UMB_CR_PTRACE) &&
	      umb_denial_pick(&p, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_PTRACE),
			      UMB_ITEM_CAP, UMB_CR_PTRACE)) &&
	    (state->denied_caps & UMB_CR_EXEC_UNSIGNED) && (mode & UMB_PTRACE_MODE_ATTACH))
		umb_denial_pick(&p, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_EXEC_UNSIGNED),
				UMB_ITEM_CAP, UMB_CR_EXEC_UNSIGNED);
	if (!p.found)
		return 0;
	if (mode & UMB_PTRACE_MODE_NOAUDIT)
		return umb_deny_quiet(p.layer);
	return umb_deny(hook, p.layer, UMB_ITEM_CAP, p.item, target->tgid);
}

SEC("lsm/task_kill")
int BPF_PROG(umb_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	const struct umb_task_state *state;
	__u64 cred_arg = 0;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */
	/* A signal sent for the holder of @cred (USB async I/O completions, perhaps in
	 * interrupt context): the current task is not the sender. The verifier takes
	 * hook arguments for non-NULL pointers and would drop "if (cred)": read the
	 * argument as a number. */
	if (bpf_get_func_arg(ctx, 3, &cred_arg) || cred_arg)
		return 0;

	/* Quick return for unrestricted tasks. */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	return reach(state, p, UMB_HOOK_TASK_KILL, UMB_CR_SIGNAL);
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(umb_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	/* Every mode, as Landlock does: PTRACE_MODE_READ guards /proc/PID/environ and
	 * the like, PTRACE_MODE_ATTACH ptrace(2), process_vm_*(2), /proc/PID/mem and
	 * pidfd_getfd(2). The kernel asks no hook for the task's own thread group. */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	return trace(state, child, mode, UMB_HOOK_PTRACE_ACCESS_CHECK);
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(umb_ptrace_traceme, struct task_struct *parent, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	/* The current task asks @parent to trace it: a ptrace relation with @parent all
	 * the same, which may then write into the program this task execs. */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	return trace(state, parent, UMB_PTRACE_MODE_ATTACH, UMB_HOOK_PTRACE_TRACEME);
}

/* The two layouts of struct file's owner: embedded up to 6.11, allocated since 6.12. */
struct file___fown_embedded {
	struct fown_struct f_owner;
} __attribute__((preserve_access_index));

struct file___fown_pointer {
	struct fown_struct *f_owner;
} __attribute__((preserve_access_index));

/* The struct pid that gets @file's SIGIO, or NULL when nobody does. */
static __always_inline struct pid *sigio_owner(struct file *file)
{
	struct fown_struct *fown;

	if (bpf_core_field_exists(struct file___fown_pointer, f_owner))
		fown = BPF_CORE_READ((struct file___fown_pointer *)file, f_owner);
	else
		fown = __builtin_preserve_access_index(
			&((struct file___fown_embedded *)file)->f_owner);
	if (!fown)
		return NULL; /* 6.12: no owner was ever set */
	return BPF_CORE_READ(fown, pid);
}

/* Whether @pid is the current task or its process (what F_SETOWN with getpid(),
 * F_SETOWN_EX with gettid(), F_NOTIFY and F_SETLEASE make the owner). */
static __always_inline bool pid_is_current(const struct pid *pid)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return pid == BPF_CORE_READ(task, thread_pid) ||
	       pid == BPF_CORE_READ(task, group_leader, thread_pid);
}

/* The current process's id as it sees it (getpid() in its own pid namespace), or 0. */
static __always_inline int current_vtgid(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	struct upid upid;

	if (level > 32) /* MAX_PID_NS_LEVEL */
		return 0;
	if (bpf_core_read(&upid, sizeof(upid),
			  (void *)pid + bpf_core_field_offset(struct pid, numbers) +
				  level * sizeof(struct upid)))
		return 0;
	return upid.nr;
}

/*
 * may_own_sigio() - the verdict on a "signal"-restricted task arranging for signals
 * from @file: making someone its owner (@set_owner, who: the F_SETOWN argument), or
 * enabling or redirecting the SIGIO of its present owner.
 *
 * Only the task itself may be the owner. The kernel sends SIGIO long after this call,
 * perhaps from interrupt context, with the credentials of the task that set the owner
 * and no way to find that task's layers again; and on 6.1 a BPF program cannot look up
 * a task by pid (bpf_task_from_pid() came with 6.2), so a child inside the domain
 * cannot be told from a task outside it. F_SETOWN_EX, FIOSETOWN and SIOCSPGRP pass the
 * owner in user memory, which another thread may rewrite after this hook has read it:
 * they are refused outright (fail closed).
 */
static __always_inline bool may_own_sigio(struct file *file, bool set_owner, int who)
{
	if (set_owner)
		return who == 0 /* no owner */ || (who > 0 && who == current_vtgid());
	/* F_SETSIG, F_SETFL with O_ASYNC, FIOASYNC: an owner set by another task (a
	 * parent's file inherited with its owner) must not get a new signal through us. */
	struct pid *owner = sigio_owner(file);

	return !owner || pid_is_current(owner);
}

/* The SIGIO route of "signal" refused, recorded as @hook (file_fcntl, file_ioctl...). */
static __always_inline int deny_sigio(const struct umb_task_state *state, __u32 hook)
{
	return umb_deny(hook, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_SIGNAL), UMB_ITEM_CAP,
			UMB_CR_SIGNAL, 0);
}

SEC("lsm/file_fcntl")
int BPF_PROG(umb_file_fcntl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	if (cmd != F_SETOWN && cmd != F_SETOWN_EX && cmd != F_SETSIG &&
	    !(cmd == F_SETFL && (arg & FASYNC)))
		return 0;
	state = umb_current_state();
	if (!state || !(state->denied_caps & UMB_CR_SIGNAL))
		return 0;
	if (cmd == F_SETOWN_EX || !may_own_sigio(file, cmd == F_SETOWN, (int)arg))
		return deny_sigio(state, UMB_HOOK_FILE_FCNTL);
	return 0;
}

/* The verdict on ioctl(2) @cmd of @file, recorded as @hook: the scope's terminal rule
 * for every restricted task, Umbrella's own files and the fs rules' w on inode flags, and
 * the SIGIO route of "signal". */
static __always_inline int file_ioctl(struct file *file, unsigned int cmd, __u32 hook)
{
	const struct umb_task_state *state;
	int ret;

	if (!umb_is_injecting_ioctl(cmd) && cmd != FIOSETOWN && cmd != SIOCSPGRP &&
	    cmd != FIOASYNC && !umb_is_fsattr_ioctl(cmd))
		return 0;
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	/* Umbrella's own files: "chattr +i" would keep root from its configuration, "-i" or
	 * "+a" undo what root set, verity or encryption seal them (lib/protect-files.bpf.h). */
	if (umb_is_fsattr_ioctl(cmd) && umb_protect_files_ask((__u64)file->f_path.dentry, false))
		return umb_deny_strict(hook, 0, UMB_ITEM_SELF, 0, 0);
	if (umb_is_injecting_ioctl(cmd))
		return umb_scope_deny(hook, UMB_SCOPE_TERMINAL, 0);
	ret = umb_fs_ioctl_check(state, file, cmd, hook); /* inode flags: w (lib/fsattr.bpf.h) */
	if (ret || umb_is_fsattr_ioctl(cmd))
		return ret;
	if (!(state->denied_caps & UMB_CR_SIGNAL))
		return 0;
	if (cmd != FIOASYNC || !may_own_sigio(file, false, 0))
		return deny_sigio(state, hook);
	return 0;
}

SEC("lsm/file_ioctl")
int BPF_PROG(umb_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return file_ioctl(file, cmd, UMB_HOOK_FILE_IOCTL);
}

/* The ioctl(2) of 32-bit tasks has a hook of its own since 6.8; before, it went through
 * file_ioctl. umbrellad loads this program only where the hook exists (bpf-open.c). */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(umb_file_ioctl_compat, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return file_ioctl(file, cmd, UMB_HOOK_FILE_IOCTL_COMPAT);
}

SEC("lsm/file_send_sigiotask")
int BPF_PROG(umb_file_send_sigiotask, struct task_struct *tsk, struct fown_struct *fown, int sig,
	     int ret)
{
	if (ret)
		return ret;
	/* umbrellad uses no signal-driven I/O: whoever made it the owner of a file is
	 * trying to signal it. The sender's layers are unknown here (see
	 * may_own_sigio()), so refuse them all, in permissive mode too. */
	if (umb_is_daemon(tsk))
		return umb_deny_strict(UMB_HOOK_FILE_SEND_SIGIOTASK, 0, UMB_ITEM_CAP, UMB_CR_SIGNAL,
				       tsk->tgid);
	return 0;
}

/*
 * The resource limits of another process: RLIMIT_CPU lowered below what it has used kills
 * it with SIGKILL, so "signal" governs them as it does kill(2); umbrellad's, never (the
 * route a review used to switch Umbrella off: prlimit --cpu=0 then unpin). The kernel
 * asks with the target's thread group leader (setrlimit(2) of the task itself too).
 */
SEC("lsm/task_setrlimit")
int BPF_PROG(umb_task_setrlimit, struct task_struct *p, unsigned int resource,
	     struct rlimit *new_rlim, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	if ((__u32)p->tgid == (__u32)(bpf_get_current_pid_tgid() >> 32))
		return 0;
	if (umb_is_daemon(p))
		return umb_scope_deny(UMB_HOOK_TASK_SETRLIMIT, UMB_SCOPE_PROCESS, p->tgid);
	return reach(state, p, UMB_HOOK_TASK_SETRLIMIT, UMB_CR_SIGNAL);
}

/* Scheduling, priority, I/O priority and memory placement of another task: allowed,
 * except on umbrellad, which a restricted task must not starve. */
static __always_inline int keep_off_daemon(struct task_struct *p, __u32 hook)
{
	if (!umb_is_daemon(p) || !umb_is_restricted(umb_current_state()))
		return 0;
	return umb_scope_deny(hook, UMB_SCOPE_PROCESS, p->tgid);
}

SEC("lsm/task_setscheduler")
int BPF_PROG(umb_task_setscheduler, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return keep_off_daemon(p, UMB_HOOK_TASK_SETSCHEDULER);
}

SEC("lsm/task_setnice")
int BPF_PROG(umb_task_setnice, struct task_struct *p, int nice, int ret)
{
	if (ret)
		return ret;
	return keep_off_daemon(p, UMB_HOOK_TASK_SETNICE);
}

SEC("lsm/task_setioprio")
int BPF_PROG(umb_task_setioprio, struct task_struct *p, int ioprio, int ret)
{
	if (ret)
		return ret;
	return keep_off_daemon(p, UMB_HOOK_TASK_SETIOPRIO);
}

SEC("lsm/task_movememory")
int BPF_PROG(umb_task_movememory, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return keep_off_daemon(p, UMB_HOOK_TASK_MOVEMEMORY);
}

/* "setid" refused, recorded as @hook. */
static __always_inline int deny_setid(const struct umb_task_state *state, __u32 hook)
{
	return umb_deny(hook, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_SETID), UMB_ITEM_CAP,
			UMB_CR_SETID, 0);
}

/* setuid(2), setreuid(2), setresuid(2), setfsuid(2): denied when any uid would change.
 * A call that changes nothing (setuid(getuid()) as root) is not "changing uid". */
SEC("lsm/task_fix_setuid")
int BPF_PROG(umb_task_fix_setuid, struct cred *new_cred, const struct cred *old, int flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!state || !(state->denied_caps & UMB_CR_SETID))
		return 0;
	if (new_cred->uid.val == old->uid.val && new_cred->euid.val == old->euid.val &&
	    new_cred->suid.val == old->suid.val && new_cred->fsuid.val == old->fsuid.val)
		return 0;
	return deny_setid(state, UMB_HOOK_TASK_FIX_SETUID);
}

SEC("lsm/task_fix_setgid")
int BPF_PROG(umb_task_fix_setgid, struct cred *new_cred, const struct cred *old, int flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!state || !(state->denied_caps & UMB_CR_SETID))
		return 0;
	if (new_cred->gid.val == old->gid.val && new_cred->egid.val == old->egid.val &&
	    new_cred->sgid.val == old->sgid.val && new_cred->fsgid.val == old->fsgid.val)
		return 0;
	return deny_setid(state, UMB_HOOK_TASK_FIX_SETGID);
}

/* setgroups(2): always denied (comparing group lists is not worth it here). */
SEC("lsm/task_fix_setgroups")
int BPF_PROG(umb_task_fix_setgroups, struct cred *new_cred, const struct cred *old, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!state || !(state->denied_caps & UMB_CR_SETID))
		return 0;
	return deny_setid(state, UMB_HOOK_TASK_FIX_SETGROUPS);
}

/*
 * Whether the layer @id was chosen by a user other than root: asked for with rfork()
 * or restrict_self() by a caller whose effective uid (umbrellad's SO_PEERCRED) was not
 * 0. A signed binary's layer is its vendor's, whoever ran it; that of a binary signed
 * by a key the ring does not know is anyone's (any user can write one). A layer that
 * cannot be read (cannot happen while the task holds it) counts as a user's: fail
 * closed.
 */
static __always_inline bool chosen_by_user(__u32 id)
{
	const struct umb_layer *layer = umb_layer_get(id);

	return !layer || layer->origin == UMB_ORIGIN_UNKNOWN_SIGNER ||
	       (layer->origin != UMB_ORIGIN_SIGNED_BINARY && layer->uid != 0);
}

/* The first layer of @state, or the layer this exec will push, that a user chose
 * (chosen_by_user()); 0 if root or a vendor chose them all. */
static __always_inline __u32 user_chosen_layer(const struct umb_task_state *state)
{
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		if (i >= state->layer_count)
			break;
		if (chosen_by_user(state->layers[i]))
			return state->layers[i];
	}
	if (state->pending_layer && chosen_by_user(state->pending_layer))
		return state->pending_layer;
	return 0;
}

/* Whether the exec of @bprm adds capabilities to the permitted set (file capabilities;
 * a set-user-ID-root program for a user too). kernel_cap_t is one __u64 since 6.3 and
 * two __u32 before, low word first: both read as one little-endian __u64. */
static __always_inline bool exec_grows_caps(struct linux_binprm *bprm, const struct cred *old)
{
	__u64 new_permitted = 0, old_permitted = 0;

	bpf_core_read(&new_permitted, sizeof(new_permitted), &bprm->cred->cap_permitted);
	bpf_core_read(&old_permitted, sizeof(old_permitted), &old->cap_permitted);
	return new_permitted & ~old_permitted;
}

/*
 * The exec of a set-user-ID or set-group-ID program changes ids without any of the
 * calls above: bprm->cred holds the ids the program would run with (the capability
 * module, first in every LSM list, has filled them in). Called once per execve, before
 * the point of no return, for the file exec'd (not for interpreters).
 *
 * "setid" denies the id change. The scope denies every gain of privilege under a layer
 * a user chose (user_chosen_layer()): a user must not run sudo, passwd or a file-
 * capability program with a file or right taken away where it does not expect it (the
 * sendmail capability bug; Landlock and seccomp filters need no_new_privs for this).
 * The program is refused rather than run without its privilege: BPF cannot set
 * no_new_privs. Layers that root or a vendor chose leave such programs alone.
 */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(umb_bprm_creds_from_file, struct linux_binprm *bprm, const struct file *file, int ret)
{
	const struct umb_task_state *state;
	const struct cred *old;
	struct umb_event *e;
	bool ids_change;
	__u32 layer;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!state)
		return 0;
	old = bpf_get_current_task_btf()->cred;
	ids_change = BPF_CORE_READ(bprm, cred, euid.val) != BPF_CORE_READ(old, euid.val) ||
		     BPF_CORE_READ(bprm, cred, egid.val) != BPF_CORE_READ(old, egid.val);
	if (ids_change && (state->denied_caps & UMB_CR_SETID)) {
		int r = deny_setid(state, UMB_HOOK_BPRM_CREDS_FROM_FILE);

		/* A permissive "setid" only records (0): the scope below still holds. */
		if (r)
			return r;
	}
	if (!ids_change && !exec_grows_caps(bprm, old))
		return 0;
	layer = user_chosen_layer(state);
	if (!layer)
		return 0;
	e = umb_event_begin(UMB_HOOK_BPRM_CREDS_FROM_FILE, layer, UMB_ITEM_SCOPE,
			    UMB_SCOPE_PRIVILEGE, 0);
	umb_event_set_file(e, bprm->file, true);
	umb_event_submit(e);
	return -EPERM;
}
