// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: rfork() does not wait for ever on a stalled umbrellad, and the request it gave
 * up on arms nothing once umbrellad goes on.
 *
 *   test ─ starts umbrellad (--socket in /run)
 *    ├─ rfork("net") x 10           works; the round trips are measured (diagnostics)
 *    ├─ SIGSTOP umbrellad
 *    ├─ rfork("net")                -1 ETIMEDOUT after DAEMON_SOCKET_TIMEOUT_SEC, no child
 *    ├─ 66 connections fill the backlog;
 *    │  rfork("net")                -1 ETIMEDOUT at connect, no child
 *    ├─ SIGCONT umbrellad           it reads the requests given up on
 *    ├─ fork                        the child is not restricted: no arm was left behind
 *    └─ rfork("net")                works again (control)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#include "daemon-socket.h"
#include "client-probe.h"
#include "daemon-start.h"
#include "tap.h"
#include "time-util.h"

#define SOCKET_PATH "/run/umbrella-rfork-timeout-test/umbrellad.sock"
#define LOG_PATH    "/tmp/umbrellad-test-rfork-timeout.log"

/* More than umbrellad's listen backlog (server.c: 64) takes. */
#define BACKLOG_FILL 80

/* rfork(@r) whose child reports socket()'s errno; that errno, or -1 when rfork failed. */
static int rfork_probe(const struct umb_restrictions *r)
{
	pid_t pid = rfork(r);

	if (pid == 0)
		_exit(socket_errno());
	return pid < 0 ? -1 : wait_status(pid);
}

/*
 * rfork(@r) on a stalled umbrellad: whether it failed with ETIMEDOUT, saying @why, and
 * ran no child (a child would write to a pipe). Its duration in *@ret_usec.
 */
static bool rfork_times_out(const struct umb_restrictions *r, const char *why, uint64_t *ret_usec)
{
	uint64_t start = now_usec();
	const char *error;
	int p[2], err;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	pid = rfork(r);
	if (pid == 0) {
		(void)!write(p[1], "x", 1);
		_exit(0);
	}
	err = errno;
	*ret_usec = now_usec() - start;
	close(p[1]);
	if (pid > 0)
		wait_status(pid);
	error = umb_last_error();
	TAP_DIAG("rfork: %s (%s) after %.1f s", pid < 0 ? strerror(err) : "a child",
		 error ? error : "no message", (double)*ret_usec / USEC_PER_SEC);
	/* No byte: EOF (no child holds the write end) or EAGAIN. */
	err = pid < 0 && err == ETIMEDOUT && error && strstr(error, why) && read(p[0], &c, 1) != 1;
	close(p[0]);
	return err;
}

/* Connects to umbrellad until a connect() fails (its backlog is full) or BACKLOG_FILL
 * are made; their descriptors in @fds. Returns how many, with *@ret_full. */
static int fill_backlog(int *fds, bool *ret_full)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCKET_PATH };
	struct timeval t = { .tv_sec = 1 };
	int n;

	*ret_full = false;
	for (n = 0; n < BACKLOG_FILL; n++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

		if (fd < 0)
			break;
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof(t));
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
			*ret_full = errno == EAGAIN;
			close(fd);
			break;
		}
		fds[n] = fd;
	}
	return n;
}

/* Whether umbrellad's log, from @offset on, has @what, within 120 s. */
static bool log_shows(long offset, const char *what)
{
	char line[1024];

	for (int i = 0; i < 1200; i++) {
		FILE *f = fopen(LOG_PATH, "re");
		bool found = false;

		if (f && fseek(f, offset, SEEK_SET) == 0)
			while (!found && fgets(line, sizeof(line), f))
				found = strstr(line, what) != NULL;
		if (f)
			fclose(f);
		if (found)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

static long log_size(void)
{
	struct stat st;

	return stat(LOG_PATH, &st) == 0 ? (long)st.st_size : 0;
}

int main(int argc, char *argv[])
{
	struct umb_restrictions *net = restrictions("net");
	uint64_t took, max = 0, total = 0;
	int fds[BACKLOG_FILL], n, ok = 0;
	char umbrellad[4096];
	pid_t daemon, pid;
	bool full;
	long at;

	(void)argc;
	test_umbrellad_path(argv[0], umbrellad, sizeof(umbrellad));
	setenv("UMBRELLA_SOCKET", SOCKET_PATH, 1);
	daemon = test_start_umbrellad(umbrellad, SOCKET_PATH, LOG_PATH, NULL);
	if (!TAP_OK(daemon > 0 && net, "umbrellad starts")) {
		if (daemon > 0) /* it holds the suite's output pipe open */
			kill(daemon, SIGTERM);
		return tap_finish();
	}

	for (int i = 0; i < 10; i++) {
		uint64_t start = now_usec();

		ok += rfork_probe(net) == EPERM;
		took = now_usec() - start;
		total += took;
		max = took > max ? took : max;
	}
	TAP_EQ(ok, 10, "rfork(\"net\") works while umbrellad runs (control)");
	TAP_DIAG("10 rforks: %.1f ms on average, %.1f ms at most", (double)total / 10 / 1000,
		 (double)max / 1000);

	TAP_EQ(kill(daemon, SIGSTOP), 0, "umbrellad stopped (SIGSTOP)");
	TAP_OK(rfork_times_out(net, "umbrellad did not answer in", &took),
	       "rfork on a stopped umbrellad: ETIMEDOUT, its message, no child");
	TAP_OK(took >= (DAEMON_SOCKET_TIMEOUT_SEC - 1) * USEC_PER_SEC &&
		       took < (DAEMON_SOCKET_TIMEOUT_SEC + 5) * USEC_PER_SEC,
	       "it waited the bound (%d s), no more", DAEMON_SOCKET_TIMEOUT_SEC);
	TAP_EQ(socket_errno(), 0, "the caller itself is not restricted");

	n = fill_backlog(fds, &full);
	TAP_OK(full, "umbrellad's backlog is full after %d connections", n);
	TAP_OK(rfork_times_out(net, "did not take the connection", &took),
	       "rfork into a full backlog: ETIMEDOUT at connect, its message, no child");
	TAP_OK(took >= (DAEMON_SOCKET_TIMEOUT_SEC - 1) * USEC_PER_SEC &&
		       took < (DAEMON_SOCKET_TIMEOUT_SEC + 5) * USEC_PER_SEC,
	       "the connect waited the bound, no more");
	for (int i = 0; i < n; i++)
		close(fds[i]);

	/* umbrellad now reads the request given up on: it must not arm this thread. */
	at = log_size();
	TAP_EQ(kill(daemon, SIGCONT), 0, "umbrellad goes on (SIGCONT)");
	TAP_OK(log_shows(at, "gave up waiting"),
	       "umbrellad refuses the request given up on (its log)");
	pid = fork();
	if (pid == 0)
		_exit(socket_errno());
	TAP_EQ(wait_status(pid), 0, "a plain fork() after that: its child is not restricted");

	TAP_EQ(rfork_probe(net), EPERM, "rfork(\"net\") works again (control)");

	kill(daemon, SIGTERM);
	wait_status(daemon);
	umb_restrictions__free(net);
	return tap_finish();
}
