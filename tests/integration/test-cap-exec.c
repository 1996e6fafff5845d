// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the "exec" restriction. A restricted task cannot execve(2) or execveat(2)
 * anything, nor can its threads. A layer armed for the next exec (rfork with
 * UMB_ARM_ON_EXEC, as "umbrella-cli run -r exec -- sh -c CMD" does) lets that one exec
 * happen and denies the next: sh starts, and its exec of CMD fails (exit status 126).
 */
#include <pthread.h>

#include "cap-test.h"

static int probe_execve(void *arg UNUSED)
{
	execl("/bin/true", "true", (char *)NULL);
	return errno;
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
	__u32 state;
	pid_t pid;

	if (test_arm(skel, layer, UMB_ARM_ON_EXEC) < 0)
		return PROBE_SETUP_FAILED;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "/bin/true", (char *)NULL);
		_exit(PROBE_SETUP_FAILED);
	}
	state = test_disarm(skel);
	if (state != UMB_ARM_APPLIED) {
		TAP_DIAG("the child did not get layer %u (arm state %u)", layer, state);
		cap_wait(pid);
		return PROBE_SETUP_FAILED;
	}
	return cap_wait(pid);
}

int main(void)
{
	struct umbrella_bpf *skel = test_load();
	__u32 E, U, N;

	if (!skel)
		return tap_finish();
	E = cap_layer(skel, UMB_CR_EXEC, 0);
	U = cap_layer(skel, UMB_CR_EXEC_UNSIGNED, 0);
	N = cap_layer(skel, UMB_CR_NET, 0);
	if (!TAP_OK(E && U && N, "layers are written"))
		goto out;

	TAP_EQ(cap_run1(skel, 0, probe_execve, NULL), 0, "unrestricted: execve works");
	TAP_EQ(cap_run1(skel, N, probe_execve, NULL), 0, "[net]: execve works");
	TAP_EQ(cap_run1(skel, N, probe_execveat, NULL), 0, "[net]: execveat(AT_EMPTY_PATH) works");
	TAP_EQ(cap_run1(skel, E, probe_execve, NULL), EPERM, "[exec]: execve fails with EPERM");
	TAP_EQ(cap_run1(skel, E, probe_execveat, NULL), EPERM,
	       "[exec]: execveat(AT_EMPTY_PATH) fails with EPERM");
	TAP_EQ(cap_run1(skel, E, probe_execve_in_thread, NULL), EPERM,
	       "[exec] is inherited by threads: execve in a thread fails with EPERM");

	/* No binary is verified as signed yet (signed binaries come later), so
	 * exec-unsigned must deny every exec rather than let it pass unchecked. */
	TAP_EQ(cap_run1(skel, U, probe_execve, NULL), EPERM,
	       "[exec-unsigned]: execve of an unsigned binary fails with EPERM");
	TAP_EQ(cap_run1(skel, U, probe_execveat, NULL), EPERM,
	       "[exec-unsigned]: execveat(AT_EMPTY_PATH) of an unsigned binary fails with EPERM");

	TAP_EQ(sh_with_pending_layer(skel, N), 0,
	       "pending [net]: sh -c /bin/true runs /bin/true (control)");
	TAP_EQ(sh_with_pending_layer(skel, E), 126,
	       "pending [exec]: sh starts, its exec of /bin/true is denied (exit 126)");
out:
	umbrella_bpf__destroy(skel);
	return tap_finish();
}
