/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - reading /proc/PID/mountinfo (proc(5)): the one reader of it, on libmount's
 * parser (mnt_table_parse_stream()), for umbrellad (the exec gate's file systems, a
 * descriptor's mount, the mounts of a caller's namespace) and umb_kernel_inode()
 * (libumbrella/kernel-inode.c). libmount splits each line and undoes its octal escapes
 * (\040 for a space, \011, \012, \134).
 *
 * libmount is handed not the descriptor but a stream of ours over it, in chunks of whole
 * lines, one chunk at a time (each parsed into a table, handed over, and dropped):
 *   - on a descriptor of procfs, libmount reads the whole file into memory before
 *     parsing a line (mnt_get_procfs_memstream()): a caller's mountinfo, thousands of
 *     mounts of its own namespace with long mount points, would cost umbrellad that
 *     time and memory before its budget (mount-guard.h) could stop it. Here each read
 *     is told to @bytes first, which may stop there, and a callback that found what it
 *     looked for stops the reading too;
 *   - its public interface has no filter of lines as they are parsed (its parser
 *     filter is internal), only whole tables: a chunk bounds the table.
 * What libmount does on top of the parse, which a caller's lines can ask for: a mount
 * whose source is "/dev/root" gets the system root device's name instead (it reads
 * /proc/cmdline and resolves root=, once per read thanks to a cache: a few system calls
 * a line, each line a step of the budget). A mount point that ends with " (deleted)" (an
 * unlinked mount point, or a directory so named) keeps it with Debian 12's libmount
 * (2.38); newer ones cut it, and a mount on a directory so named would then be looked
 * for under another name and missed (fs-mounts.c): tests/unit/test-mountinfo fails on
 * such a libmount.
 */
#ifndef UMBRELLA_MOUNTINFO_H
#define UMBRELLA_MOUNTINFO_H

#include <stddef.h>
#include <stdint.h>

/* One line of a mountinfo; the strings are libmount's, valid during the callback. */
struct mountinfo_entry {
	int id;			   /* the mount id (fdinfo's mnt_id, statx's stx_mnt_id) */
	int parent;		   /* the parent mount's id */
	unsigned int major, minor; /* the super block's s_dev */
	uint32_t kdev;		   /* the same as the BPF programs key it (kdev.h) */
	const char *root;	   /* the root of the mount in its file system, unescaped */
	const char *target;	   /* the mount point, unescaped */
	const char *fstype;	   /* "ext4", "fuse.sshfs" (a subtype not cut), unescaped */
	const char *source;	   /* "/dev/vda1", "none", "" when empty, unescaped */
	const char *optional;	   /* the optional fields ("shared:1 master:2"), or "" */
};

struct mountinfo_ops {
	/* Each mount, in the file's order. Return: 0 to go on, > 0 to stop (found), or
	 * -errno to stop with that error. */
	int (*entry)(const struct mountinfo_entry *e, void *userdata);
	/* Optional: the bytes of each read(2), before their lines are parsed. Return: 0,
	 * or -errno to stop (what that read brought is not parsed). */
	int (*bytes)(const char *buf, size_t n, void *userdata);
};

/*
 * mountinfo_read_fd() - reads the mountinfo @fd from its offset to its end (or until a
 * callback stops), calling @ops for each mount. Lines that are no mount are skipped.
 * @fd is neither closed nor re-opened: the file it holds is the namespace read.
 *
 * Return: 0 at the end, what a callback returned to stop (> 0 or -errno), or -errno.
 */
int mountinfo_read_fd(int fd, const struct mountinfo_ops *ops, void *userdata);

/* mountinfo_read_path() - the same for the file at @path ("/proc/self/mountinfo"). */
int mountinfo_read_path(const char *path, const struct mountinfo_ops *ops, void *userdata);

#endif /* UMBRELLA_MOUNTINFO_H */
