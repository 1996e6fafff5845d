// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - refusing rules on objects whose inode numbers do not stay (fs-stable.h).
 *
 * Rules are keyed by (s_dev, i_ino), so an inode that gets a new i_ino when it is read
 * back in after its eviction escapes its rule for good. Of the file systems measured,
 * procfs and overlayfs do that. Measured in the VM (stat, drop
 * caches, stat; Linux 6.1 and 6.12), and read in the kernel:
 *   - procfs: the root (PROC_ROOT_INO, 1) and every proc_dir_entry (/proc/sys itself,
 *     /proc/meminfo, /proc/tty/..., numbered once from PROC_DYNAMIC_FIRST, 0xf0000000,
 *     when registered) keep their numbers. A process's entries (/proc/PID/...,
 *     proc_pid_make_inode()) and every sysctl below /proc/sys (proc_sys_make_inode())
 *     take get_next_ino() at each instantiation: refused. get_next_ino() wraps around
 *     2^32, so on a long-running system it can hand out numbers at or above
 *     PROC_DYNAMIC_FIRST too: the directory below the proc root that the object is in is
 *     also named (read from the root) and refused if it is a process's or "sys".
 *     The entry is named by the path the kernel gives its descriptor (readlink of
 *     /proc/self/fd/N), not by listing /proc.
 *   - overlayfs with its layers on several file systems and without xino (the default
 *     unless the module's xino_auto is set): every directory but the root (pinned by
 *     its mount) takes the next number of the super block's own counter at each
 *     instantiation (ovl_map_ino(), ovl_next_ino()), and stat() tells that same
 *     number; files keep their layer's number, also once copied up. On one file
 *     system, or with xino=on or auto, numbers are the layers' (mapped) and stay. What
 *     tells them apart for a directory: the numbers overlayfs lists for its "." and
 *     "..", which are the layers' (mapped like the inodes' where those are): a rule
 *     whose directories on an overlay, below the top reached, list others is refused.
 *     This also catches a directory whose layer's number is too large for the bits
 *     xino leaves. A counter value that equals both layer numbers by chance is not.
 *   - sysfs and cgroupfs (kernfs node ids), debugfs and tracefs (pinned dentries; 6.12's
 *     eventfs keeps its numbers too), devtmpfs, devpts, tmpfs, bpf, nsfs and disk file
 *     systems keep theirs. Not measured: configfs attributes (created at lookup).
 * The directories above the object matter too: a name rule is keyed on its directory,
 * and the ancestors' marks (UMB_FS_ANCESTOR) on theirs; the object's directory is
 * checked on its own file system when the object is a mount's root.
 * The file system is told by the mount (mountinfo), and the directories above are
 * reached by "..": neither calls into a file system, so a FUSE server that does not
 * answer cannot stall umbrellad here (an overlay on FUSE layers can: the walk asks the
 * layers for permission).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <umbrella/kdev.h>

#include "fd-mount.h"
#include "fs-stable.h"

#define PROC_ROOT_INO_	    1
#define PROC_DYNAMIC_FIRST_ 0xf0000000ULL
/* Directory levels climbed at most: a path of PATH_MAX has fewer. */
#define LEVELS_MAX	    2048

static int refuse(char **ret_error, const char *path, const char *why)
{
	if (ret_error &&
	    asprintf(ret_error,
		     "fs:%s: a rule there cannot hold: %s (restrict a directory above it)", path,
		     why) < 0)
		*ret_error = NULL;
	return -EINVAL;
}

/*
 * One level of climb(): @fd holds an inode numbered @ino on the super block, @object
 * when it is the rule's object. Returns 0 to climb on, 1 to stop, or -errno.
 */
typedef int (*level_fn)(void *arg, int fd, uint64_t ino, bool object);

/*
 * Calls @fn for @start and for each directory above it on the super block @sb_dev, up
 * to the root of the mount they are on (where ".." leaves the super block) or of the
 * namespace (where ".." is the directory itself). @object: @start is the rule's
 * object, whose directory is @dir_fd (or -1).
 */
static int climb(int start, bool object, int dir_fd, const struct mount_guard *g, int peer,
		 uint32_t sb_dev, level_fn fn, void *arg)
{
	uint64_t ino, below = 0;
	struct mount_entry m;
	uint32_t dev;
	int fd, parent, r = 0;

	fd = dup(start);
	if (fd < 0)
		return -errno;
	for (unsigned int level = 0; level < LEVELS_MAX; level++) {
		bool obj = level == 0 && object;

		/* A deep path is the caller's to make: each level a step (mount-guard.h). */
		r = mount_guard_step(g, 1);
		if (r == 0)
			r = mount_guard_mount(g, fd, peer, &m, &ino);
		if (r < 0)
			break;
		dev = m.dev;
		if (dev != sb_dev || (level && ino == below))
			break; /* another file system, or ".." of a root */
		r = fn(arg, fd, ino, obj);
		if (r != 0)
			break;
		below = ino;
		/* ".." is the dentry's parent: no lookup, only the file system's
		 * permission to search the directory. */
		if (obj && dir_fd >= 0)
			parent = dup(dir_fd);
		else
			parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0) {
			r = -errno;
			break;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	return r < 0 ? r : 0;
}

/* What the procfs climb found. */
struct proc_climb {
	const char *path;
	char **ret_error;
	int below_root_fd; /* the entry right below the proc root on the way, or -1 */
	bool below_root_is_object;
	bool reached_root;
};

static int proc_level(void *arg, int fd, uint64_t ino, bool object)
{
	struct proc_climb *c = arg;

	if (ino == PROC_ROOT_INO_) {
		c->reached_root = true;
		return 1;
	}
	if (ino < PROC_DYNAMIC_FIRST_)
		return refuse(c->ret_error, c->path,
			      "procfs gives a process's entries and every sysctl a new inode "
			      "number when it reads them back in after an eviction");
	if (c->below_root_fd >= 0)
		close(c->below_root_fd);
	c->below_root_fd = dup(fd);
	c->below_root_is_object = object;
	return c->below_root_fd < 0 ? -errno : 0;
}

/* The last name of the path descriptor @fd has, as the kernel tells it (d_path(): no
 * lookup, and not by number, which get_next_ino() may have wrapped to): 0 or -errno
 * (-ENAMETOOLONG when it does not fit @size). */
static int fd_last_name(int fd, char *name, size_t size)
{
	char link[64], target[PATH_MAX];
	const char *last;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	if (n == (ssize_t)sizeof(target) - 1)
		return -ENAMETOOLONG;
	target[n] = '\0';
	last = strrchr(target, '/');
	/* Longer than a name only with d_path()'s " (deleted)": refused, not cut off. */
	if ((size_t)snprintf(name, size, "%s", last ? last + 1 : target) >= size)
		return -ENAMETOOLONG;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A rule's inodes on procfs, from @start up to the proc root. */
static int proc_stable(int start, bool object, int dir_fd, const struct mount_guard *g, int peer,
		       uint32_t sb_dev, const char *path, char **ret_error)
{
	struct proc_climb c = { .path = path, .ret_error = ret_error, .below_root_fd = -1 };
	char name[NAME_MAX + 1];
	int r;

	r = climb(start, object, dir_fd, g, peer, sb_dev, proc_level, &c);
	if (r < 0)
		goto out;
	if (!c.reached_root) {
		r = refuse(ret_error, path,
			   "its procfs root is not reachable from it (a bind mount of a part of "
			   "/proc), so what it is cannot be told");
		goto out;
	}
	if (c.below_root_fd < 0)
		goto out; /* the proc root itself */
	/* The numbers cannot tell after get_next_ino() wrapped: the name does. */
	r = fd_last_name(c.below_root_fd, name, sizeof(name));
	if (r < 0)
		goto out;
	if (all_digits(name) || strstr(name, " (deleted)"))
		r = refuse(ret_error, path,
			   "procfs gives a process's entries a new inode number when it reads "
			   "them back in after an eviction");
	else if (!strcmp(name, "sys") && !c.below_root_is_object)
		r = refuse(ret_error, path,
			   "procfs gives every sysctl a new inode number when it reads it back "
			   "in after an eviction");
out:
	if (c.below_root_fd >= 0)
		close(c.below_root_fd);
	return r;
}

/* A getdents64() record. */
struct dirent64_ {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Buffers of entries read at most to find "." and "..", which come first. */
#define DOTS_READS_MAX 16

/*
 * The d_ino overlayfs gives "." and ".." when it lists the directory @fd holds: 0, or
 * -ENOENT when it lists neither early, or -errno.
 */
static int dir_dots(int fd, uint64_t *ret_dot, uint64_t *ret_dotdot)
{
	bool dot = false, dotdot = false;
	char buf[4096] __attribute__((aligned(8)));
	int dir, r = -ENOENT;

	dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (int i = 0; i < DOTS_READS_MAX && !(dot && dotdot); i++) {
		long n = syscall(SYS_getdents64, dir, buf, sizeof(buf));

		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			const struct dirent64_ *e = (const void *)(buf + off);

			if (!strcmp(e->d_name, ".")) {
				*ret_dot = e->d_ino;
				dot = true;
			} else if (!strcmp(e->d_name, "..")) {
				*ret_dotdot = e->d_ino;
				dotdot = true;
			}
			off += e->d_reclen;
		}
	}
	close(dir);
	return dot && dotdot ? 0 : r;
}

/* What the overlayfs climb holds: the level below the current one. */
struct ovl_climb {
	const char *path;
	char **ret_error;
	bool object_is_dir;
	int below_fd; /* -1 at the first level */
	uint64_t below_ino;
	bool below_is_dir;
};

/*
 * One level: the directory below it is not the top of the climb (the root of the
 * mount, pinned by it), so its number must be its layer's. overlayfs gives "." and
 * ".." in a listing the numbers of the layers (mapped), and its inodes the same when
 * they are (Documentation/filesystems/overlayfs.rst, "Inode properties": d_ino
 * consistent with st_ino on one file system or with xino); a directory it numbered
 * from its own counter lists other numbers.
 */
static int ovl_level(void *arg, int fd, uint64_t ino, bool object)
{
	struct ovl_climb *c = arg;
	uint64_t dot = 0, dotdot = 0;
	int r;

	if (c->below_fd >= 0 && c->below_is_dir) {
		r = dir_dots(c->below_fd, &dot, &dotdot);
		if (r == 0 && (dot != c->below_ino || dotdot != ino))
			r = -ESTALE;
		if (r == -ESTALE || r == -ENOENT)
			return refuse(c->ret_error, c->path,
				      "overlayfs gives its directories new inode numbers when it "
				      "reads them back in after an eviction, when its layers are "
				      "on several file systems and it is mounted without xino "
				      "(mount it with xino=on)");
		if (r < 0)
			return r;
	}
	if (c->below_fd >= 0)
		close(c->below_fd);
	c->below_fd = dup(fd);
	c->below_ino = ino;
	c->below_is_dir = object ? c->object_is_dir : true;
	return c->below_fd < 0 ? -errno : 0;
}

/*
 * A rule's inodes on overlayfs: with its layers on one file system, or with xino, an
 * inode's number is its layer's (mapped), and stays. Otherwise every directory but
 * the root (pinned by the mount) takes the next number of the super block's own
 * counter at each instantiation (ovl_map_ino()); files keep their layer's number.
 */
static int ovl_stable(int start, bool object, int dir_fd, const struct mount_guard *g, int peer,
		      uint32_t sb_dev, const char *path, char **ret_error)
{
	struct ovl_climb c = { .path = path, .ret_error = ret_error, .below_fd = -1 };
	int r;

	if (object) {
		r = fd_is_dir(start);
		if (r < 0)
			return r;
		c.object_is_dir = r;
	}
	r = climb(start, object, dir_fd, g, peer, sb_dev, ovl_level, &c);
	if (c.below_fd >= 0)
		close(c.below_fd);
	return r;
}

/* The inodes from @start up, on @start's super block. */
static int sb_stable(int start, bool object, int dir_fd, const struct mount_guard *g, int peer,
		     const char *path, char **ret_error, uint32_t *ret_dev)
{
	struct mount_entry m;
	int r;

	/* Not fstatfs(): that would wait on a FUSE server that does not answer. */
	r = mount_guard_mount(g, start, peer, &m, NULL);
	if (r < 0)
		return r;
	*ret_dev = m.dev;
	if (!strcmp(m.fstype, "proc"))
		r = proc_stable(start, object, dir_fd, g, peer, m.dev, path, ret_error);
	else if (!strcmp(m.fstype, "overlay"))
		r = ovl_stable(start, object, dir_fd, g, peer, m.dev, path, ret_error);
	return r;
}

int fs_ref_stable(const struct fs_ref *ref, const struct mount_guard *g, int peer, const char *path,
		  char **ret_error)
{
	uint32_t obj_dev = 0, dir_dev = 0;
	struct mount_entry m;
	int r;

	if (ref->obj_fd >= 0) {
		r = sb_stable(ref->obj_fd, true, ref->dir_fd, g, peer, path, ret_error, &obj_dev);
		if (r < 0 || ref->dir_fd < 0)
			return r;
		/* Climbed through the directory already, unless the object is the root of
		 * a mount on another file system. */
		r = mount_guard_mount(g, ref->dir_fd, peer, &m, NULL);
		if (r < 0 || m.dev == obj_dev)
			return r;
	}
	if (ref->dir_fd < 0)
		return 0;
	return sb_stable(ref->dir_fd, false, -1, g, peer, path, ret_error, &dir_dev);
}
