// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella - rfork() and restrict_self(): asking umbrellad for a layer, and making
 * sure it was applied before any restricted code runs.
 *
 * The sequence for a child: arm (umbrellad writes a layer and marks this thread),
 * fork (the kernel's task_alloc hook gives the child the layer), disarm (umbrellad
 * reports whether the kernel applied it). The child waits on a pipe until the parent
 * has heard that report, and exits without returning if the layer is not there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

static __thread char last_error[256];

const char *umb_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

static int connect_daemon(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("UMBRELLA_SOCKET");
	int fd;

	if (!path || !path[0])
		path = UMB_SOCKET_PATH;
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int r = -errno;

		snprintf(last_error, sizeof(last_error), "cannot reach umbrellad at %s: %s", path,
			 strerror(-r));
		close(fd);
		return r;
	}
	return fd;
}

/*
 * Sends one request (with @text after the header, if not NULL) and reads the reply.
 * Returns the reply's error (0 or -errno, its message in last_error) or a transport
 * error.
 */
static int call(int fd, __u32 op, __u32 flags, const char *text, struct umb_reply *ret_reply)
{
	struct umb_request req = { .version = UMB_PROTOCOL_VERSION, .op = op,
				   .tid = (__u32)gettid(), .flags = flags };
	char buf[sizeof(struct umb_reply) + 512];
	size_t text_len = text ? strlen(text) + 1 : 0;
	char *msg;
	ssize_t n;

	if (sizeof(req) + text_len > UMB_MSG_MAX)
		return -E2BIG;
	msg = malloc(sizeof(req) + text_len);
	if (!msg)
		return -ENOMEM;
	memcpy(msg, &req, sizeof(req));
	if (text)
		memcpy(msg + sizeof(req), text, text_len);
	n = send(fd, msg, sizeof(req) + text_len, MSG_NOSIGNAL);
	free(msg);
	if (n < 0)
		return -errno;

	n = recv(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(*ret_reply))
		return -EPROTO;
	memcpy(ret_reply, buf, sizeof(*ret_reply));
	if (ret_reply->error < 0) {
		buf[n] = '\0';
		snprintf(last_error, sizeof(last_error), "%s", buf + sizeof(*ret_reply));
	}
	return ret_reply->error;
}

/* Arms a layer made of @r for the calling thread. Returns the connection or -errno. */
static int arm(const struct umb_restrictions *r, __u32 op, __u32 flags)
{
	struct umb_reply rep;
	char *text = NULL;
	int fd, ret;

	last_error[0] = '\0';
	ret = umb_restrictions__format(r, &text);
	if (ret < 0)
		return ret;
	fd = connect_daemon();
	if (fd < 0) {
		free(text);
		return fd;
	}
	ret = call(fd, op, flags, text, &rep);
	free(text);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Asks umbrellad what became of the calling thread's arm (and forgets it). */
static int disarm(int fd, __u32 *ret_state)
{
	struct umb_reply rep;
	int ret = call(fd, UMB_OP_DISARM, 0, NULL, &rep);

	close(fd);
	if (ret < 0)
		return ret;
	*ret_state = rep.state;
	return 0;
}

pid_t umb_rfork(const struct umb_restrictions *r, unsigned int flags)
{
	__u32 state = 0;
	int go[2], fd, ret, status;
	char verdict = 0;
	pid_t pid;

	if (flags & ~(unsigned int)UMB_RFORK_ON_EXEC) {
		errno = EINVAL;
		return -1;
	}
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	fd = arm(r, UMB_OP_ARM_CHILD, flags & UMB_RFORK_ON_EXEC ? UMB_ARM_ON_EXEC : 0);
	if (fd < 0) {
		ret = fd;
		goto out_close_pipe;
	}

	pid = fork();
	if (pid == 0) {
		/* Run nothing of the caller's until the parent knows the layer is here. */
		close(go[1]);
		close(fd);
		if (read(go[0], &verdict, 1) != 1 || verdict != 'y')
			_exit(127);
		close(go[0]);
		return 0;
	}
	ret = pid < 0 ? -errno : 0;
	if (disarm(fd, &state) < 0 && ret == 0)
		ret = -EIO;
	if (ret == 0 && state != UMB_ARM_APPLIED) {
		snprintf(last_error, sizeof(last_error), "the kernel did not apply the layer");
		ret = -EPERM;
	}
	if (pid > 0) {
		verdict = ret == 0 ? 'y' : 'n';
		if (write(go[1], &verdict, 1) != 1 && ret == 0)
			ret = -EIO;
		if (ret < 0) {
			(void)kill(pid, SIGKILL);
			(void)waitpid(pid, &status, 0);
		}
	}

out_close_pipe:
	close(go[0]);
	close(go[1]);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return pid;
}

pid_t rfork(const struct umb_restrictions *r)
{
	return umb_rfork(r, 0);
}

int umb_restrict_self(const struct umb_restrictions *r)
{
	__u32 state = 0;
	int fd, ret;

	fd = arm(r, UMB_OP_ARM_SELF, 0);
	if (fd < 0)
		return fd;
	/* The kernel answers EINVAL when our BPF program took the layer (the option is not
	 * the kernel's own) and EPERM when it refused; umbrellad has the outcome. */
	(void)prctl(UMB_PRCTL_APPLY, 0, 0, 0, 0);
	ret = disarm(fd, &state);
	if (ret < 0)
		return ret;
	if (state != UMB_ARM_APPLIED) {
		snprintf(last_error, sizeof(last_error), "the kernel did not apply the layer");
		return -EPERM;
	}
	return 0;
}
