/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the ioctl(2)s that change a file's inode flags or attributes ask w of it.
 *
 * They need no write open: FS_IOC_SETFLAGS on a read-only descriptor makes a file
 * immutable or append-only (then not even an unrestricted root writes it until the
 * flag goes), FS_IOC_FSSETXATTR does the same and more, FS_IOC_SETVERSION sets its
 * generation, FS_IOC_ENABLE_VERITY seals it for good, FS_IOC_SET_ENCRYPTION_POLICY
 * encrypts what is created in an empty directory. The kernel checks the owner or a
 * capability, not an LSM hook on the inode, and a restricted root has both. The 32-bit
 * numbers come through file_ioctl before Linux 6.8, file_ioctl_compat since. (Linux 6.12
 * has no fileattr hook; file_setattr(2), which came later, has one: not used here.)
 */
#ifndef UMBRELLA_FSATTR_BPF_H
#define UMBRELLA_FSATTR_BPF_H

#include "../maps.bpf.h"

/* include/uapi/linux/fs.h, fsverity.h, fscrypt.h (x86-64, arm64) */
#define UMB_FS_IOC_SETFLAGS		 0x40086602 /* _IOW('f', 2, long) */
#define UMB_FS_IOC32_SETFLAGS		 0x40046602 /* _IOW('f', 2, int) */
#define UMB_FS_IOC_SETVERSION		 0x40087602 /* _IOW('v', 2, long) */
#define UMB_FS_IOC32_SETVERSION		 0x40047602 /* _IOW('v', 2, int) */
#define UMB_FS_IOC_FSSETXATTR		 0x401c5820 /* _IOW('X', 32, struct fsxattr) */
#define UMB_FS_IOC_ENABLE_VERITY	 0x40806685 /* _IOW('f', 133, struct fsverity_enable_arg) */
#define UMB_FS_IOC_SET_ENCRYPTION_POLICY 0x800c6613 /* _IOR('f', 19, struct fscrypt_policy_v1) */

static __always_inline bool umb_is_fsattr_ioctl(unsigned int cmd)
{
	return cmd == UMB_FS_IOC_SETFLAGS || cmd == UMB_FS_IOC32_SETFLAGS ||
	       cmd == UMB_FS_IOC_SETVERSION || cmd == UMB_FS_IOC32_SETVERSION ||
	       cmd == UMB_FS_IOC_FSSETXATTR || cmd == UMB_FS_IOC_ENABLE_VERITY ||
	       cmd == UMB_FS_IOC_SET_ENCRYPTION_POLICY;
}

/*
 * umb_fs_write_denied() - whether the current task's fs rules deny w on the file at
 * @dentry, reached through @mnt (kernel pointers as numbers), recorded as @hook. A global
 * function of file.bpf.c, the one unit that builds a record's path (lib/dpath.bpf.h).
 * Returns 1 when the denial is enforced, 0 when allowed or only recorded.
 */
extern int umb_fs_write_denied(__u64 dentry, __u64 mnt, __u32 hook);

/* The verdict of the fs rules on ioctl(2) @cmd of @file (@hook: the record's): w of the
 * file for the commands above, 0 for any other. */
static __always_inline int umb_fs_ioctl_check(const struct umb_task_state *state, struct file *file,
					      unsigned int cmd, __u32 hook)
{
	if (!umb_is_fsattr_ioctl(cmd) || !(state->fs_access & UMB_FS_WRITE))
		return 0;
	/* Read as numbers: a global function takes no kernel pointer. */
	if (umb_fs_write_denied((__u64)BPF_CORE_READ(file, f_path.dentry),
				(__u64)BPF_CORE_READ(file, f_path.mnt), hook))
		return -EACCES;
	return 0;
}

#endif /* UMBRELLA_FSATTR_BPF_H */
