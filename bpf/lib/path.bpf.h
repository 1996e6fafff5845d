/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the file system hooks' side of the walk: starting it, the verdict, the
 * denial's record.
 *
 * The walk itself (what it matches, how it goes up, why it fails closed) is the unit
 * walk.bpf.c, linked into the object like the maps: umb_fs_walk() starts it here in
 * the hook, and on Linux 6.1 first walks the object's own file system with plain loads
 * (lib/walk-typed.bpf.h), which only the hook's program can do.
 */
#ifndef UMBRELLA_PATH_BPF_H
#define UMBRELLA_PATH_BPF_H

#include "../walk.bpf.h"
#include "audit.bpf.h"
#include "dpath.bpf.h"
#include "walk-typed.bpf.h"

/* How the verifier knows a hook's dentry: a pointer (the hook's argument, or read
 * from one with a plain load), or a number (read with BPF_CORE_READ(), or computed). */
enum umb_dentry_kind {
	UMB_DENTRY_POINTER,
	UMB_DENTRY_NUMBER,
};

/*
 * umb_fs_walk() - whether @state's layers deny @requested on @dentry
 * @mnt: the mount @dentry was reached through, or NULL to stay on its file system
 *	(hooks that get no mount: the rules above the file system's mount point are
 *	then not seen)
 * @kind: UMB_DENTRY_POINTER lets Linux 6.1 walk @dentry's file system with plain
 *	loads (lib/walk-typed.bpf.h); the verifier refuses the program if @dentry is
 *	then a number
 * @w: filled with the outcome (deny_layer, deny_access, permissive)
 *
 * @dentry may be negative: the name is then checked in its directory, and the walk
 * goes on from there. Returns 1 when denied, 0 when allowed; 1 too when only a
 * permissive layer denies (w->permissive: the denial is only recorded).
 */
static __always_inline int umb_fs_walk(const struct umb_task_state *state, __u32 requested,
				       const struct dentry *dentry, const struct vfsmount *mnt,
				       enum umb_dentry_kind kind, struct umb_walk *w)
{
	w->dentry = (__u64)dentry;
	w->mnt = (__u64)mnt;
	w->child = 0;
	w->child_next = 0;
	w->levels = 0;
	w->dev = 0;
	w->dev_rules = 1;
	w->requested = requested;
	w->state = state;
	w->done = 0;
	w->deny_layer = 0;
	w->deny_access = 0;
	w->permissive = 0;

	/* 6.1: remove when 6.1 goes (the typed start, lib/walk-typed.bpf.h) */
	if (umb_walk_typed_needed() && kind == UMB_DENTRY_POINTER) {
		if (!umb_walk_typed(w, dentry))
			umb_fs_walk_up(w, state);
	} else {
		umb_fs_walk_up(w, state);
	}
	if (w->deny_layer && (!w->permissive || (requested & UMB_FS_WALK_FIRST)))
		return 1; /* an enforcing layer's match; with UMB_FS_WALK_FIRST, any */
	if (w->done != UMB_WALK_DONE) {
		/* Deeper than UMB_WALK_MAX, an unreadable mount, a disconnected dentry, or
		 * bpf_loop() failed: deny (fail closed). The record names no layer; only
		 * permissive layers with fs rules (umb_fs_layer()) only record it. */
		w->deny_layer = 0;
		w->deny_access = requested & UMB_FS_ALL;
		w->permissive = umb_fs_unfinished_permissive(state);
		return 1;
	}
	/* A permissive layer's match, and none that enforces: recorded, allowed. */
	return w->deny_layer != 0;
}

/* The flags of the record of the denial the walk @w found (umb_deny_flags()). */
static __always_inline __u32 umb_walk_flags(const struct umb_walk *w)
{
	return umb_deny_flags() | (w->permissive ? UMB_EVENT_PERMISSIVE : 0);
}

/* The verdict of a file system hook: -EACCES ("Permission denied") when @denied.
 * The compiler barrier keeps the two constant returns (see umb_verdict()). */
static __always_inline int umb_fs_verdict(__u64 denied)
{
	barrier_var(denied);
	if (denied)
		return -EACCES;
	return 0;
}

/* Starts the record, with @flags (umb_deny_flags()), of the denial the walk @w found on
 * @dentry (NULL when the ring buffer is full); the caller adds the path and submits.
 * The inode recorded is the object's, or for a name not yet created its directory's. */
static __always_inline struct umb_event *umb_fs_event(const struct umb_walk *w, __u32 hook,
						      const struct dentry *dentry, __u32 flags)
{
	struct umb_event *e =
		umb_event_begin(hook, w->deny_layer, UMB_ITEM_FS, w->deny_access, flags);
	struct inode *inode;

	if (e) {
		inode = BPF_CORE_READ(dentry, d_inode);
		if (!inode)
			inode = BPF_CORE_READ(dentry, d_parent, d_inode);
		e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
		e->ino = BPF_CORE_READ(inode, i_ino);
	}
	return e;
}

/*
 * umb_fs_deny_named() - records the denial the walk @w found on @dentry, reached
 * through the mount @mnt (NULL: unknown), with the object's whole path (@hook: the
 * record's), and returns the hook's verdict: -EACCES, or 0 when it is only recorded
 * (permissive mode, or a permissive layer). The path is built by lib/dpath.bpf.h: the
 * kernel allows bpf_d_path() in none of the hooks that come here (umb_fs_check_kind(),
 * and lib/ancestors.bpf.h's renames, removals and mounts).
 */
static __always_inline int umb_fs_deny_named(struct umb_walk *w, __u32 hook,
					     const struct dentry *dentry,
					     const struct vfsmount *mnt)
{
	__u32 flags = umb_walk_flags(w);
	struct umb_event *e = umb_fs_event(w, hook, dentry, flags);

	if (e) {
		/* The walk is over: its state carries the object to the global function,
		 * which takes kernel pointers as numbers in memory only. */
		w->dentry = (__u64)dentry;
		w->mnt = (__u64)mnt;
		umb_event_dpath(e, w);
	}
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/*
 * umb_fs_check_kind() - the whole check of a hook that has a dentry (and maybe its
 * mount), known to the verifier as @kind (see umb_fs_walk())
 *
 * Walks, and on denial records the event with the object's whole path, built from
 * @dentry and @mnt (lib/dpath.bpf.h: the kernel allows bpf_d_path() in none of these
 * hooks). Returns the hook's verdict: 0 or -EACCES (0 in permissive mode: the denial
 * is only recorded).
 */
static __always_inline int umb_fs_check_kind(const struct umb_task_state *state, __u32 requested,
					     const struct dentry *dentry,
					     const struct vfsmount *mnt, enum umb_dentry_kind kind,
					     __u32 hook)
{
	struct umb_walk w;

	if (!umb_fs_walk(state, requested, dentry, mnt, kind, &w))
		return umb_fs_verdict(0);
	return umb_fs_deny_named(&w, hook, dentry, mnt);
}

/*
 * umb_fs_check_path() - umb_fs_check() of @path, whose denial names the whole path
 * (bpf_d_path()). Only in the hooks where the kernel lets a BPF LSM program call it:
 * those of its sleepable set (kernel/bpf/bpf_lsm.c: inode_getattr, mmap_file,
 * path_notify, file_receive, file_open; not the path_* hooks, where umb_fs_check()
 * builds the path itself). @path must come from the hook's arguments.
 */
static __always_inline int umb_fs_check_path(const struct umb_task_state *state, __u32 requested,
					     const struct path *path, __u32 hook)
{
	struct umb_walk w;
	struct umb_event *e;
	__u32 flags;

	if (!umb_fs_walk(state, requested, path->dentry, path->mnt, UMB_DENTRY_POINTER, &w))
		return umb_fs_verdict(0);
	flags = umb_walk_flags(&w);
	e = umb_fs_event(&w, hook, path->dentry, flags);
	if (e && bpf_d_path((struct path *)path, e->path, sizeof(e->path)) < 0)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ(path, dentry, d_name.name));
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/* umb_fs_check() - umb_fs_check_kind() of a dentry the verifier knows as a pointer: the
 * hook's argument, or read from one with a plain load (file->f_path.dentry). */
static __always_inline int umb_fs_check(const struct umb_task_state *state, __u32 requested,
					const struct dentry *dentry, const struct vfsmount *mnt,
					__u32 hook)
{
	return umb_fs_check_kind(state, requested, dentry, mnt, UMB_DENTRY_POINTER, hook);
}

/* umb_fs_check_number() - umb_fs_check_kind() of a dentry the verifier knows as a
 * number (read with BPF_CORE_READ(), or computed) */
static __always_inline int umb_fs_check_number(const struct umb_task_state *state, __u32 requested,
					       const struct dentry *dentry,
					       const struct vfsmount *mnt, __u32 hook)
{
	return umb_fs_check_kind(state, requested, dentry, mnt, UMB_DENTRY_NUMBER, hook);
}

#endif /* UMBRELLA_PATH_BPF_H */
