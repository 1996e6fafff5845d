// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella - rfork() and restrict_self(): asking umbrellad for a layer, and making
 * sure it was applied before any restricted code runs.
 *
 * The sequence for a child: arm (umbrellad writes a layer and marks this thread: the
 * one round trip), fork (the kernel's task_alloc hook gives the child the layer, or
 * fails the fork). Then both ask the kernel, not umbrellad: the child, before it runs
 * any of its caller's code, whether it carries the layer (UMB_PRCTL_CARRIES; it exits
 * at once if not), and the parent whether the fork used the arm (UMB_PRCTL_DISARM,
 * which takes back an arm the fork did not use).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/bpf-abi.h> /* the prctl answers, UMB_ARM_* */
#include <umbrella/caller-paths.h>
#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "daemon-socket.h"
#include "lib-errno.h"
#include "rfork-internal.h"

static __thread char last_error[UMB_REPLY_TEXT_MAX];

const char *umb_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

static int connect_daemon(void)
{
	const char *path, *step;
	int fd = daemon_socket_connect(&path, &step);

	if (fd == -ENAMETOOLONG)
		snprintf(last_error, sizeof(last_error),
			 "cannot reach umbrellad: its socket path %s is too long", path);
	else if (fd < 0 && !strcmp(step, "socket"))
		/* EPERM here is most likely a layer of the caller's own: say which items. */
		snprintf(last_error, sizeof(last_error),
			 "cannot reach umbrellad: socket(AF_UNIX): %s%s", strerror(-fd),
			 fd == -EPERM ? " (the caller's own restrictions deny local sockets: "
					"\"net:unix\" or \"net:all\")" :
					"");
	else if (fd == -ETIMEDOUT)
		snprintf(last_error, sizeof(last_error),
			 "umbrellad at %s did not take the connection in %d s", path,
			 DAEMON_SOCKET_TIMEOUT_SEC);
	else if (fd == -EAGAIN && !strcmp(step, "connect"))
		/* A blocking connect() waits for room in the backlog: this is Umbrella's
		 * refusal (bpf/file.bpf.c, umb_conn_full), for this user's share or for
		 * all users'. */
		snprintf(last_error, sizeof(last_error),
			 "cannot reach umbrellad at %s: this user (max_connections_per_user) or "
			 "all users but root together hold every connection they may, some of "
			 "which umbrellad is still closing",
			 path);
	else if (fd < 0)
		snprintf(last_error, sizeof(last_error), "cannot reach umbrellad at %s: %s", path,
			 strerror(-fd));
	return fd;
}

/* Sets last_error to "@what: ERROR" and returns @err (-errno). */
static int transport_error(const char *what, int err)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", what, strerror(-err));
	return err;
}

/*
 * Sends one request (with @text after the header, if not NULL, and then the @table_len
 * bytes of @table, with the @fd_count descriptors @fds) and reads the reply. Returns the
 * reply's error (0 or -errno, its message in last_error) or a transport error.
 */
static int call(int fd, __u32 op, __u32 flags, const char *text, const unsigned char *table,
		size_t table_len, const int *fds, size_t fd_count, struct umb_reply *ret_reply)
{
	struct umb_request req = {
		.version = UMB_PROTOCOL_VERSION, .op = op, .tid = (__u32)gettid(), .flags = flags
	};
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	char control[CMSG_SPACE(sizeof(int) * (UMB_MSG_MAX_FDS + 1))] = {};
	int all[UMB_MSG_MAX_FDS + 1], self;
	size_t text_len = text ? strlen(text) + 1 : 0;
	struct iovec iov[3] = {
		{ .iov_base = &req, .iov_len = sizeof(req) },
		{ .iov_base = (void *)text, .iov_len = text_len },
		{ .iov_base = (void *)table, .iov_len = table_len },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 3 };
	ssize_t n;

	if (sizeof(req) + text_len + table_len > UMB_MSG_MAX || fd_count > UMB_MSG_MAX_FDS)
		return -E2BIG;
	/* Last, a pidfd of this process (protocol 4): before Linux 6.5, umbrellad's only
	 * way to tell this process from one that got its pid after it exited. */
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self < 0)
		return transport_error("cannot open a pidfd of this process", -errno);
	memcpy(all, fds, sizeof(int) * fd_count);
	all[fd_count++] = self;
	{
		struct cmsghdr *cmsg;

		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
		memcpy(CMSG_DATA(cmsg), all, sizeof(int) * fd_count);
	}
	n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	close(self);
	if (n < 0)
		return transport_error("cannot send the request to umbrellad", -errno);

	n = daemon_socket_recv(fd, buf, sizeof(buf) - 1);
	if (n == -ETIMEDOUT) {
		snprintf(last_error, sizeof(last_error), "umbrellad did not answer in %d s",
			 DAEMON_SOCKET_TIMEOUT_SEC);
		return -ETIMEDOUT;
	}
	if (n < 0)
		return transport_error("no reply from umbrellad", (int)n);
	if ((size_t)n < sizeof(*ret_reply))
		return transport_error("umbrellad's reply is too short", -EPROTO);
	memcpy(ret_reply, buf, sizeof(*ret_reply));
	if (ret_reply->error < 0) {
		buf[n] = '\0';
		snprintf(last_error, sizeof(last_error), "%s", buf + sizeof(*ret_reply));
	}
	return ret_reply->error;
}

/* Arms a layer made of @r for the calling thread. Returns its id, or -errno. */
static long arm(const struct umb_restrictions *r, __u32 op, __u32 flags)
{
	struct umb_caller_paths paths;
	struct umb_reply rep;
	char *error = NULL;
	int fd, ret;

	last_error[0] = '\0';
	/* The fs paths as this process sees them: umbrellad's mount namespace is not ours. */
	ret = umb_caller_paths_open(r, &paths, &error);
	if (ret < 0) {
		if (error)
			snprintf(last_error, sizeof(last_error), "%s", error);
		free(error);
		return ret;
	}
	fd = connect_daemon();
	if (fd < 0) {
		umb_caller_paths_close(&paths);
		return fd;
	}
	ret = call(fd, op, flags, paths.text, paths.table, paths.fs_count, paths.fds,
		   paths.fd_count, &rep);
	umb_caller_paths_close(&paths);
	if (ret < 0) {
		/* umbrellad may have armed the thread before the reply was lost, or may arm
		 * it still (we gave up waiting): an arm left behind would restrict a later
		 * plain fork() without being asked. The connection is shut down first (on
		 * the socket, whoever else holds the descriptor): umbrellad takes back an arm
		 * whose reply it cannot send (daemon/request.c), so one it makes after this
		 * shutdown is its to take back, and one it made before it is here for the
		 * DISARM to find. */
		(void)shutdown(fd, SHUT_RDWR);
		(void)prctl(UMB_PRCTL_DISARM, 0, 0, 0, 0);
	}
	close(fd);
	return ret < 0 ? ret : (long)rep.layer;
}

/* Whether the kernel answered a prctl of Umbrella's with yes (bpf-abi.h). */
static bool prctl_yes(int option, unsigned long arg)
{
	return prctl(option, arg, 0, 0, 0) < 0 && errno == UMB_PRCTL_YES;
}

/* rfork-internal.h */
pid_t umb_rfork_flags(const struct umb_restrictions *r, unsigned int flags)
{
	int ret = 0, status;
	long layer;
	pid_t pid;

	if (flags & ~(unsigned int)(UMB_RFORK_ON_EXEC | UMB_RFORK_PERMISSIVE))
		return -EINVAL;
	layer = arm(r, UMB_OP_ARM_CHILD,
		    (flags & UMB_RFORK_ON_EXEC ? UMB_ARM_ON_EXEC : 0) |
			    (flags & UMB_RFORK_PERMISSIVE ? UMB_ARM_PERMISSIVE : 0));
	if (layer < 0)
		return (pid_t)layer;

	pid = fork();
	if (pid == 0) {
		/* Run nothing of the caller's unless the kernel says the layer is here. */
		if (!prctl_yes(UMB_PRCTL_CARRIES, (unsigned long)layer))
			_exit(127);
		return 0;
	}
	if (pid < 0) {
		ret = -errno;
		snprintf(last_error, sizeof(last_error), "fork: %s", strerror(-ret));
		(void)prctl(UMB_PRCTL_DISARM, 0, 0, 0, 0); /* take back the unused arm */
	} else if (!prctl_yes(UMB_PRCTL_DISARM, 0)) {
		snprintf(last_error, sizeof(last_error), "the kernel did not apply the layer");
		ret = -EPERM;
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, &status, 0);
	}
	return ret < 0 ? ret : pid;
}

/*
 * The library's one convention (lib-errno.h) from UMBRELLA_0.3 on: -errno, errno set
 * too. Programs linked before keep the symbols they were linked with, UMBRELLA_0.1's,
 * which return like fork(2): -1 with errno set. Both test "pid < 0" the same way.
 */
pid_t umb_rfork_v0_3(const struct umb_restrictions *r, unsigned int flags);
pid_t rfork_v0_3(const struct umb_restrictions *r);
pid_t umb_rfork_v0_1(const struct umb_restrictions *r, unsigned int flags);
pid_t rfork_v0_1(const struct umb_restrictions *r);

__attribute__((symver("umb_rfork@@UMBRELLA_0.3"))) pid_t
umb_rfork_v0_3(const struct umb_restrictions *r, unsigned int flags)
{
	return umb_errno(umb_rfork_flags(r, flags));
}

__attribute__((symver("rfork@@UMBRELLA_0.3"))) pid_t rfork_v0_3(const struct umb_restrictions *r)
{
	return umb_errno(umb_rfork_flags(r, 0));
}

__attribute__((symver("umb_rfork@UMBRELLA_0.1"))) pid_t
umb_rfork_v0_1(const struct umb_restrictions *r, unsigned int flags)
{
	pid_t pid = umb_errno(umb_rfork_flags(r, flags));

	return pid < 0 ? -1 : pid;
}

__attribute__((symver("rfork@UMBRELLA_0.1"))) pid_t rfork_v0_1(const struct umb_restrictions *r)
{
	return umb_rfork_v0_1(r, 0);
}

/* Arms a layer made of @r for the calling thread with @flags (UMB_ARM_ON_EXEC or 0)
 * and has the kernel apply it. Returns 0 or -errno. */
static int restrict_self(const struct umb_restrictions *r, __u32 flags)
{
	long layer = arm(r, UMB_OP_ARM_SELF, flags);
	int err;

	if (layer < 0)
		return (int)layer;
	if (prctl_yes(UMB_PRCTL_APPLY, (unsigned long)layer))
		return 0;
	err = errno;
	(void)prctl(UMB_PRCTL_DISARM, 0, 0, 0, 0); /* an arm not ours, or not applied */
	snprintf(last_error, sizeof(last_error), "the kernel did not apply the layer: %s",
		 err == EPERM ? "the task has the most layers it can carry" : strerror(err));
	return err == ENOMEM ? -ENOMEM : -EPERM;
}

int umb_restrict_self(const struct umb_restrictions *r)
{
	return umb_errno(restrict_self(r, 0));
}

int umb_restrict_self_on_exec(const struct umb_restrictions *r)
{
	return umb_errno(restrict_self(r, UMB_ARM_ON_EXEC));
}
