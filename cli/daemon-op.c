// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - one request to umbrellad, one reply (daemon-op.h): the ops that need no
 * descriptor and whose reply fits in one message (events, verdict flush).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <umbrella/protocol.h>

#include "cli.h"
#include "daemon-op.h"
#include "daemon-socket.h"

ssize_t cli_daemon_op(uint32_t op, const char *what, char *buf, size_t size)
{
	struct umb_request req = { .version = UMB_PROTOCOL_VERSION,
				   .op = op,
				   .tid = (__u32)gettid() };
	struct umb_reply rep;
	const char *path;
	ssize_t n = 0;
	int fd;

	fd = daemon_socket_connect(&path, NULL);
	if (fd < 0) {
		cli_error("%s: cannot reach umbrellad at %s: %s", what, path, strerror(-fd));
		return fd == -ENAMETOOLONG ? -EXIT_ERROR : -EXIT_NOT_RUNNING;
	}
	if (send(fd, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req) ||
	    (n = daemon_socket_recv(fd, buf, size - 1)) < (ssize_t)sizeof(rep)) {
		if (n == -ETIMEDOUT)
			cli_error("%s: umbrellad at %s did not answer in %d s", what, path,
				  DAEMON_SOCKET_TIMEOUT_SEC);
		else
			cli_error("%s: no reply from umbrellad at %s", what, path);
		close(fd);
		return -EXIT_ERROR;
	}
	close(fd);
	buf[n] = '\0';
	memcpy(&rep, buf, sizeof(rep));
	if (rep.error < 0) {
		/* An older umbrellad says "unknown request". */
		cli_error("%s: umbrellad: %s", what,
			  (size_t)n > sizeof(rep) ? buf + sizeof(rep) : strerror(-rep.error));
		return -EXIT_ERROR;
	}
	return n;
}
