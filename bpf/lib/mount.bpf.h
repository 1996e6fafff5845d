/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the "mount" item and the protection of the pin directory's mount: the
 * parts of the mount hooks that need no walk. file.bpf.c's one program per mount hook
 * (sb_mount, move_mount, sb_umount) calls them before its fs rules; system.bpf.c's
 * sb_pivotroot has only the item.
 */
#ifndef UMBRELLA_MOUNT_BPF_H
#define UMBRELLA_MOUNT_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "domain.bpf.h"
#include "layers.bpf.h"
#include "protect.bpf.h"

/*
 * umb_mount_item() - the verdict of "mount" on the task whose state is @state (NULL:
 * unrestricted): mount(2), also bind, move, remount and propagation changes; umount(2);
 * pivot_root(2); move_mount(2). Recorded as @hook. Detached mounts (fsmount,
 * open_tree(OPEN_TREE_CLONE)) and mount_setattr(2) reach no LSM hook: see docs/security.md.
 */
static __always_inline int umb_mount_item(const struct umb_task_state *state, __u32 hook)
{
	if (!state || !(state->denied_caps & UMB_CR_MOUNT))
		return 0;
	return umb_deny(hook, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_MOUNT), UMB_ITEM_CAP,
			UMB_CR_MOUNT, 0);
}

/* Whether @mnt has mounts below it: struct mount's mnt_mounts list is not empty. */
static __always_inline bool umb_mount_has_submounts(struct vfsmount *mnt)
{
	struct mount *m = (void *)mnt - bpf_core_field_offset(struct mount, mnt);
	struct list_head *head = (void *)m + bpf_core_field_offset(struct mount, mnt_mounts);

	return BPF_CORE_READ(m, mnt_mounts.next) != head;
}

/*
 * umb_umount_protect() - self-protection at umount(2) of @mnt by the task whose state is
 * @state: the last mount of the bpf file system that holds our pins takes the pinned
 * links with it, and every program detaches: no restricted task unmounts one, "mount"
 * or not, umbrellad up or not (another instance is not told apart). Nor one with mounts
 * below it: "umount -l /sys" would take /sys/fs/bpf along (without MNT_DETACH such an
 * unmount fails with EBUSY anyway). Enforced in permissive mode too.
 */
static __always_inline int umb_umount_protect(const struct umb_task_state *state,
					      struct vfsmount *mnt)
{
	if (!umb_is_restricted(state))
		return 0;
	if (mnt->mnt_sb->s_magic == UMB_BPF_FS_MAGIC || umb_mount_has_submounts(mnt))
		return umb_deny_strict(UMB_HOOK_SB_UMOUNT, 0, UMB_ITEM_SELF, 0, 0);
	return 0;
}

#endif /* UMBRELLA_MOUNT_BPF_H */
