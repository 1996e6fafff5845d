// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the "net" and "net:FAMILY" restrictions deny socket creation to a restricted
 * task and to everything it starts, and nothing else.
 *
 *   test (unrestricted, loads and attaches the BPF object)
 *    |-- child, no layer               socket()/socketpair() work  (positive control)
 *    |-- child, layer "fork"           socket() works              (other items)
 *    `-- child, layer "net"            socket()/socketpair() -> EPERM
 *         |-- its forked child         socket() -> EPERM           (fork inheritance)
 *         |-- its thread               socket() -> EPERM           (thread inheritance)
 *         `-- after execve             socket() -> EPERM           (kept across exec)
 *
 * Runs as root inside the test VM (tests/vm/run); outside a BPF-LSM kernel it fails.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm-test.h"

static int probe_socket_family(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_socket(void *arg)
{
	(void)arg;
	return probe_socket_family(AF_INET);
}

static int probe_socket6(void *arg)
{
	(void)arg;
	return probe_socket_family(AF_INET6);
}

static int probe_socketpair(void *arg)
{
	int fds[2];

	(void)arg;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return errno;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

static int probe_socket_in_child(void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return PROBE_SETUP_FAILED;
	if (pid == 0)
		_exit(probe_socket(arg));
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	return WEXITSTATUS(status);
}

static void *socket_thread(void *arg)
{
	*(int *)arg = probe_socket(NULL);
	return NULL;
}

static int probe_socket_in_thread(void *arg)
{
	pthread_t thread;
	int result = PROBE_SETUP_FAILED;

	(void)arg;
	if (pthread_create(&thread, NULL, socket_thread, &result) != 0)
		return PROBE_SETUP_FAILED;
	pthread_join(thread, NULL);
	return result;
}

static int probe_socket_after_exec(void *arg)
{
	(void)arg;
	execl("/proc/self/exe", "test-net-deny", "--probe-socket", (char *)NULL);
	return PROBE_SETUP_FAILED;
}

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel;
	__u32 net, inet6, fork_only;

	if (argc == 2 && strcmp(argv[1], "--probe-socket") == 0)
		return probe_socket(NULL);

	skel = test_load();
	if (!skel)
		return tap_finish();
	net = test_layer(skel, "net");
	inet6 = test_layer(skel, "net:inet6");
	fork_only = test_layer(skel, "fork");
	if (!TAP_OK(net && inet6 && fork_only, "the test layers are installed"))
		return tap_finish();

	TAP_EQ(test_probe(skel, 0, probe_socket, NULL), 0,
	       "unrestricted child: socket(AF_INET) works");
	TAP_EQ(test_probe(skel, 0, probe_socketpair, NULL), 0,
	       "unrestricted child: socketpair(AF_UNIX) works");
	TAP_EQ(test_probe(skel, fork_only, probe_socket, NULL), 0,
	       "child restricted with fork only: socket(AF_INET) works");
	TAP_EQ(test_probe(skel, net, probe_socket, NULL), EPERM,
	       "child restricted with net: socket(AF_INET) fails with EPERM");
	TAP_EQ(test_probe(skel, net, probe_socketpair, NULL), EPERM,
	       "child restricted with net: socketpair(AF_UNIX) fails with EPERM");
	TAP_EQ(test_probe(skel, inet6, probe_socket6, NULL), EPERM,
	       "child restricted with net:inet6: socket(AF_INET6) fails with EPERM");
	TAP_EQ(test_probe(skel, inet6, probe_socket, NULL), 0,
	       "child restricted with net:inet6: socket(AF_INET) works");
	TAP_EQ(test_probe(skel, net, probe_socket_in_child, NULL), EPERM,
	       "net is inherited by a forked child: socket(AF_INET) fails with EPERM");
	TAP_EQ(test_probe(skel, net, probe_socket_in_thread, NULL), EPERM,
	       "net is inherited by a thread: socket(AF_INET) fails with EPERM");
	TAP_EQ(test_probe(skel, net, probe_socket_after_exec, NULL), EPERM,
	       "net is kept across execve: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_socket(NULL), 0, "the unrestricted test process itself still creates sockets");

	umbrella_bpf__destroy(skel);
	TAP_EQ(test_probe(NULL, 0, probe_socket, NULL), 0, "after detaching, sockets work again");
	return tap_finish();
}
