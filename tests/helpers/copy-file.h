/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella tests - copy a file (a binary to sign, or to run from tmpfs). Header-only. */
#ifndef UMBRELLA_TESTS_COPY_FILE_H
#define UMBRELLA_TESTS_COPY_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

/* Copies @from to @to, created or truncated with @mode. Returns 0 or -errno. */
static inline int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, r = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = -EIO;
			break;
		}
	if (n < 0)
		r = -errno;
	close(in);
	if (close(out) < 0 && !r)
		r = -errno;
	return r;
}

#endif
