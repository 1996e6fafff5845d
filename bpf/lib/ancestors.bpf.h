/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the directories above a restricted path stay where they are.
 *
 * A rule holds on inodes: the object's, and the name in its directory's (path.bpf.h).
 * Were a task to rename a directory above the path away (or remove it when empty, or
 * replace it by rename), a new directory made in its place would hold a new object of
 * the path's name that no rule names, and every other process would then read (or run)
 * what the task put there. So umbrellad marks the path's directory and each one above it
 * (UMB_FS_ANCESTOR entries of the layer in umb_fs_inodes, freed with the layer), and a
 * task that carries the layer may not rename, replace, exchange or remove them. The
 * marks are not in umb_fs_filter, which is the walk's: were they, "/" and every file
 * system on the way to a rule would look as if they had rules, and every walk would
 * look them up. So a directory is looked up in each of the task's layers with fs rules;
 * a file or any other non-directory, which no mark names, is not.
 *
 * The directory a file system is mounted on is not seen from user space (the mount
 * covers it), and in a new mount namespace the task can unmount it and rename it, which
 * moves the mount for every other namespace too. So no task with fs rules renames or
 * removes a directory on which something is mounted in any namespace (DCACHE_MOUNTED,
 * which the kernel keeps while any mount uses the dentry).
 */
#ifndef UMBRELLA_ANCESTORS_BPF_H
#define UMBRELLA_ANCESTORS_BPF_H

#include "path.bpf.h"

/* include/linux/dcache.h (the same bit in 6.1 and 6.12): some mount is on the dentry. */
#define UMB_DCACHE_MOUNTED 0x10000

/* The layer of @state that marked the inode (@dev, @ino) as an ancestor of one of its
 * rules, or 0: the lowest that enforces, else a permissive one (the highest: kept
 * untested, as in umb_fs_level_match(), so that the verifier's states merge). */
static __always_inline __u32 umb_fs_ancestor_layer(const struct umb_task_state *state, __u32 dev,
						   __u64 ino)
{
	__u32 permissive = 0;

	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		struct umb_fs_key key = { .dev = dev, .ino = ino };
		const struct umb_fs_rule *rule;

		if (i >= state->layer_count)
			break;
		if (!(state->fs_layers & (1U << i)))
			continue;
		key.layer = state->layers[i];
		rule = bpf_map_lookup_elem(&umb_fs_inodes, &key);
		if (!rule || !(rule->flags & UMB_FS_ANCESTOR))
			continue;
		if (!umb_layer_permissive(key.layer))
			return key.layer;
		permissive = key.layer;
	}
	return permissive;
}

/*
 * umb_fs_ancestor_check() - the verdict on a task with fs rules (@state) renaming,
 * replacing or removing @dentry, reached through @mnt (the record's path; @hook: its
 * hook): -EACCES when it is marked above a
 * path one of the task's layers restricts, or something is mounted on it; 0 otherwise,
 * also for a negative dentry (a new name). Recorded; 0 in permissive mode.
 */
static __always_inline int umb_fs_ancestor_check(const struct umb_task_state *state,
						 const struct dentry *dentry,
						 const struct vfsmount *mnt, __u32 hook)
{
	const struct inode *inode = dentry->d_inode;
	struct umb_walk w = { .deny_access = UMB_FS_WRITE };

	if (!inode)
		return 0;
	if (!(dentry->d_flags & UMB_DCACHE_MOUNTED)) {
		/* Only directories are marked (the renames of files cost no lookup). */
		if ((inode->i_mode & S_IFMT) != S_IFDIR)
			return 0;
		w.deny_layer = umb_fs_ancestor_layer(state, dentry->d_sb->s_dev, inode->i_ino);
		if (!w.deny_layer)
			return 0;
	}
	/* A mount point names no layer: umb_fs_layer() answers for it. */
	w.permissive = umb_layer_permissive(w.deny_layer ? w.deny_layer : umb_fs_layer(state));
	return umb_fs_deny_named(&w, hook, dentry, mnt);
}

#endif /* UMBRELLA_ANCESTORS_BPF_H */
