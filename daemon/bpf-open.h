/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - opening and loading the BPF object for the running kernel */
#ifndef UMBRELLA_BPF_OPEN_H
#define UMBRELLA_BPF_OPEN_H

struct umbrella_bpf;

/*
 * umbrella_bpf_open_load() - open the skeleton and load it into the running kernel
 *
 * Where a hook's signature differs between the supported kernels, the object carries
 * one program per signature: this reads the kernel's BTF and loads only the program
 * that matches (today: inode_setattr, which gained an idmap argument in 6.3). Does
 * not attach. On success *@ret_skel is the loaded skeleton (umbrella_bpf__destroy()).
 * Return: 0, -ENOENT when the kernel's BTF lacks a hook we need (no BPF LSM), or the
 * -errno of opening, reading BTF or loading (a verifier refusal is -EINVAL or -EACCES).
 */
int umbrella_bpf_open_load(struct umbrella_bpf **ret_skel);

/*
 * umbrella_bpf_open_for_kernel() - the first half of umbrella_bpf_open_load(): open the
 * skeleton and choose the programs for the running kernel, without loading, so that the
 * caller can configure the object (pin paths) before umbrella_bpf__load().
 * Return: as umbrella_bpf_open_load(), but for loading.
 */
int umbrella_bpf_open_for_kernel(struct umbrella_bpf **ret_skel);

/* The initializer of a struct layer_maps (layer-install.h) with the maps of the loaded
 * skeleton @skel: umbrellad, the VM tests and the benchmark open layers with it. */
#define LAYER_MAPS_OF(skel)                                     \
	.layers = bpf_map__fd((skel)->maps.umb_layers),         \
	.fs_inodes = bpf_map__fd((skel)->maps.umb_fs_inodes),   \
	.fs_names = bpf_map__fd((skel)->maps.umb_fs_names),     \
	.layer_desc = bpf_map__fd((skel)->maps.umb_layer_desc), \
	.fs_filter = bpf_map__fd((skel)->maps.umb_fs_filter),   \
	.arm = bpf_map__fd((skel)->maps.umb_arm), .live = bpf_map__fd((skel)->maps.umb_live)

#endif /* UMBRELLA_BPF_OPEN_H */
