/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - what the kernel tells of a descriptor in /proc/self/fdinfo. */
#ifndef UMBRELLA_COMMON_FDINFO_H
#define UMBRELLA_COMMON_FDINFO_H

#include <stddef.h>
#include <stdint.h>

/*
 * fdinfo_read() - numeric fields of /proc/self/fdinfo/@fd (proc(5)): for each name in
 * @fields ("mnt_id", "ino", "Pid"...), its value in @ret_values at the same index.
 *
 * A negative value ("Pid: -1", a pidfd's exited process) is stored as its two's
 * complement: cast to int64_t. Return: 0, -EOPNOTSUPP if a field is missing (a kernel
 * that does not tell it: "ino" is 5.14), or -errno.
 */
int fdinfo_read(int fd, size_t n, const char *const fields[], uint64_t ret_values[]);

#endif /* UMBRELLA_COMMON_FDINFO_H */
