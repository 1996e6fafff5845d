/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - self-protection of the pin directory (see lib/protect.bpf.h for the rest):
 * the path hooks of file.bpf.c keep everyone but umbrellad from removing, renaming or
 * adding its pins while it is up, and restricted tasks always. Apart from
 * lib/protect.bpf.h because its records name the pin by its whole path, with the
 * builder of lib/dpath.bpf.h, a global function that only file.bpf.c's unit holds;
 * lib/protect.bpf.h is compiled into four units.
 */
#ifndef UMBRELLA_PROTECT_PINS_BPF_H
#define UMBRELLA_PROTECT_PINS_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "dpath.bpf.h"
#include "protect.bpf.h"

/* Whether @dentry's inode is the pin directory (@dev, @ino). */
static __always_inline bool umb_is_pin_dir(const struct dentry *dentry, __u32 dev, __u64 ino)
{
	const struct inode *inode = BPF_CORE_READ(dentry, d_inode);

	return inode && BPF_CORE_READ(inode, i_ino) == ino &&
	       BPF_CORE_READ(inode, i_sb, s_dev) == dev;
}

/*
 * umb_protect_path_deny() - records a self-protection denial of @hook on @dentry
 * (reached through @mnt, NULL if unknown) with its inode and whole path (lib/dpath.bpf.h,
 * as the fs denials), enforced in permissive mode too. Return: -EPERM.
 */
static __always_inline int umb_protect_path_deny(struct dentry *dentry, const struct vfsmount *mnt,
						 __u32 hook)
{
	struct umb_event *e;
	struct umb_walk o;

	e = umb_event_begin(hook, 0, UMB_ITEM_SELF, 0, 0);
	if (e) {
		e->dev = BPF_CORE_READ(dentry, d_sb, s_dev);
		e->ino = BPF_CORE_READ(dentry, d_inode, i_ino);
		/* The whole path, as the fs records have it: the global function takes the
		 * object in a walk's state (only dentry and mnt are read). */
		__builtin_memset(&o, 0, sizeof(o));
		o.dentry = (__u64)dentry;
		o.mnt = (__u64)mnt;
		umb_event_dpath(e, &o);
	}
	umb_event_submit(e);
	return -EPERM;
}

/*
 * umb_protect_pins() - self-protection of the pin directory: removing, renaming or
 * adding an entry in it or in its links/ subdirectory, or removing or renaming the
 * directory itself, is umbrellad's alone while it is up
 *
 * @dentry: the object of an unlink, rmdir, rename (either end) or mknod (BPF_OBJ_PIN
 * creates pins through it)
 * @mnt: the mount the hook reached it through
 *
 * The cheap test first: objects on a bpf file system are rare. Then the object, its
 * parent and its grandparent are compared with the pin directory. Recorded with the
 * object's inode and whole path (lib/dpath.bpf.h, as the fs denials). Return: 0 or
 * -EPERM.
 */
static __always_inline int umb_protect_pins(struct dentry *dentry, const struct vfsmount *mnt,
					    __u32 hook)
{
	const struct umb_ctl *ctl;
	struct dentry *parent;
	__u32 dev;
	__u64 ino;

	/* Plain loads from the hook's own pointer (no helper call): everyone pays them. */
	if (dentry->d_sb->s_magic != UMB_BPF_FS_MAGIC)
		return 0;
	/* Restricted tasks, also while no umbrellad runs: the pins are what keeps every
	 * program attached then. */
	if (!umb_protect_daemon() && !umb_is_restricted(umb_current_state()))
		return 0;
	ctl = umb_ctl_get();
	if (!ctl)
		return 0;
	dev = ctl->pin_dev;
	ino = ctl->pin_ino;
	if (!ino)
		return 0; /* an umbrellad that pins nothing (tests) */
	parent = BPF_CORE_READ(dentry, d_parent);
	if (!umb_is_pin_dir(dentry, dev, ino) && !umb_is_pin_dir(parent, dev, ino) &&
	    !umb_is_pin_dir(BPF_CORE_READ(parent, d_parent), dev, ino))
		return 0;
	return umb_protect_path_deny(dentry, mnt, hook);
}

#endif /* UMBRELLA_PROTECT_PINS_BPF_H */
