// SPDX-License-Identifier: GPL-2.0-only
/*
 * layer-churn - what test-layer-lifecycle.sh (and the benchmark's soak) runs against a
 * real umbrellad through libumbrella: many rforks, held or not. Every child checks that
 * it is denied /etc/hostname (the layers it gets restrict fs:/etc) and that it can read
 * a file elsewhere (the positive control). One line of results on stdout.
 *
 *   layer-churn rforks N ITEMS     N rforks one after the other, each child exiting
 *                                  at once: "rforks=OK denied=D failed=F error=..."
 *   layer-churn hold N ITEMS       N children alive at once, each in its own layer:
 *                                  "held=N denied=D", then waits for SIGTERM and
 *                                  ends them
 *   layer-churn until-refused ITEMS   children held until rfork fails:
 *                                  "held=N error=MESSAGE", then as hold
 *   layer-churn outlive            the layer of an rfork child is kept by what outlives
 *                                  it: "thread=denied grandchild=denied" (or allowed)
 * Exit status: 0 when every check said "denied", 1 otherwise, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#define DENIED_FILE  "/etc/hostname"
#define CONTROL_FILE "/proc/version"

/* 'd': denied /etc/hostname and the control works; 'a': allowed; 'c': control failed. */
static char probe(void)
{
	int fd = open(CONTROL_FILE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 'c';
	close(fd);
	fd = open(DENIED_FILE, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 'a';
	}
	return errno == EACCES ? 'd' : 'c';
}

static struct umb_restrictions *parse(const char *items)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;

	if (!r || umb_restrictions__parse(r, items, &error) < 0) {
		fprintf(stderr, "layer-churn: %s: %s\n", items, error ? error : "no memory");
		exit(2);
	}
	return r;
}

static int rforks(unsigned long n, const struct umb_restrictions *r)
{
	unsigned long ok = 0, denied = 0, failed = 0;
	char error[256] = "";

	for (unsigned long i = 0; i < n; i++) {
		int status;
		pid_t pid = rfork(r);

		if (pid == 0)
			_exit(probe() == 'd' ? 0 : 1);
		if (pid < 0) {
			failed++;
			if (!error[0])
				snprintf(error, sizeof(error), "%s",
					 umb_last_error() ? umb_last_error() : strerror(errno));
			continue;
		}
		ok++;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status))
			denied++;
	}
	printf("rforks=%lu denied=%lu failed=%lu error=%s\n", ok, denied, failed, error);
	return ok == n && denied == n ? 0 : 1;
}

/* Children held alive, each reporting its probe on @report and then waiting for its
 * end of @hold. */
struct holders {
	pid_t *pids;
	size_t count;
	unsigned long denied;
	int hold[2], report[2];
};

static int hold_one(struct holders *h, const struct umb_restrictions *r)
{
	pid_t pid = rfork(r);
	char c;

	if (pid == 0) {
		close(h->hold[1]);
		c = probe();
		if (write(h->report[1], &c, 1) != 1)
			_exit(1);
		if (read(h->hold[0], &c, 1) < 0) /* returns at the end of the pipe */
			_exit(1);
		_exit(0);
	}
	if (pid < 0)
		return -errno;
	h->pids[h->count++] = pid;
	if (read(h->report[0], &c, 1) == 1 && c == 'd')
		h->denied++;
	return 0;
}

static void holders_wait_and_end(struct holders *h)
{
	sigset_t set;
	int sig;

	fflush(stdout);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	(void)sigwait(&set, &sig); /* blocked since main() */
	close(h->hold[1]);
	for (size_t i = 0; i < h->count; i++)
		(void)waitpid(h->pids[i], NULL, 0);
}

static int hold(unsigned long n, const struct umb_restrictions *r, int until_refused)
{
	struct holders h = {};
	char error[256] = "";
	size_t max = until_refused ? 100000 : n;

	h.pids = calloc(max, sizeof(*h.pids));
	if (!h.pids || pipe2(h.hold, O_CLOEXEC) < 0 || pipe2(h.report, O_CLOEXEC) < 0)
		return 2;
	while (h.count < max) {
		if (hold_one(&h, r) < 0) {
			snprintf(error, sizeof(error), "%s",
				 umb_last_error() ? umb_last_error() : strerror(errno));
			break;
		}
	}
	if (until_refused)
		printf("held=%zu denied=%lu error=%s\n", h.count, h.denied, error);
	else
		printf("held=%zu denied=%lu\n", h.count, h.denied);
	holders_wait_and_end(&h);
	return h.denied == h.count && (until_refused || h.count == n) ? 0 : 1;
}

static void *thread_probe(void *arg)
{
	int *report = arg;
	char c;

	usleep(300 * 1000); /* the main thread has exited by now */
	c = probe();
	if (write(*report, &c, 1) != 1)
		_exit(2);
	return NULL;
}

/*
 * P rforks A (the layer), A forks B and starts thread T, then A's main thread exits.
 * T probes; P reaps A (its whole group: the layer's first holder is freed), waits so
 * that umbrellad would have freed the layer, then lets B exec a shell that probes.
 */
static int outlive(const struct umb_restrictions *r)
{
	int report[2], go[2], status;
	char thread_says = '?', grandchild_says = '?';
	pid_t a, b;

	if (pipe2(report, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		return 2;
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* B comes back to us */
	a = rfork(r);
	if (a < 0) {
		fprintf(stderr, "layer-churn: rfork: %s\n", umb_last_error());
		return 1;
	}
	if (a == 0) {
		pthread_t t;

		b = fork();
		if (b == 0) {
			char c;

			if (read(go[0], &c, 1) != 1)
				_exit(2);
			execl("/bin/sh", "sh", "-c",
			      "cat " CONTROL_FILE " >/dev/null || exit 3; cat " DENIED_FILE
			      " >/dev/null 2>&1 && exit 4; exit 0",
			      (char *)NULL);
			_exit(2);
		}
		if (pthread_create(&t, NULL, thread_probe, &report[1]) != 0)
			_exit(2);
		pthread_exit(NULL); /* the process lives on in T */
	}
	if (read(report[0], &thread_says, 1) != 1)
		thread_says = '?';
	(void)waitpid(a, NULL, 0);
	usleep(1500 * 1000); /* umbrellad frees a released layer at once */
	if (write(go[1], "g", 1) != 1)
		return 2;
	b = waitpid(-1, &status, 0);
	if (b > 0 && WIFEXITED(status))
		grandchild_says = WEXITSTATUS(status) == 0 ? 'd' :
				  WEXITSTATUS(status) == 4 ? 'a' :
							     'c';
	printf("thread=%s grandchild=%s\n",
	       thread_says == 'd' ? "denied" :
	       thread_says == 'a' ? "allowed" :
				    "error",
	       grandchild_says == 'd' ? "denied" :
	       grandchild_says == 'a' ? "allowed" :
					"error");
	return thread_says == 'd' && grandchild_says == 'd' ? 0 : 1;
}

int main(int argc, char *argv[])
{
	sigset_t term;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Blocked before any child exists: "hold" ends at SIGTERM (sigwait()). */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	if (argc == 4 && !strcmp(argv[1], "rforks"))
		return rforks(strtoul(argv[2], NULL, 10), parse(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(strtoul(argv[2], NULL, 10), parse(argv[3]), 0);
	if (argc == 3 && !strcmp(argv[1], "until-refused"))
		return hold(0, parse(argv[2]), 1);
	if (argc == 2 && !strcmp(argv[1], "outlive"))
		return outlive(parse("fs:/etc"));
	fprintf(stderr, "usage: layer-churn rforks N ITEMS | hold N ITEMS | "
			"until-refused ITEMS | outlive\n");
	return 2;
}
