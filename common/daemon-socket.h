/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - connecting to umbrellad's socket (libumbrella and umbrella-cli). */
#ifndef UMBRELLA_COMMON_DAEMON_SOCKET_H
#define UMBRELLA_COMMON_DAEMON_SOCKET_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <umbrella/protocol.h>

/*
 * daemon_socket_connect() - connect to umbrellad ($UMBRELLA_SOCKET when set and not
 * empty, else UMB_SOCKET_PATH)
 * @ret_path: set to the socket's path, for messages
 * @ret_step: NULL, or set to the call that failed ("socket" or "connect"), for
 *	messages: a socket() refused with EPERM is most likely the caller's own restrictions
 *
 * Header-only, as libumbrella.so links none of common/'s code. Anyone may connect (the
 * socket is world-writable), so a successful connect also tells a user who cannot read
 * the pinned state that umbrellad runs.
 * Return: the connected descriptor (SOCK_SEQPACKET, close-on-exec), or -errno
 * (-ENAMETOOLONG: the path does not fit a socket address).
 */
static inline int daemon_socket_connect(const char **ret_path, const char **ret_step)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("UMBRELLA_SOCKET"), *step;
	int fd, r;

	if (!path || !path[0])
		path = UMB_SOCKET_PATH;
	*ret_path = path;
	if (!ret_step)
		ret_step = &step;
	*ret_step = "socket";
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	*ret_step = "connect";
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

#endif /* UMBRELLA_COMMON_DAEMON_SOCKET_H */
