/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - whether a rule on an object can hold: inode numbers that stay */
#ifndef UMBRELLA_FS_STABLE_H
#define UMBRELLA_FS_STABLE_H

#include "layer-install.h"
#include "mount-guard.h"

/*
 * fs_ref_stable() - whether the inodes a rule on @ref is keyed on keep their numbers for
 * as long as the object lives: the object (if it exists), its directory and the
 * directories above them on the same file system
 * @guard: the request's tables of mounts and budget (mount-guard.h), or NULL
 * @peer: the caller whose mount namespace may hold the descriptors' mounts, or 0
 * @path: the item's path, for the error
 *
 * Some file systems give an inode a new number each time it is read back in after its
 * eviction (get_next_ino()): a rule keyed on the number would stop matching, and
 * restrict nothing, once memory pressure or `echo 2 > /proc/sys/vm/drop_caches`
 * evicted it. Such a rule is refused (fs-stable.c says which objects).
 *
 * Return: 0, -EINVAL with *@ret_error naming the item and why, -MOUNT_BUDGET_ERRNO past
 * @guard's budget (each level climbed is a step), or another -errno.
 */
int fs_ref_stable(const struct fs_ref *ref, const struct mount_guard *guard, int peer,
		  const char *path, char **ret_error);

#endif
