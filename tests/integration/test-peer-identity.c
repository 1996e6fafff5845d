// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: umbrellad knows its caller by a pidfd, not by a pid number that another
 * process may have by the time the request is read.
 *
 *   test ─ starts umbrellad (--socket in /run)
 *    ├─ nobody: rfork("net")                 the child's socket() -> EPERM (control)
 *    ├─ A (nobody) asks for "net" on its own thread, forks: the child's socket() -> EPERM
 *    │                                       (control: the raw request works)
 *    ├─ A (nobody) connects ─ C (its child)  C asks for "net" on A's thread: refused
 *    ├─ A (nobody) connects ─ C, A exits, R (root) gets A's pid:
 *    │                                       C asks for "net" on R's thread: refused;
 *    │                                       R's next child creates sockets
 *    ├─ umbrellad stopped; A (nobody) connects, asks for "net" on its own thread, exits;
 *    │  R (root) gets A's pid; umbrellad goes on: refused, R's child creates sockets
 *    │  (Linux 6.5+: SO_PEERPIDFD has no process; before: the pidfd A sent with the
 *    │  request (protocol 4) has exited, and R is another user's)
 *    └─ the same with R nobody too: refused (before 6.5, only by A's pidfd)
 * R gets the pid through /proc/sys/kernel/ns_last_pid (pid-reuse.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "pid-reuse.h"
#include "client-probe.h"
#include "daemon-start.h"
#include "tap.h"

#define SOCKET_PATH "/run/umbrella-peer-test/umbrellad.sock"
#define LOG_PATH    "/tmp/umbrellad-test-peer-identity.log"
#define NOBODY	    65534

/* A child that runs socket_errno(): its result, or -1. */
static int child_socket_errno(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(socket_errno());
	return wait_status(pid);
}

static void become_nobody(void)
{
	if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
		_exit(125);
}

static int connect_daemon(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCKET_PATH };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return -1;
	return fd;
}

/* Sends UMB_OP_ARM_CHILD for thread @tid with @text, the way libumbrella does: with
 * a pidfd of the sending process (protocol 4). */
static int send_request(int fd, __u32 tid, const char *text)
{
	char buf[sizeof(struct umb_request) + 64], control[CMSG_SPACE(sizeof(int))] = {};
	struct umb_request req = { .version = UMB_PROTOCOL_VERSION,
				   .op = UMB_OP_ARM_CHILD,
				   .tid = tid };
	size_t len = strlen(text) + 1;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(req) + len };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0), r;

	if (self < 0)
		return -errno;
	memcpy(buf, &req, sizeof(req));
	memcpy(buf + sizeof(req), text, len);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &self, sizeof(int));
	r = sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
	close(self);
	return r;
}

/* Sends UMB_OP_ARM_CHILD as protocol 3 did: without the sender's pidfd. */
static int send_request_v3(int fd, __u32 tid, const char *text)
{
	char buf[sizeof(struct umb_request) + 64];
	struct umb_request req = { .version = 3, .op = UMB_OP_ARM_CHILD, .tid = tid };
	size_t len = strlen(text) + 1;

	memcpy(buf, &req, sizeof(req));
	memcpy(buf + sizeof(req), text, len);
	return send(fd, buf, sizeof(req) + len, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Reads the reply: its error (0 or -errno, with the message in @ret_message). */
static int read_reply(int fd, char *ret_message, size_t size)
{
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	struct umb_reply rep;
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	ret_message[0] = '\0';
	if (n < (ssize_t)sizeof(rep))
		return -EPROTO;
	buf[n] = '\0';
	memcpy(&rep, buf, sizeof(rep));
	if (rep.error < 0)
		snprintf(ret_message, size, "%s", buf + sizeof(rep));
	return rep.error;
}

/* Writes and reads one int through a pipe. */
static void put_int(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(124);
}

static int get_int(int fd)
{
	int v = -1;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : -1;
}

/*
 * Forks a process with pid @want, which waits for an int on @go, forks a child that
 * tries socket() and writes that child's result on @result. Returns its pid, or -1.
 */
static pid_t fork_reusing_as(pid_t want, int go, int result, bool nobody)
{
	pid_t pid = fork_as(want);

	if (pid == 0) {
		if (nobody)
			become_nobody();
		(void)get_int(go);
		put_int(result, child_socket_errno());
		_exit(0);
	}
	return pid;
}

/* nobody's rfork("net"): the child's socket() result, through the exit status. */
static int rfork_as_nobody(void)
{
	struct umb_restrictions *net = umb_restrictions__new();
	pid_t pid = fork();

	if (pid == 0) {
		pid_t child;

		become_nobody();
		if (!net || umb_restrictions__parse(net, "net", NULL) < 0)
			_exit(125);
		child = rfork(net);
		if (child == 0)
			_exit(socket_errno());
		_exit(child < 0 ? 124 : wait_status(child));
	}
	umb_restrictions__free(net);
	return wait_status(pid);
}

/* A (nobody) asks for "net" on its own thread with the raw request, then forks: the
 * child's socket() result, or 120 when the request is refused. */
static int raw_request_control(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		char message[UMB_REPLY_TEXT_MAX];
		int fd, r;

		become_nobody();
		fd = connect_daemon();
		if (fd < 0 || send_request(fd, (__u32)gettid(), "net") < 0)
			_exit(125);
		r = read_reply(fd, message, sizeof(message));
		_exit(r < 0 ? 120 : child_socket_errno());
	}
	return wait_status(pid);
}

/* A (nobody) sends a protocol 3 request for its own thread: the reply's error (with
 * the message in @message); *@ret_peerpidfd: whether the kernel has SO_PEERPIDFD. */
static int old_client_request(char *message, size_t size, bool *ret_peerpidfd)
{
	int res[2], r;
	pid_t pid;

	if (pipe(res) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char m[UMB_REPLY_TEXT_MAX] = "";
		socklen_t len = sizeof(int);
		int fd, e, pidfd;

		become_nobody();
		fd = connect_daemon();
		if (fd < 0)
			_exit(125);
		put_int(res[1],
			getsockopt(fd, SOL_SOCKET, 77 /* SO_PEERPIDFD */, &pidfd, &len) == 0);
		e = send_request_v3(fd, (__u32)getpid(), "net") ?: read_reply(fd, m, sizeof(m));
		put_int(res[1], e);
		if (write(res[1], m, sizeof(m)) < 0)
			_exit(124);
		_exit(0);
	}
	close(res[1]);
	*ret_peerpidfd = get_int(res[0]) == 1;
	r = get_int(res[0]);
	if (read(res[0], message, size) <= 0)
		message[0] = '\0';
	message[size - 1] = '\0';
	close(res[0]);
	(void)wait_status(pid);
	return r;
}

/* A (nobody) connects, its child C asks for "net" on A's thread while A lives: the
 * reply's error. */
static int request_from_handed_socket(char *message, size_t size)
{
	int res[2], r = -1;
	pid_t pid;

	if (pipe(res) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pid_t a = getpid(), c;
		int fd;

		become_nobody();
		fd = connect_daemon();
		if (fd < 0)
			_exit(125);
		c = fork();
		if (c == 0) {
			char m[UMB_REPLY_TEXT_MAX];
			int e = send_request(fd, (__u32)a, "net") ?: read_reply(fd, m, sizeof(m));

			put_int(res[1], e);
			if (write(res[1], m, sizeof(m)) < 0)
				_exit(124);
			_exit(0);
		}
		_exit(wait_status(c));
	}
	close(res[1]);
	r = get_int(res[0]);
	if (read(res[0], message, size) <= 0)
		message[0] = '\0';
	message[size - 1] = '\0';
	close(res[0]);
	(void)wait_status(pid);
	return r;
}

/* Waits (up to 5 s) until process @pid runs as nobody. */
static void wait_nobody(pid_t pid)
{
	char path[64], line[256];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	for (int i = 0; pid > 0 && i < 500; i++) {
		FILE *f = fopen(path, "re");
		unsigned int ruid, euid;
		bool nobody = false;

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
				nobody = euid == NOBODY;
		if (f)
			fclose(f);
		if (nobody)
			return;
		usleep(10 * 1000);
	}
}

static pid_t fork_reusing(pid_t want, int go, int result)
{
	return fork_reusing_as(want, go, result, false);
}

/*
 * The attack: A (nobody) connects and forks C, A exits, R (root) gets A's pid, C asks
 * for "net" on R's thread. *@ret_reply: the reply's error; returns the socket() result
 * of R's next child, or -1 when the pid could not be reused.
 */
static int reused_connector(int *ret_reply, char *message, size_t size)
{
	int a_ready[2], c_go[2], c_res[2], r_go[2], r_res[2];
	pid_t a, r, p;
	int child;

	if (pipe(a_ready) < 0 || pipe(c_go) < 0 || pipe(c_res) < 0 || pipe(r_go) < 0 ||
	    pipe(r_res) < 0)
		return -1;
	a = fork();
	if (a == 0) {
		int fd;

		become_nobody();
		fd = connect_daemon();
		if (fd < 0)
			_exit(125);
		if (fork() == 0) {
			char m[UMB_REPLY_TEXT_MAX] = "";
			pid_t tid = get_int(c_go[0]);
			int e = send_request(fd, (__u32)tid, "net") ?: read_reply(fd, m, sizeof(m));

			put_int(c_res[1], e);
			if (write(c_res[1], m, sizeof(m)) < 0)
				_exit(124);
			_exit(0);
		}
		put_int(a_ready[1], 1);
		_exit(0); /* the connector is gone; C keeps the socket */
	}
	(void)get_int(a_ready[0]);
	p = a;
	(void)wait_status(a);
	r = fork_reusing(p, r_go[0], r_res[1]);
	if (r < 0) {
		TAP_DIAG("could not give pid %d to a new process", p);
		return -1;
	}
	put_int(c_go[1], r);
	*ret_reply = get_int(c_res[0]);
	if (read(c_res[0], message, size) <= 0)
		message[0] = '\0';
	message[size - 1] = '\0';
	put_int(r_go[1], 1);
	child = get_int(r_res[0]);
	(void)wait_status(r);
	return child;
}

/*
 * The same with the request sent by A itself, for its own thread, before it exits,
 * while umbrellad is stopped: umbrellad reads it when R has A's pid. Returns the
 * socket() result of R's next child, or -1.
 */
static int reused_sender(pid_t daemon, bool same_user)
{
	int a_ready[2], r_go[2], r_res[2];
	pid_t a, r;
	int child;

	if (pipe(a_ready) < 0 || pipe(r_go) < 0 || pipe(r_res) < 0)
		return -1;
	kill(daemon, SIGSTOP);
	a = fork();
	if (a == 0) {
		int fd;

		become_nobody();
		fd = connect_daemon();
		if (fd < 0 || send_request(fd, (__u32)getpid(), "net") < 0)
			_exit(125);
		put_int(a_ready[1], 1);
		_exit(0);
	}
	(void)get_int(a_ready[0]);
	(void)wait_status(a);
	r = fork_reusing_as(a, r_go[0], r_res[1], same_user);
	if (same_user)
		wait_nobody(r);
	kill(daemon, SIGCONT);
	if (r < 0) {
		TAP_DIAG("could not give pid %d to a new process", a);
		return -1;
	}
	/* umbrellad answers the request (to no one) before this one: a barrier. */
	(void)rfork_as_nobody();
	put_int(r_go[1], 1);
	child = get_int(r_res[0]);
	(void)wait_status(r);
	return child;
}

int main(int argc, char *argv[])
{
	char umbrellad[4096], message[UMB_REPLY_TEXT_MAX];
	int reply = 1;
	pid_t daemon;

	(void)argc;
	/* The daemon binary of the same build tree: BUILD/tests/integration/THIS. */
	test_umbrellad_path(argv[0], umbrellad, sizeof(umbrellad));
	setenv("UMBRELLA_SOCKET", SOCKET_PATH, 1);
	daemon = test_start_umbrellad(umbrellad, SOCKET_PATH, LOG_PATH, NULL);
	if (!TAP_OK(daemon > 0, "umbrellad starts"))
		return tap_finish();

	TAP_EQ(rfork_as_nobody(), EPERM, "nobody's rfork(\"net\"): the child's socket() fails");
	TAP_EQ(raw_request_control(), EPERM,
	       "a raw request for the caller's own thread: its child's socket() fails");

	{
		bool peerpidfd = false;
		int e = old_client_request(message, sizeof(message), &peerpidfd);

		if (peerpidfd)
			TAP_EQ(e, 0,
			       "a protocol 3 request (no pidfd) arms the caller's thread "
			       "where the kernel has SO_PEERPIDFD");
		else
			TAP_OK(e == -EPROTO && strstr(message, "pidfd"),
			       "a protocol 3 request (no pidfd) is refused before Linux 6.5, "
			       "saying why (%d: %s)",
			       e, message);
	}

	TAP_EQ(request_from_handed_socket(message, sizeof(message)), -EPERM,
	       "a request sent by a child of the connector is refused (%s)", message);

	TAP_EQ(reused_connector(&reply, message, sizeof(message)), 0,
	       "connector exited, its pid reused by root: root's next child creates sockets");
	TAP_OK(reply < 0, "connector exited, its pid reused: the request is refused (%d: %s)",
	       reply, message);

	TAP_EQ(reused_sender(daemon, false), 0,
	       "sender exited before umbrellad read its request, pid reused by root: "
	       "root's next child creates sockets");
	/* The same user's process: before Linux 6.5 only the sender's pidfd tells it from
	 * the sender. */
	TAP_EQ(reused_sender(daemon, true), 0,
	       "sender exited before umbrellad read its request, pid reused by a process of "
	       "the same user: its next child creates sockets");

	TAP_EQ(rfork_as_nobody(), EPERM, "umbrellad still serves: rfork(\"net\") works");
	kill(daemon, SIGTERM);
	(void)wait_status(daemon);
	return tap_finish();
}
