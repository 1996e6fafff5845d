/* SPDX-License-Identifier: GPL-2.0-only */
/* test-bpf-helpers: what its units (and its BPF object) share */
#ifndef UMBRELLA_TEST_BPF_HELPERS_H
#define UMBRELLA_TEST_BPF_HELPERS_H

#ifndef __VMLINUX_H__ /* the BPF side gets __u32 & co. from vmlinux.h */
#include <linux/types.h>
#endif

/* The fake file system of the walk's test (t_walk): T_TREE dentries, more than
 * UMB_WALK_MAX levels. */
#define T_TREE	    72
#define T_TREE_NAME 16
struct t_node {
	__u32 parent; /* index in t_tree; itself: a root */
	__u32 flags;  /* d_flags */
	__u64 ino;    /* 0: a negative dentry (no inode) */
	char name[T_TREE_NAME];
};

/* The 32-bit x86 numbers of the system calls lib/syscall.bpf.h knows (and bpf(2)). */
struct nr32 {
	unsigned long bpf, swapon, swapoff, add_key, request_key, keyctl;
};

extern const struct nr32 nr32;

#endif /* UMBRELLA_TEST_BPF_HELPERS_H */
