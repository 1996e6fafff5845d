/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - ABI shared between the BPF programs and user space */
#ifndef UMBRELLA_BPF_ABI_H
#define UMBRELLA_BPF_ABI_H

#ifndef __VMLINUX_H__ /* the BPF side gets __u32 & co. from vmlinux.h */
#include <linux/types.h>
#endif

/* Bumped on any change to a struct, value or map layout below. umbrellad checks it
 * against the pinned objects it finds before adopting them. */
#define UMB_ABI_VERSION 1

/* A task carries at most this many layers, as Landlock does. */
#define UMB_MAX_LAYERS 16

/*
 * Capability restrictions (the CR items of the grammar, DESIGN.md section 1) as bits.
 * A set bit denies the right. The values are ABI: the BPF side, the library, the daemon,
 * the CLI and the signed-binary policy format all use them.
 */
enum umb_cap_restriction {
	UMB_CR_NET = 1 << 0,		  /* net: creating sockets of any family */
	UMB_CR_SIGNAL = 1 << 1,	  /* signal: signalling outside the domain */
	UMB_CR_FORK = 1 << 2,	  /* fork: creating processes (not threads) */
	UMB_CR_EXEC = 1 << 3,	  /* exec: any exec */
	UMB_CR_EXEC_UNSIGNED = 1 << 4, /* exec-unsigned: exec without a valid signature */
	UMB_CR_PTRACE = 1 << 5,	  /* ptrace: tracing outside the domain */
	UMB_CR_MOUNT = 1 << 6,	  /* mount: mount, umount, pivot_root */
	UMB_CR_MODULE = 1 << 7,	  /* module: loading kernel modules */
	UMB_CR_SETID = 1 << 8,	  /* setid: changing uid or gid */
};

/*
 * Value of the task storage map umb_task: the restriction state of one task.
 * Producers: task.bpf.c (copies the parent's state into a new task), umbrellad (adds
 * layers). Consumers: every enforcement hook. A task without an entry is unrestricted.
 */
struct umb_task_state {
	__u32 layer_count; /* layers on the stack, 1..UMB_MAX_LAYERS */
	__u32 __pad0;	   /* must be zero */
	__u64 denied_caps; /* union of the UMB_CR_* bits of all layers */
};

_Static_assert(sizeof(struct umb_task_state) == 16, "struct umb_task_state is ABI");

#endif /* UMBRELLA_BPF_ABI_H */
