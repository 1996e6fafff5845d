// SPDX-License-Identifier: GPL-2.0-only
/*
 * rfork-bench - the phases of the rfork benchmark, marked for ../shared/tools/insncount.c
 * (tests/bench/run-rfork-bench boots the VM; its in-guest half, tests/bench/rfork-bench.sh,
 * starts umbrellad). With one vCPU the plugin counts every instruction between the
 * markers, umbrellad's (building, arming and freeing each layer) included:
 *
 *   1 fork          fork + _exit(0) in the child + waitpid: the reference
 *   2 rfork-cap     rfork() of a layer with one capability item ("ptrace") + _exit(0)
 *                   + waitpid
 *   3 rfork-fs      the same with one fs rule ("fs:/etc"): umbrellad resolves the path
 *                   and installs an inode rule, which is freed again with the layer
 *   4 landlock      fork; the child sets PR_SET_NO_NEW_PRIVS, creates a Landlock ruleset
 *                   handling every fs right of the kernel's ABI, opens /tmp (O_PATH) and
 *                   adds it as one path-beneath rule, landlock_restrict_self(), _exit(0);
 *                   the parent waitpid: Landlock's way to start a child with one rule
 *   5 fork2         phase 1 again, last: how much the count drifts within one boot
 *
 * Before the phases, controls (unmarked): an rfork("fs:/etc") child is denied
 * /etc/hostname (EACCES), an rfork("ptrace") child is refused PTRACE_TRACEME (EPERM),
 * the Landlock child is denied /etc/hostname (EACCES); a failed control fails the run,
 * since the phases would measure something else. Each phase runs WARMUP unmarked
 * iterations first. Phase P is marked with the tags 2P (open) and 2P + 1 (close).
 *
 * Output: "rfork-bench: ..." lines for people and one line per measured phase,
 * "rfork-bench-phase P NAME ITERATIONS SECONDS". Exit status 0 when every control and
 * every phase ran, 1 otherwise, 2 on bad usage.
 * Usage: rfork-bench ITERATIONS (root, in the test VM, umbrellad listening on
 * $UMBRELLA_SOCKET).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#include "landlock-rights.h"
#include "time-util.h"

/* The 7-byte NOP "nopl 0x4d4255XX(%rax)" that insncount.so counts between. */
#define MARK(t)	 asm volatile(".byte 0x0f,0x1f,0x80,%c0,0x55,0x42,0x4d" ::"i"(t) : "memory")
#define OPEN(p)	 MARK(2 * (p))
#define CLOSE(p) MARK(2 * (p) + 1)

#define WARMUP	      20
#define DENIED_FILE   "/etc/hostname"
#define LANDLOCK_PATH "/tmp"

static struct umb_restrictions *cap_layer, *fs_layer;
static struct landlock_ruleset_attr landlock_attr;

/* Waits for @pid: 0 when it exited with 0, -ECHILD otherwise, or -errno. */
static int wait_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* The Landlock child: one ruleset, one rule on LANDLOCK_PATH, restrict_self. */
static int landlock_child(void)
{
	struct landlock_path_beneath_attr rule = {
		.allowed_access = landlock_attr.handled_access_fs,
	};
	int ruleset, r = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return 10;
	ruleset =
		(int)syscall(SYS_landlock_create_ruleset, &landlock_attr, sizeof(landlock_attr), 0);
	if (ruleset < 0)
		return 11;
	rule.parent_fd = open(LANDLOCK_PATH, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		r = 12;
	else if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		r = 13;
	else if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		r = 14;
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	close(ruleset);
	return r;
}

/* 'd' when DENIED_FILE cannot be opened with EACCES, 'a' when it can, 'e' otherwise. */
static char probe_denied(void)
{
	int fd = open(DENIED_FILE, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 'a';
	}
	return errno == EACCES ? 'd' : 'e';
}

/* The child of each phase's iteration (@phase 1-5). Never returns. */
static void __attribute__((noreturn)) child(int phase)
{
	_exit(phase == 4 ? landlock_child() : 0);
}

/* One iteration of @phase: 0 or -errno (-ECHILD: the child failed). */
static int iteration(int phase)
{
	pid_t pid;

	switch (phase) {
	case 2:
		pid = rfork(cap_layer);
		break;
	case 3:
		pid = rfork(fs_layer);
		break;
	default:
		pid = fork();
		break;
	}
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child(phase);
	return wait_ok(pid);
}

/* Seconds, for the reports. */
static double now(void)
{
	return (double)now_usec() / USEC_PER_SEC;
}

/* Unmarked warm-up, then @n marked iterations of @phase. Returns 0 or -errno. */
static int run_phase(int phase, const char *name, unsigned int n)
{
	double start;
	int r = 0;

	for (unsigned int i = 0; i < WARMUP && r == 0; i++)
		r = iteration(phase);
	start = now();
	/* MARK needs a constant tag. */
	switch (phase) {
#define MARKED(P)                                              \
	case P:                                                \
		OPEN(P);                                       \
		for (unsigned int i = 0; i < n && r == 0; i++) \
			r = iteration(P);                      \
		CLOSE(P);                                      \
		break;
		MARKED(1)
		MARKED(2)
		MARKED(3)
		MARKED(4)
		MARKED(5)
#undef MARKED
	default:
		return -EINVAL;
	}
	if (r < 0)
		printf("rfork-bench: %s failed: %s%s%s\n", name, strerror(-r),
		       (phase == 2 || phase == 3) && umb_last_error() ? ": " : "",
		       (phase == 2 || phase == 3) && umb_last_error() ? umb_last_error() : "");
	else
		printf("rfork-bench-phase %d %s %u %.2f\n", phase, name, n, now() - start);
	return r;
}

/* Control: a child of @how (2 rfork ptrace, 3 rfork fs, 4 Landlock) is restricted. */
static int control(int how, const char *what)
{
	int status = 0, code = 0;
	pid_t pid = how == 2 ? rfork(cap_layer) : how == 3 ? rfork(fs_layer) : fork();

	if (pid < 0) {
		printf("rfork-bench: control %s: %s%s%s\n", what, strerror(errno),
		       umb_last_error() ? ": " : "", umb_last_error() ? umb_last_error() : "");
		return -1;
	}
	if (pid == 0) {
		if (how == 2)
			_exit(ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 && errno == EPERM ? 0 : 1);
		if (how == 4 && (code = landlock_child()) != 0)
			_exit(code);
		_exit(probe_denied() == 'd' ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("rfork-bench: control %s: not restricted (status %#x)\n", what, status);
		return -1;
	}
	printf("rfork-bench: control %s: ok\n", what);
	return 0;
}

int main(int argc, char **argv)
{
	char *error = NULL;
	unsigned int n;
	int abi, failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: rfork-bench ITERATIONS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = (unsigned int)strtoul(argv[1], NULL, 10);
	cap_layer = umb_restrictions__new();
	fs_layer = umb_restrictions__new();
	if (!cap_layer || !fs_layer || umb_restrictions__parse(cap_layer, "ptrace", &error) < 0 ||
	    umb_restrictions__parse(fs_layer, "fs:/etc", &error) < 0) {
		printf("rfork-bench: restrictions: %s\n", error ? error : "no memory");
		return 1;
	}
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		printf("rfork-bench: Landlock is not available: %s\n", strerror(errno));
		failed = 1;
	} else {
		landlock_attr.handled_access_fs = landlock_fs_rights(abi);
		printf("rfork-bench: Landlock ABI %d, handled fs rights %#llx\n", abi,
		       (unsigned long long)landlock_attr.handled_access_fs);
	}

	failed |= control(3, "rfork fs:/etc denies " DENIED_FILE) < 0;
	failed |= control(2, "rfork ptrace refuses PTRACE_TRACEME") < 0;
	if (abi >= 1)
		failed |= control(4, "Landlock rule on " LANDLOCK_PATH " denies " DENIED_FILE) < 0;
	if (failed)
		return 1;

	printf("rfork-bench: %u iterations per phase (%d unmeasured first)\n", n, WARMUP);
	failed |= run_phase(1, "fork", n) < 0;
	failed |= run_phase(2, "rfork-cap", n) < 0;
	failed |= run_phase(3, "rfork-fs", n) < 0;
	failed |= run_phase(4, "landlock", n) < 0;
	failed |= run_phase(5, "fork2", n) < 0;
	return failed ? 1 : 0;
}
