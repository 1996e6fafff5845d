// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - a signed policy's fs items, resolved in the system's view (system-paths.h).
 *
 * A caller of rfork resolves its own paths and passes descriptors (caller-paths.c); a
 * signed binary's policy has no caller to do that, and umbrellad's own view is not the
 * system's: its unit gives it a private /tmp, /var/tmp and /dev and an empty /root and
 * /home, where fs:/tmp/X would name a file no other process sees and restrict nothing.
 * A vendor who writes fs:/tmp/X means the system's /tmp: its paths are resolved in PID
 * 1's root and mount namespace, through /proc/1/root with RESOLVE_IN_ROOT (an absolute
 * symbolic link or ".." stays inside that root) and no magic link. A symbolic link as
 * the last name is refused, and one further up unless only root could have made it
 * there and can change it (refuse_symlinks()): in /tmp, a user can plant a link at the
 * policy's path before the program makes its file. The rule is then on
 * those inodes, wherever they are visible: through a bind mount, or in a container that
 * shares them. A path that exists only inside a container's own root is not what a
 * signed policy names (the layer is one per policy and key, shared by every exec, and
 * held for as long as the pins live: one per mount namespace would let any user who can
 * make namespaces make layers that are never freed).
 *
 * The canonical path is the object's path from its namespace's root, as the kernel
 * tells it for the descriptor (/proc/self/fd), and is taken only if it leads to the same
 * inode in PID 1's root through no symbolic link: else (PID 1 chrooted, a rename
 * meanwhile) the item is refused, never resolved elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <umbrella/caller-paths.h>

#include "restriction-copy.h"

#include "system-paths.h"

/* An O_PATH descriptor of @path in @root (RESOLVE_IN_ROOT), or -errno. */
static int open_in_root(int root, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_PATH | O_CLOEXEC),
		.resolve = resolve | RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/* Whether @a and @b hold the same inode. */
static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * The canonical form of the existing @path in @root (symbolic links and ".." resolved,
 * the last name's link too, as realpath() does) in @canon. Return: 0, -ENOENT when it
 * does not exist, -EXDEV when its path from its namespace's root does not lead to it in
 * @root, or another -errno.
 */
static int canonical_existing(int root, const char *path, int flags, char canon[PATH_MAX])
{
	char link[64];
	ssize_t n;
	int fd, check, r = 0;

	fd = open_in_root(root, path, flags, 0);
	if (fd < 0)
		return fd;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, canon, PATH_MAX);
	if (n < 0)
		r = -errno;
	else if (n >= PATH_MAX)
		r = -ENAMETOOLONG;
	if (r < 0)
		goto out;
	canon[n] = '\0';
	/* No symbolic link now: the path is canonical only if it needs none. */
	check = canon[0] == '/' ? open_in_root(root, canon, O_NOFOLLOW, RESOLVE_NO_SYMLINKS) :
				  -EXDEV;
	if (check < 0) {
		r = check == -ENOENT || check == -ELOOP ? -EXDEV : check;
		goto out;
	}
	if (!same_inode(fd, check))
		r = -EXDEV;
	close(check);
out:
	close(fd);
	return r;
}

/* The canonical form of @path in @root: of the path itself when it exists, else of its
 * directory plus the last name (umb_path_canonical() in PID 1's root). */
static int canonical_in_root(int root, const char *path, char canon[PATH_MAX], char **ret_error)
{
	char parent[PATH_MAX], real_parent[PATH_MAX];
	size_t len = strlen(path);
	char *name;
	int r;

	r = canonical_existing(root, path, 0, canon);
	if (r != -ENOENT)
		goto out;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	name = strrchr(parent, '/');
	if (!name)
		return -EINVAL; /* not absolute: the parser refuses it first */
	*name++ = '\0';
	r = canonical_existing(root, parent[0] ? parent : "/", O_DIRECTORY, real_parent);
	if (r == -ENOENT && ret_error)
		(void)asprintf(ret_error,
			       "fs:%s: the directory %s does not exist in the system's root (PID "
			       "%d's): a rule needs an existing file or directory, or a new name "
			       "in an existing directory",
			       path, parent[0] ? parent : "/", SYSTEM_PATHS_PID);
	if (r < 0)
		goto out;
	if ((size_t)snprintf(canon, PATH_MAX, "%s/%s", strcmp(real_parent, "/") ? real_parent : "",
			     name) >= PATH_MAX)
		return -ENAMETOOLONG;
out:
	if (r == -EXDEV && ret_error)
		(void)asprintf(ret_error,
			       "fs:%s: its path from its mount namespace's root does not lead "
			       "to it in PID %d's root (a chrooted PID %d, or a rename meanwhile)",
			       path, SYSTEM_PATHS_PID, SYSTEM_PATHS_PID);
	return r;
}

/* Whether the symbolic link @link (O_PATH, O_NOFOLLOW) in the directory @dir cannot have
 * been put there, nor be changed, by a user other than root: root's, in a directory of
 * root's that no one else may write to, or only with the sticky bit (/tmp: a link there
 * can be removed only by its owner). */
static bool link_trusted(int link, int dir)
{
	struct stat l, d;

	if (fstat(link, &l) < 0 || fstat(dir, &d) < 0)
		return false;
	return l.st_uid == 0 && d.st_uid == 0 &&
	       (d.st_mode & S_ISVTX ||
		(!(d.st_mode & S_IWOTH) && (!(d.st_mode & S_IWGRP) || d.st_gid == 0)));
}

/*
 * Refuses @path (in @root) when a symbolic link on it can make the rule restrict another
 * file than the one the vendor named: a link as its last name (the rule would be on the
 * link's target, whoever put it there, and the path itself unrestricted once the link is
 * gone and a file made there: /tmp/X planted by a user before the program makes it), or
 * a link further up that a user could have put there or can change (link_trusted()). A
 * link of the system's own (/lib to usr/lib, /var/run to /run, root's in /tmp) is
 * followed. What does not exist yet has no link: canonical_in_root() deals with it.
 * Return: 0, -ELOOP with *@ret_error, or -errno.
 */
static int refuse_symlinks(int root, const char *path, char **ret_error)
{
	char prefix[PATH_MAX], target[PATH_MAX];
	size_t len = strlen(path), dir_end = 1;

	if (len >= sizeof(prefix))
		return -ENAMETOOLONG;
	for (size_t end = 1; end <= len; end++) {
		struct stat st;
		bool last, trusted;
		ssize_t n;
		int fd, dir;

		if ((end < len && path[end] != '/') || path[end - 1] == '/')
			continue;
		memcpy(prefix, path, end);
		prefix[end] = '\0';
		fd = open_in_root(root, prefix, O_NOFOLLOW, 0);
		if (fd < 0)
			return fd == -ENOENT || fd == -ENOTDIR ? 0 : fd;
		if (fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode)) {
			close(fd);
			dir_end = end;
			continue;
		}
		last = path[end + strspn(path + end, "/")] == '\0';
		n = readlinkat(fd, "", target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		prefix[dir_end] = '\0';
		dir = last ? -1 : open_in_root(root, prefix, O_DIRECTORY, 0);
		trusted = dir >= 0 && link_trusted(fd, dir);
		if (dir >= 0)
			close(dir);
		close(fd);
		if (trusted)
			continue;
		if (!ret_error)
			return -ELOOP;
		memcpy(prefix, path, end);
		prefix[end] = '\0';
		/* Short: the gate's verdict reason (the journal) keeps 160 bytes. */
		if (last)
			(void)asprintf(
				ret_error,
				"fs:%s: a symbolic link (to %s), refused: name the file itself",
				path, target);
		else
			(void)asprintf(ret_error,
				       "fs:%s: %s, a symbolic link (to %s) a user made or can "
				       "change, refused",
				       path, prefix, target);
		return -ELOOP;
	}
	return 0;
}

/* Opens the directory and the object of the canonical @canon in @root into @ref, as
 * caller-paths.c opens a caller's: the object only if it exists, never through a
 * symbolic link put there since (the last name's own link is the object). */
static int open_item(int root, const char *canon, struct fs_ref *ref)
{
	const char *name = umb_path_last_name(canon);
	char dir[PATH_MAX];

	if (name) {
		size_t len = (size_t)(name - canon);

		/* "/name": the root; "/a/name": "/a" */
		memcpy(dir, canon, len > 1 ? len - 1 : 1);
		dir[len > 1 ? len - 1 : 1] = '\0';
		ref->dir_fd = open_in_root(root, dir, O_DIRECTORY, RESOLVE_NO_SYMLINKS);
		if (ref->dir_fd < 0)
			return ref->dir_fd;
	}
	ref->obj_fd = open_in_root(root, canon, O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
	if (ref->obj_fd >= 0)
		return 0;
	return ref->obj_fd == -ENOENT && name ? 0 : ref->obj_fd;
}

int system_paths_open(const struct umb_restrictions *r, struct system_paths *ret, char **ret_error)
{
	struct system_paths p = {};
	size_t fs_items = 0;
	char proc_root[64];
	int root, ret_code = 0;

	if (ret_error)
		*ret_error = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++)
		fs_items += umb_restrictions__item(r, i)->kind == UMB_ITEM_FS;
	p.canonical = umb_restrictions__new();
	p.items = calloc(fs_items ? fs_items : 1, sizeof(*p.items));
	if (!p.canonical || !p.items) {
		free(p.items);
		umb_restrictions__free(p.canonical);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fs_items; i++)
		p.items[i] = (struct fs_ref){ .dir_fd = -1, .obj_fd = -1 };
	p.refs = (struct fs_refs){
		.items = p.items, .count = fs_items, .peer = SYSTEM_PATHS_PID, .proc_fd = -1
	};

	snprintf(proc_root, sizeof(proc_root), "/proc/%d/root", SYSTEM_PATHS_PID);
	root = fs_items ? open(proc_root, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (fs_items && root < 0) {
		ret_code = -errno;
		if (ret_error)
			(void)asprintf(ret_error, "cannot open %s, the system's root: %s",
				       proc_root, strerror(-ret_code));
		goto out;
	}
	for (size_t i = 0, fs = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);
		char canon[PATH_MAX];

		if (item->kind == UMB_ITEM_FS) {
			ret_code = refuse_symlinks(root, item->path, ret_error);
			if (ret_code == 0)
				ret_code = canonical_in_root(root, item->path, canon, ret_error);
			if (ret_code == 0)
				ret_code = open_item(root, canon, &p.items[fs++]);
			if (ret_code < 0) {
				if (ret_error && !*ret_error)
					(void)asprintf(ret_error, "fs:%s: %s", item->path,
						       strerror(-ret_code));
				goto out;
			}
		}
		ret_code = umb_restriction_copy_item(p.canonical, item,
						     item->kind == UMB_ITEM_FS ? canon : NULL);
		if (ret_code < 0)
			goto out;
	}
out:
	if (root >= 0)
		close(root);
	if (ret_code < 0) {
		system_paths_close(&p);
		return ret_code;
	}
	*ret = p;
	return 0;
}

void system_paths_close(struct system_paths *p)
{
	for (size_t i = 0; p->items && i < p->refs.count; i++) {
		if (p->items[i].dir_fd >= 0)
			close(p->items[i].dir_fd);
		if (p->items[i].obj_fd >= 0)
			close(p->items[i].obj_fd);
	}
	free(p->items);
	umb_restrictions__free(p->canonical);
	*p = (struct system_paths){};
}
