// SPDX-License-Identifier: GPL-2.0-only
/* test-bpf-helpers: the 32-bit x86 system call numbers, from the kernel's UAPI header
 * (a unit of its own: its __NR_* names clash with the 64-bit ones of <sys/syscall.h>). */
#include <asm/unistd_32.h>

#include "test-bpf-helpers.h"

const struct nr32 nr32 = {
	.bpf = __NR_bpf,
	.swapon = __NR_swapon,
	.swapoff = __NR_swapoff,
	.add_key = __NR_add_key,
	.request_key = __NR_request_key,
	.keyctl = __NR_keyctl,
};
