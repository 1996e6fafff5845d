// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's fanotify ignore marks, removable one inode at a time.
 *
 * When BPF voids a verdict it reports the inode (s_dev, ino), and the inode's ignore
 * mark must go, or its next exec would skip the gate. fanotify removes a mark only by
 * a path or a descriptor of the inode; holding a descriptor per cached file would keep
 * its file system from being unmounted. So each mark is remembered with a file handle
 * (name_to_handle_at(2)) and the mount it came through; the invalidated inode is opened
 * again by handle (O_PATH: no lease breaks, no open of the file's contents) and its mark
 * alone removed. Dropping every mark instead would let any user, by opening a file of
 * their own for writing, send every exec on the system through the gate again
 * (issue 13, route 8).
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gate-marks.h"

struct marked_inode {
	uint32_t kdev;
	uint64_t ino;
	int mount_id;
	struct file_handle *handle;
};

static int marked_cmp(const void *a, const void *b)
{
	const struct marked_inode *x = a, *y = b;

	if (x->kdev != y->kdev)
		return x->kdev < y->kdev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void marked_free(void *p)
{
	struct marked_inode *mi = p;

	free(mi->handle);
	free(mi);
}

/* Takes the entry of @kdev/@ino out of the tree. Return: it, or NULL. */
static struct marked_inode *marked_take(struct gate_marks *m, uint32_t kdev, uint64_t ino)
{
	struct marked_inode key = { .kdev = kdev, .ino = ino }, **found, *mi;

	found = tfind(&key, &m->tree, marked_cmp);
	if (!found)
		return NULL;
	mi = *found;
	(void)tdelete(&key, &m->tree, marked_cmp);
	m->count--;
	return mi;
}

int gate_marks_flush(struct gate_marks *m)
{
	int r = 0;

	if (fanotify_mark(m->fan_fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0)
		r = -errno;
	tdestroy(m->tree, marked_free);
	m->tree = NULL;
	m->count = 0;
	return r;
}

int gate_marks_add(struct gate_marks *m, int fd, uint32_t kdev, uint64_t ino)
{
	struct marked_inode *mi, **slot;
	int r;

	if (m->count >= GATE_MARKS_MAX)
		(void)gate_marks_flush(m);
	mi = calloc(1, sizeof(*mi));
	if (!mi)
		return -ENOMEM;
	*mi = (struct marked_inode){ .kdev = kdev, .ino = ino };
	mi->handle = malloc(sizeof(*mi->handle) + MAX_HANDLE_SZ);
	if (!mi->handle) {
		free(mi);
		return -ENOMEM;
	}
	mi->handle->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", mi->handle, &mi->mount_id, AT_EMPTY_PATH) < 0) {
		r = -errno;
		marked_free(mi);
		return r;
	}
	slot = tsearch(mi, &m->tree, marked_cmp);
	if (!slot) {
		marked_free(mi);
		return -ENOMEM;
	}
	if (*slot != mi) {
		/* The inode again (its mark went with a write): the newer handle counts. */
		marked_free(*slot);
		*slot = mi;
	} else {
		m->count++;
	}
	if (fanotify_mark(m->fan_fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN_EXEC_PERM, fd,
			  NULL) < 0) {
		r = -errno;
		marked_free(marked_take(m, kdev, ino));
		return r;
	}
	return 0;
}

int gate_marks_remove(struct gate_marks *m, uint32_t kdev, uint64_t ino)
{
	struct marked_inode *mi = marked_take(m, kdev, ino);
	const struct gate_mount *mnt;
	char path[64];
	int mount_fd, fd, r;

	if (!mi)
		return 0; /* never marked (or all marks dropped since) */
	/* Any directory of the file system would do: the mount the handle came through,
	 * else another of the same file system (its id checked: a mount point covered
	 * since the scan opens the wrong one). */
	mount_fd = -1;
	for (int pass = 0; pass < 2 && mount_fd < 0; pass++) {
		for (size_t i = 0; i < m->mounts->n && mount_fd < 0; i++) {
			mnt = &m->mounts->v[i];
			if (pass == 0 ? mnt->id != mi->mount_id : mnt->kdev != mi->kdev)
				continue;
			mount_fd = open(mnt->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (mount_fd >= 0 && gate_mount_id(mount_fd) != mnt->id) {
				close(mount_fd);
				mount_fd = -1;
			}
		}
	}
	if (mount_fd < 0) {
		r = -ENODEV;
		goto out;
	}
	fd = open_by_handle_at(mount_fd, mi->handle, O_PATH | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	close(mount_fd);
	if (r == -ESTALE) {
		/* The inode is gone, and its mark with it. */
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	/* fanotify_mark() takes no O_PATH descriptor, but a path through one. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fanotify_mark(m->fan_fd, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN_EXEC_PERM,
			  AT_FDCWD, path) < 0 &&
	    errno != ENOENT) /* ENOENT: a write removed it already */
		r = -errno;
	close(fd);
out:
	marked_free(mi);
	return r;
}

void gate_marks_release(struct gate_marks *m)
{
	tdestroy(m->tree, marked_free);
	m->tree = NULL;
	m->count = 0;
}
