// SPDX-License-Identifier: GPL-2.0-only
/* umbrella-cli - umbrellad's socket, for the commands that talk to it */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <umbrella/protocol.h>

#include "daemon-socket.h"

int cli_daemon_connect(const char **ret_path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("UMBRELLA_SOCKET");
	int fd, r;

	if (!path || !path[0])
		path = UMB_SOCKET_PATH;
	*ret_path = path;
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}
