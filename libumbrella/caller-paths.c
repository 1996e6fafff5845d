// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella - the fs items of a request, resolved by the caller (caller-paths.h).
 *
 * umbrellad runs in a mount namespace of its own (the unit's PrivateTmp=, ProtectHome=,
 * PrivateDevices=), and its caller may be in a chroot or a container: a path means what
 * the caller sees, so the caller resolves it, with its own permissions, and passes
 * descriptors (as Landlock's rules take a parent_fd). O_PATH: no file is opened for
 * reading, nothing of the file system runs but the lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/caller-paths.h>

#include "restriction-copy.h"

/*
 * The error for @path whose directory @parent does not exist. A rule is keyed on an
 * inode: an existing object, or a name in an existing directory (the directory's inode
 * and the name). A path deeper below what exists has neither, and no key would follow
 * what is created there later, by whatever name route: refused, with what to do.
 */
static void missing_directory_error(const char *path, const char *parent, char **ret_error)
{
	char top[PATH_MAX], probe[PATH_MAX];
	char *slash;

	/* The first directory down from the root that is missing: the one to create. */
	(void)snprintf(top, sizeof(top), "%s", parent);
	(void)snprintf(probe, sizeof(probe), "%s", parent);
	while ((slash = strrchr(probe, '/')) && slash != probe) {
		*slash = '\0';
		if (access(probe, F_OK) == 0 || errno != ENOENT)
			break;
		(void)snprintf(top, sizeof(top), "%s", probe);
	}
	if (asprintf(ret_error,
		     "fs:%s: the directory %s does not exist%s%s%s: a rule needs an existing "
		     "file or directory, or a new name in an existing directory (create %s "
		     "first)",
		     path, parent, strcmp(top, parent) ? " (nor does " : "",
		     strcmp(top, parent) ? top : "", strcmp(top, parent) ? ")" : "", top) < 0)
		*ret_error = NULL;
}

int umb_path_canonical(const char *path, char canon[PATH_MAX], char **ret_error)
{
	char parent[PATH_MAX], real_parent[PATH_MAX];
	char *name;
	size_t len = strlen(path);

	if (realpath(path, canon))
		return 0;
	if (errno != ENOENT)
		return -errno;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	name = strrchr(parent, '/');
	if (!name)
		return -EINVAL; /* not absolute: the parser refuses it first */
	*name++ = '\0';		/* parent: the directory ("" for the root), name: the last name */
	if (!realpath(parent[0] ? parent : "/", real_parent)) {
		int r = -errno;

		if (ret_error && r == -ENOENT)
			missing_directory_error(path, parent, ret_error);
		return r;
	}
	if ((size_t)snprintf(canon, PATH_MAX, "%s/%s", strcmp(real_parent, "/") ? real_parent : "",
			     name) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

const char *umb_path_last_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strcmp(path, "/") == 0 || !slash ? NULL : slash + 1;
}

/* Opens the directory and the object of the canonical @canon into @p's table and fds. */
static int open_item(struct umb_caller_paths *p, const char *canon)
{
	unsigned char *ref = &p->table[p->fs_count++];
	const char *name = umb_path_last_name(canon);
	char dir[PATH_MAX];
	int fd;

	*ref = 0;
	if (name) {
		size_t len = (size_t)(name - canon);

		/* "/name": the root; "/a/name": "/a" */
		memcpy(dir, canon, len > 1 ? len - 1 : 1);
		dir[len > 1 ? len - 1 : 1] = '\0';
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		p->fds[p->fd_count++] = fd;
		*ref |= UMB_FS_REF_DIR;
	}
	/* The canonical path holds no symlink: one put there since is not followed. */
	fd = open(canon, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT && name ? 0 : -errno;
	p->fds[p->fd_count++] = fd;
	*ref |= UMB_FS_REF_OBJECT;
	return 0;
}

int umb_caller_paths_open(const struct umb_restrictions *r, struct umb_caller_paths *ret,
			  char **ret_error)
{
	struct umb_caller_paths p = {};
	struct umb_restrictions *copy;
	size_t fs_items = 0;
	int ret_code = 0;

	if (ret_error)
		*ret_error = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++)
		fs_items += umb_restrictions__item(r, i)->kind == UMB_ITEM_FS;
	if (fs_items > UMB_MAX_FS_ITEMS) {
		if (ret_error && asprintf(ret_error,
					  "%zu fs: items in one layer, more than the %u "
					  "one request can carry",
					  fs_items, UMB_MAX_FS_ITEMS) < 0)
			*ret_error = NULL;
		return -E2BIG;
	}
	copy = umb_restrictions__new();
	p.table = calloc(fs_items ? fs_items : 1, 1);
	if (!copy || !p.table) {
		ret_code = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);
		char canon[PATH_MAX];

		if (item->kind == UMB_ITEM_FS) {
			ret_code = umb_path_canonical(item->path, canon, ret_error);
			if (ret_code == 0)
				ret_code = open_item(&p, canon);
			if (ret_code < 0) {
				if (ret_error && !*ret_error &&
				    asprintf(ret_error, "fs:%s: %s", item->path,
					     strerror(-ret_code)) < 0)
					*ret_error = NULL;
				goto out;
			}
		}
		ret_code = umb_restriction_copy_item(copy, item, canon);
		if (ret_code < 0)
			goto out;
	}
	ret_code = umb_restrictions__format(copy, &p.text);
	if (ret_code < 0)
		goto out;
	p.fs_count = fs_items;
	*ret = p;
	umb_restrictions__free(copy);
	return 0;

out:
	umb_restrictions__free(copy);
	umb_caller_paths_close(&p);
	return ret_code;
}

void umb_caller_paths_close(struct umb_caller_paths *p)
{
	for (size_t i = 0; i < p->fd_count; i++)
		close(p->fds[i]);
	free(p->text);
	free(p->table);
	*p = (struct umb_caller_paths){};
}
