/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - the kernel's encoding of a device number, for user space (not installed).
 * The BPF programs key inodes by the super block's s_dev, MKDEV(major, minor) =
 * major << 20 | minor (struct umb_inode_key), not by user space's st_dev encoding:
 * everything that writes or prints such a key converts here.
 */
#ifndef UMBRELLA_KDEV_H
#define UMBRELLA_KDEV_H

#include <stdint.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#define UMB_KDEV_MINOR_BITS 20

/* @dev (a struct stat's st_dev) as the kernel's s_dev. */
static inline uint32_t umb_kdev(dev_t dev)
{
	return (uint32_t)(major(dev) << UMB_KDEV_MINOR_BITS | minor(dev));
}

static inline unsigned int umb_kdev_major(uint32_t kdev)
{
	return kdev >> UMB_KDEV_MINOR_BITS;
}

static inline unsigned int umb_kdev_minor(uint32_t kdev)
{
	return kdev & ((1U << UMB_KDEV_MINOR_BITS) - 1);
}

/*
 * umb_kernel_inode() - the inode descriptor @fd refers to, keyed as the BPF programs key
 * it: its super block's s_dev (not stat()'s st_dev, which btrfs and overlayfs make up)
 * and its i_ino (libumbrella/kernel-inode.c)
 * @peer: a process whose mount namespace may hold @fd's mount when ours does not (the
 *        caller that sent @fd), or 0
 *
 * Return: 0, -ENOENT when neither namespace lists the mount (a detached mount),
 * -EOPNOTSUPP on a kernel older than 5.14, or another -errno.
 */
int umb_kernel_inode(int fd, int peer, uint32_t *ret_dev, uint64_t *ret_ino);

/* An inode as umbrellad's records and umbrella-cli name it: "MAJOR:MINOR/INO". */
static inline void umb_inode_text(char *buf, size_t size, uint32_t kdev, uint64_t ino)
{
	snprintf(buf, size, "%u:%u/%llu", umb_kdev_major(kdev), umb_kdev_minor(kdev),
		 (unsigned long long)ino);
}

#endif
