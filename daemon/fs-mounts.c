// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the mounts below a restricted directory (fs-mounts.h).
 *
 * A rule on a directory D holds for what is mounted below D through the BPF walk only,
 * which goes from a file up to its mount's root and on at that mount's mount point: a
 * bind mount, or an open_tree(OPEN_TREE_CLONE) copy, of such a mount has another mount
 * point, or none, and the walk never reaches D (any user gets the right to make one with
 * "unshare -Urm"). So D's rule goes on the roots of the mounts below D too
 * (layer-install.c): the walk from any copy of them reaches that root.
 *
 * The mounts are read from the caller's /proc/PID/mountinfo, once per request for all
 * its rules (mount-guard.h), whose mount points are paths as the caller sees them, as D is. Each root is opened from the caller's own
 * descriptor of D, beneath it and through no symbolic link (not through /proc/PID/root:
 * the caller's descriptor already is its view, and needs no ptrace access to the
 * caller), and checked to be that mount (by its id), not one mounted over it. Each
 * directory on the way is checked before a name is looked up in it (mount-guard.h): a
 * user's overlay over its FUSE mount would stall umbrellad.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fdinfo.h"
#include "fs-mounts.h"
#include "mount-guard.h"

/* The mount id of descriptor @fd (its fdinfo's mnt_id), or -errno. */
static int fd_mount_id(int fd)
{
	uint64_t id;
	int r;

	r = fdinfo_read(fd, 1, (const char *const[]){ "mnt_id" }, &id);
	return r < 0 ? r : (int)id;
}

bool fs_mount_point_below(const char *point, const char *dir)
{
	size_t len = strlen(dir);

	if (!strcmp(dir, "/"))
		return strcmp(point, "/") != 0;
	return !strncmp(point, dir, len) && point[len] == '/';
}

int fs_mounts_below(const struct mount_guard *guard, int dir_fd, const char *dir,
		    int (*fn)(int fd, void *arg), void *arg)
{
	size_t count = 0, skip = strcmp(dir, "/") ? strlen(dir) + 1 : 1;
	const struct mount_entry *mounts = NULL;
	int ret;

	/* The request's one read of the caller's mounts, for all its rules. */
	ret = mount_guard_mounts(guard, &mounts, &count);
	for (size_t i = 0; ret == 0 && i < count; i++) {
		const struct mount_entry *m = &mounts[i];
		int fd, fd_id;

		if (!m->point || !fs_mount_point_below(m->point, dir))
			continue;
		/* The mount point relative to D: "sub" of "D/sub". Its names are steps of
		 * the request's budget (mount-guard.h). */
		fd = mount_guard_openat(guard, dir_fd, m->point + skip);
		if (fd < 0) {
			if (fd == -ENOENT || fd == -EXDEV || fd == -ELOOP)
				continue; /* unmounted or renamed meanwhile: not the caller's D/sub */
			ret = fd;
			break;
		}
		fd_id = fd_mount_id(fd);
		if (fd_id < 0)
			ret = fd_id;
		else if (fd_id == m->id)
			ret = fn(fd, arg);
		/* else a mount over it, or a mount point moved: not this mount's root */
		close(fd);
	}
	return ret;
}
