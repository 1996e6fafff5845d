/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - link(2) and rename(2) keep an object in its rules' reach, and a name its
 * rules' object, whatever the rules' modes.
 *
 * Both ask w of their source and of the new name (file.bpf.c), which a rule without w
 * does not deny. Under "fs:DIR:r" a hard link of DIR/f, or DIR/sub renamed, outside DIR
 * would then be read there; under a name rule "fs:DIR/token:r", a hard link of the
 * task's own file planted at DIR/token (or renamed there) would let it read what a
 * program writes there later. So for a task with fs rules a link or a rename is allowed
 * only when its source and its destination are covered by the same rules: the object
 * keeps every rule it had, and the new name points at what its rules covered already.
 *
 * "The same rules", as two walks with every access asked (UMB_FS_ALL) can prove it: the
 * walk from the source and the walk from the destination (the new name, or the object
 * it names) each stop at the first level where any rule of any layer matches
 * (UMB_FS_WALK_FIRST). Allowed when neither meets a rule up to the root, or when both
 * stop at the same dentry X and came to it through the same child, or through children
 * whose names no layer restricts in X. Then no rule lies below X on either way, X's
 * own rules and everything above X are the same dentries (link and rename stay on one
 * mount: the two ways cross the same mount points above X), and X's name rules match
 * neither name: every rule that matches one side matches the other. The object's own
 * inode rules follow it either way. This is stricter than equal modes (two rules of
 * the same modes at different levels differ), never looser. A walk that cannot end
 * differs from everything.
 *
 * A difference is refused (EACCES, recorded) when an enforcing layer's rules differ:
 * the same comparison again of the first match of an enforcing layer on each way, as
 * every walk makes it. When only permissive layers' rules differ, it is recorded as
 * permissive and allowed. The record names the source and its first match, or the
 * destination's when the source matched none.
 */
#ifndef UMBRELLA_REACH_BPF_H
#define UMBRELLA_REACH_BPF_H

#include "path.bpf.h"

/* umb_reach_level(): the walk could not end (too deep, a disconnected dentry...). */
#define UMB_REACH_UNFINISHED (~0ULL)

/* Where the walk @w stopped: the dentry of its first match (with @first, any layer's;
 * else an enforcing one's), 0 when it met none up to the root, or UMB_REACH_UNFINISHED. */
static __always_inline __u64 umb_reach_level(const struct umb_walk *w, __u32 first)
{
	if (w->deny_layer && (first || !w->permissive))
		return w->dentry;
	if (w->done != UMB_WALK_DONE)
		return UMB_REACH_UNFINISHED;
	return 0;
}

/*
 * umb_reach_same() - one comparison (@first: UMB_FS_WALK_FIRST, any layer's rules; 0: an
 * enforcing layer's) of the walks from @src and @dst, both on @mnt. Returns 1 when they
 * prove the same rules; else 0, with @w holding the match to record and @named its
 * object (the source's, or the destination's when the source met none).
 */
static __always_inline int umb_reach_same(const struct umb_task_state *state,
					  const struct dentry *src, const struct dentry *dst,
					  const struct vfsmount *mnt, __u32 first,
					  struct umb_walk *w, const struct dentry **named)
{
	__u32 layer, access, permissive;
	__u64 level, child, src_level;

	umb_fs_walk(state, UMB_FS_ALL | first, dst, mnt, UMB_DENTRY_NUMBER, w);
	level = umb_reach_level(w, first);
	child = w->child;
	layer = w->deny_layer;
	access = w->deny_access;
	permissive = w->permissive;
	umb_fs_walk(state, UMB_FS_ALL | first, src, mnt, UMB_DENTRY_NUMBER, w);
	src_level = umb_reach_level(w, first);
	if (src_level == level) {
		if (!level)
			return 1; /* no rule on either way */
		if (level != UMB_REACH_UNFINISHED &&
		    (child == w->child ||
		     !(umb_fs_names_ruled(state, level, child, w->child) &
		       (first ? UMB_NAMES_ENFORCING | UMB_NAMES_PERMISSIVE : UMB_NAMES_ENFORCING))))
			return 1;
	}
	*named = src;
	if (!src_level) {
		w->deny_layer = layer;
		w->deny_access = access;
		w->permissive = permissive;
		*named = dst;
	}
	return 0;
}

/*
 * umb_fs_reach_check() - the verdict on a task with fs rules (@state) giving the object
 * of @src a new name at @dst (a link, or a rename; with RENAME_EXCHANGE the object at
 * @dst moves too, which the same comparison covers), both reached through @mnt, @hook
 * the record's: 0, or -EACCES (recorded; 0 when only permissive layers' rules differ,
 * or in permissive mode).
 */
static __always_inline int umb_fs_reach_check(const struct umb_task_state *state,
					      const struct dentry *src, const struct dentry *dst,
					      const struct vfsmount *mnt, __u32 hook)
{
	const struct dentry *named = src;
	__u32 layer, access;
	struct umb_walk w;

	if (umb_reach_same(state, src, dst, mnt, UMB_FS_WALK_FIRST, &w, &named))
		return 0;
	layer = w.deny_layer;
	access = w.deny_access;
	if (umb_reach_same(state, src, dst, mnt, 0, &w, &named)) {
		/* Only permissive layers' rules differ: the first comparison's match, recorded
		 * as permissive. */
		w.deny_layer = layer;
		w.deny_access = access;
		w.permissive = 1;
	}
	w.deny_access &= UMB_FS_ALL;
	return umb_fs_deny_named(&w, hook, named, mnt);
}

#endif /* UMBRELLA_REACH_BPF_H */
