/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec gate's fanotify ignore marks, removable one inode at a time */
#ifndef UMBRELLA_GATE_MARKS_H
#define UMBRELLA_GATE_MARKS_H

#include <stdint.h>

#include "gate-mounts.h"

/* Inodes with an ignore mark at most: past it all marks go and the count starts anew. */
#define GATE_MARKS_MAX 65536

struct gate_marks {
	int fan_fd;			  /* the fanotify group (not owned) */
	const struct gate_mounts *mounts; /* to find a mount again (not owned) */
	void *tree;			  /* tsearch(3) tree of struct marked_inode */
	size_t count;
};

/*
 * gate_marks_add() - set an ignore mark on the inode of @fd (the file exec'd), known to
 * BPF as @kdev/@ino, and remember how to find it again. A file whose inode cannot be
 * named again (no file handles: ramfs) gets no mark: each exec asks the gate, which
 * answers from the verdict. Return: 0, or -errno (no mark).
 */
int gate_marks_add(struct gate_marks *m, int fd, uint32_t kdev, uint64_t ino);

/*
 * gate_marks_remove() - remove the ignore mark of the inode @kdev/@ino, if it has one.
 * Return: 0 (removed, or none: also an inode since gone), or -errno when it could not
 * be found again (the caller then drops all marks).
 */
int gate_marks_remove(struct gate_marks *m, uint32_t kdev, uint64_t ino);

/* gate_marks_flush() - drop every ignore mark (the file system marks stay). */
int gate_marks_flush(struct gate_marks *m);

void gate_marks_release(struct gate_marks *m);

#endif /* UMBRELLA_GATE_MARKS_H */
