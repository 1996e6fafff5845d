// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Umbrella - an inode as the BPF programs name it, from a descriptor (kdev.h).
 *
 * The hooks key an inode by its dentry's super block's s_dev and by i_ino. stat() does
 * not always tell those: btrfs reports each subvolume's own anonymous device, and
 * overlayfs with layers on several file systems reports for a non-directory the pseudo
 * device of the layer it comes from. A key made from st_dev then never matches, and the
 * rule restricts nothing. The kernel tells both for a descriptor, through no file
 * system's getattr (which a FUSE server could stall): /proc/self/fdinfo/FD has the
 * mount's id (mnt_id:) and i_ino (ino:, Linux 5.14 and later), and the mount's line in
 * a mountinfo has its super block's s_dev ("MAJOR:MINOR", fs/proc_namespace.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/kdev.h>

#include "fdinfo.h"
#include "mountinfo.h"

/* mnt_id and ino of descriptor @fd of this process, from its fdinfo. */
static int fdinfo_inode(int fd, int *ret_mnt_id, uint64_t *ret_ino)
{
	uint64_t v[2];
	int r;

	/* -EOPNOTSUPP: a kernel older than 5.14 (no "ino:"). */
	r = fdinfo_read(fd, 2, (const char *const[]){ "mnt_id", "ino" }, v);
	if (r < 0)
		return r;
	*ret_mnt_id = (int)v[0];
	*ret_ino = v[1];
	return 0;
}

struct dev_find {
	int mnt_id;
	uint32_t dev;
};

static int dev_find_entry(const struct mountinfo_entry *e, void *userdata)
{
	struct dev_find *d = userdata;

	if (e->id != d->mnt_id)
		return 0;
	d->dev = e->kdev;
	return 1;
}

/* The s_dev of mount @mnt_id in the mountinfo file @path: 0, -ENOENT if it has no
 * such mount, or -errno. */
static int mountinfo_dev(const char *path, int mnt_id, uint32_t *ret_dev)
{
	struct dev_find d = { .mnt_id = mnt_id };
	int r;

	r = mountinfo_read_path(path, &(const struct mountinfo_ops){ .entry = dev_find_entry }, &d);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*ret_dev = d.dev;
	return 0;
}

int umb_kernel_inode(int fd, int peer, uint32_t *ret_dev, uint64_t *ret_ino)
{
	char path[64];
	int mnt_id, ret;

	ret = fdinfo_inode(fd, &mnt_id, ret_ino);
	if (ret < 0)
		return ret;
	/* A mount id names one live mount, and @fd holds it: any mountinfo that lists it
	 * tells the truth, even one of a process that reused @peer's pid. */
	ret = mountinfo_dev("/proc/self/mountinfo", mnt_id, ret_dev);
	if (ret != -ENOENT || peer <= 0)
		return ret;
	/* A mount of the caller's namespace, not of ours. */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", peer);
	return mountinfo_dev(path, mnt_id, ret_dev);
}
