// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the mount a descriptor is on (fd-mount.h).
 *
 * The mount's line of a mountinfo (mountinfo.h) tells its s_dev and file system type. A
 * mount id names one live mount, and the descriptor holds it: any mountinfo that lists
 * the id tells the truth about it, even one of a process that reused @peer's pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fd-mount.h"
#include "fdinfo.h"
#include "mountinfo.h"

struct mount_find {
	int id;
	struct fd_mount *m;
};

static int mount_find_entry(const struct mountinfo_entry *e, void *userdata)
{
	struct mount_find *f = userdata;

	if (e->id != f->id)
		return 0;
	f->m->id = e->id;
	f->m->dev = e->kdev;
	/* "fuse.sshfs": "fuse" */
	snprintf(f->m->fstype, sizeof(f->m->fstype), "%.*s", (int)strcspn(e->fstype, "."),
		 e->fstype);
	return 1;
}

static int mountinfo_find(const char *path, int id, struct fd_mount *m)
{
	int r;

	r = mountinfo_read_path(path, &(const struct mountinfo_ops){ .entry = mount_find_entry },
				&(struct mount_find){ .id = id, .m = m });
	return r < 0 ? r : r > 0 ? 0 : -ENOENT;
}

int fd_mount_read(int fd, int peer, struct fd_mount *ret)
{
	char path[64];
	uint64_t id;
	int r;

	*ret = (struct fd_mount){};
	r = fdinfo_read(fd, 1, (const char *const[]){ "mnt_id" }, &id);
	if (r < 0)
		return r;
	r = mountinfo_find("/proc/self/mountinfo", (int)id, ret);
	if (r != -ENOENT || peer <= 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", peer);
	return mountinfo_find(path, (int)id, ret);
}

int fd_is_dir(int fd)
{
	char path[64];
	int d;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	d = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d >= 0) {
		close(d);
		return 1;
	}
	return errno == ENOTDIR ? 0 : -errno;
}
