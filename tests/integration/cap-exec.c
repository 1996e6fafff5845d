// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for the five
 * parts): the "exec" restriction. A restricted task cannot execve(2) or execveat(2)
 * anything, nor can its threads. A layer armed for the next exec (rfork with
 * UMB_ARM_ON_EXEC, as "umbrella-cli run -r exec -- sh -c CMD" does) lets that one exec
 * happen and denies the next: sh starts, and its exec of CMD fails (exit status 126).
 * "exec-unsigned" denies the exec of a file without a valid SIGNED verdict (here none
 * has one but a copy of the static busybox that the test gives one, as umbrellad's
 * gate would); cap-verdict.c covers the verdicts in detail.
 */
#include <pthread.h>
#include <sys/stat.h>

#include "cap-test.h"

static int probe_execve(void *arg UNUSED)
{
	execl("/bin/true", "true", (char *)NULL);
	return errno;
}

#define SIGNED_TRUE "/tmp/umb-cap-exec-true"

static int probe_execve_signed(void *arg UNUSED)
{
	execl(SIGNED_TRUE, "true", (char *)NULL);
	return errno;
}

/* A copy of the static busybox at SIGNED_TRUE with a SIGNED verdict (no layer).
 * Static: under exec-unsigned the kernel's mapping of an unsigned ld.so is refused. */
static int make_signed_true(struct umbrella_bpf *skel)
{
	struct umb_verdict v = { .state = UMB_VERDICT_SIGNED };
	char buf[65536];
	ssize_t n;
	int in, out, r;

	in = open("/usr/bin/busybox", O_RDONLY | O_CLOEXEC);
	out = open(SIGNED_TRUE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -EIO;
	close(in);
	close(out);
	/* The verdict goes on after the last write: an open for writing deletes it. */
	in = open(SIGNED_TRUE, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	r = bpf_map_update_elem(bpf_map__fd(skel->maps.umb_verdicts), &in, &v, BPF_ANY);
	r = r < 0 ? -errno : 0;
	close(in);
	return r;
}

static int probe_execveat(void *arg UNUSED)
{
	char *argv[] = { "true", NULL }, *envp[] = { NULL };
	int fd = open("/bin/true", O_PATH | O_CLOEXEC);

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	return errno;
}

static void *exec_thread(void *arg)
{
	*(int *)arg = probe_execve(NULL);
	return NULL;
}

static int probe_execve_in_thread(void *arg UNUSED)
{
	pthread_t thread;
	int result = PROBE_SETUP_FAILED;

	if (pthread_create(&thread, NULL, exec_thread, &result) != 0)
		return PROBE_SETUP_FAILED;
	pthread_join(thread, NULL);
	return result;
}

/* Starts sh -c /bin/true in a child armed with @layer for its next exec; returns sh's
 * exit status (126: sh could not exec /bin/true). */
static int sh_with_pending_layer(struct umbrella_bpf *skel, __u32 layer)
{
	pid_t pid;

	if (test_arm(skel, layer, UMB_ARM_ON_EXEC) < 0)
		return PROBE_SETUP_FAILED;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "/bin/true", (char *)NULL);
		_exit(PROBE_SETUP_FAILED);
	}
	if (!test_arm_used()) {
		TAP_DIAG("the child did not get layer %u", layer);
		cap_wait(pid);
		return PROBE_SETUP_FAILED;
	}
	return cap_wait(pid);
}

static void cap_exec(struct umbrella_bpf *skel)
{
	__u32 E, U, N;

	E = cap_layer(skel, UMB_CR_EXEC, 0);
	U = cap_layer(skel, UMB_CR_EXEC_UNSIGNED, 0);
	N = cap_layer(skel, UMB_CR_NET, 0);
	if (!TAP_OK(E && U && N, "layers are written (exec)"))
		return;

	TAP_EQ(cap_run1(skel, 0, probe_execve, NULL), 0, "unrestricted: execve works");
	TAP_EQ(cap_run1(skel, N, probe_execve, NULL), 0, "[net]: execve works");
	TAP_EQ(cap_run1(skel, N, probe_execveat, NULL), 0, "[net]: execveat(AT_EMPTY_PATH) works");
	TAP_EQ(cap_run1(skel, E, probe_execve, NULL), EPERM, "[exec]: execve fails with EPERM");
	TAP_EQ(cap_run1(skel, E, probe_execveat, NULL), EPERM,
	       "[exec]: execveat(AT_EMPTY_PATH) fails with EPERM");
	TAP_EQ(cap_run1(skel, E, probe_execve_in_thread, NULL), EPERM,
	       "[exec] is inherited by threads: execve in a thread fails with EPERM");

	/* /bin/true has no verdict (no umbrellad): a miss, which exec-unsigned denies. */
	TAP_EQ(cap_run1(skel, U, probe_execve, NULL), EPERM,
	       "[exec-unsigned]: execve of a binary without a verdict fails with EPERM");
	TAP_EQ(cap_run1(skel, U, probe_execveat, NULL), EPERM,
	       "[exec-unsigned]: execveat(AT_EMPTY_PATH) of a binary without a verdict fails "
	       "with EPERM");
	if (TAP_EQ(make_signed_true(skel), 0, "a static binary gets a SIGNED verdict")) {
		TAP_EQ(cap_run1(skel, U, probe_execve_signed, NULL), 0,
		       "[exec-unsigned]: execve of a SIGNED binary works (control)");
		TAP_EQ(cap_run1(skel, E, probe_execve_signed, NULL), EPERM,
		       "[exec]: execve of a SIGNED binary fails with EPERM all the same");
	}

	TAP_EQ(sh_with_pending_layer(skel, N), 0,
	       "pending [net]: sh -c /bin/true runs /bin/true (control)");
	TAP_EQ(sh_with_pending_layer(skel, E), 126,
	       "pending [exec]: sh starts, its exec of /bin/true is denied (exit 126)");
}
