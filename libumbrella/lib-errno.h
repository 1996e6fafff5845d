/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libumbrella (internal) - the library's one error convention, libbpf 1.0's: a call
 * that returns int or pid_t and fails returns a negative errno value and sets errno to
 * the same value, so that a caller may test "ret < 0" and read -ret or errno alike. A
 * call that returns a pointer returns NULL and sets errno. libumbrella(3), RETURN VALUE.
 */
#ifndef UMBRELLA_LIB_ERRNO_H
#define UMBRELLA_LIB_ERRNO_H

#include <errno.h>

/* @ret, with errno set to -@ret when it is an error. */
static inline int umb_errno(int ret)
{
	if (ret < 0)
		errno = -ret;
	return ret;
}

#endif /* UMBRELLA_LIB_ERRNO_H */
