/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - Linux 6.1's start of the walk: the object's own file system, with plain
 * loads. 6.1: remove when 6.1 goes (with its call in lib/path.bpf.h).
 *
 * Linux 6.1 has no bpf_rdonly_cast(): there umb_fs_walk_up() (walk.bpf.c) reads with
 * bpf_probe_read_kernel(), a helper call per field. A pointer the verifier knows (the
 * hook's dentry, and every d_parent read from it with a plain load) needs none, but
 * only in the hook's own program: a global function gets numbers. So the hook walks
 * its dentry's file system first, in a bpf_loop() callback, checked once per call
 * site with one step of the loop (a bounded loop inlined in every hook made the 6.1
 * verifier take 106 s), crosses its mount point, and leaves the rest to
 * umb_fs_walk_up(). On a file system with no rule it only crosses.
 *
 * Up to Linux 6.6 the verifier checks a bpf_loop() callback once, with the context as
 * it is before the first call, and drops code that is dead then: no decision here may
 * depend on a context field that starts as a constant and changes later. Whether the
 * child is valid is therefore told by the loop index (child_next), not by child != 0.
 */
#ifndef UMBRELLA_WALK_TYPED_BPF_H
#define UMBRELLA_WALK_TYPED_BPF_H

#include "../walk.bpf.h"

/*
 * umb_walk_typed_needed() - whether the kernel lacks bpf_rdonly_cast() (Linux 6.1), so
 * that umb_fs_walk_up() reads with helper calls and the hook should walk its own file
 * system first. Told by bpf_cast_to_kern_ctx(), which came with bpf_rdonly_cast() (in
 * 6.2, one series): two units that name the same kfunc fail to link (bpftool 7.5's
 * linker: "failed to resolve size of underlying type"), and walk.bpf.c names
 * bpf_rdonly_cast(). Only the cost rides on it: either way the walk is complete.
 */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

static __always_inline int umb_walk_typed_needed(void)
{
	return !bpf_ksym_exists(bpf_cast_to_kern_ctx);
}

/*
 * umb_level_denies() - whether a rule on the inode (w->dev, @ino), or on the name of
 * w->child in it, of an enforcing layer denies the walk @w (records the layer and
 * access; a permissive layer's match is recorded too, and the walk goes on). @index:
 * the step's, which tells whether w->child is the level below this one.
 */
static __always_inline int umb_level_denies(struct umb_walk *w, __u32 index, __u64 ino)
{
	const struct umb_fs_filter *filter = umb_fs_filter_get();
	__u64 child = 0, match;

	/* Most inodes have no rule: their bit in umb_fs_filter is clear. */
	if (filter && !umb_fs_filter_has(filter, w->dev, ino))
		return 0;
	/* The child as a number for the global function (the verifier knows it as a
	 * pointer): a copy it cannot follow. */
	if (w->child_next == index + 1)
		bpf_probe_read_kernel(&child, sizeof(child), &w->child);
	match = umb_fs_level_match(w->state, w->dev, ino, child, w->requested);
	if (!match)
		return 0;
	return umb_walk_match(w, match);
}

/*
 * umb_walk_step_typed() - the bpf_loop() callback: one level, where w->dentry is a
 * struct dentry pointer the verifier knows (fault-safe loads, no helper call). Stops at
 * the root of the file system (UMB_WALK_FS_ROOT): struct mount cannot be reached from a
 * typed pointer on 6.1. w->dev is the dentry's super block's, set before the loop,
 * which only runs on a file system with rules. Returns 1 to stop, 0 to go on.
 */
static long umb_walk_step_typed(__u32 index, void *data)
{
	struct umb_walk *w = data;
	const struct dentry *d = (const struct dentry *)w->dentry;
	const struct dentry *parent = d->d_parent;
	const struct inode *inode = d->d_inode;

	/* A negative dentry (a name about to be created) has no inode of its own. */
	if (inode && umb_level_denies(w, index, inode->i_ino))
		return 1;
	if (parent && parent != d) {
		w->child = (__u64)d;
		w->child_next = index + 2;
		w->dentry = (__u64)parent;
		return 0;
	}
	/* A disconnected dentry (open_by_handle_at() of a file whose dentry was
	 * evicted) has no ancestors to check: not done, the walk denies. */
	if (d->d_flags & UMB_DCACHE_DISCONNECTED)
		return 1;
	w->done = UMB_WALK_FS_ROOT; /* the root of the file system */
	return 1;
}

/*
 * umb_walk_cross() - at the root of a file system (or anywhere on one with no rule),
 * moves @w from its mount (w->mnt) to the mount point in the parent mount. Returns 1
 * when the walk ends there: the root of the mount tree, or a hook that knows no mount
 * (w->done set), or an unreadable mount (w->done not set: the walk denies). No stack:
 * the fields are read into @w.
 */
static __always_inline int umb_walk_cross(struct umb_walk *w)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	__u32 off_parent = bpf_core_field_offset(struct mount, mnt_parent);
	__u32 off_point = bpf_core_field_offset(struct mount, mnt_mountpoint);
	const struct mount *ns_root = umb_ns_root();
	__u64 m = w->mnt - mnt_off;
	long err;

	if (!w->mnt) {
		w->done = UMB_WALK_DONE; /* a hook that knows no mount: this file system only */
		return 1;
	}
	if (ns_root && w->mnt == (__u64)&ns_root->mnt && ns_root->mnt_parent == ns_root) {
		w->done = UMB_WALK_DONE; /* the usual end, known without a read */
		return 1;
	}
	/* mnt_parent into w->mnt, mnt_mountpoint into w->dentry */
	if (off_point == off_parent + 8) {
		err = bpf_probe_read_kernel(&w->mnt, 16, (const void *)(m + off_parent));
	} else {
		err = bpf_probe_read_kernel(&w->mnt, 8, (const void *)(m + off_parent));
		err |= bpf_probe_read_kernel(&w->dentry, 8, (const void *)(m + off_point));
	}
	if (err || !w->mnt || !w->dentry)
		return 1;
	if (w->mnt == m) {
		w->done = UMB_WALK_DONE; /* the root of the tree is its own parent */
		return 1;
	}
	w->mnt += mnt_off;
	w->child = 0; /* the mount point stands where the root just left did */
	return 0;
}

/*
 * umb_walk_typed() - the start of a walk on Linux 6.1 from @dentry, a pointer the
 * verifier knows: the levels of its file system with plain loads (none when no rule
 * is on it), then its mount point. Returns 0 with @w at the mount point (w->levels
 * walked) for umb_fs_walk_up() to go on, or 1 when the walk has ended (w tells how).
 */
static __always_inline int umb_walk_typed(struct umb_walk *w, const struct dentry *dentry)
{
	const struct umb_fs_filter *filter = umb_fs_filter_get();
	long steps = 0;

	if (!filter)
		return 1; /* cannot happen: not done, the walk denies */
	w->dev = dentry->d_sb->s_dev;
	w->dev_rules = umb_fs_filter_has(filter, w->dev, UMB_FS_FILTER_ANY_INO);
	if (w->dev_rules) {
		steps = bpf_loop(UMB_WALK_MAX, umb_walk_step_typed, w, 0);
		if (w->done != UMB_WALK_FS_ROOT || steps < 0)
			return 1; /* denied (an enforcing layer), deeper than UMB_WALK_MAX,
				   * or bpf_loop() failed */
		w->done = 0;
	}
	if (umb_walk_cross(w))
		return 1; /* done, or an unreadable mount */
	/* UMB_WALK_MAX levels already: umb_fs_walk_up() walks no more (not done) */
	w->levels = steps;
	return 0;
}

#endif /* UMBRELLA_WALK_TYPED_BPF_H */
