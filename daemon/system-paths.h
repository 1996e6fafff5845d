/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - a signed policy's fs items, resolved in the system's view (PID 1's) */
#ifndef UMBRELLA_SYSTEM_PATHS_H
#define UMBRELLA_SYSTEM_PATHS_H

#include <stddef.h>

#include <umbrella/umbrella.h>

#include "layer-install.h"

/* The process whose root and mount namespace are the system's view. */
#define SYSTEM_PATHS_PID 1

struct system_paths {
	struct umb_restrictions *canonical; /* the items, each fs path as PID 1 sees it */
	struct fs_ref *items;		    /* per fs item, in order: its descriptors */
	struct fs_refs refs;		    /* for layers_create_at(): items, peer PID 1 */
};

/*
 * system_paths_open() - resolve every fs item of @r as a caller resolves its own, but
 * in PID 1's root and mount namespace (from /proc/1/root, one name at a time): the
 * canonical path, a descriptor of its directory (none for "/") and of the object when
 * it exists
 * @ret_error: if not NULL, on failure a malloc'd message naming the item and why
 *
 * Return: 0, or -errno (-ENOENT: the item's directory does not exist there; -EPERM: a
 * directory on its path a user owns or others may write to; -ELOOP: a symbolic link as
 * its last name, or a user's or /proc's further up). On failure nothing is left open.
 */
int system_paths_open(const struct umb_restrictions *r, struct system_paths *ret, char **ret_error);

/* Closes and frees what @p holds. */
void system_paths_close(struct system_paths *p);

#endif
