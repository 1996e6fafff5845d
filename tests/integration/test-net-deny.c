// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the "net" restriction denies socket creation to a restricted task and to
 * everything it starts, and nothing else.
 *
 *   test (unrestricted, loads and attaches the BPF object)
 *    |-- child A, unrestricted        socket() works           (positive control)
 *    `-- child B, restricted: net     socket()/socketpair() -> EPERM
 *         |-- B's forked child        socket() -> EPERM         (fork inheritance)
 *         |-- B's thread              socket() -> EPERM         (thread inheritance)
 *         `-- B after execve          socket() -> EPERM         (kept across exec)
 *
 * The restriction is written straight into the task storage map through a pidfd, as
 * umbrellad will do: this test is about the BPF programs, not the daemon.
 * Runs as root inside the test VM (tests/vm/run); outside a BPF-LSM kernel it fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/bpf-abi.h>

#include "tap.h"
#include "umbrella.skel.h"

/* Exit status of a probing child: 0 when the syscall worked, else its errno (< 100). */
#define PROBE_SETUP_FAILED 100

static int probe_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_socketpair(void)
{
	int fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return errno;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

/* Runs @probe in a new child process and returns its result. */
static int run_in_child(int (*probe)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return PROBE_SETUP_FAILED;
	if (pid == 0)
		_exit(probe());
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	return WEXITSTATUS(status);
}

static int probe_socket_in_child(void)
{
	return run_in_child(probe_socket);
}

static void *socket_thread(void *arg)
{
	*(int *)arg = probe_socket();
	return NULL;
}

static int probe_socket_in_thread(void)
{
	pthread_t thread;
	int result = PROBE_SETUP_FAILED;

	if (pthread_create(&thread, NULL, socket_thread, &result) != 0)
		return PROBE_SETUP_FAILED;
	pthread_join(thread, NULL);
	return result;
}

static int probe_socket_after_exec(void)
{
	execl("/proc/self/exe", "test-net-deny", "--probe-socket", (char *)NULL);
	return PROBE_SETUP_FAILED;
}

/*
 * Forks a child that waits until the parent has (or has not) restricted it, then runs
 * @probe. Returns the probe's result, or PROBE_SETUP_FAILED.
 */
static int probe_as_child(int task_map_fd, __u64 denied_caps, int (*probe)(void))
{
	int go[2], status, r = 0;
	char byte = 0;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return PROBE_SETUP_FAILED;
	pid = fork();
	if (pid < 0)
		return PROBE_SETUP_FAILED;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(PROBE_SETUP_FAILED);
		_exit(probe());
	}
	close(go[0]);

	if (denied_caps) {
		struct umb_task_state state = { .layer_count = 1, .denied_caps = denied_caps };
		int pidfd = pidfd_open(pid, 0);

		r = pidfd < 0 ? -errno : bpf_map_update_elem(task_map_fd, &pidfd, &state, BPF_NOEXIST);
		if (r < 0)
			TAP_DIAG("restricting child %d failed: %s", pid, strerror(-r));
		if (pidfd >= 0)
			close(pidfd);
	}
	if (r == 0 && write(go[1], &byte, 1) != 1)
		r = -EIO;
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || r < 0)
		return PROBE_SETUP_FAILED;
	return WEXITSTATUS(status);
}

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel;
	int map_fd, r;

	if (argc == 2 && strcmp(argv[1], "--probe-socket") == 0)
		return probe_socket();

	skel = umbrella_bpf__open_and_load();
	if (!TAP_OK(skel, "the BPF object loads (verifier accepts it)"))
		return tap_finish();
	r = umbrella_bpf__attach(skel);
	if (!TAP_EQ(r, 0, "the BPF LSM programs attach")) {
		umbrella_bpf__destroy(skel);
		return tap_finish();
	}
	map_fd = bpf_map__fd(skel->maps.umb_task);

	TAP_EQ(probe_as_child(map_fd, 0, probe_socket), 0,
	       "unrestricted child: socket(AF_INET) works");
	TAP_EQ(probe_as_child(map_fd, 0, probe_socketpair), 0,
	       "unrestricted child: socketpair(AF_UNIX) works");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_FORK, probe_socket), 0,
	       "child restricted with fork only: socket(AF_INET) works");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_NET, probe_socket), EPERM,
	       "child restricted with net: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_NET, probe_socketpair), EPERM,
	       "child restricted with net: socketpair(AF_UNIX) fails with EPERM");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_NET, probe_socket_in_child), EPERM,
	       "net is inherited by a forked child: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_NET, probe_socket_in_thread), EPERM,
	       "net is inherited by a thread: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_as_child(map_fd, UMB_CR_NET, probe_socket_after_exec), EPERM,
	       "net is kept across execve: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_socket(), 0, "the unrestricted test process itself still creates sockets");

	umbrella_bpf__destroy(skel);
	TAP_EQ(probe_as_child(map_fd, 0, probe_socket), 0,
	       "after detaching, sockets work again");
	return tap_finish();
}
