/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - connecting to umbrellad's socket (libumbrella and umbrella-cli). */
#ifndef UMBRELLA_COMMON_DAEMON_SOCKET_H
#define UMBRELLA_COMMON_DAEMON_SOCKET_H

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <umbrella/protocol.h>

#include "time-util.h"

/*
 * How long a client waits for umbrellad: to take its connection, and to answer its
 * request. umbrellad answers an rfork in about 0.1 s even in an emulated VM on a loaded
 * host (at most 0.8 s seen: test-rfork-timeout); one that has not answered in 10 s is
 * stalled (stopped, or its loop held), and a caller of rfork() must not hang with it.
 * Not a setting, as no other wait of a client of umbrellad's is one; the client's side
 * of umbrellad's idle_timeout (5 s by default).
 */
#define DAEMON_SOCKET_TIMEOUT_SEC 10

/*
 * daemon_socket_connect() - connect to umbrellad ($UMBRELLA_SOCKET when set and not
 * empty, else UMB_SOCKET_PATH)
 * @ret_path: set to the socket's path, for messages
 * @ret_step: NULL, or set to the call that failed ("socket" or "connect"), for
 *	messages: a socket() refused with EPERM is most likely the caller's own restrictions
 *
 * Header-only, as libumbrella.so links none of common/'s code. Anyone may connect (the
 * socket is world-writable), so a successful connect also tells a user who cannot read
 * the pinned state that umbrellad runs. A connect() waits while umbrellad's listen
 * backlog is full (it takes no connection: stalled, or every slot taken), and a send
 * while the socket has no room: both at most DAEMON_SOCKET_TIMEOUT_SEC (SO_SNDTIMEO).
 * Return: the connected descriptor (SOCK_SEQPACKET, close-on-exec), or -errno
 * (-ENAMETOOLONG: the path does not fit a socket address; -ETIMEDOUT: the backlog
 * stayed full; -EAGAIN at once: Umbrella refused the connection, bpf/file.bpf.c's
 * umb_conn_full).
 */
static inline int daemon_socket_connect(const char **ret_path, const char **ret_step)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("UMBRELLA_SOCKET"), *step;
	uint64_t start;
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
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO,
		       &(struct timeval){ .tv_sec = DAEMON_SOCKET_TIMEOUT_SEC },
		       sizeof(struct timeval)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	start = now_usec();
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		r = -errno;
		/* The kernel says EAGAIN both when the backlog stayed full for the whole
		 * SO_SNDTIMEO and when the LSM hook refuses, which it does at once. The wait
		 * may end up to a tick early: a second's margin tells them apart. */
		if (r == -EAGAIN &&
		    now_usec() - start >= (DAEMON_SOCKET_TIMEOUT_SEC - 1) * USEC_PER_SEC)
			r = -ETIMEDOUT;
		close(fd);
		return r;
	}
	return fd;
}

/*
 * daemon_socket_recv_until() - receive one message from umbrellad on @fd into @buf
 * (@size bytes), waiting until @deadline (now_usec()) at the latest (signals do not
 * extend the wait)
 *
 * Return: its length, or -errno (-ETIMEDOUT: none by the deadline).
 */
static inline ssize_t daemon_socket_recv_until(int fd, void *buf, size_t size, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t now;
	ssize_t n;
	int r;

	for (;;) {
		now = now_usec();
		if (now >= deadline)
			return -ETIMEDOUT;
		/* Rounded up: a wait cut short by rounding would spin. */
		r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		/* Readable, or hung up (then recv() says so: 0 or an error). */
		n = recv(fd, buf, size, MSG_DONTWAIT);
		if (n >= 0)
			return n;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
}

/*
 * daemon_socket_recv() - receive umbrellad's reply on @fd into @buf (@size bytes), waiting
 * at most DAEMON_SOCKET_TIMEOUT_SEC for it
 *
 * Return: its length, or -errno (-ETIMEDOUT: no reply in time).
 */
static inline ssize_t daemon_socket_recv(int fd, void *buf, size_t size)
{
	return daemon_socket_recv_until(fd, buf, size,
					now_usec() + DAEMON_SOCKET_TIMEOUT_SEC * USEC_PER_SEC);
}

#endif /* UMBRELLA_COMMON_DAEMON_SOCKET_H */
