/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests - load the BPF object, build layers from restriction text with the
 * daemon's own code (layer_install), and run a probe in a child that the kernel gave
 * the layer through the same arming path rfork() uses. Header-only, for the test
 * programs in tests/integration (root, inside the test VM).
 *
 * A probe returns 0 when the operation it tries succeeds and errno when it fails, so
 * a test compares the result of test_probe() with 0 (positive control) or EPERM/EACCES.
 */
#ifndef UMBRELLA_TESTS_VM_TEST_H
#define UMBRELLA_TESTS_VM_TEST_H

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/umbrella.h>

#include "bpf-open.h"
#include "layer-install.h"
#include "tap.h"
#include "umbrella.skel.h"

/* Exit status of a child whose probe could not even be set up. */
#define PROBE_SETUP_FAILED 100

typedef int (*test_probe_fn)(void *arg);

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
	return skel;
}

/*
 * test_layer() - a new layer made of the restriction list @items
 *
 * Return: the layer id (> 0), or 0 after printing why it failed (a TAP diagnostic).
 */
static inline __u32 test_layer(struct umbrella_bpf *skel, const char *items)
{
	static __u32 next_id = 1000;
	struct layer_maps maps = {
		.layers = bpf_map__fd(skel->maps.umb_layers),
		.fs_inodes = bpf_map__fd(skel->maps.umb_fs_inodes),
		.fs_names = bpf_map__fd(skel->maps.umb_fs_names),
		.fs_filter = bpf_map__fd(skel->maps.umb_fs_filter),
	};
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	__u32 id = ++next_id;
	int ret;

	if (!r)
		return 0;
	ret = umb_restrictions__parse(r, items, &error);
	if (ret == 0)
		ret = layer_install(&maps, id, r, getpid(), UMB_ORIGIN_RFORK, &error);
	if (ret < 0) {
		TAP_DIAG("layer '%s': %s", items, error ? error : strerror(-ret));
		id = 0;
	}
	free(error);
	umb_restrictions__free(r);
	return id;
}

/* Arms (or, with @layer 0, leaves alone) the calling thread's next fork. */
static inline int test_arm(struct umbrella_bpf *skel, __u32 layer, __u32 flags)
{
	struct umb_arm arm = { .layer = layer, .flags = flags, .tgid = getpid(),
			       .state = UMB_ARM_ARMED };
	struct umb_ctl ctl = {};
	__u32 tid = gettid(), zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.umb_arm), &tid, &arm, BPF_ANY) < 0)
		return -errno;
	(void)bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_ctl), &zero, &ctl);
	ctl.arm_count++;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.umb_ctl), &zero, &ctl, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/* Reads and removes the calling thread's arm. Returns its enum umb_arm_state, or 0. */
static inline __u32 test_disarm(struct umbrella_bpf *skel)
{
	struct umb_arm arm = {};
	struct umb_ctl ctl = {};
	__u32 tid = gettid(), zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_arm), &tid, &arm) < 0)
		return 0;
	(void)bpf_map_delete_elem(bpf_map__fd(skel->maps.umb_arm), &tid);
	(void)bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_ctl), &zero, &ctl);
	ctl.arm_count--;
	(void)bpf_map_update_elem(bpf_map__fd(skel->maps.umb_ctl), &zero, &ctl, BPF_ANY);
	return arm.state;
}

/*
 * test_probe() - run @probe(@arg) in a child that carries layer @layer (0: none)
 *
 * The child gets the layer from the kernel at fork, as with rfork(). Return: what the
 * probe returned (0 or an errno), or PROBE_SETUP_FAILED.
 */
static inline int test_probe(struct umbrella_bpf *skel, __u32 layer, test_probe_fn probe,
			     void *arg)
{
	int status;
	__u32 state = UMB_ARM_APPLIED;
	pid_t pid;

	if (layer && test_arm(skel, layer, 0) < 0)
		return PROBE_SETUP_FAILED;
	pid = fork();
	if (pid == 0)
		_exit(probe(arg));
	if (layer)
		state = test_disarm(skel);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return PROBE_SETUP_FAILED;
	if (state != UMB_ARM_APPLIED) {
		TAP_DIAG("the child did not get layer %u (arm state %u)", layer, state);
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
