// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for its parts): an
 * arm is bound to its thread's start time, so a task that reuses the thread id never gets
 * the layer.
 *
 *   test ─ loads the BPF object, makes a layer "net"
 *    ├─ arm (own thread, its start time), fork    the child's socket() -> EPERM (control)
 *    ├─ X starts and exits; its arm is written after that (what umbrellad does when
 *    │  the caller exits between its checks and the write); R gets X's pid and forks:
 *    │                                            R's child creates sockets, the arm is gone
 *    └─ arm (own thread, another start time), fork: the child creates sockets, the arm
 *                                                 is gone
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "client-probe.h"
#include "pid-reuse.h"
#include "thread-start.h"
#include "vm-test.h"

static int socket_probe(void *arg)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)arg;
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* A child's socket_probe(), after a fork with whatever arm the thread has. */
static int fork_probe(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(socket_probe(NULL));
	return wait_status(pid);
}

/* The start time of thread @tid of process @tgid, or 0. */
static uint64_t start_of(pid_t tgid, pid_t tid)
{
	char path[64];
	uint64_t start;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	return thread_start(AT_FDCWD, path, &start) == 0 ? start : 0;
}

static bool armed(struct umbrella_bpf *skel, __u32 tid)
{
	struct umb_arm arm;

	return bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_arm), &tid, &arm) == 0;
}

/* X arms after its exit, R reuses its pid: R's child's socket() result, or -1. */
static int reused_after_arm(__u32 layer, pid_t *ret_x)
{
	int go[2], res[2], x_ready[2], x_go[2], child;
	uint64_t start;
	pid_t x, r;

	if (pipe(go) < 0 || pipe(res) < 0 || pipe(x_ready) < 0 || pipe(x_go) < 0)
		return -1;
	x = fork();
	if (x == 0) {
		char c;

		(void)!write(x_ready[1], "x", 1);
		(void)!read(x_go[0], &c, 1);
		_exit(0);
	}
	*ret_x = x;
	{
		char c;

		(void)!read(x_ready[0], &c, 1);
	}
	start = start_of(x, x);
	(void)!write(x_go[1], "x", 1);
	(void)wait_status(x);
	/* Start times come in clock ticks (/proc/PID/stat, 10 ms): R must start in a later
	 * tick than X to have another one. Reusing a pid within the same tick takes
	 * ns_last_pid, that is privilege in the pid namespace of the arm's thread ids. */
	usleep(20 * 1000);
	if (!start || arm_thread_at(&test_layers, (__u32)x, (__u32)x, start, layer, 0) < 0) {
		TAP_DIAG("arming the exited thread %d failed", x);
		return -1;
	}
	r = fork_as(x);
	if (r == 0) {
		char c;

		(void)!read(go[0], &c, 1);
		child = fork_probe();
		(void)!write(res[1], &child, sizeof(child));
		_exit(0);
	}
	if (r < 0) {
		TAP_DIAG("could not give pid %d to a new process", x);
		(void)arm_take(&test_layers, (__u32)x);
		return -1;
	}
	(void)!write(go[1], "x", 1);
	if (read(res[0], &child, sizeof(child)) != sizeof(child))
		child = -1;
	(void)wait_status(r);
	return child;
}

static void cap_arm_reuse(struct umbrella_bpf *skel)
{
	__u32 layer, tid = (__u32)gettid();
	uint64_t start;
	pid_t x = 0;

	layer = test_layer(skel, "net");
	start = start_of(getpid(), gettid());
	if (!TAP_OK(layer && start, "a layer \"net\" and the test's start time"))
		return;

	TAP_EQ(arm_thread_at(&test_layers, tid, (__u32)getpid(), start, layer, 0), 0,
	       "arm the test's thread with its start time");
	TAP_EQ(fork_probe(), EPERM, "the armed fork's child: socket() fails (control)");
	TAP_OK(!armed(skel, tid), "the fork used the arm");

	TAP_EQ(reused_after_arm(layer, &x), 0,
	       "an arm written after its thread exited: the task reusing its id forks a child "
	       "that creates sockets");
	TAP_OK(x && !armed(skel, (__u32)x), "the stale arm was deleted at that fork");

	TAP_EQ(arm_thread_at(&test_layers, tid, (__u32)getpid(), start + 1, layer, 0), 0,
	       "arm the test's thread with another start time");
	TAP_EQ(fork_probe(), 0, "the fork ignores it: the child creates sockets");
	TAP_OK(!armed(skel, tid), "and deletes it");
	TAP_EQ(fork_probe(), 0, "the next fork is unrestricted too");
}
