// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for the five
 * parts): the "signal" restriction. A restricted task signals only inside its domain
 * (tasks whose layer stack starts with its own), by every route: kill(2), tgkill(2),
 * rt_sigqueueinfo(2), pidfd_send_signal(2), and signal-driven I/O (F_SETOWN and
 * O_ASYNC, F_SETSIG, FIOASYNC, FIOSETOWN). Restricted tasks never signal umbrellad.
 *
 *   S, S2: layers with "signal"; X: a layer with "net" only
 *   sender      target           expected
 *   -           unrestricted     allowed (control)
 *   [X]         unrestricted     allowed (no "signal")
 *   [S]         unrestricted     EPERM, every route
 *   [S]         [S], [S X]       allowed (same stack, more restricted descendant)
 *   [S]         [X], [S2]        EPERM (another stack)
 *   [S X]       [S]              EPERM (the less restricted one is outside)
 *   [S]         itself, a child  allowed
 *   [X]         umbrellad        EPERM (self-protection, whatever the restrictions)
 */
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "cap-test.h"

static pid_t target;	  /* the process a probe signals */
static int owned_fd = -1; /* a pipe's read end whose SIGIO goes to target (set by us) */

static int probe_kill0(void *arg UNUSED)
{
	return cap_errno(kill(target, 0));
}

static int probe_kill(void *arg UNUSED)
{
	return cap_errno(kill(target, SIGCONT));
}

static int probe_tgkill(void *arg UNUSED)
{
	return cap_errno(syscall(SYS_tgkill, target, target, SIGCONT));
}

static int probe_sigqueue(void *arg UNUSED)
{
	return cap_errno(sigqueue(target, SIGCONT, (union sigval){ .sival_int = 1 }));
}

static int probe_pidfd_send_signal(void *arg UNUSED)
{
	int fd = pidfd_open(target, 0), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0));
	close(fd);
	return r;
}

/* Every route to itself: kill, tgkill, sigqueue (SIGCONT is harmless). */
static int probe_self(void *arg UNUSED)
{
	if (kill(getpid(), 0) < 0 || kill(getpid(), SIGCONT) < 0 ||
	    syscall(SYS_tgkill, getpid(), gettid(), SIGCONT) < 0 ||
	    sigqueue(getpid(), SIGCONT, (union sigval){ .sival_int = 1 }) < 0)
		return errno;
	return 0;
}

/* Kills a child of its own (inside its domain: it inherited the stack). */
static int probe_child(void *arg UNUSED)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return PROBE_SETUP_FAILED;
	if (child == 0) {
		pause();
		_exit(0);
	}
	if (kill(child, SIGKILL) < 0) {
		int e = errno;

		waitpid(child, NULL, 0); /* cannot be killed by us: it ends with us */
		return e;
	}
	if (waitpid(child, &status, 0) < 0 || !WIFSIGNALED(status))
		return PROBE_SETUP_FAILED;
	return 0;
}

/* F_SETOWN to another process on a file of its own. */
static int probe_setown_other(void *arg UNUSED)
{
	int fds[2], r;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(fcntl(fds[0], F_SETOWN, target));
	close(fds[0]);
	close(fds[1]);
	return r;
}

/* F_SETOWN_EX, even to itself: the owner is in user memory, refused outright. */
static int probe_setown_ex(void *arg UNUSED)
{
	struct f_owner_ex owner = { .type = F_OWNER_PID, .pid = getpid() };
	int fds[2], r;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(fcntl(fds[0], F_SETOWN_EX, &owner));
	close(fds[0]);
	close(fds[1]);
	return r;
}

/* Signal-driven I/O to itself works end to end: F_SETOWN(getpid()), F_SETSIG,
 * O_ASYNC, and a write makes the signal pending. */
static int probe_sigio_self(void *arg UNUSED)
{
	sigset_t set, pending;
	int fds[2], r = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return PROBE_SETUP_FAILED;
	if (fcntl(fds[0], F_SETOWN, getpid()) < 0 || fcntl(fds[0], F_SETSIG, SIGIO) < 0 ||
	    fcntl(fds[0], F_SETFL, O_ASYNC | O_NONBLOCK) < 0)
		r = errno;
	else if (write(fds[1], "x", 1) != 1 || sigpending(&pending) < 0)
		r = PROBE_SETUP_FAILED;
	else if (!sigismember(&pending, SIGIO))
		r = ENOMSG;
	close(fds[0]);
	close(fds[1]);
	return r;
}

/* On a file whose owner another task chose (owned_fd, inherited): F_SETSIG. */
static int probe_inherited_setsig(void *arg UNUSED)
{
	return cap_errno(fcntl(owned_fd, F_SETSIG, SIGCONT));
}

/* The same: turning on O_ASYNC. */
static int probe_inherited_async(void *arg UNUSED)
{
	return cap_errno(fcntl(owned_fd, F_SETFL, O_ASYNC));
}

/* The same: turning on async mode with FIOASYNC. */
static int probe_inherited_fioasync(void *arg UNUSED)
{
	int on = 1;

	return cap_errno(ioctl(owned_fd, FIOASYNC, &on));
}

/* FIOSETOWN on a socket of its own, even to itself (owner in user memory). */
static int probe_fiosetown(void *arg UNUSED)
{
	int fds[2], r, who = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(ioctl(fds[0], FIOSETOWN, &who));
	close(fds[0]);
	close(fds[1]);
	return r;
}

static const struct {
	test_probe_fn probe;
	const char *what;
} signal_routes[] = {
	{ probe_kill0, "kill(pid, 0)" },
	{ probe_kill, "kill(pid, SIGCONT)" },
	{ probe_tgkill, "tgkill" },
	{ probe_sigqueue, "sigqueue (rt_sigqueueinfo)" },
	{ probe_pidfd_send_signal, "pidfd_send_signal" },
	{ probe_setown_other, "fcntl(F_SETOWN, pid)" },
};

/* Checks every route from a sender with @sender layers to @victim. */
static void check_signal_routes(struct umbrella_bpf *skel, const __u32 *sender, unsigned count,
				pid_t victim, int expected, const char *who)
{
	target = victim;
	for (unsigned i = 0; i < ARRAY_SIZE(signal_routes); i++)
		TAP_EQ(cap_run(skel, sender, count, signal_routes[i].probe, NULL), expected,
		       "%s: %s %s", who, signal_routes[i].what,
		       expected ? "fails with EPERM" : "works");
}

/* Makes a SIGIO to @victim through a pipe whose owner we (unrestricted) set: returns
 * whether the signal arrived (pending in the victim, which blocks SIGIO). */
static bool sigio_reaches(pid_t victim)
{
	int fds[2];
	bool arrived;

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	if (fcntl(fds[0], F_SETOWN, victim) < 0 ||
	    fcntl(fds[0], F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || write(fds[1], "x", 1) != 1)
		TAP_DIAG("setting up SIGIO to %d: %s", victim, strerror(errno));
	usleep(10000);
	arrived = cap_signal_pending(victim, SIGIO);
	close(fds[0]);
	close(fds[1]);
	return arrived;
}

static void cap_signal(struct umbrella_bpf *skel)
{
	__u32 S, S2, X, stack[2];
	pid_t free_task, same, below, other, other2, daemon;
	int fds[2];

	S = cap_layer(skel, UMB_CR_SIGNAL, 0);
	S2 = cap_layer(skel, UMB_CR_SIGNAL, 0);
	X = cap_layer(skel, UMB_CR_NET, 0);
	if (!TAP_OK(S && S2 && X, "layers are written (signal)"))
		return;

	free_task = cap_sleeper(skel, NULL, 0);
	same = cap_sleeper(skel, &S, 1);
	stack[0] = S, stack[1] = X;
	below = cap_sleeper(skel, stack, 2);
	other = cap_sleeper(skel, &X, 1);
	other2 = cap_sleeper(skel, &S2, 1);
	if (!TAP_OK(free_task > 0 && same > 0 && below > 0 && other > 0 && other2 > 0,
		    "target processes are started (signal)"))
		return;

	check_signal_routes(skel, NULL, 0, free_task, 0, "unrestricted -> unrestricted");
	check_signal_routes(skel, &X, 1, free_task, 0, "[net] -> unrestricted");
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drop older records */
	check_signal_routes(skel, &S, 1, free_task, EPERM, "[signal] -> unrestricted");
	TAP_OK(cap_find_event(skel, UMB_HOOK_TASK_KILL, S, UMB_CR_SIGNAL, free_task),
	       "the denial is recorded: task_kill, layer \"signal\", the target's pid");
	target = same;
	TAP_EQ(cap_run1(skel, S, probe_kill, NULL), 0,
	       "[signal] -> [signal] (same stack): kill works");
	TAP_EQ(cap_run1(skel, S, probe_sigqueue, NULL), 0,
	       "[signal] -> [signal] (same stack): sigqueue works");
	target = below;
	TAP_EQ(cap_run1(skel, S, probe_kill, NULL), 0,
	       "[signal] -> [signal net] (descendant): kill works");
	TAP_EQ(cap_run1(skel, S, probe_tgkill, NULL), 0,
	       "[signal] -> [signal net] (descendant): tgkill works");
	target = other;
	TAP_EQ(cap_run1(skel, S, probe_kill0, NULL), EPERM,
	       "[signal] -> [net] (another stack): kill(pid, 0) fails with EPERM");
	target = other2;
	TAP_EQ(cap_run1(skel, S, probe_kill, NULL), EPERM,
	       "[signal] -> [signal'] (another layer, same items): kill fails with EPERM");
	target = same;
	TAP_EQ(cap_run(skel, stack, 2, probe_kill, NULL), EPERM,
	       "[signal net] -> [signal] (less restricted, outside): kill fails with EPERM");
	TAP_EQ(cap_run(skel, stack, 2, probe_tgkill, NULL), EPERM,
	       "[signal net] -> [signal] (less restricted, outside): tgkill fails with EPERM");
	TAP_EQ(cap_run1(skel, S, probe_self, NULL), 0,
	       "[signal]: kill, tgkill and sigqueue to itself work");
	TAP_EQ(cap_run1(skel, S, probe_child, NULL), 0, "[signal]: SIGKILL to its own child works");

	/* Signal-driven I/O. */
	TAP_EQ(cap_run1(skel, S, probe_sigio_self, NULL), 0,
	       "[signal]: F_SETOWN(self) + F_SETSIG + O_ASYNC delivers SIGIO to itself");
	TAP_EQ(cap_run1(skel, 0, probe_sigio_self, NULL), 0,
	       "unrestricted: F_SETOWN(self) + O_ASYNC delivers SIGIO (control)");
	TAP_EQ(cap_run1(skel, S, probe_setown_ex, NULL), EPERM,
	       "[signal]: F_SETOWN_EX fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_setown_ex, NULL), 0, "unrestricted: F_SETOWN_EX works");
	TAP_EQ(cap_run1(skel, S, probe_fiosetown, NULL), EPERM,
	       "[signal]: ioctl(FIOSETOWN) fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_fiosetown, NULL), 0, "unrestricted: ioctl(FIOSETOWN) works");
	if (pipe2(fds, O_CLOEXEC) == 0 && fcntl(fds[0], F_SETOWN, free_task) == 0) {
		owned_fd = fds[0];
		TAP_EQ(cap_run1(skel, S, probe_inherited_setsig, NULL), EPERM,
		       "[signal]: F_SETSIG on an inherited file owned by another fails with EPERM");
		TAP_EQ(cap_run1(skel, S, probe_inherited_async, NULL), EPERM,
		       "[signal]: O_ASYNC on an inherited file owned by another fails with EPERM");
		TAP_EQ(cap_run1(skel, S, probe_inherited_fioasync, NULL), EPERM,
		       "[signal]: FIOASYNC on an inherited file owned by another fails with EPERM");
		TAP_EQ(cap_run1(skel, X, probe_inherited_setsig, NULL), 0,
		       "[net]: F_SETSIG on an inherited file owned by another works");
		TAP_EQ(cap_run1(skel, 0, probe_inherited_async, NULL), 0,
		       "unrestricted: O_ASYNC on an inherited file owned by another works");
		close(fds[0]);
		close(fds[1]);
	} else {
		TAP_OK(false, "a pipe owned by another process is set up");
	}

	/* umbrellad: out of reach of every restricted task. */
	daemon = cap_sleeper(skel, NULL, 0);
	if (TAP_OK(daemon > 0 && cap_set_daemon(skel, daemon) == 0,
		   "a stand-in for umbrellad is registered (signal)")) {
		target = daemon;
		TAP_EQ(cap_run1(skel, X, probe_kill0, NULL), EPERM,
		       "[net] -> umbrellad: kill(pid, 0) fails with EPERM");
		TAP_EQ(cap_run1(skel, X, probe_pidfd_send_signal, NULL), EPERM,
		       "[net] -> umbrellad: pidfd_send_signal fails with EPERM");
		TAP_OK(cap_find_event(skel, UMB_HOOK_TASK_KILL, 0, UMB_CR_SIGNAL, daemon),
		       "the denial is recorded as self-protection (layer 0)");
		TAP_EQ(cap_run1(skel, 0, probe_kill0, NULL), 0,
		       "unrestricted -> umbrellad: kill(pid, 0) works");
		target = free_task;
		TAP_EQ(cap_run1(skel, X, probe_kill0, NULL), 0,
		       "[net] -> another unrestricted process: kill(pid, 0) works");
		TAP_OK(!sigio_reaches(daemon), "no SIGIO reaches umbrellad");
		TAP_OK(sigio_reaches(free_task), "SIGIO reaches another process (control)");
		cap_set_daemon(skel, 0);
	}
	cap_stop(daemon);

	cap_stop(free_task);
	cap_stop(same);
	cap_stop(below);
	cap_stop(other);
	cap_stop(other2);
}
