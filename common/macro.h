/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - what every C file here may need and C does not have: the element count of
 * an array and scope-bound cleanup, in the style of systemd's _cleanup_ (GCC's and
 * clang's cleanup attribute: the function runs with a pointer to the variable when it
 * goes out of scope, on every return path, so an error path cannot forget a close()).
 */
#ifndef UMBRELLA_COMMON_MACRO_H
#define UMBRELLA_COMMON_MACRO_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The number of elements of the array @a (not a pointer: the division would lie). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define _cleanup_(f) __attribute__((cleanup(f)))

/* A parameter that a callback's signature has and this callback does not need. */
#define _unused_ __attribute__((unused))

static inline void freep(void *p)
{
	free(*(void **)p);
}

/* Keeps errno: a cleanup runs after the code that set it for the caller. */
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f) {
		int saved = errno;

		fclose(*f);
		errno = saved;
	}
}

#define _cleanup_free_	 _cleanup_(freep)
#define _cleanup_close_	 _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* The value of @var, which no longer owns it (its cleanup then does nothing): hands an
 * object held by a _cleanup_ variable to the caller. */
#define TAKE_GENERIC(var, type, nullvalue) \
	({                                 \
		type *_pvar_ = &(var);     \
		type _var_ = *_pvar_;      \
		*_pvar_ = (nullvalue);     \
		_var_;                     \
	})
#define TAKE_PTR(ptr) TAKE_GENERIC(ptr, __typeof__(ptr), NULL)
/* -1 is "no descriptor": 0 is a descriptor like any other. */
#define TAKE_FD(fd)   TAKE_GENERIC(fd, int, -1)

#endif /* UMBRELLA_COMMON_MACRO_H */
