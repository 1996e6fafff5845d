/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the mounts the exec gate watches, and which of them may cache verdicts */
#ifndef UMBRELLA_GATE_MOUNTS_H
#define UMBRELLA_GATE_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line of /proc/self/mountinfo. */
struct gate_mount {
	int id;		 /* the mount id (statx's stx_mnt_id, name_to_handle_at()'s) */
	uint32_t kdev;	 /* the super block's s_dev, as the BPF programs key inodes */
	bool cacheable;	 /* a file system type the gate caches, on no loop device */
	const char *why; /* !cacheable: why not ("on a loop device", ...) */
	char *path;	 /* its mount point, unescaped */
};

struct gate_mounts {
	struct gate_mount *v;
	size_t n;
};

/*
 * gate_mounts_scan() - read /proc/self/mountinfo into @m (replacing what it held).
 * Return: 0 or -errno (then @m is unchanged).
 */
int gate_mounts_scan(struct gate_mounts *m);

/* The mount with id @id, or NULL. */
const struct gate_mount *gate_mounts_find(const struct gate_mounts *m, int id);

/* The mount id of the file @fd (statx STATX_MNT_ID). Return: the id, or -errno. */
int gate_mount_id(int fd);

void gate_mounts_release(struct gate_mounts *m);

#endif /* UMBRELLA_GATE_MOUNTS_H */
