// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the mounts the exec gate watches (issue 5), and which may cache verdicts.
 *
 * A cached verdict is only as good as the kernel's view of every change to the file:
 * BPF voids it at each write open, truncate or attribute change. That holds on local
 * file systems, except where the block device under one can change by another way:
 * a loop device's backing file is an ordinary file, written without any write to the
 * file system on top, so a verified binary there could change under its verdict
 * (issue 13, route 9b). Such a file system is treated like FUSE or NFS: not watched,
 * every exec a miss. A device built on a loop device (a partition of one, device
 * mapper over one) counts as one; so does a device sysfs cannot describe.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gate-mounts.h"
#include "mountinfo.h"

/*
 * The file systems whose writes all pass through this kernel, so that BPF sees every
 * change to a verified file and a cached verdict cannot outlive its content. FUSE
 * (virtiofs too), network file systems and overlayfs (whose lower layers change under
 * it) are not marked: an exec there is a miss and follows the mode.
 */
static const char *const cacheable_fs[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "tmpfs", "ramfs",
};

/* Device nesting deeper than this (dm over dm over ...) is not followed: not cached. */
#define STACK_DEPTH_MAX 8

/*
 * Whether the block device whose sysfs directory is @dir rests on a loop device: it is
 * one, it is a partition of one, or one of its "slaves" (device mapper, md) does.
 * Takes @dir. Return: 1, 0, or -errno (cannot tell: treated as 1 by the caller).
 */
static int sysfs_on_loop(int dir, int depth)
{
	struct dirent *d;
	DIR *slaves;
	int fd, r = 0;

	if (depth > STACK_DEPTH_MAX) {
		close(dir);
		return -ELOOP;
	}
	if (faccessat(dir, "loop/backing_file", F_OK, 0) == 0) {
		close(dir);
		return 1;
	}
	if (faccessat(dir, "partition", F_OK, 0) == 0) {
		/* A partition's directory is inside its disk's. */
		fd = openat(dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = fd < 0 ? -errno : sysfs_on_loop(fd, depth + 1);
		if (r != 0) {
			close(dir);
			return r;
		}
	}
	fd = openat(dir, "slaves", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = errno == ENOENT ? 0 : -errno;
		close(dir);
		return r;
	}
	slaves = fdopendir(fd);
	if (!slaves) {
		r = -errno;
		close(fd);
		close(dir);
		return r;
	}
	while (r == 0 && (d = readdir(slaves))) {
		int sub;

		if (d->d_name[0] == '.')
			continue;
		sub = openat(dirfd(slaves), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = sub < 0 ? -errno : sysfs_on_loop(sub, depth + 1);
	}
	closedir(slaves);
	close(dir);
	return r;
}

/* Whether the block device @maj:@min rests on a loop device (see sysfs_on_loop()). */
static int blockdev_on_loop(unsigned int maj, unsigned int min)
{
	char path[64];
	int dir;

	if (maj == 0)
		return 0; /* an anonymous device: tmpfs, btrfs's super block */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno; /* no sysfs, or not a block device: cannot tell */
	return sysfs_on_loop(dir, 0);
}

/*
 * Why the file system of a mount of type @fstype, device @maj:@min, mounted from
 * @source, cannot cache verdicts; NULL when it can. btrfs names its super block by an
 * anonymous device number: its source (a device node) says which device it is on.
 */
static const char *not_cacheable(const char *fstype, unsigned int maj, unsigned int min,
				 const char *source)
{
	bool known = false;
	struct stat st;
	int r;

	for (size_t i = 0; i < sizeof(cacheable_fs) / sizeof(cacheable_fs[0]); i++)
		known |= !strcmp(fstype, cacheable_fs[i]);
	if (!known)
		return "not a file system the gate caches";
	r = blockdev_on_loop(maj, min);
	if (r == 0 && source[0] == '/' && stat(source, &st) == 0 && S_ISBLK(st.st_mode))
		r = blockdev_on_loop(major(st.st_rdev), minor(st.st_rdev));
	if (r > 0)
		return "on a loop device, whose backing file changes without a write the "
		       "kernel sees";
	if (r < 0)
		return "on a block device sysfs does not describe";
	return NULL;
}

void gate_mounts_release(struct gate_mounts *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	*m = (struct gate_mounts){};
}

static int scan_entry(const struct mountinfo_entry *e, void *userdata)
{
	struct gate_mounts *new = userdata;
	struct gate_mount *grown, *g;

	grown = realloc(new->v, (new->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	new->v = grown;
	g = &new->v[new->n];
	*g = (struct gate_mount){
		.id = e->id,
		.kdev = e->kdev,
		.path = strdup(e->target),
	};
	if (!g->path)
		return -ENOMEM;
	g->why = not_cacheable(e->fstype, e->major, e->minor, e->source);
	g->cacheable = !g->why;
	new->n++;
	return 0;
}

int gate_mounts_scan(struct gate_mounts *m)
{
	struct gate_mounts new = {};
	int r;

	r = mountinfo_read_path("/proc/self/mountinfo",
				&(const struct mountinfo_ops){ .entry = scan_entry }, &new);
	if (r < 0) {
		gate_mounts_release(&new);
		return r;
	}
	gate_mounts_release(m);
	*m = new;
	return 0;
}

const struct gate_mount *gate_mounts_find(const struct gate_mounts *m, int id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

int gate_mount_id(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_MNT_ID, &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	return (int)stx.stx_mnt_id;
}
