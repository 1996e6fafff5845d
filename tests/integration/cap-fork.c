// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for the five
 * parts): the "fork" restriction, and what holds for every restriction: it is kept by
 * threads, across exec and by children; a restricted task cannot remove it (bpf() is
 * closed to it, UMB_PRCTL_APPLY without an arm fails); a 17th layer is refused cleanly.
 *
 *   [fork]: fork(), vfork(), clone() without CLONE_THREAD, posix_spawn() fail with
 *           EPERM, in the task, its threads and after its exec; pthread_create() works
 *   [net]:  fork works (control); bpf() on the task map fd it inherited fails with EPERM;
 *           prctl(UMB_PRCTL_APPLY) fails with EPERM; still restricted afterwards, and
 *           so is its child
 *   16 layers + an armed fork: the fork fails with EPERM, the arm reads "refused"
 */
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "cap-test.h"

static int task_map_fd = -1; /* the skeleton's umb_task, inherited by every child */

static int probe_fork(void *arg UNUSED)
{
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return cap_wait(pid);
}

static int probe_vfork(void *arg UNUSED)
{
	pid_t pid = vfork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return cap_wait(pid);
}

static int clone_child(void *arg UNUSED)
{
	return 0;
}

static int probe_clone(void *arg UNUSED)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t pid = clone(clone_child, stack + sizeof(stack), SIGCHLD, NULL);

	if (pid < 0)
		return errno;
	return cap_wait(pid);
}

static int probe_posix_spawn(void *arg UNUSED)
{
	char *argv[] = { "true", NULL }, *envp[] = { NULL };
	pid_t pid;
	int r = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, envp);

	return r ? r : cap_wait(pid);
}

static void *thread_run(void *arg)
{
	test_probe_fn probe = (test_probe_fn)arg;

	return (void *)(long)(probe ? probe(NULL) : 0);
}

/* @arg: a probe to run in a new thread (NULL: none). */
static int probe_thread(void *arg)
{
	pthread_t thread;
	void *result;

	if (pthread_create(&thread, NULL, thread_run, arg) != 0)
		return errno ? errno : PROBE_SETUP_FAILED;
	pthread_join(thread, &result);
	return (int)(long)result;
}

static int probe_fork_after_exec(void *arg UNUSED)
{
	execl("/proc/self/exe", "test-cap", "--probe-fork", (char *)NULL);
	return PROBE_SETUP_FAILED;
}

static int probe_socket(void *arg UNUSED)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Its own entry in umb_task, through the map fd it inherited: delete it. */
static int probe_bpf_delete(void *arg UNUSED)
{
	int pidfd = pidfd_open(getpid(), 0), r;

	if (pidfd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(bpf_map_delete_elem(task_map_fd, &pidfd));
	close(pidfd);
	return r;
}

/* ... overwrite it with an empty state. */
static int probe_bpf_update(void *arg UNUSED)
{
	struct umb_task_state empty = {};
	int pidfd = pidfd_open(getpid(), 0), r;

	if (pidfd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(bpf_map_update_elem(task_map_fd, &pidfd, &empty, BPF_ANY));
	close(pidfd);
	return r;
}

/* ... or just read it (ENOENT for an unrestricted task: bpf() itself works). */
static int probe_bpf_lookup(void *arg UNUSED)
{
	struct umb_task_state state;
	int pidfd = pidfd_open(getpid(), 0), r;

	if (pidfd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(bpf_map_lookup_elem(task_map_fd, &pidfd, &state));
	close(pidfd);
	return r;
}

static int probe_prctl_apply(void *arg UNUSED)
{
	return cap_errno(prctl(UMB_PRCTL_APPLY, 0, 0, 0, 0));
}

/* Every way out tried, then: is it still restricted ("net"), and its child? */
static int probe_escape_then_socket(void *arg UNUSED)
{
	pid_t pid;
	int r;

	(void)probe_bpf_delete(NULL);
	(void)probe_bpf_update(NULL);
	(void)probe_prctl_apply(NULL);
	r = probe_socket(NULL);
	if (r != EPERM)
		return r;
	pid = fork();
	if (pid < 0)
		return PROBE_SETUP_FAILED;
	if (pid == 0)
		_exit(probe_socket(NULL));
	return cap_wait(pid);
}

/*
 * A child with a stack of @depth layers (each "net") whose fork is armed with one more
 * layer, as umbrellad would arm an rfork(). Returns the errno of its fork (0: it
 * worked); *@arm_left: whether its arm was left unused; *@count_after: its layer count after.
 */
static int fork_with_layers(struct umbrella_bpf *skel, unsigned depth, bool *arm_left,
			    __u32 *count_after)
{
	__u32 ids[UMB_MAX_LAYERS], extra = cap_layer(skel, UMB_CR_NET, 0);
	struct umb_task_state state;
	int go[2], r = 0, result;
	char byte = 0;
	pid_t pid;

	for (unsigned i = 0; i < depth; i++)
		ids[i] = cap_layer(skel, UMB_CR_NET, 0);
	state = cap_state(skel, ids, depth);
	if (pipe2(go, O_CLOEXEC) < 0)
		return PROBE_SETUP_FAILED;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(PROBE_SETUP_FAILED);
		_exit(probe_fork(NULL));
	}
	close(go[0]);
	if (pid < 0 || !extra)
		r = -EINVAL;
	if (r == 0)
		r = cap_set_state(skel, pid, &state);
	if (r == 0)
		r = cap_arm_task(skel, pid, pid, extra, 0);
	if (r == 0 && write(go[1], &byte, 1) != 1)
		r = -EIO;
	close(go[1]);
	/* Read the child's state while it is still there: it waits for nothing more, so
	 * read it after its fork, before reaping it (waitid with WNOWAIT). */
	if (pid > 0) {
		siginfo_t info;

		waitid(P_PID, pid, &info, WEXITED | WNOWAIT);
		*count_after = cap_get_state(skel, pid, &state) == 0 ? state.layer_count : 0;
	}
	result = cap_wait(pid);
	*arm_left = cap_arm_left(pid);
	if (r < 0) {
		TAP_DIAG("setting up the %u-layer child: %s", depth, strerror(-r));
		return PROBE_SETUP_FAILED;
	}
	return result;
}

static void cap_fork(struct umbrella_bpf *skel)
{
	__u32 F, N, count_after = 0;
	bool arm_left = true;

	task_map_fd = bpf_map__fd(skel->maps.umb_task);
	F = cap_layer(skel, UMB_CR_FORK, 0);
	N = cap_layer(skel, UMB_CR_NET, 0);
	if (!TAP_OK(F && N, "layers are written (fork)"))
		return;

	TAP_EQ(cap_run1(skel, 0, probe_fork, NULL), 0, "unrestricted: fork works");
	TAP_EQ(cap_run1(skel, N, probe_fork, NULL), 0, "[net]: fork works");
	TAP_EQ(cap_run1(skel, N, probe_posix_spawn, NULL), 0, "[net]: posix_spawn works");
	TAP_EQ(cap_run1(skel, F, probe_fork, NULL), EPERM, "[fork]: fork fails with EPERM");
	TAP_EQ(cap_run1(skel, F, probe_vfork, NULL), EPERM, "[fork]: vfork fails with EPERM");
	TAP_EQ(cap_run1(skel, F, probe_clone, NULL), EPERM,
	       "[fork]: clone without CLONE_THREAD fails with EPERM");
	TAP_EQ(cap_run1(skel, F, probe_posix_spawn, NULL), EPERM,
	       "[fork]: posix_spawn fails with EPERM");
	TAP_EQ(cap_run1(skel, F, probe_thread, NULL), 0, "[fork]: pthread_create works");
	TAP_EQ(cap_run1(skel, F, probe_thread, (void *)probe_fork), EPERM,
	       "[fork] is inherited by threads: fork in a thread fails with EPERM");
	TAP_EQ(cap_run1(skel, F, probe_fork_after_exec, NULL), EPERM,
	       "[fork] is kept across execve: fork fails with EPERM");

	TAP_EQ(cap_run1(skel, 0, probe_bpf_lookup, NULL), ENOENT,
	       "unrestricted: bpf() on the inherited task map works (ENOENT: no entry)");
	TAP_EQ(cap_run1(skel, N, probe_bpf_lookup, NULL), EPERM,
	       "[net]: bpf(MAP_LOOKUP_ELEM) fails with EPERM");
	TAP_EQ(cap_run1(skel, N, probe_bpf_delete, NULL), EPERM,
	       "[net]: deleting its own umb_task entry fails with EPERM");
	TAP_EQ(cap_run1(skel, N, probe_bpf_update, NULL), EPERM,
	       "[net]: overwriting its own umb_task entry fails with EPERM");
	TAP_EQ(cap_run1(skel, N, probe_prctl_apply, NULL), EPERM,
	       "[net]: prctl(UMB_PRCTL_APPLY) without an arm fails with EPERM");
	TAP_EQ(cap_run1(skel, N, probe_escape_then_socket, NULL), EPERM,
	       "[net] after every attempt to drop it: its child's socket() still fails");

	TAP_EQ(fork_with_layers(skel, UMB_MAX_LAYERS - 1, &arm_left, &count_after), 0,
	       "15 layers + an armed fork: the fork works");
	TAP_OK(!arm_left, "15 layers + an armed fork: the fork used the arm up");
	TAP_EQ(fork_with_layers(skel, UMB_MAX_LAYERS, &arm_left, &count_after), EPERM,
	       "16 layers + an armed fork: the fork fails with EPERM");
	TAP_OK(!arm_left, "16 layers + an armed fork: the refused arm is gone too");
	TAP_EQ(count_after, UMB_MAX_LAYERS,
	       "16 layers + an armed fork: the task keeps its 16 layers");
}
