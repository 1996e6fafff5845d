// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - opening and loading the BPF object for the running kernel */
#include <errno.h>
#include <stdbool.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf-open.h"
#include "umbrella.skel.h"

/* The number of parameters of the kernel function @name in @btf, or -ENOENT. */
static int func_param_count(const struct btf *btf, const char *name)
{
	const struct btf_type *func, *proto;
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);

	if (id < 0)
		return -ENOENT;
	func = btf__type_by_id(btf, id);
	proto = func ? btf__type_by_id(btf, func->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	return btf_vlen(proto);
}

int umbrella_bpf_open_for_kernel(struct umbrella_bpf **ret_skel)
{
	struct umbrella_bpf *skel;
	struct btf *vmlinux;
	int setattr_params, r;
	bool ioctl_compat, mmap_backing;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -errno;
	/* inode_setattr: (dentry, iattr) up to 6.2, (idmap, dentry, iattr) since 6.3.
	 * 6.1: remove when 6.1 goes (the choice: the idmap program always). */
	setattr_params = func_param_count(vmlinux, "bpf_lsm_inode_setattr");
	/* file_ioctl_compat: since 6.8 the 32-bit ioctl(2) has a hook of its own. */
	ioctl_compat = func_param_count(vmlinux, "bpf_lsm_file_ioctl_compat") >= 0;
	/* mmap_backing_file: 7.0, and stable backports (6.12.95): overlayfs's mappings. */
	mmap_backing = func_param_count(vmlinux, "bpf_lsm_mmap_backing_file") == 3;
	btf__free(vmlinux);
	if (setattr_params < 0)
		return setattr_params;
	if (setattr_params != 2 && setattr_params != 3)
		return -EOPNOTSUPP; /* a signature we have no program for */

	skel = umbrella_bpf__open();
	if (!skel)
		return -errno;
	r = bpf_program__set_autoload(skel->progs.umb_inode_setattr, setattr_params == 3);
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.umb_inode_setattr_noidmap,
					      setattr_params == 2);
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.umb_file_ioctl_compat, ioctl_compat);
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.umb_mmap_backing_file, mmap_backing);
	skel->rodata->umb_has_mmap_backing_file = mmap_backing;
	if (r < 0) {
		umbrella_bpf__destroy(skel);
		return r;
	}
	*ret_skel = skel;
	return 0;
}

int umbrella_bpf_open_load(struct umbrella_bpf **ret_skel)
{
	struct umbrella_bpf *skel;
	int r;

	r = umbrella_bpf_open_for_kernel(&skel);
	if (r < 0)
		return r;
	r = umbrella_bpf__load(skel);
	if (r < 0) {
		umbrella_bpf__destroy(skel);
		return r;
	}
	*ret_skel = skel;
	return 0;
}
