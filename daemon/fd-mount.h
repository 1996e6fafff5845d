/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the mount a descriptor is on, as mountinfo tells it */
#ifndef UMBRELLA_FD_MOUNT_H
#define UMBRELLA_FD_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fd_mount {
	int id;		 /* the mount id (fdinfo's mnt_id) */
	uint32_t dev;	 /* its super block's s_dev, as the BPF programs key it */
	char fstype[64]; /* "proc", "overlay", ...; a subtype is cut ("fuse") */
};

/*
 * fd_mount_read() - the mount descriptor @fd is on, from /proc/self/fdinfo/@fd and the
 * mount's line in /proc/self/mountinfo or else /proc/@peer/mountinfo (@peer: the
 * caller whose namespace may hold the mount, or 0)
 *
 * Unlike fstatfs() or statx(), this calls into no file system: a descriptor of a FUSE
 * mount whose server does not answer cannot stall umbrellad here.
 *
 * Return: 0, -ENOENT when neither namespace lists the mount, or another -errno.
 */
int fd_mount_read(int fd, int peer, struct fd_mount *ret);

/*
 * fd_is_dir() - whether @fd holds a directory: 1, 0, or -errno. Reopens it through
 * /proc/self/fd with O_DIRECTORY, which asks the file system nothing (fstat() would
 * ask a FUSE server for the attributes).
 */
int fd_is_dir(int fd);

#endif
