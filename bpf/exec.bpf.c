// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - exec, and the verdicts of signed binaries (docs/design.md section 3).
 *
 * Architecture:
 *   lsm/bprm_creds_for_exec   "exec": every execve(2) and execveat(2) (once per call,
 *                             whatever interpreters follow). A layer pending until the
 *                             next exec (rfork with UMB_ARM_ON_EXEC) is not on the
 *                             stack yet at that exec: "umbrella-cli run -r exec -- sh
 *                             -c CMD" starts sh, and sh cannot exec CMD. Then refuses
 *                             an exec whose pending layer would not fit on the stack
 *                             (task.bpf.c pushes it at the commit, which cannot fail).
 *   lsm/bprm_check_security   the verdict of each file an exec runs: the kernel calls
 *                             it for the file exec'd and again for each interpreter
 *                             (#! scripts, binfmt_misc), so none of them gets around
 *                             it. Looks the file's inode up in umb_verdicts once:
 *                             REFUSED (a signature that does not verify) and STALE (a
 *                             verified file that changed, until umbrellad verifies it
 *                             again) are denied for every task, in permissive mode
 *                             too; SIGNED runs;
 *                             A file that carries the signature mark in its first
 *                             bytes (bprm->buf; include/umbrella/signed-elf-format.h) claims
 *                             a signature: without a SIGNED verdict it is denied for
 *                             every task, in permissive mode too (it would run without
 *                             the restrictions its vendor signed into it).
 *                             UNSIGNED and a miss (no valid verdict: no umbrellad,
 *                             PENDING, an old epoch, a file system the gate does not
 *                             mark) are denied when the task has "exec-unsigned" or
 *                             umb_ctl has UMB_CTL_UNSIGNED_DENY, else run; so is a
 *                             SIGNED shared library (UMB_VERDICT_F_LIBRARY: ld.so
 *                             run as a program maps an unchecked program itself).
 *                             UNSIGNED with UMB_VERDICT_F_UNKNOWN_SIGNER (a key the
 *                             ring does not know) is decided as UNSIGNED, mark or not,
 *                             and where it runs, its layer is carried as a SIGNED one's.
 *                             A SIGNED file with a layer: the layer is carried in
 *                             umb_exec to bprm_committed_creds (task.bpf.c), which
 *                             pushes it; the exec is refused here if it would not fit
 *                             (the stack is full, the layer missing, no memory), since
 *                             the commit cannot fail.
 *                             An overlayfs file (containers) has the verdict of the
 *                             file underneath it, which file_open noted when the
 *                             exec opened that file (lib/backing.bpf.h).
 * Denials by a verdict are -EPERM (fanotify's FAN_DENY is EPERM as well) and recorded
 * with UMB_ITEM_VERDICT, the item the verdict's state (0 for a miss,
 * UMB_VERDICT_UNVERIFIED for a marked file without its verdict, UMB_VERDICT_LIBRARY for
 * a signed library run as a program).
 * mmap(2) and mprotect(2) with PROT_EXEC under exec-unsigned: file.bpf.c.
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/backing.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/verdict.bpf.h"
#include <umbrella/signed-elf-format.h>

/* The verdict of "exec" on the task whose state is @state running @bprm: 0, or the
 * denial's (-EPERM, or 0 in permissive mode). The record names the file. */
static __always_inline int exec_item(const struct umb_task_state *state, struct linux_binprm *bprm)
{
	struct umb_event *e;
	__u32 flags, layer;

	if (!(state->denied_caps & UMB_CR_EXEC))
		return 0;
	/* The record names the file the task tried to run. */
	layer = umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_EXEC);
	flags = umb_layer_deny_flags(layer);
	e = umb_event_begin(UMB_HOOK_BPRM_CREDS_FOR_EXEC, layer, UMB_ITEM_CAP, UMB_CR_EXEC, flags);
	umb_event_set_file(e, bprm->file, true);
	umb_event_submit(e);
	return umb_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/*
 * The one program on bprm_creds_for_exec: "exec" first, then the room for the pending
 * layer. Both only refuse, so the verdict is the same in either order, but not the
 * record: the pending layer's refusal is not a restriction and makes none, so were it
 * first, an exec that "exec" denies would go unrecorded and unexplained. It stands in
 * permissive mode too (a layer that cannot be applied), where "exec" only records.
 */
SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(umb_bprm_creds_for_exec, struct linux_binprm *bprm, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	/* Quick return for unrestricted tasks. exec-unsigned is a matter of the file
	 * run: bprm_check_security below. */
	state = umb_current_state();
	if (!state)
		return 0;
	ret = exec_item(state, bprm);
	if (ret)
		return ret;
	/* The pending layer is pushed once the exec is committed (task.bpf.c), where
	 * nothing can fail any more: refuse the exec now if it would not fit (fail
	 * closed). */
	if (state->pending_layer && state->layer_count >= UMB_MAX_LAYERS)
		return -EPERM;
	return 0;
}

/*
 * Prepares the push of the layer @layer of a signed binary at the commit of this exec:
 * the current task's state (created for a task that has none) has room for it on top
 * of a pending layer, the layer exists, and umb_exec carries it. A task that carries
 * the layer already (a signed binary that execs itself again) gets it once: layers are
 * immutable, a second copy would deny nothing more and only fill the stack. Returns 0
 * or -EPERM (-ENOMEM when no memory): every refusal stands in permissive mode too, as
 * in task.bpf.c: permissive mode relaxes what layers deny, never whether a task gets
 * them.
 */
static __always_inline int carry_layer(struct task_struct *task, __u32 layer)
{
	struct umb_task_state *state;
	struct umb_exec_layer *carry;

	state = umb_state_create(task);
	carry = bpf_task_storage_get(&umb_exec, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!state || !carry)
		return -ENOMEM;
	state->flags &= ~UMB_TASK_CARRYING;
	if (state->pending_layer == layer || umb_verdict_layer_carried(state, layer)) {
		carry->layer = 0;
		return 0;
	}
	if (state->layer_count + (state->pending_layer ? 1 : 0) >= UMB_MAX_LAYERS ||
	    !umb_layer_get(layer)) {
		carry->layer = 0;
		return umb_deny_strict(UMB_HOOK_BPRM_CHECK_SECURITY, layer, UMB_ITEM_VERDICT,
				       UMB_VERDICT_SIGNED, 0);
	}
	carry->layer = layer;
	/* The commit must find the carry, or kill the new program (task.bpf.c). */
	state->flags |= UMB_TASK_CARRYING;
	return 0;
}

/*
 * Whether the file @bprm checks carries the signature mark: bprm->buf holds its first
 * bytes (BINPRM_BUF_SIZE, 256; read by the kernel before this hook, for each
 * interpreter anew; zeros past the end of a short file). A read that fails counts as
 * marked: fail closed.
 */
static __always_inline bool bprm_marked(struct linux_binprm *bprm)
{
	unsigned char head[UMB_SIGNATURE_MARK_HEAD];

	if (bpf_probe_read_kernel(head, sizeof(head), bprm->buf))
		return true;
	return umb_elf_marked(head);
}

/*
 * The refusal of a file that may run only where unsigned code may (UNSIGNED, a miss,
 * or a signed library run as a program: the record's item @item) by the current task's
 * exec-unsigned or by "unsigned = deny": the hook's verdict, 0 when neither applies.
 */
static __always_inline int unsigned_mode_deny(struct task_struct *task, const struct umb_ctl *ctl,
					      __u32 item, struct file *file)
{
	const struct umb_task_state *state = umb_task_state_get(task);
	bool deny_mode = ctl && (ctl->flags & UMB_CTL_UNSIGNED_DENY);
	__u32 layer, flags;

	if (state && (state->denied_caps & UMB_CR_EXEC_UNSIGNED)) {
		layer = umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_EXEC_UNSIGNED);
		flags = umb_layer_deny_flags(layer);
		/* A permissive layer's denial does not hide "unsigned = deny" below. */
		if (!(flags & UMB_EVENT_PERMISSIVE) || !deny_mode)
			return umb_verdict_deny(UMB_HOOK_BPRM_CHECK_SECURITY, layer, item, file,
						flags, true);
	}
	if (deny_mode)
		return umb_verdict_deny(UMB_HOOK_BPRM_CHECK_SECURITY, 0, item, file,
					umb_deny_flags(), true);
	return 0;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(umb_bprm_check_security, struct linux_binprm *bprm, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct umb_ctl *ctl;
	const struct umb_verdict *v;
	struct umb_exec_layer *carry;
	struct umb_verdict backing;
	struct file *file;
	__u32 verdict;

	if (ret)
		return ret;

	/* Every task, restricted or not: a REFUSED file never runs. One lookup; for an
	 * overlayfs file, that of the file underneath, noted at its open (never the
	 * overlay inode's: lib/backing.bpf.h). */
	file = bprm->file;
	ctl = umb_ctl_get();
	if (umb_file_on_overlay(file))
		v = umb_backing_exec_verdict(task, file, &backing);
	else
		v = umb_verdict_lookup(file->f_inode);
	verdict = umb_verdict_effective(v, ctl);
	umb_counter_inc(verdict ? UMB_COUNTER_VERDICT_HITS : UMB_COUNTER_VERDICT_MISSES);
	/* A signed library is not run as a program where unsigned code may not run: run
	 * so, ld.so maps the program it is given itself, which no exec checks. Only here,
	 * on the file that runs (never at the gate's open, which also sees the ELF
	 * interpreter of every dynamic program). In permissive mode it goes on as SIGNED. */
	if (verdict == UMB_VERDICT_SIGNED && v && (v->flags & UMB_VERDICT_F_LIBRARY)) {
		ret = unsigned_mode_deny(task, ctl, UMB_VERDICT_LIBRARY, file);
		if (ret)
			return ret;
	}
	if (verdict == UMB_VERDICT_SIGNED && v && v->layer)
		return carry_layer(task, v->layer);

	/* The last file checked is the one that runs: a layer carried for an earlier one
	 * (the interpreter of a script, or an exec that failed later) is not this one's. */
	if (task->bpf_storage) {
		struct umb_task_state *own = umb_task_state_get(task);

		carry = bpf_task_storage_get(&umb_exec, task, NULL, 0);
		if (carry)
			carry->layer = 0;
		if (own)
			own->flags &= ~UMB_TASK_CARRYING;
	}
	if (verdict == UMB_VERDICT_SIGNED)
		return 0;
	if (verdict == UMB_VERDICT_REFUSED || verdict == UMB_VERDICT_STALE)
		return umb_verdict_deny(UMB_HOOK_BPRM_CHECK_SECURITY, 0, verdict, file, 0, true);

	/* UNSIGNED by a key the ring does not know: verified (not a miss), so the mark does
	 * not refuse it; it runs where an unsigned file runs, with the layer of its
	 * restrictions (a layer only takes rights away). */
	if (verdict == UMB_VERDICT_UNSIGNED && v && (v->flags & UMB_VERDICT_F_UNKNOWN_SIGNER)) {
		ret = unsigned_mode_deny(task, ctl, verdict, file);
		if (ret || !v->layer)
			return ret;
		return carry_layer(task, v->layer);
	}

	/* UNSIGNED, or a miss. A file that claims a signature never runs unverified: not
	 * under "unsigned = allow", not in permissive mode. The gate refuses such a file
	 * without a signature section, so here it is a miss: umbrellad down, or a file
	 * system it does not cache. */
	if (bprm_marked(bprm))
		return umb_verdict_deny(UMB_HOOK_BPRM_CHECK_SECURITY, 0, UMB_VERDICT_UNVERIFIED,
					file, 0, true);
	return unsigned_mode_deny(task, ctl, verdict, file);
}
