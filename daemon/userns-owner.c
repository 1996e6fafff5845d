// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the user a caller's uid is charged to (userns-owner.h)
 *
 * The chain is walked with the nsfs ioctls (NS_GET_PARENT up to umbrellad's own user
 * namespace, NS_GET_OWNER_UID of the last one below it), which name namespaces by
 * descriptor: nothing a caller can rename or replace between two steps.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userns-owner.h"

/* Whether the namespace of @fd is the one @ours describes. */
static bool same_ns(int fd, const struct stat *ours)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == ours->st_dev && st.st_ino == ours->st_ino;
}

int userns_account_uid(int userns_fd, uid_t uid, uid_t *ret_uid)
{
	int cur, below = -1, parent, r = 0;
	struct stat ours;
	uid_t owner;

	if (stat("/proc/self/ns/user", &ours) < 0)
		return -errno;
	cur = fcntl(userns_fd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -errno;
	for (int depth = 0; !same_ns(cur, &ours); depth++) {
		if (depth >= USERNS_DEPTH_MAX) {
			r = -ELOOP;
			goto out;
		}
		/* EPERM: the parent is outside umbrellad's namespace, which @cur is not in. */
		parent = ioctl(cur, NS_GET_PARENT);
		if (parent < 0) {
			r = -errno;
			goto out;
		}
		if (below >= 0)
			close(below);
		below = cur;
		cur = parent;
	}
	*ret_uid = uid;
	if (below < 0)
		goto out; /* umbrellad's own namespace */
	if (ioctl(below, NS_GET_OWNER_UID, &owner) < 0) {
		r = -errno;
		goto out;
	}
	if (owner != 0)
		*ret_uid = owner;
out:
	if (below >= 0)
		close(below);
	close(cur);
	return r;
}
