// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for its parts): the
 * "net", "net:unix", "net:all" and "net:FAMILY" restrictions deny socket creation to a
 * restricted task and to everything it starts, and nothing else. "net" is every family but
 * AF_UNIX: local sockets stay (name lookups, sd_notify, rfork through umbrellad; test-rfork
 * checks that last one against a real umbrellad).
 *
 *   test (unrestricted, loads and attaches the BPF object)
 *    |-- child, no layer               every family, socketpair() work  (positive control)
 *    |-- child, layer "fork"           socket() works              (other items)
 *    |-- child, layer "net"            inet, inet6, packet, netlink -> EPERM;
 *    |                                 unix socket() and socketpair() work
 *    |-- child, layer "net:unix"       unix socket()/socketpair() -> EPERM; inet works
 *    |-- child, layer "net:all"        every family, socketpair() -> EPERM
 *    |-- child, layer "net,net:unix"   the same as net:all
 *    `-- child, layer "net"            socket(AF_INET) -> EPERM
 *         |-- its forked child         socket() -> EPERM           (fork inheritance)
 *         |-- its thread               socket() -> EPERM           (thread inheritance)
 *         `-- after execve             socket() -> EPERM           (kept across exec)
 *
 * Runs as root inside the test VM (tests/vm/run); outside a BPF-LSM kernel it fails. The
 * last check, cap_net_detached(), runs after test-cap destroyed the object.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
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

/* socket(@arg's family, SOCK_DGRAM): 0 or the errno. */
static int probe_family(void *arg)
{
	return probe_socket_family(*(const int *)arg);
}

static int probe_socket_inet(void *arg)
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
		_exit(probe_socket_inet(arg));
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	return WEXITSTATUS(status);
}

static void *socket_thread(void *arg)
{
	*(int *)arg = probe_socket_inet(NULL);
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
	execl("/proc/self/exe", "test-cap", "--probe-socket", (char *)NULL);
	return PROBE_SETUP_FAILED;
}

static const struct {
	int family;
	const char *name;
} families[] = {
	{ AF_UNIX, "AF_UNIX" },	    { AF_INET, "AF_INET" },	  { AF_INET6, "AF_INET6" },
	{ AF_PACKET, "AF_PACKET" }, { AF_NETLINK, "AF_NETLINK" },
};

/* Every family of families[] and socketpair(AF_UNIX) under @layer (0: none): each
 * fails with EPERM where @denied_unix / @denied_other says so, else works. */
static void check_families(struct umbrella_bpf *skel, __u32 layer, const char *what,
			   bool denied_unix, bool denied_other)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		bool denied = families[i].family == AF_UNIX ? denied_unix : denied_other;

		TAP_EQ(test_probe(skel, layer, probe_family, (void *)&families[i].family),
		       denied ? EPERM : 0, "%s: socket(%s) %s", what, families[i].name,
		       denied ? "fails with EPERM" : "works");
	}
	TAP_EQ(test_probe(skel, layer, probe_socketpair, NULL), denied_unix ? EPERM : 0,
	       "%s: socketpair(AF_UNIX) %s", what, denied_unix ? "fails with EPERM" : "works");
}

static void cap_net(struct umbrella_bpf *skel)
{
	__u32 net, inet6, fork_only, unix_only, all, net_unix;

	net = test_layer(skel, "net");
	inet6 = test_layer(skel, "net:inet6");
	fork_only = test_layer(skel, "fork");
	unix_only = test_layer(skel, "net:unix");
	all = test_layer(skel, "net:all");
	net_unix = test_layer(skel, "net,net:unix");
	if (!TAP_OK(net && inet6 && fork_only && unix_only && all && net_unix,
		    "the test layers are installed"))
		return;

	check_families(skel, 0, "unrestricted child", false, false);
	TAP_EQ(test_probe(skel, fork_only, probe_socket_inet, NULL), 0,
	       "child restricted with fork only: socket(AF_INET) works");
	check_families(skel, net, "net", false, true);
	check_families(skel, unix_only, "net:unix", true, false);
	check_families(skel, all, "net:all", true, true);
	check_families(skel, net_unix, "net,net:unix", true, true);
	TAP_EQ(test_probe(skel, inet6, probe_socket6, NULL), EPERM,
	       "child restricted with net:inet6: socket(AF_INET6) fails with EPERM");
	TAP_EQ(test_probe(skel, inet6, probe_socket_inet, NULL), 0,
	       "child restricted with net:inet6: socket(AF_INET) works");
	TAP_EQ(test_probe(skel, net, probe_socket_in_child, NULL), EPERM,
	       "net is inherited by a forked child: socket(AF_INET) fails with EPERM");
	TAP_EQ(test_probe(skel, net, probe_socket_in_thread, NULL), EPERM,
	       "net is inherited by a thread: socket(AF_INET) fails with EPERM");
	TAP_EQ(test_probe(skel, net, probe_socket_after_exec, NULL), EPERM,
	       "net is kept across execve: socket(AF_INET) fails with EPERM");
	TAP_EQ(probe_socket_inet(NULL), 0,
	       "the unrestricted test process itself still creates sockets");
}

/* After test-cap destroyed the object (its last check). */
static void cap_net_detached(void)
{
	TAP_EQ(test_probe(NULL, 0, probe_socket_inet, NULL), 0,
	       "after detaching, sockets work again");
}
