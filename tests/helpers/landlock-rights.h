/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Landlock's fs access rights for the benchmarks that compare with it (umbrella-bench,
 * rfork-bench): the rights newer than Debian 12's headers, and the set of one ABI.
 */
#ifndef UMBRELLA_TESTS_LANDLOCK_RIGHTS_H
#define UMBRELLA_TESTS_LANDLOCK_RIGHTS_H

#include <linux/landlock.h>
#include <linux/types.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/* Every fs access right of Landlock ABI @abi (1: the thirteen rights of 5.13). */
static inline __u64 landlock_fs_rights(int abi)
{
	__u64 rights = (1ULL << 13) - 1;

	if (abi >= 2)
		rights |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return rights;
}

#endif /* UMBRELLA_TESTS_LANDLOCK_RIGHTS_H */
