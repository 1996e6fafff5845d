/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - which system call the current task is in, for the calls that have no LSM hook
 * of their own but reach one that others reach too (swapon(2), sethostname(2) and
 * capable(), keyctl(2) and key_permission, a write(2) lowering an OOM score). The
 * numbers are the architecture's (arch/x86/entry/syscalls/): x86-64 and x32 (which
 * sets bit 30), and the 32-bit ones of a task in a 32-bit call (int 0x80, sysenter:
 * TS_COMPAT in thread_info.status). Another architecture must add its numbers here:
 * until then the build fails rather than check nothing.
 */
#ifndef UMBRELLA_SYSCALL_BPF_H
#define UMBRELLA_SYSCALL_BPF_H

#include "../maps.bpf.h"

#if defined(__TARGET_ARCH_x86)
/* A system call as its 64-bit number << 16 | its 32-bit number. */
#define UMB_NR(nr64, nr32)    ((nr64) << 16 | (nr32))
#define UMB_NR_SWAPON	      UMB_NR(167, 87)
#define UMB_NR_SWAPOFF	      UMB_NR(168, 115)
#define UMB_NR_ADD_KEY	      UMB_NR(248, 286)
#define UMB_NR_REQUEST_KEY    UMB_NR(249, 287)
#define UMB_NR_KEYCTL	      UMB_NR(250, 288)
#define UMB_NR_SETHOSTNAME    UMB_NR(170, 74)
#define UMB_NR_SETDOMAINNAME  UMB_NR(171, 121)
/* The calls that write a file through its ->write (io_uring's too): x32 has writev(2)
 * and pwritev(2) of its own numbers (bit 30 aside) */
#define UMB_NR_WRITE	      UMB_NR(1, 4)
#define UMB_NR_PWRITE64	      UMB_NR(18, 181)
#define UMB_NR_WRITEV	      UMB_NR(20, 146)
#define UMB_NR_PWRITEV	      UMB_NR(296, 334)
#define UMB_NR_PWRITEV2	      UMB_NR(328, 379)
#define UMB_NR_WRITEV_X32     UMB_NR(516, 146)
#define UMB_NR_PWRITEV_X32    UMB_NR(535, 334)
#define UMB_NR_PWRITEV2_X32   UMB_NR(547, 379)
#define UMB_NR_IO_URING_ENTER UMB_NR(426, 426)

#define UMB_X32_SYSCALL_BIT 0x40000000UL
#define UMB_TS_COMPAT	    0x0002

/* Whether the current task is in the system call @call (UMB_NR_*). */
static __always_inline bool umb_in_syscall(unsigned long call)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	unsigned long nr = BPF_CORE_READ(regs, orig_ax);

	if (BPF_CORE_READ(task, thread_info.status) & UMB_TS_COMPAT)
		return nr == (call & 0xffff);
	return (nr & ~UMB_X32_SYSCALL_BIT) == call >> 16;
}
/* The first argument of the current system call (ebx for a 32-bit one). */
static __always_inline unsigned long umb_syscall_arg1(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	if (BPF_CORE_READ(task, thread_info.status) & UMB_TS_COMPAT)
		return (__u32)BPF_CORE_READ(regs, bx);
	return BPF_CORE_READ(regs, di);
}
#else
#error "lib/syscall.bpf.h knows the system call numbers of x86 only"
#endif

#endif /* UMBRELLA_SYSCALL_BPF_H */
