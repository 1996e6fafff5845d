/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM test of the capability restrictions (test-cap.c and its parts, cap-*.c) -
 * what the parts share on top of helpers/vm-test.h: layers made of capability bits, and
 * tasks with a chosen layer stack (written into umb_task through a pidfd, as umbrellad
 * would), so that a test can place a sender and a target inside or outside each other's domain.
 * These tests are about the BPF programs; the grammar and the daemon are tested elsewhere.
 */
#ifndef UMBRELLA_TESTS_CAP_TEST_H
#define UMBRELLA_TESTS_CAP_TEST_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>

#include "state.h"
#include "vm-test.h"

/* Probes that take no argument: void *arg UNUSED. */
#define UNUSED __attribute__((unused))

/* A layer denying the capability restrictions @caps (UMB_CR_*) and the Linux
 * capabilities @capabilities (bit n: capability n). Returns its id, or 0. */
static inline __u32 cap_layer(struct umbrella_bpf *skel, __u64 caps, __u64 capabilities)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	__u32 id = 0;
	int ret = r ? 0 : -ENOMEM;

	(void)skel;
	if (ret == 0 && caps)
		ret = umb_restrictions__add_cap(r, caps);
	for (int cap = 0; ret == 0 && cap < 64; cap++)
		if (capabilities & 1ULL << cap)
			ret = umb_restrictions__add_linux_cap(r, cap);
	if (ret == 0)
		ret = layers_create(&test_layers, r, getpid(), 0, UMB_ORIGIN_RFORK, &id, &error);
	/* The test's own hold, standing for the tasks it writes states for (cap_set_state()
	 * writes uncounted states): their children take references from it. */
	if (ret == 0)
		ret = layers_hold(&test_layers, id);
	if (ret < 0) {
		TAP_DIAG("making a layer: %s", error ? error : strerror(-ret));
		id = 0;
	}
	free(error);
	umb_restrictions__free(r);
	return id;
}

/* The state of a task carrying the layers @ids[0..@count) (bottom first), with the
 * deny sets their union, as task.bpf.c computes it. */
static inline struct umb_task_state cap_state(struct umbrella_bpf *skel, const __u32 *ids,
					      unsigned count)
{
	struct umb_task_state state = { .layer_count = count };

	for (unsigned i = 0; i < count && i < UMB_MAX_LAYERS; i++) {
		const struct umb_layer *slot = layers_get(&test_layers, ids[i]);
		struct umb_layer layer = {};

		(void)skel;
		if (slot)
			layer = *slot;
		state.layers[i] = ids[i];
		state.denied_caps |= layer.denied_caps;
		state.denied_families |= layer.denied_families;
		state.denied_capabilities |= layer.denied_capabilities;
		state.fs_access |= layer.fs_access;
		if (layer.fs_access)
			state.fs_layers |= 1U << i;
	}
	return state;
}

/* Gives the process @pid the state @state. Returns 0 or -errno. */
static inline int cap_set_state(struct umbrella_bpf *skel, pid_t pid,
				const struct umb_task_state *state)
{
	int pidfd = pidfd_open(pid, 0), r;

	if (pidfd < 0)
		return -errno;
	r = bpf_map_update_elem(bpf_map__fd(skel->maps.umb_task), &pidfd, state, BPF_ANY);
	r = r < 0 ? -errno : 0;
	close(pidfd);
	return r;
}

/* Reads the state of the process @pid into @state. Returns 0, or -ENOENT when the
 * process is unrestricted. */
static inline int cap_get_state(struct umbrella_bpf *skel, pid_t pid, struct umb_task_state *state)
{
	int pidfd = pidfd_open(pid, 0), r;

	if (pidfd < 0)
		return -errno;
	r = bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_task), &pidfd, state);
	r = r < 0 ? -errno : 0;
	close(pidfd);
	return r;
}

/*
 * cap_run() - run @probe(@arg) in a child carrying the layers @ids[0..@count)
 * (@count 0: unrestricted). The child waits until its state is written.
 * Return: what the probe returned (0 or an errno), or PROBE_SETUP_FAILED.
 */
static inline int cap_run(struct umbrella_bpf *skel, const __u32 *ids, unsigned count,
			  test_probe_fn probe, void *arg)
{
	int go[2], status, r = 0;
	char byte = 0;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return PROBE_SETUP_FAILED;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return PROBE_SETUP_FAILED;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(PROBE_SETUP_FAILED);
		_exit(probe(arg));
	}
	close(go[0]);
	if (count) {
		struct umb_task_state state = cap_state(skel, ids, count);

		r = cap_set_state(skel, pid, &state);
		if (r < 0)
			TAP_DIAG("restricting child %d: %s", pid, strerror(-r));
	}
	if (r == 0 && write(go[1], &byte, 1) != 1)
		r = -EIO;
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0 || r < 0)
		return PROBE_SETUP_FAILED;
	if (!WIFEXITED(status)) {
		TAP_DIAG("probe child killed by signal %d", WTERMSIG(status));
		return PROBE_SETUP_FAILED;
	}
	return WEXITSTATUS(status);
}

/* cap_run() with one layer (0: unrestricted). */
static inline int cap_run1(struct umbrella_bpf *skel, __u32 layer, test_probe_fn probe, void *arg)
{
	return cap_run(skel, &layer, layer ? 1 : 0, probe, arg);
}

/* A process that sleeps until killed, with SIGIO and SIGURG blocked (so that one sent
 * to it stays pending, visible in /proc/PID/status), carrying the layers @ids[0..@count).
 * Returns its pid, or -1. End it with cap_stop(). */
static inline pid_t cap_sleeper(struct umbrella_bpf *skel, const __u32 *ids, unsigned count)
{
	sigset_t set;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, SIGURG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (pid > 0 && count) {
		struct umb_task_state state = cap_state(skel, ids, count);

		if (cap_set_state(skel, pid, &state) < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
	}
	return pid;
}

static inline void cap_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Whether signal @sig is pending for the whole process @pid (its ShdPnd mask). */
static inline bool cap_signal_pending(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ShdPnd: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ULL << (sig - 1));
}

/* Registers @tgid as umbrellad (umb_ctl.daemon_tgid; 0: none). Returns 0 or -errno. */
static inline int cap_set_daemon(struct umbrella_bpf *skel, __u32 tgid)
{
	return state_ctl_update(bpf_map__fd(skel->maps.umb_ctl), STATE_CTL_DAEMON,
				&(struct umb_ctl){ .daemon_tgid = tgid });
}

/* Arms the thread @tid of process @tgid (another process: a test can arm its children)
 * to push @layer in its next fork. Returns 0 or -errno. */
static inline int cap_arm_task(struct umbrella_bpf *skel, pid_t tid, pid_t tgid, __u32 layer,
			       __u32 flags)
{
	(void)skel;
	return arm_thread(&test_layers, (__u32)tid, (__u32)tgid, layer, flags);
}

/* Whether an arm of thread @tid is still in umb_arm (and takes it back). */
static inline bool cap_arm_left(pid_t tid)
{
	return arm_take(&test_layers, (__u32)tid);
}

struct cap_event_query {
	__u32 hook, layer, target_pid;
	__u64 item;
	bool found;
};

static int cap_event_match(void *ctx, void *data, size_t size)
{
	struct cap_event_query *q = ctx;
	const struct umb_event *e = data;

	if (size >= sizeof(*e) && e->hook == q->hook && e->layer == q->layer &&
	    e->target_pid == q->target_pid && e->item == q->item)
		q->found = true;
	return 0;
}

/* Drains the denial records (umb_events): whether one was for @hook, @layer, @item and
 * @target_pid. Records read here are gone for the next call. */
static inline bool cap_find_event(struct umbrella_bpf *skel, __u32 hook, __u32 layer, __u64 item,
				  __u32 target_pid)
{
	struct cap_event_query q = { hook, layer, target_pid, item, false };
	struct ring_buffer *rb =
		ring_buffer__new(bpf_map__fd(skel->maps.umb_events), cap_event_match, &q, NULL);

	if (!rb)
		return false;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return q.found;
}

/* Waits for the child @pid; returns its exit status, or PROBE_SETUP_FAILED. */
static inline int cap_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	return WEXITSTATUS(status);
}

/* Result of a system call as a probe result: 0, or errno. */
static inline int cap_errno(long r)
{
	return r < 0 ? errno : 0;
}

#endif /* UMBRELLA_TESTS_CAP_TEST_H */
