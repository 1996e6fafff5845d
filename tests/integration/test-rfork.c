// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: libumbrella's rfork() and umb_restrict_self() against a real umbrellad.
 *
 *   test ─ starts umbrellad (--socket in /run)
 *    ├─ rfork("net")                child: socket() -> EPERM; the parent still can
 *    ├─ rfork("net") ─ fork          grandchild: socket() -> EPERM (inherited)
 *    ├─ child ─ restrict_self("net")  the thread itself: socket() -> EPERM
 *    ├─ rfork("net") ─ rfork          works: "net" leaves the local socket to umbrellad
 *    ├─ rfork("net:unix") ─ rfork     EPERM, and umb_last_error() says why (so does
 *    │                                "net:all")
 *    ├─ rfork ─ rfork ─ ... (16)      the 17th layer: rfork fails with EPERM, no child
 *    ├─ umb_spawn("net")               the program: socket() -> EPERM, through a pidfd
 *    ├─ umb_spawn of a missing file    -ENOENT: the exec's error, no program
 *    └─ rfork with umbrellad gone     -1, and no child runs
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#include "client-probe.h"
#include "daemon-start.h"
#include "tap.h"

#ifndef P_PIDFD
#define P_PIDFD 3 /* glibc before 2.36 */
#endif

#define SOCKET_PATH "/run/umbrella-rfork-test/umbrellad.sock"
#define LOG_PATH    "/tmp/umbrellad-test-rfork.log"

/* Nests rforks, each adding an empty-ish layer, and reports in the exit status at which
 * depth rfork failed (with EPERM: 100 + depth) or 0 if it never did. */
static int nest(const struct umb_restrictions *r, int depth)
{
	pid_t pid = rfork(r);
	int status;

	if (pid < 0)
		return errno == EPERM ? 100 + depth : 1;
	if (pid == 0)
		_exit(depth >= 20 ? 0 : nest(r, depth + 1));
	status = wait_status(pid);
	return status < 0 ? 2 : status;
}

/* rfork("net") in a child that then forks: the grandchild is restricted too. */
static int grandchild_probe(const struct umb_restrictions *r)
{
	pid_t pid = rfork(r), grandchild;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		grandchild = fork();
		if (grandchild == 0)
			_exit(socket_errno());
		_exit(wait_status(grandchild));
	}
	return wait_status(pid);
}

/* A child restricts itself, then probes: its own socket() must fail. */
static int restrict_self_probe(const struct umb_restrictions *r)
{
	pid_t pid = fork();

	if (pid == 0) {
		int ret = umb_restrict_self(r);

		if (ret < 0) {
			fprintf(stderr, "# umb_restrict_self: %s (%s)\n", strerror(-ret),
				umb_last_error() ? umb_last_error() : "");
			_exit(99);
		}
		_exit(socket_errno());
	}
	return wait_status(pid);
}

/*
 * A child rfork'ed with @outer rforks again with @inner. Returns 0 when the inner rfork
 * works and its child runs; 10 when it fails with EPERM and umb_last_error() names the
 * local socket it could not create; 11 for another failure, 12 without a message.
 */
static int nested_rfork(const struct umb_restrictions *outer, const struct umb_restrictions *inner)
{
	pid_t pid = rfork(outer), inner_pid;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		const char *error;

		inner_pid = rfork(inner);
		if (inner_pid == 0)
			_exit(0);
		if (inner_pid > 0)
			_exit(wait_status(inner_pid) == 0 ? 0 : 3);
		error = umb_last_error();
		fprintf(stderr, "# the inner rfork: %s (umb_last_error: %s)\n", strerror(errno),
			error ? error : "NULL");
		if (!error)
			_exit(12);
		_exit(errno == EPERM && strstr(error, "AF_UNIX") && strstr(error, "net:unix") ? 10 :
												11);
	}
	return wait_status(pid);
}

/* umb_spawn() of this program (--socket-probe) under @r, waited for through its pidfd:
 * the program's socket() errno, or -1 when the spawn or the wait failed. */
static int spawn_probe(const struct umb_restrictions *r)
{
	char *args[] = { (char *)"test-rfork", (char *)"--socket-probe", NULL };
	siginfo_t info = {};
	int pidfd = -1, ret;

	ret = umb_spawn(&pidfd, NULL, "/proc/self/exe", args, NULL, r, 0);
	if (ret < 0) {
		fprintf(stderr, "# umb_spawn: %s (%s)\n", strerror(-ret),
			umb_last_error() ? umb_last_error() : "");
		return -1;
	}
	ret = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0 ? -1 :
	      info.si_code == CLD_EXITED				 ? info.si_status :
									   -1;
	close(pidfd);
	return ret;
}

int main(int argc, char *argv[])
{
	struct umb_restrictions *net = restrictions("net"), *signal_r = restrictions("signal");
	struct umb_restrictions *unix_r = restrictions("net:unix"), *all = restrictions("net:all");
	char umbrellad[4096];
	pid_t daemon, pid;

	if (argc > 1 && !strcmp(argv[1], "--socket-probe"))
		return socket_errno();
	test_umbrellad_path(argv[0], umbrellad, sizeof(umbrellad));
	setenv("UMBRELLA_SOCKET", SOCKET_PATH, 1);
	daemon = test_start_umbrellad(umbrellad, SOCKET_PATH, LOG_PATH, NULL);
	if (!TAP_OK(daemon > 0 && net && signal_r && unix_r && all, "umbrellad starts")) {
		if (daemon > 0) /* it holds the suite's output pipe open */
			kill(daemon, SIGTERM);
		return tap_finish();
	}

	pid = rfork(net);
	if (pid == 0)
		_exit(socket_errno());
	TAP_EQ(wait_status(pid), EPERM, "rfork(\"net\"): the child's socket() fails with EPERM");
	TAP_EQ(socket_errno(), 0, "the parent of an rfork'ed child still creates sockets");

	pid = rfork(signal_r);
	if (pid == 0)
		_exit(socket_errno());
	TAP_EQ(wait_status(pid), 0, "rfork(\"signal\"): the child's socket() works (control)");

	TAP_EQ(grandchild_probe(net), EPERM, "the child's own children inherit its layer");
	TAP_EQ(restrict_self_probe(net), EPERM,
	       "umb_restrict_self(\"net\"): the caller's socket() fails with EPERM");
	TAP_EQ(socket_errno(), 0, "restrict_self in a child leaves the parent alone");

	TAP_EQ(nested_rfork(net, signal_r), 0,
	       "a child rfork'ed with net reaches umbrellad: its own rfork works");
	TAP_EQ(nested_rfork(unix_r, signal_r), 10,
	       "a child rfork'ed with net:unix: its rfork fails with EPERM and "
	       "umb_last_error() says why");
	TAP_EQ(nested_rfork(all, signal_r), 10,
	       "a child rfork'ed with net:all: its rfork fails with EPERM and "
	       "umb_last_error() says why");

	/* 16 layers fit on a stack; asking for a 17th fails the rfork cleanly. */
	TAP_EQ(nest(signal_r, 1), 100 + 17, "the 17th nested rfork fails with EPERM");

	TAP_EQ(spawn_probe(net), EPERM,
	       "umb_spawn(\"net\"): the program's socket() fails with EPERM (its pidfd waited on)");
	TAP_EQ(spawn_probe(signal_r), 0,
	       "umb_spawn(\"signal\"): the program's socket() works (control)");
	{
		char *args[] = { (char *)"missing", NULL };
		int pidfd = -1,
		    ret = umb_spawn(&pidfd, NULL, "/nonexistent/program", args, NULL, net, 0);

		TAP_OK(ret == -ENOENT && errno == ENOENT && pidfd == -1,
		       "umb_spawn() of a missing program: -ENOENT, no pidfd (%d)", ret);
	}

	kill(daemon, SIGTERM);
	wait_status(daemon);
	errno = 0;
	pid = rfork(net);
	if (pid == 0)
		_exit(0); /* must never run */
	TAP_OK(pid < 0 && (errno == ENOENT || errno == ECONNREFUSED),
	       "without umbrellad, rfork fails (errno %d) and no child runs", errno);

	umb_restrictions__free(net);
	umb_restrictions__free(signal_r);
	umb_restrictions__free(unix_r);
	umb_restrictions__free(all);
	return tap_finish();
}
