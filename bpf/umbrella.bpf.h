/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - includes and helpers common to every BPF program */
#ifndef UMBRELLA_BPF_H
#define UMBRELLA_BPF_H

#include "vmlinux.h"
#include <asm-generic/errno.h> /* the kernel's errno values, without glibc */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include <umbrella/bpf-abi.h>

/* UAPI constants that vmlinux.h (types only) lacks and whose UAPI headers clash with it.
 * Values from include/uapi/linux/sched.h and include/uapi/asm-generic/mman-common.h. */
#define CLONE_THREAD	0x00010000
#define PROT_EXEC	0x4
/* Signal-driven I/O (fcntl(2), ioctl(2)): include/uapi/asm-generic/fcntl.h (FASYNC,
 * F_SETOWN_EX), include/uapi/linux/sockios.h, include/uapi/asm-generic/ioctls.h.
 * And the capable() option (kernel-internal, include/linux/security.h). For proc.bpf.c
 * and system.bpf.c. */
#define F_SETFL		4
#define F_SETOWN	8
#define F_SETSIG	10
#define F_SETOWN_EX	15
#define FASYNC		020000
#define FIOSETOWN	0x8901
#define SIOCSPGRP	0x8902
#define FIOASYNC	0x5452
#define CAP_OPT_NOAUDIT 0x2
/* Kernel-internal flags (include/linux/fs.h, include/linux/mm.h) and UAPI file types
 * (include/uapi/linux/stat.h), for the file system hooks (file.bpf.c). */
#define FMODE_READ	0x1
#define FMODE_WRITE	0x2
#define FMODE_EXEC	0x20
#define FMODE_PATH	0x4000 /* an O_PATH file (the same bit in 6.1 and 6.12) */
#define VM_EXEC		0x4
#define S_IFMT		00170000
#define S_IFREG		0100000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFBLK		0060000
#define S_IFSOCK	0140000

/*
 * Kernel fields read through CO-RE (keep this list complete, so a kernel upgrade can
 * be reviewed against it):
 *   file.bpf.c, walk.bpf.c, lib/walk-typed.bpf.h: file.f_mode, f_flags, f_path; path.dentry, mnt;
 *     dentry.d_parent, d_inode, d_sb, d_name.name, d_name.len;
 *     inode.i_sb, i_ino; super_block.s_dev;
 *     mount.mnt, mnt_parent, mnt_mountpoint (container_of a vfsmount);
 *     vm_area_struct.vm_file, vm_flags
 *   lib/dpath.bpf.h (a record's path): dentry.d_parent, d_name, d_sb, d_seq, d_hash,
 *     d_inode; vfsmount.mnt_root, mnt_sb;
 *     mount.mnt, mnt_parent, mnt_mountpoint, mnt_ns, mnt_instance;
 *     super_block.s_root, s_mounts; task_struct.fs, nsproxy; fs_struct.root;
 *     nsproxy.mnt_ns
 *   proc.bpf.c, system.bpf.c, lib/domain.bpf.h: task_struct.tgid, thread_pid,
 *     group_leader, cred, real_cred; pid.level, numbers; upid.nr; file.f_owner (a
 *     struct fown_struct up to 6.11, a pointer to one since 6.12); fown_struct.pid;
 *     cred.uid, euid, suid, fsuid, gid, egid, sgid, fsgid; linux_binprm.cred
 */

/*
 * umb_verdict() - the return value of an LSM hook: -EPERM when @denied is non-zero.
 *
 * The verifier checks an LSM program's return value as a 64-bit range [-4095, 0].
 * Left alone, clang computes "denied ? -EPERM : 0" without a branch (-(x & 1) in a
 * 32-bit register), which the verifier cannot bound and refuses. Hiding the value
 * behind a compiler barrier forces the branch and two constant returns.
 */
static __always_inline int umb_verdict(__u64 denied)
{
	barrier_var(denied);
	if (denied)
		return -EPERM;
	return 0;
}

#endif /* UMBRELLA_BPF_H */
