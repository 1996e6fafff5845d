/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the mounts below a restricted directory */
#ifndef UMBRELLA_FS_MOUNTS_H
#define UMBRELLA_FS_MOUNTS_H

#include <stdbool.h>

struct mount_guard;

/*
 * fs_mounts_below() - calls @fn with an O_PATH descriptor of the root of each mount below
 * the directory @dir_fd, whose canonical path as process @peer (0: umbrellad itself) sees
 * it is @dir, in @peer's mount namespace, until @fn returns non-zero; looking names up
 * only in directories @guard lets it (NULL: any)
 *
 * A mount hidden under another mount on the same mount point is not reached. Return: 0,
 * what @fn returned, -EREMOTEIO when @guard refused a directory on the way to one
 * (mount-guard.h), or -errno.
 */
int fs_mounts_below(int peer, const struct mount_guard *guard, int dir_fd, const char *dir,
		    int (*fn)(int fd, void *arg), void *arg);

/* Whether the mount point @point is below the directory @dir (both canonical paths). */
bool fs_mount_point_below(const char *point, const char *dir);

#endif
