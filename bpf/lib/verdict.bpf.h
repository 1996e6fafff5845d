/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - exec verdicts (signed binaries, docs/design.md section 3): looking one up, and
 * deleting it when its file changes.
 *
 * umbrellad's gate writes the verdict of a file into the file's inode (umb_verdicts).
 * It counts only when it was made under the current umb_ctl.verdict_epoch and is final
 * (not PENDING); anything else is a miss, which the modes decide (exec.bpf.c).
 *
 * A verdict must die with any change to the file's content or attributes before the
 * next exec: the hooks that see such a change call umb_verdict_invalidate() for every
 * task, restricted or not. They test the cheapest thing first (a mode bit of the file);
 * the delete itself is a short walk of the inode's storage list, empty on nearly every
 * inode. What it deletes is reported on umb_invalidated.
 */
#ifndef UMBRELLA_VERDICT_BPF_H
#define UMBRELLA_VERDICT_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "layers.bpf.h"

/*
 * umb_verdict_effective() - the state of @v (a lookup of umb_verdicts, maybe NULL) as it
 * counts under @ctl: UMB_VERDICT_UNSIGNED, _SIGNED, _REFUSED or _STALE, or 0 for a miss
 * (no verdict, PENDING, or made under another epoch: a new epoch dropped every ignore
 * mark, so a STALE file's next exec reaches the gate).
 */
static __always_inline __u32 umb_verdict_effective(const struct umb_verdict *v,
						   const struct umb_ctl *ctl)
{
	__u32 state;

	if (!v || !ctl || v->epoch != ctl->verdict_epoch)
		return 0;
	state = v->state;
	if (state != UMB_VERDICT_UNSIGNED && state != UMB_VERDICT_SIGNED &&
	    state != UMB_VERDICT_REFUSED && state != UMB_VERDICT_STALE)
		return 0; /* PENDING, or a value no umbrellad writes: no verdict */
	return state;
}

/* The verdict stored in @inode, valid or not, or NULL. */
static __always_inline struct umb_verdict *umb_verdict_lookup(struct inode *inode)
{
	return bpf_inode_storage_get(&umb_verdicts, inode, NULL, 0);
}

/* Whether @state carries the layer @layer of a verdict (0, no layer: true). */
static __always_inline bool umb_verdict_layer_carried(const struct umb_task_state *state,
						      __u32 layer)
{
	return !layer || umb_state_has_layer(state, layer);
}

/*
 * umb_verdict_invalidate() - void the verdict of @inode, if it has one, and tell
 * umbrellad (umb_invalidated), so that the next exec of the file reaches its gate again
 *
 * SIGNED and REFUSED become STALE (refused until verified again: see
 * enum umb_verdict_state); UNSIGNED and PENDING are deleted: umbrellad's final BPF_EXIST
 * update after a deleted PENDING fails, and it knows that what it verified is stale.
 */
static __always_inline void umb_verdict_invalidate(struct inode *inode)
{
	struct umb_invalidation *rec;
	struct umb_verdict *v;

	if (!inode)
		return;
	v = bpf_inode_storage_get(&umb_verdicts, inode, NULL, 0);
	if (!v)
		return; /* none: the usual case */
	if (v->state == UMB_VERDICT_STALE)
		return; /* already (truncate passes path_truncate and inode_setattr) */
	if (v->state == UMB_VERDICT_SIGNED || v->state == UMB_VERDICT_REFUSED)
		v->state = UMB_VERDICT_STALE;
	else if (bpf_inode_storage_delete(&umb_verdicts, inode))
		return;
	rec = bpf_ringbuf_reserve(&umb_invalidated, sizeof(*rec), 0);
	if (!rec) {
		umb_stat_inc(UMB_STAT_INVALIDATIONS_DROPPED);
		return;
	}
	rec->inode.dev = inode->i_sb->s_dev;
	rec->inode.__pad0 = 0;
	rec->inode.ino = inode->i_ino;
	bpf_ringbuf_submit(rec, 0);
}

/*
 * umb_verdict_deny() - record a denial by the verdict @state (0: a miss) of @file, and
 * return the hook's verdict: -EPERM, or 0 in permissive mode
 * @layer: the layer with exec-unsigned that denied, 0 for the system-wide mode or for
 *	a refused signature
 * @flags: umb_deny_flags(), or 0 for a denial that stands in permissive mode too
 * @full_path: record the whole path, else the file's name (umb_event_set_file())
 */
static __always_inline int umb_verdict_deny(__u32 hook, __u32 layer, __u32 state, struct file *file,
					    __u32 flags, bool full_path)
{
	struct umb_event *e = umb_event_begin(hook, layer, UMB_ITEM_VERDICT, state, flags);

	umb_event_set_file(e, file, full_path);
	umb_event_submit(e);
	return umb_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

#endif /* UMBRELLA_VERDICT_BPF_H */
