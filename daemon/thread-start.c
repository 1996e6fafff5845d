// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - a thread's start time (thread-start.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thread-start.h"

int thread_start(int dir_fd, const char *path, uint64_t *ret_start)
{
	char buf[1024], *p, *end;
	ssize_t n;
	int fd, r = 0;

	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		r = -errno; /* ESRCH: the thread ended after the open */
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	/* "TID (COMM) STATE ...": the command may hold anything, ')' and spaces too, so
	 * the fields are counted from the last ')': the space before field N is the
	 * (N - 2)th after it. */
	p = strrchr(buf, ')');
	if (!p)
		return -EBADMSG;
	for (int field = 3; field <= 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EBADMSG;
	}
	errno = 0;
	*ret_start = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || (*end != ' ' && *end != '\n'))
		return -EBADMSG;
	return 0;
}
