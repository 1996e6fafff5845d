/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests - load the BPF object, build layers from restriction text with the
 * daemon's own code (layers.h), and run a probe in a child that the kernel gave the
 * layer through the same arming path rfork() uses (arm.h). Header-only, for the test
 * programs in tests/integration (root, inside the test VM).
 *
 * A probe returns 0 when the operation it tries succeeds and errno when it fails, so
 * a test compares the result of test_probe() with 0 (positive control) or EPERM/EACCES.
 */
#ifndef UMBRELLA_TESTS_VM_TEST_H
#define UMBRELLA_TESTS_VM_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/umbrella.h>

#include "arm.h"
#include "bpf-open.h"
#include "layers.h"
#include "tap.h"
#include "umbrella.skel.h"

/* Exit status of a child whose probe could not even be set up. */
#define PROBE_SETUP_FAILED 100

typedef int (*test_probe_fn)(void *arg);

/* The layers of the object test_load() loaded: made, armed and counted as umbrellad
 * does (nobody frees them: no umbrellad runs in these tests). */
static struct layers test_layers;

/* Loads and attaches the BPF object (two TAP checks). NULL on failure. */
static inline struct umbrella_bpf *test_load(void)
{
	struct umbrella_bpf *skel = NULL;
	int r = umbrella_bpf_open_load(&skel);

	if (!TAP_EQ(r, 0, "the BPF object loads (verifier accepts it)"))
		return NULL;
	if (!TAP_EQ(umbrella_bpf__attach(skel), 0, "the BPF LSM programs attach")) {
		umbrella_bpf__destroy(skel);
		return NULL;
	}
	r = layers_open(&test_layers, &(struct layer_maps){ LAYER_MAPS_OF(skel) }, -1);
	if (r < 0) {
		TAP_DIAG("mapping the layers: %s", strerror(-r));
		umbrella_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/*
 * test_layer() - a new layer made of the restriction list @items
 *
 * Return: the layer id (> 0), or 0 after printing why it failed (a TAP diagnostic).
 */
static inline __u32 test_layer(struct umbrella_bpf *skel, const char *items)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	__u32 id = 0;
	int ret;

	(void)skel;
	if (!r)
		return 0;
	ret = umb_restrictions__parse(r, items, &error);
	if (ret == 0)
		ret = layers_create(&test_layers, r, getpid(), 0, UMB_ORIGIN_RFORK, &id, &error);
	if (ret == 0) /* the test's own hold: the layer serves any number of probes */
		ret = layers_hold(&test_layers, id);
	if (ret < 0) {
		TAP_DIAG("layer '%s': %s", items, error ? error : strerror(-ret));
		id = 0;
	}
	free(error);
	umb_restrictions__free(r);
	return id;
}

/* Arms the calling thread's next fork (or, with UMB_ARM_SELF, its prctl) with @layer. */
static inline int test_arm(struct umbrella_bpf *skel, __u32 layer, __u32 flags)
{
	(void)skel;
	return arm_thread(&test_layers, gettid(), getpid(), layer, flags);
}

/* After a fork: whether the fork used the calling thread's arm (the child has the
 * layer), as rfork() asks; takes back an arm the fork did not use. */
static inline bool test_arm_used(void)
{
	return prctl(UMB_PRCTL_DISARM, 0, 0, 0, 0) < 0 && errno == UMB_PRCTL_YES;
}

/*
 * test_probe() - run @probe(@arg) in a child that carries layer @layer (0: none)
 *
 * The child gets the layer from the kernel at fork, as with rfork(). Return: what the
 * probe returned (0 or an errno), or PROBE_SETUP_FAILED.
 */
static inline int test_probe(struct umbrella_bpf *skel, __u32 layer, test_probe_fn probe, void *arg)
{
	int status, fork_errno;
	bool applied = true;
	pid_t pid;

	if (layer && test_arm(skel, layer, 0) < 0)
		return PROBE_SETUP_FAILED;
	pid = fork();
	if (pid == 0)
		_exit(probe(arg));
	fork_errno = errno;
	if (layer)
		applied = test_arm_used();
	if (pid < 0) {
		TAP_DIAG("fork with layer %u: %s", layer, strerror(fork_errno));
		return PROBE_SETUP_FAILED;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	if (!applied) {
		TAP_DIAG("the child did not get layer %u", layer);
		return PROBE_SETUP_FAILED;
	}
	return WEXITSTATUS(status);
}

/* test_probe() with a restriction list: a new layer made of @items for one child. */
static inline int test_probe_items(struct umbrella_bpf *skel, const char *items,
				   test_probe_fn probe, void *arg)
{
	__u32 layer = test_layer(skel, items);

	return layer ? test_probe(skel, layer, probe, arg) : PROBE_SETUP_FAILED;
}

#endif /* UMBRELLA_TESTS_VM_TEST_H */
