/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the descriptors that come with a request: a caller's fs items (protocol.h) */
#ifndef UMBRELLA_REQUEST_FDS_H
#define UMBRELLA_REQUEST_FDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "layer-install.h"

/* SCM_MAX_FD (include/net/scm.h): the most one message can carry. */
#define REQUEST_FDS_MAX 253

struct request_fds {
	int fds[REQUEST_FDS_MAX];
	size_t count;
	bool truncated;	       /* MSG_CTRUNC: the kernel dropped some (never the case with ours) */
	bool unexpected;       /* one is neither an O_PATH file nor a pidfd: see closer.h */
	bool has_sender_pidfd; /* protocol 4: the sender's pidfd, taken off fds ... */
	int sender_pidfd;      /* ... here (a zeroed struct has none) */
};

/* Room for the descriptors of one message (received with MSG_CMSG_CLOEXEC). */
#define REQUEST_FDS_CMSG_SPACE CMSG_SPACE(sizeof(int) * REQUEST_FDS_MAX)

/*
 * request_fds_take() - the descriptors that the request received as @msg carries
 * (SCM_RIGHTS), into @fds, which the caller closes with request_fds_close() whatever
 * happens, unless @fds->unexpected: one of them is not an O_PATH file or a pidfd, the
 * only kinds a request brings and the only ones whose close() cannot wait; then all of
 * them are the closer thread's to close (closer.h).
 */
void request_fds_take(const struct msghdr *msg, struct request_fds *fds);

/*
 * request_fds_take_pidfd() - takes the last descriptor off @fds into
 * @fds->sender_pidfd (setting @fds->has_sender_pidfd) if it is a pidfd (protocol 4: a
 * pidfd of the sending process, after the fs items' O_PATH descriptors)
 */
void request_fds_take_pidfd(struct request_fds *fds);

/* Closes every descriptor of @fds. */
void request_fds_close(struct request_fds *fds);

/*
 * request_fs_refs() - match the fs items of @r with the table (@table_len bytes, one
 * per fs item, UMB_FS_REF_*) and the descriptors @fds of a request from process @peer
 * @ret_items: malloc'd, one per fs item (the descriptors stay @fds's)
 * @ret_error: on failure, a malloc'd message (may be NULL)
 *
 * Every descriptor must be announced by the table and be O_PATH, and a directory
 * where the table says so. Return: 0, -EBADMSG when they do not match, or -ENOMEM.
 */
int request_fs_refs(const struct umb_restrictions *r, const unsigned char *table, size_t table_len,
		    const struct request_fds *fds, int peer, struct fs_ref **ret_items,
		    struct fs_refs *ret_refs, char **ret_error);

#endif /* UMBRELLA_REQUEST_FDS_H */
