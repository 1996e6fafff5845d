// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - a signed policy's fs items, resolved in the system's view (system-paths.h).
 *
 * A caller of rfork resolves its own paths and passes descriptors (caller-paths.c); a
 * signed binary's policy has no caller to do that, and umbrellad's own view is not the
 * system's: its unit gives it a private /tmp, /var/tmp and /dev and an empty /root and
 * /home, where fs:/tmp/X would name a file no other process sees and restrict nothing.
 * A vendor who writes fs:/tmp/X means the system's /tmp: its paths are resolved in PID
 * 1's root and mount namespace, from a descriptor of /proc/1/root. The rule is then on
 * those inodes, wherever they are visible: through a bind mount, or in a container that
 * shares them. A path that exists only inside a container's own root is not what a
 * signed policy names (the layer is one per policy and key, shared by every exec, and
 * held for as long as the pins live: one per mount namespace would let any user who can
 * make namespaces make layers that are never freed).
 *
 * The rule must be on what the vendor named, and stay so: a user who could rename a
 * directory on the path (theirs, or one others may write to) would move the restricted
 * objects away and make new ones under the policy's path, which then reaches objects
 * the layer never heard of. So the path is walked once, one name at a time from the
 * root, each name looked up in the descriptor of the directory before it (never the
 * path string again: no window for a name swapped between a check and a resolution),
 * and every directory a name is looked up in must be root's and not writable by others
 * unless sticky (dir_check()). A symbolic link on the way is followed only if root's
 * (link_check(): the system's /lib, root's in /tmp), and refused as the last name
 * (a user can plant a link at /tmp/X before the program makes X: the rule would be on
 * the link's target). The last name itself may be anyone's: its rules are on its inode
 * and on its name in its directory, which holds for whatever is put there later.
 *
 * systemd's chase() with CHASE_SAFE guards another threat (a user's link leading root
 * to a file of root's: it refuses a step from a user's directory to another uid's and
 * ignores the mode); here any step through what a user can change is refused, as
 * OpenSSH's safely_chroot() does for a chroot's components, with the sticky /tmp
 * allowed since only root can move root's entries there. A signed policy belongs to no
 * uid (its layer is shared by every exec and charged to root), so root alone is trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <umbrella/caller-paths.h>

#include "fd-mount.h"
#include "restriction-copy.h"

#include "system-paths.h"

/* Symbolic links followed on one path at most, as the kernel's MAXSYMLINKS. */
#define WALK_LINKS_MAX 40

/*
 * The directories of the walk, a stack: the descriptor, stat and path of each, from the
 * root (dirs[0]) to the one whose names are looked up next. ".." takes the one below
 * (and stays at the root), as the kernel's walk does for the directories it went down
 * through, without asking the file system where ".." is now.
 */
struct walk_dir {
	int fd; /* not owned for the root */
	struct stat st;
	size_t canon_len; /* the length of its path in canon ("" for the root) */
};

struct walk {
	const char *path; /* the policy's, for the messages */
	struct walk_dir *dirs;
	size_t depth, size;
	char canon[PATH_MAX]; /* the path of the top from PID 1's root */
};

/* Appends "/@name" to the path of the top, in canon. */
static int walk_name(struct walk *w, const char *name)
{
	size_t len = w->dirs[w->depth - 1].canon_len, name_len = strlen(name);

	if (len + 1 + name_len >= sizeof(w->canon))
		return -ENAMETOOLONG;
	w->canon[len] = '/';
	memcpy(w->canon + len + 1, name, name_len + 1);
	return 0;
}

static int walk_push(struct walk *w, int fd, const struct stat *st, const char *name)
{
	int r = walk_name(w, name);

	if (r < 0)
		return r;
	if (w->depth == w->size) {
		struct walk_dir *dirs = reallocarray(w->dirs, w->size * 2, sizeof(*dirs));

		if (!dirs)
			return -ENOMEM;
		w->dirs = dirs;
		w->size *= 2;
	}
	w->dirs[w->depth++] =
		(struct walk_dir){ .fd = fd, .st = *st, .canon_len = strlen(w->canon) };
	return 0;
}

static void walk_pop(struct walk *w)
{
	close(w->dirs[--w->depth].fd);
	w->canon[w->dirs[w->depth - 1].canon_len] = '\0';
}

/* The path of the top, for the messages: "/" for the root. */
static const char *walk_where(const struct walk *w)
{
	return w->canon[0] ? w->canon : "/";
}

/*
 * Whether no user other than root can change what a name in the top directory reaches:
 * it must be root's, and writable by neither its group nor others unless sticky (/tmp:
 * only an entry's owner or root may rename or remove it, and a directory looked into
 * must be root's in turn). A group-writable one is refused even with root's group: with
 * an ACL the group bits are the mask of every named user's and group's write.
 */
static int dir_check(const struct walk *w, char **ret_error)
{
	const struct stat *st = &w->dirs[w->depth - 1].st;

	/* Short: the gate's verdict reason (the journal) keeps 160 bytes. */
	if (st->st_uid != 0) {
		if (ret_error &&
		    asprintf(ret_error, "fs:%s: %s, a directory on the path, is uid %u's: refused",
			     w->path, walk_where(w), (unsigned int)st->st_uid) < 0)
			*ret_error = NULL;
		return -EPERM;
	}
	if (!(st->st_mode & S_ISVTX) && st->st_mode & (S_IWGRP | S_IWOTH)) {
		if (ret_error &&
		    asprintf(ret_error,
			     "fs:%s: %s, a directory on the path, is writable by others "
			     "(mode %04o, not sticky): refused",
			     w->path, walk_where(w), (unsigned int)(st->st_mode & 07777)) < 0)
			*ret_error = NULL;
		return -EPERM;
	}
	return 0;
}

/*
 * Whether the symbolic link @fd (@st, on mount @m), @name in the top directory (which
 * dir_check() passed), may be followed, its target in @target: not as the path's last name (the
 * rule would be on whatever it points to), only root's (a user's in /tmp is not), and
 * none of /proc's, whose magic links lead to objects (a process's files, its root), not
 * to a name in PID 1's root. Return: 0, -ELOOP with *@ret_error, or -errno.
 */
static int link_check(const struct walk *w, int fd, const struct stat *st, const struct fd_mount *m,
		      const char *name, bool last, char target[PATH_MAX], char **ret_error)
{
	ssize_t n;

	n = readlinkat(fd, "", target, PATH_MAX);
	if (n < 0)
		return -errno;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	target[n] = '\0';
	/* Short: the gate's verdict reason (the journal) keeps 160 bytes. */
	if (last) {
		if (ret_error &&
		    asprintf(ret_error,
			     "fs:%s: a symbolic link (to %s), refused: name the file itself",
			     w->path, target) < 0)
			*ret_error = NULL;
		return -ELOOP;
	}
	if (st->st_uid == 0 && strcmp(m->fstype, "proc") != 0)
		return n ? 0 : -ENOENT;
	if (ret_error &&
	    asprintf(
		    ret_error,
		    st->st_uid == 0 ?
			    "fs:%s: %s/%s, a link of /proc (to %s), refused" :
			    "fs:%s: %s/%s, a symbolic link (to %s) a user made or can change, refused",
		    w->path, w->canon, name, target) < 0)
		*ret_error = NULL;
	return -ELOOP;
}

/*
 * Refuses @fd, the name @name just opened, when it is on a FUSE mount: its server tells
 * the owner and mode the rule on directories relies on, and may never answer the fstat()
 * that reads them, which would hold umbrellad's loop (a user's fusermount with
 * allow_other on a directory of its own in /tmp, where the policy names one). Looked up
 * by fd_mount_read(), which asks no file system. Every other mount in PID 1's namespace
 * is root's to make. The mount read is left in *@m. Return: 0, -EPERM (with
 * *@ret_error), or -errno.
 */
static int mount_check(const struct walk *w, int fd, const char *name, struct fd_mount *m,
		       char **ret_error)
{
	int r = fd_mount_read(fd, SYSTEM_PATHS_PID, m);

	if (r < 0)
		return r;
	if (strncmp(m->fstype, "fuse", 4) != 0)
		return 0;
	if (ret_error && asprintf(ret_error,
				  "fs:%s: %s/%s is on a FUSE mount (its server tells who owns it): "
				  "refused",
				  w->path, w->canon, name) < 0)
		*ret_error = NULL;
	return -EPERM;
}

/* Puts the symbolic link's @target before what is left of the path in @rest (from @at),
 * and goes back to the root if it is absolute (else it goes on from the directory that
 * holds the link). */
static int walk_into_link(struct walk *w, const char *target, char rest[PATH_MAX], size_t *at)
{
	size_t len = strlen(target), left = strlen(rest + *at);

	if (len + 1 + left >= PATH_MAX)
		return -ENAMETOOLONG;
	memmove(rest + len + 1, rest + *at, left + 1);
	memcpy(rest, target, len);
	rest[len] = '/';
	*at = 0;
	while (target[0] == '/' && w->depth > 1)
		walk_pop(w);
	return 0;
}

/*
 * Walks @w->path from the root and fills @ref with the descriptors of the last name's
 * directory and of the object (-1 when it does not exist), and @w->canon with the
 * object's path from PID 1's root. Return: 0, or -errno (*@ret_error set for a refusal).
 */
static int walk(struct walk *w, struct fs_ref *ref, char **ret_error)
{
	char rest[PATH_MAX], target[PATH_MAX], name[NAME_MAX + 1];
	unsigned int links = 0;
	size_t at = 0, len;
	int fd, r;

	if (snprintf(rest, sizeof(rest), "%s", w->path) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	for (;;) {
		struct fd_mount m;
		struct stat st;
		bool last;

		at += strspn(rest + at, "/");
		if (!rest[at])
			break; /* the object is the top: "/", or a path ending in "." or ".." */
		len = strcspn(rest + at, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, rest + at, len);
		name[len] = '\0';
		at += len;
		last = rest[at + strspn(rest + at, "/")] == '\0';
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (w->depth > 1)
				walk_pop(w);
			continue;
		}
		r = dir_check(w, ret_error);
		if (r < 0)
			return r;
		fd = openat(w->dirs[w->depth - 1].fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && last) {
			/* A new name in an existing directory. */
			ref->dir_fd = dup(w->dirs[w->depth - 1].fd);
			return ref->dir_fd < 0 ? -errno : walk_name(w, name);
		}
		if (fd < 0) {
			r = -errno;
			if (r == -ENOENT && ret_error &&
			    asprintf(ret_error,
				     "fs:%s: the directory %s/%s does not exist in the "
				     "system's root (PID %d's): a rule needs an existing "
				     "file or directory, or a new name in an existing "
				     "directory",
				     w->path, w->canon, name, SYSTEM_PATHS_PID) < 0)
				*ret_error = NULL;
			return r;
		}
		r = mount_check(w, fd, name, &m, ret_error);
		if (r == 0 && fstat(fd, &st) < 0)
			r = -errno;
		if (r < 0) {
			close(fd);
			return r;
		}
		if (S_ISLNK(st.st_mode)) {
			r = link_check(w, fd, &st, &m, name, last, target, ret_error);
			close(fd);
			if (r == 0 && ++links > WALK_LINKS_MAX)
				r = -ELOOP;
			if (r == 0)
				r = walk_into_link(w, target, rest, &at);
			if (r < 0)
				return r;
			continue;
		}
		if (last && rest[at] == '/' && !S_ISDIR(st.st_mode)) {
			close(fd);
			return -ENOTDIR; /* "name/", as the kernel says */
		}
		if (last) {
			ref->obj_fd = fd;
			ref->dir_fd = dup(w->dirs[w->depth - 1].fd);
			return ref->dir_fd < 0 ? -errno : walk_name(w, name);
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			return -ENOTDIR;
		}
		r = walk_push(w, fd, &st, name);
		if (r < 0) {
			close(fd);
			return r;
		}
	}
	/* The top is the object, and the directory below it holds its name. */
	ref->obj_fd = dup(w->dirs[w->depth - 1].fd);
	if (ref->obj_fd < 0)
		return -errno;
	if (w->depth == 1)
		return 0; /* "/", which has no directory */
	ref->dir_fd = dup(w->dirs[w->depth - 2].fd);
	return ref->dir_fd < 0 ? -errno : 0;
}

/*
 * Resolves the fs item @path in @root (PID 1's) into @ref, and its path from that root
 * into @canon. Return: 0, or -errno (*@ret_error set for a refusal).
 */
static int resolve_item(int root, const char *path, struct fs_ref *ref, char canon[PATH_MAX],
			char **ret_error)
{
	struct walk w = { .path = path, .size = 16, .depth = 1 };
	int r;

	w.dirs = calloc(w.size, sizeof(*w.dirs));
	if (!w.dirs)
		return -ENOMEM;
	w.dirs[0].fd = root;
	r = fstat(root, &w.dirs[0].st) < 0 ? -errno : walk(&w, ref, ret_error);
	if (r == 0)
		snprintf(canon, PATH_MAX, "%s", walk_where(&w));
	while (w.depth > 1)
		walk_pop(&w);
	free(w.dirs);
	return r;
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
		if (ret_error && asprintf(ret_error, "cannot open %s, the system's root: %s",
					  proc_root, strerror(-ret_code)) < 0)
			*ret_error = NULL;
		goto out;
	}
	for (size_t i = 0, fs = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);
		char canon[PATH_MAX];

		if (item->kind == UMB_ITEM_FS) {
			ret_code = resolve_item(root, item->path, &p.items[fs++], canon, ret_error);
			if (ret_code < 0) {
				if (ret_error && !*ret_error &&
				    asprintf(ret_error, "fs:%s: %s", item->path,
					     strerror(-ret_code)) < 0)
					*ret_error = NULL;
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
