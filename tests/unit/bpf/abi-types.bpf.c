// SPDX-License-Identifier: GPL-2.0-only
/*
 * A BPF object never loaded: its BTF holds the structs of include/umbrella/bpf-abi.h
 * that umbrella.bpf.o's BTF lacks (ring buffer records, the maps umbrellad creates), as
 * the BPF compiler lays them out, for test-abi-layout (abi-btf-gen). abi-btf-gen fails
 * on a struct of bpf-abi.h that no object holds: add it here.
 */
#include "umbrella.bpf.h"

struct umb_release umb_abi_release;
struct umb_invalidation umb_abi_invalidation;
struct umb_meta umb_abi_meta;

char LICENSE[] SEC("license") = "GPL";
