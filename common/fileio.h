/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - reading a whole file, bounded. */
#ifndef UMBRELLA_COMMON_FILEIO_H
#define UMBRELLA_COMMON_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/*
 * read_full_fd() - the rest of @fd, NUL-terminated, in @ret (the caller frees it) and
 * its length in @ret_size (may be NULL; the text may hold NULs of its own)
 *
 * At most @max bytes: a longer file is -EFBIG, not a truncated one, so that no caller
 * acts on half a file. Return: 0, -EFBIG, -ENOMEM or the read's -errno.
 */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);

/* read_full_fd() of @name opened in @dirfd (AT_FDCWD: @name is a path) with
 * O_RDONLY | O_CLOEXEC | O_NOCTTY | @flags (O_NOFOLLOW, O_NONBLOCK: a FIFO with no
 * writer then reads as empty instead of blocking). */
int read_full_file_at(int dirfd, const char *name, int flags, size_t max, char **ret,
		      size_t *ret_size);

#endif /* UMBRELLA_COMMON_FILEIO_H */
