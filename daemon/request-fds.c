// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the descriptors that come with a request (request-fds.h).
 *
 * A caller resolves its fs paths itself and sends O_PATH descriptors (protocol.h):
 * umbrellad never looks a caller's path up in its own mount namespace, which is not the
 * caller's (the unit's PrivateTmp=, a caller's chroot or container). What arrives is
 * checked against what the request announces, and every descriptor is closed after
 * the request, whatever its outcome (server.c): here when it is of a kind whose close()
 * cannot wait, else by the closer thread (closer.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "request-fds.h"

/*
 * Whether @fd is a pidfd, asked of its /proc/self/fd link, which takes no lock of the
 * file: reading the fdinfo of an arbitrary descriptor first could wait for ever (an
 * epoll descriptor's takes its mutex, which a caller can hold in epoll_ctl() on a file
 * of its own FUSE server), and another file's fdinfo may print a "Pid:" line of the
 * caller's making (a dma-buf's name). pidfs keeps the anonymous inode's name.
 */
static bool fd_is_pidfd(int fd)
{
	static const char want[] = "anon_inode:[pidfd]";
	char link[64], target[sizeof(want) + 1];
	ssize_t n;

	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target));
	return n == (ssize_t)strlen(want) && memcmp(target, want, (size_t)n) == 0;
}

/* Whether @fd is an O_PATH descriptor: no flush, no release of its own (empty_fops). */
static bool fd_is_opath(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags >= 0 && (flags & O_PATH);
}

void request_fds_take(const struct msghdr *msg, struct request_fds *fds)
{
	*fds = (struct request_fds){};
	for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c;
	     c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		size_t count;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int received;

			memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fds->count < REQUEST_FDS_MAX)
				fds->fds[fds->count++] = received;
			else
				close(received); /* cannot happen: SCM_MAX_FD */
		}
	}
	if (msg->msg_flags & MSG_CTRUNC)
		fds->truncated = true;
	for (size_t i = 0; i < fds->count && !fds->unexpected; i++)
		fds->unexpected = !fd_is_opath(fds->fds[i]) && !fd_is_pidfd(fds->fds[i]);
}

void request_fds_take_pidfd(struct request_fds *fds)
{
	int fd;

	if (!fds->count || fds->has_sender_pidfd)
		return;
	fd = fds->fds[fds->count - 1];
	/* Which process it is (its fdinfo's "Pid:") is peer.c's to read, where needed. */
	if (!fd_is_pidfd(fd))
		return;
	fds->sender_pidfd = fd;
	fds->has_sender_pidfd = true;
	fds->count--;
}

void request_fds_close(struct request_fds *fds)
{
	for (size_t i = 0; i < fds->count; i++)
		close(fds->fds[i]);
	if (fds->has_sender_pidfd)
		close(fds->sender_pidfd);
	*fds = (struct request_fds){};
}

/* Whether @fd is an O_PATH descriptor (of a directory, if @dir). */
static bool fd_is_path(int fd, bool dir)
{
	struct statx stx;

	if (!fd_is_opath(fd))
		return false;
	if (!dir)
		return true;
	/* AT_STATX_DONT_SYNC: no round trip to a (FUSE) server the caller may control. */
	return statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE, &stx) == 0 &&
	       (stx.stx_mask & STATX_TYPE) && S_ISDIR(stx.stx_mode);
}

int request_fs_refs(const struct umb_restrictions *r, const unsigned char *table, size_t table_len,
		    const struct request_fds *fds, int peer, struct fs_ref **ret_items,
		    struct fs_refs *ret_refs, char **ret_error)
{
	struct fs_ref *items;
	size_t fs_count = 0, next = 0;

	*ret_items = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++)
		fs_count += umb_restrictions__item(r, i)->kind == UMB_ITEM_FS;
	if (fds->truncated || table_len != fs_count) {
		*ret_error = strdup("malformed request: the descriptors do not match the fs items");
		return -EBADMSG;
	}
	items = calloc(fs_count ? fs_count : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < fs_count; i++) {
		items[i] = (struct fs_ref){ .dir_fd = -1, .obj_fd = -1 };
		if (table[i] & ~(UMB_FS_REF_DIR | UMB_FS_REF_OBJECT))
			goto mismatch;
		if (table[i] & UMB_FS_REF_DIR) {
			if (next >= fds->count || !fd_is_path(fds->fds[next], true))
				goto mismatch;
			items[i].dir_fd = fds->fds[next++];
		}
		if (table[i] & UMB_FS_REF_OBJECT) {
			if (next >= fds->count || !fd_is_path(fds->fds[next], false))
				goto mismatch;
			items[i].obj_fd = fds->fds[next++];
		}
	}
	if (next != fds->count)
		goto mismatch;
	*ret_items = items;
	*ret_refs =
		(struct fs_refs){ .items = items, .count = fs_count, .peer = peer, .proc_fd = -1 };
	return 0;

mismatch:
	free(items);
	*ret_error = strdup("malformed request: the descriptors do not match the fs items "
			    "(each must be an O_PATH descriptor, a directory where announced)");
	return -EBADMSG;
}
