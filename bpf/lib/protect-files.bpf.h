/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - self-protection of Umbrella's own files: its configuration, key ring
 * (keys and revocations), profiles, systemd unit and drop-ins, and umbrellad's binary,
 * which umbrellad marks at start in umb_protected (daemon/self-files.c). No task that
 * carries a layer may change them (write, truncate, attributes, xattrs, link, unlink,
 * rename, a new name where a protected one goes), nor move the directories above them
 * away or mount over them: a restricted root would otherwise write "mode = permissive"
 * or its own key for the next umbrellad, or for the one running (the key ring is read
 * again when it changes). Enforced in permissive mode too, and while umbrellad is down
 * (the pinned map stays). Tasks without a layer (the administrator, apt) are not
 * checked at all.
 *
 * Objects are told by inode and by name in their directory (struct umb_protect_key):
 * the inode keeps a file protected wherever a hard link or bind mount shows it, the
 * name keeps it protected when unrestricted root replaces it (an editor's rename, an
 * upgrade) and covers names that do not exist yet (a drop-in directory). A directory
 * marked UMB_PROTECT_TREE protects what is below it, UMB_PROTECT_LEVELS - 1 levels deep
 * (/etc/umbrella/keys/revoked is two). The refusals of mounts (over, move, umount,
 * pivot_root) hold where a change reaches PID 1's mount namespace, not on a container's
 * private mounts (umb_protect_mount_counts(), lib/protect.bpf.h): bwrap, runc, nspawn
 * pivot_root and unmount the old root. Also called from system.bpf.c (pivot_root) and
 * proc.bpf.c (chattr through file_ioctl) as umb_protect_files_ask(), recorded there
 * without the path (lib/dpath.bpf.h is file.bpf.c's alone).
 */
#ifndef UMBRELLA_PROTECT_FILES_BPF_H
#define UMBRELLA_PROTECT_FILES_BPF_H

#include "../maps.bpf.h"
#include "domain.bpf.h"
#include "protect-pins.bpf.h"

/*
 * umb_protect_files() - self-protection of Umbrella's files at @hook on @dentry
 * (reached through @mnt, NULL if the hook has none) for a task that carries a layer
 * (@state; others return at once). Return: 0 or -EPERM, recorded.
 */
static __always_inline int umb_protect_files(const struct umb_task_state *state,
					     struct dentry *dentry, const struct vfsmount *mnt,
					     __u32 hook, bool removal)
{
	if (!umb_is_restricted(state))
		return 0;
	if (!umb_protect_files_ask((__u64)dentry, removal))
		return 0;
	return umb_protect_path_deny(dentry, mnt, hook);
}

#endif /* UMBRELLA_PROTECT_FILES_BPF_H */
