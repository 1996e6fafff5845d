/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - the fs paths of a request, resolved as the caller sees them (not installed:
 * libumbrella's client side, and umbrellad's own resolution of the paths it is given).
 */
#ifndef UMBRELLA_CALLER_PATHS_H
#define UMBRELLA_CALLER_PATHS_H

#include <limits.h>
#include <stddef.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

/*
 * umb_path_canonical() - the canonical form of @path (symlinks and ".." resolved, as
 * open() would) in @canon: of the path itself when it exists, else of its parent
 * directory plus the last name
 * @ret_error: if not NULL, set to a malloc'd message when the directory does not exist
 *
 * Return: 0 or -errno (-ENOENT: the directory does not exist).
 */
int umb_path_canonical(const char *path, char canon[PATH_MAX], char **ret_error);

/* The last name of the canonical @path, or NULL for "/". */
const char *umb_path_last_name(const char *path);

/* A request's fs items as the caller sees them (libumbrella/caller-paths.c). */
struct umb_caller_paths {
	char *text;		  /* the restrictions in the text form, fs paths canonical */
	unsigned char *table;	  /* per fs item, in order: UMB_FS_REF_* */
	size_t fs_count;	  /* entries of table */
	int fds[UMB_MSG_MAX_FDS]; /* O_PATH descriptors, as table lists them */
	size_t fd_count;
};

/*
 * umb_caller_paths_open() - resolve every fs item of @r here, in the calling process's
 * root and mount namespace, with its permissions: the canonical path, a descriptor of
 * its directory (none for "/") and of the object when it exists
 * @ret_error: if not NULL, on failure a malloc'd message naming the item and why
 *
 * Return: 0, or -errno (-E2BIG: more than UMB_MAX_FS_ITEMS fs items). On failure
 * nothing is left open.
 */
int umb_caller_paths_open(const struct umb_restrictions *r, struct umb_caller_paths *ret,
			  char **ret_error);

/* Closes and frees what @p holds. */
void umb_caller_paths_close(struct umb_caller_paths *p);

#endif
