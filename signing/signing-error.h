/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal) - the messages of the signing library's functions: each takes a
 * char **ret_error and leaves there, on failure, a malloc'd message saying what is wrong
 * with the file ("two .umbrella.sig sections"), for umbrellad's journal and the CLI.
 */
#ifndef UMBRELLA_SIGNING_ERROR_H
#define UMBRELLA_SIGNING_ERROR_H

#include <errno.h>

/*
 * signing_error() - set *@ret_error (if @ret_error is not NULL; an earlier message there
 * is freed) to the formatted message, or NULL when memory is short, and return @err
 */
__attribute__((format(printf, 3, 4))) int signing_error(char **ret_error, int err, const char *fmt,
							...);

/* A malformed file: the message, and -EBADMSG. */
#define set_error(ret_error, ...) signing_error(ret_error, -EBADMSG, __VA_ARGS__)

#endif /* UMBRELLA_SIGNING_ERROR_H */
