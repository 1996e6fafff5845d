/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the mounts below a restricted directory */
#ifndef UMBRELLA_FS_MOUNTS_H
#define UMBRELLA_FS_MOUNTS_H

#include <stdbool.h>

struct mount_guard;

/*
 * fs_mounts_below() - calls @fn with an O_PATH descriptor of the root of each mount below
 * the directory @dir_fd, whose canonical path as the caller of @guard's namespace sees it
 * is @dir, until @fn returns non-zero; the mounts as @guard's request read them
 * (mount_guard_mounts()), looking names up only in directories @guard lets it
 *
 * A mount hidden under another mount on the same mount point is not reached. Return: 0,
 * what @fn returned, -EREMOTEIO when @guard refused a directory on the way to one
 * (mount-guard.h), -MOUNT_BUDGET_ERRNO past the request's budget, or -errno.
 */
int fs_mounts_below(const struct mount_guard *guard, int dir_fd, const char *dir,
		    int (*fn)(int fd, void *arg), void *arg);

/* Whether the mount point @point is below the directory @dir (both canonical paths). */
bool fs_mount_point_below(const char *point, const char *dir);

#endif
