// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - reading a whole file, bounded (fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size)
{
	size_t size = 0, capacity = max < 4096 ? max : 4096;
	_cleanup_free_ char *text = malloc(capacity + 1);

	if (!text)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (size == capacity) {
			char *grown;

			if (capacity >= max) {
				char byte;

				/* Full: one byte more says whether the file is longer. */
				n = read(fd, &byte, 1);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0)
					return -errno;
				if (n > 0)
					return -EFBIG;
				break;
			}
			capacity = capacity > max / 2 ? max : capacity * 2;
			grown = realloc(text, capacity + 1);
			if (!grown)
				return -ENOMEM;
			text = grown;
		}
		n = read(fd, text + size, capacity - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		size += (size_t)n;
	}
	text[size] = '\0';
	if (ret_size)
		*ret_size = size;
	*ret = TAKE_PTR(text);
	return 0;
}

int read_full_file_at(int dirfd, const char *name, int flags, size_t max, char **ret,
		      size_t *ret_size)
{
	_cleanup_close_ int fd = -1;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
	if (fd < 0)
		return -errno;
	return read_full_fd(fd, max, ret, ret_size);
}
