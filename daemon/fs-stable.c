// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - refusing rules on objects whose inode numbers do not stay (fs-stable.h).
 *
 * Rules are keyed by (s_dev, i_ino), so an inode that gets a new i_ino when it is read
 * back in after its eviction escapes its rule for good. Of the file systems measured,
 * only procfs does that. Measured in the VM (stat, drop
 * caches, stat; Linux 6.1 and 6.12), and read in the kernel:
 *   - procfs: the root (PROC_ROOT_INO, 1) and every proc_dir_entry (/proc/sys itself,
 *     /proc/meminfo, /proc/tty/..., numbered once from PROC_DYNAMIC_FIRST, 0xf0000000,
 *     when registered) keep their numbers. A process's entries (/proc/PID/...,
 *     proc_pid_make_inode()) and every sysctl below /proc/sys (proc_sys_make_inode())
 *     take get_next_ino() at each instantiation: refused. get_next_ino() wraps around
 *     2^32, so on a long-running system it can hand out numbers at or above
 *     PROC_DYNAMIC_FIRST too: the directory below the proc root that the object is in is
 *     also named (read from the root) and refused if it is a process's or "sys".
 *   - sysfs and cgroupfs (kernfs node ids), debugfs and tracefs (pinned dentries; 6.12's
 *     eventfs keeps its numbers too), devtmpfs, devpts, tmpfs, bpf, nsfs and disk file
 *     systems keep theirs. Not measured: configfs attributes (created at lookup) and an
 *     overlayfs on several file systems without xino, whose merged directories also
 *     take get_next_ino() (ovl_map_ino()), with stat() telling the same number.
 * The directories above the object matter too: a name rule is keyed on its directory,
 * and the ancestors' marks (UMB_FS_ANCESTOR) on theirs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <umbrella/kdev.h>

#include "fs-stable.h"

#define PROC_SUPER_MAGIC_   0x9fa0
#define PROC_ROOT_INO_	    1
#define PROC_DYNAMIC_FIRST_ 0xf0000000ULL
/* Directory levels climbed at most: a path of PATH_MAX has fewer. */
#define LEVELS_MAX	    2048

/* The name of the entry numbered @ino in the proc root @root_fd, into @name. */
static int proc_root_name(int root_fd, uint64_t ino, char *name, size_t size)
{
	int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	int r = -ENOENT;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_ino == ino && strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(name, size, "%s", de->d_name);
			r = 0;
			break;
		}
	}
	closedir(d);
	return r;
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

static int refuse(char **ret_error, const char *path, const char *why)
{
	if (ret_error)
		(void)asprintf(
			ret_error,
			"fs:%s: a rule there cannot hold: %s (restrict a directory above it)", path,
			why);
	return -EINVAL;
}

int fs_ref_stable(const struct fs_ref *ref, int peer, const char *path, char **ret_error)
{
	int start = ref->obj_fd >= 0 ? ref->obj_fd : ref->dir_fd;
	uint64_t top_ino = 0, ino;
	bool top_is_object = false, reached_root = false;
	uint32_t sb_dev, dev;
	struct statfs sfs;
	int fd, r = 0;

	if (start < 0)
		return 0;
	if (fstatfs(start, &sfs) < 0)
		return -errno;
	if (sfs.f_type != PROC_SUPER_MAGIC_)
		return 0;
	r = umb_kernel_inode(start, peer, &sb_dev, &ino);
	if (r < 0)
		return r;
	fd = dup(start);
	if (fd < 0)
		return -errno;
	/* Up from the object through its directory, while on the same super block. */
	for (unsigned int level = 0; level < LEVELS_MAX; level++) {
		bool object = level == 0 && ref->obj_fd >= 0;
		uint64_t below = ino;
		int parent;

		r = umb_kernel_inode(fd, peer, &dev, &ino);
		if (r < 0)
			break;
		if (dev != sb_dev || (level && ino == below))
			break; /* another file system, or ".." of a root */
		if (ino == PROC_ROOT_INO_) {
			reached_root = true;
			break;
		}
		if (ino < PROC_DYNAMIC_FIRST_) {
			r = refuse(ret_error, path,
				   "procfs gives a process's entries and every sysctl a new inode "
				   "number when it reads them back in after an eviction");
			break;
		}
		top_ino = ino;
		top_is_object = object;
		if (object && ref->dir_fd >= 0)
			parent = dup(ref->dir_fd);
		else
			parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0) {
			r = -errno;
			break;
		}
		close(fd);
		fd = parent;
	}
	if (r == 0) {
		char name[256];

		if (!reached_root) {
			r = refuse(ret_error, path,
				   "its procfs root is not reachable from it (a bind mount of a "
				   "part of /proc), so what it is cannot be told");
		} else if (top_ino) {
			/* The numbers cannot tell after get_next_ino() wrapped: the name does. */
			r = proc_root_name(fd, top_ino, name, sizeof(name));
			if (r == -ENOENT)
				r = refuse(ret_error, path,
					   "its procfs entry is not listed in /proc");
			else if (r == 0 && all_digits(name))
				r = refuse(
					ret_error, path,
					"procfs gives a process's entries a new inode number when "
					"it reads them back in after an eviction");
			else if (r == 0 && !strcmp(name, "sys") && !top_is_object)
				r = refuse(
					ret_error, path,
					"procfs gives every sysctl a new inode number when it reads "
					"it back in after an eviction");
		}
	}
	close(fd);
	return r;
}
