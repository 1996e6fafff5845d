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
#define CLONE_THREAD 0x00010000
#define PROT_EXEC 0x4

/*
 * Kernel fields read through CO-RE (keep this list complete, so a kernel upgrade can
 * be reviewed against it):
 *   (none yet: the hooks use only their arguments and task storage)
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
