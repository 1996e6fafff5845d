/* SPDX-License-Identifier: GPL-2.0-only */
/* test-bpf-helpers: what its two units share */
#ifndef UMBRELLA_TEST_BPF_HELPERS_H
#define UMBRELLA_TEST_BPF_HELPERS_H

/* The 32-bit x86 numbers of the system calls lib/syscall.bpf.h knows (and bpf(2)). */
struct nr32 {
	unsigned long bpf, swapon, swapoff, add_key, request_key, keyctl;
};

extern const struct nr32 nr32;

#endif /* UMBRELLA_TEST_BPF_HELPERS_H */
