/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests of file system restrictions - what the parts of test-fs (fs-*.c) share:
 * a scratch tmpfs, files in it, and probes of the usual operations. A probe runs in a
 * test_probe() child and returns 0 on success, errno on failure.
 */
#ifndef UMBRELLA_TESTS_FS_UTIL_H
#define UMBRELLA_TESTS_FS_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vm-test.h"

/* An operation on one or two paths, with flags: the argument of most probes. */
struct fs_op {
	const char *path;
	const char *path2;
	int flags;
};

#define OP(p, ...) (&(struct fs_op){ .path = (p), __VA_ARGS__ })

/* A path printed into a static ring of buffers (for test arguments). */
__attribute__((format(printf, 1, 2))) static inline const char *fs_path(const char *fmt, ...)
{
	static char bufs[64][PATH_MAX];
	static unsigned next;
	char *buf = bufs[next++ % 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return buf;
}

/* Mounts a new tmpfs on a new directory under /tmp; its path in @dir. */
static inline int fs_scratch(char dir[PATH_MAX])
{
	snprintf(dir, PATH_MAX, "/tmp/umb-fs-XXXXXX");
	if (!mkdtemp(dir))
		return -errno;
	if (mount("umb-fs", dir, "tmpfs", 0, "mode=0755") < 0)
		return -errno;
	return 0;
}

static inline void fs_scratch_done(const char *dir)
{
	(void)umount2(dir, MNT_DETACH);
	(void)rmdir(dir);
}

/* Creates (or replaces) the file @path with @content and @mode. 0 or -errno. */
static inline int fs_write(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t len = strlen(content);

	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != len) {
		close(fd);
		return -EIO;
	}
	if (fchmod(fd, mode) < 0 || close(fd) < 0)
		return -errno;
	return 0;
}

/* Copies @from to @to (mode 0755). 0 or -errno. */
static inline int fs_copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -EIO : 0;
}

/* open(path, flags), then close. */
static inline int probe_open(void *arg)
{
	const struct fs_op *op = arg;
	int fd = open(op->path, op->flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* open() and read one byte (or list a directory's first entry). */
static inline int probe_read(void *arg)
{
	const struct fs_op *op = arg;
	char byte;
	int fd = open(op->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (read(fd, &byte, 1) < 0 && errno != EISDIR) {
		int r = errno;

		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

static inline int probe_stat(void *arg)
{
	const struct fs_op *op = arg;
	struct stat st;

	return stat(op->path, &st) < 0 ? errno : 0;
}

/* execv(path, {path, path2}): the result is the program's exit status (0 for a program
 * that succeeds), or the errno of a failed execve. */
static inline int probe_exec(void *arg)
{
	const struct fs_op *op = arg;
	char *argv[] = { (char *)op->path, (char *)op->path2, NULL };

	execv(op->path, argv);
	return errno;
}

#endif /* UMBRELLA_TESTS_FS_UTIL_H */
