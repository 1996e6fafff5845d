// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for the five
 * parts): tracing. The scope of every layer: a restricted task traces, and reads or
 * writes the memory of, only tasks inside its domain (PTRACE_ATTACH, PTRACE_SEIZE,
 * process_vm_readv(2), process_vm_writev(2), /proc/PID/mem), and may not ask a parent
 * outside its domain to trace it (PTRACE_TRACEME); no restricted task traces umbrellad.
 * "ptrace" refuses tracing even inside the domain; "exec-unsigned" refuses the modes
 * that can change a program's code (PTRACE_MODE_ATTACH) inside it too.
 *
 *   P: a layer with "ptrace"; X: a layer with "net" only; U: "exec-unsigned" only
 *   tracer      tracee           expected
 *   -           unrestricted     allowed (control)
 *   [X]         unrestricted     EPERM (/proc/PID/mem: EACCES, as the kernel says it)
 *   [X]         [X], [X P]       allowed
 *   [X]         [P]              EPERM (another stack)
 *   [X P]       [X]              EPERM (less restricted)
 *   [X]         its own child    allowed; the child's PTRACE_TRACEME too
 *   [X]         its parent       PTRACE_TRACEME: EPERM
 *   [P]         [P], own child   EPERM
 *   [U]         [U]              PTRACE_MODE_ATTACH routes EPERM; /proc/PID/environ read
 *   [X]         umbrellad        EPERM
 */
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "cap-test.h"

static pid_t target;
/* At the same address in every process forked from the test: what the probes read. */
static volatile long magic = 0x5ca1ab1e;

static int probe_attach(void *arg UNUSED)
{
	int status;

	if (ptrace(PTRACE_ATTACH, target, 0, 0) < 0)
		return errno;
	if (waitpid(target, &status, __WALL) < 0 || ptrace(PTRACE_DETACH, target, 0, 0) < 0)
		return PROBE_SETUP_FAILED;
	return 0;
}

static int probe_seize(void *arg UNUSED)
{
	/* Detached when we exit. */
	return cap_errno(ptrace(PTRACE_SEIZE, target, 0, 0));
}

static int probe_vm_readv(void *arg UNUSED)
{
	long value = 0;
	struct iovec local = { &value, sizeof(value) };
	struct iovec remote = { (void *)&magic, sizeof(magic) };

	if (process_vm_readv(target, &local, 1, &remote, 1, 0) < 0)
		return errno;
	return value == magic ? 0 : ENOMSG;
}

static int probe_vm_writev(void *arg UNUSED)
{
	long value = magic;
	struct iovec local = { &value, sizeof(value) };
	struct iovec remote = { (void *)&magic, sizeof(magic) };

	return cap_errno(process_vm_writev(target, &local, 1, &remote, 1, 0));
}

static int probe_proc_mem(void *arg UNUSED)
{
	char path[64];
	long value = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (pread(fd, &value, sizeof(value), (off_t)(unsigned long)&magic) != sizeof(value))
		value = 0;
	close(fd);
	return value == magic ? 0 : ENOMSG;
}

static int probe_traceme(void *arg UNUSED)
{
	return cap_errno(ptrace(PTRACE_TRACEME, 0, 0, 0));
}

/* PTRACE_MODE_READ only: what exec-unsigned leaves inside the domain. */
static int probe_environ(void *arg UNUSED)
{
	char path[64], buf[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/environ", target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n < 0 ? errno : 0;
}

/* A child of its own: seizes it and reads its memory; then the child asks to be traced
 * by us. */
static int probe_own_child(void *arg UNUSED)
{
	int r;
	pid_t child = fork();

	if (child < 0)
		return PROBE_SETUP_FAILED;
	if (child == 0) {
		pause();
		_exit(0);
	}
	target = child;
	r = probe_seize(NULL);
	if (r == 0)
		r = probe_vm_readv(NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, __WALL);
	if (r)
		return r;

	child = fork();
	if (child < 0)
		return PROBE_SETUP_FAILED;
	if (child == 0)
		_exit(probe_traceme(NULL));
	return cap_wait(child);
}

static const struct {
	test_probe_fn probe;
	const char *what;
	int denied; /* the error when denied */
} ptrace_routes[] = {
	{ probe_attach, "PTRACE_ATTACH", EPERM },
	{ probe_seize, "PTRACE_SEIZE", EPERM },
	{ probe_vm_readv, "process_vm_readv", EPERM },
	{ probe_vm_writev, "process_vm_writev", EPERM },
	{ probe_proc_mem, "reading /proc/PID/mem", EACCES },
};

static void check_ptrace_routes(struct umbrella_bpf *skel, const __u32 *tracer, unsigned count,
				pid_t tracee, bool denied, const char *who)
{
	target = tracee;
	for (unsigned i = 0; i < ARRAY_SIZE(ptrace_routes); i++)
		TAP_EQ(cap_run(skel, tracer, count, ptrace_routes[i].probe, NULL),
		       denied ? ptrace_routes[i].denied : 0, "%s: %s %s", who,
		       ptrace_routes[i].what, denied ? "is denied" : "works");
}

static void cap_ptrace(struct umbrella_bpf *skel)
{
	__u32 P, X, U, stack[2];
	pid_t free_task, same, below, other, unsigned_task, daemon;

	P = cap_layer(skel, UMB_CR_PTRACE, 0);
	X = cap_layer(skel, UMB_CR_NET, 0);
	U = cap_layer(skel, UMB_CR_EXEC_UNSIGNED, 0);
	if (!TAP_OK(P && X && U, "layers are written (ptrace)"))
		return;
	free_task = cap_sleeper(skel, NULL, 0);
	same = cap_sleeper(skel, &X, 1);
	stack[0] = X, stack[1] = P;
	below = cap_sleeper(skel, stack, 2);
	other = cap_sleeper(skel, &P, 1);
	unsigned_task = cap_sleeper(skel, &U, 1);
	if (!TAP_OK(free_task > 0 && same > 0 && below > 0 && other > 0 && unsigned_task > 0,
		    "target processes are started (ptrace)"))
		return;

	check_ptrace_routes(skel, NULL, 0, free_task, false, "unrestricted -> unrestricted");
	check_ptrace_routes(skel, &X, 1, free_task, true,
			    "[net] -> unrestricted (outside the scope)");
	check_ptrace_routes(skel, &X, 1, same, false, "[net] -> [net] (same stack)");
	check_ptrace_routes(skel, &X, 1, below, false, "[net] -> [net ptrace] (descendant)");
	target = other;
	TAP_EQ(cap_run1(skel, X, probe_seize, NULL), EPERM,
	       "[net] -> [ptrace] (another stack): PTRACE_SEIZE fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_vm_readv, NULL), EPERM,
	       "[net] -> [ptrace] (another stack): process_vm_readv fails with EPERM");
	target = same;
	TAP_EQ(cap_run(skel, stack, 2, probe_seize, NULL), EPERM,
	       "[net ptrace] -> [net] (less restricted): PTRACE_SEIZE fails with EPERM");
	TAP_EQ(cap_run(skel, stack, 2, probe_vm_writev, NULL), EPERM,
	       "[net ptrace] -> [net] (less restricted): process_vm_writev fails with EPERM");
	check_ptrace_routes(skel, &P, 1, other, true,
			    "[ptrace] -> [ptrace] (same stack, no tracing at all)");

	TAP_EQ(cap_run1(skel, X, probe_traceme, NULL), EPERM,
	       "[net]: PTRACE_TRACEME to an unrestricted parent fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_traceme, NULL), 0, "unrestricted: PTRACE_TRACEME works");
	TAP_EQ(cap_run1(skel, X, probe_own_child, NULL), 0,
	       "[net]: seizing and reading its own child, and the child's PTRACE_TRACEME, work");
	TAP_EQ(cap_run1(skel, P, probe_own_child, NULL), EPERM,
	       "[ptrace]: seizing its own child fails with EPERM");

	target = unsigned_task;
	TAP_EQ(cap_run1(skel, U, probe_seize, NULL), EPERM,
	       "[exec-unsigned] -> [exec-unsigned]: PTRACE_SEIZE fails with EPERM");
	TAP_EQ(cap_run1(skel, U, probe_vm_writev, NULL), EPERM,
	       "[exec-unsigned] -> [exec-unsigned]: process_vm_writev fails with EPERM");
	TAP_EQ(cap_run1(skel, U, probe_proc_mem, NULL), EACCES,
	       "[exec-unsigned] -> [exec-unsigned]: opening /proc/PID/mem fails with EACCES");
	TAP_EQ(cap_run1(skel, U, probe_environ, NULL), 0,
	       "[exec-unsigned] -> [exec-unsigned]: reading /proc/PID/environ works");

	daemon = cap_sleeper(skel, NULL, 0);
	if (TAP_OK(daemon > 0 && cap_set_daemon(skel, daemon) == 0,
		   "a stand-in for umbrellad is registered (ptrace)")) {
		check_ptrace_routes(skel, &X, 1, daemon, true, "[net] -> umbrellad");
		check_ptrace_routes(skel, NULL, 0, daemon, false, "unrestricted -> umbrellad");
		cap_set_daemon(skel, 0);
	}
	cap_stop(daemon);

	cap_stop(free_task);
	cap_stop(same);
	cap_stop(below);
	cap_stop(other);
	cap_stop(unsigned_task);
}
