// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - arming a thread (arm.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "arm.h"
#include "macro.h"
#include "thread-start.h"

int arm_take(struct layers *l, uint32_t tid)
{
	struct umb_arm arm;

	if (bpf_map_lookup_elem(l->maps.arm, &tid, &arm) < 0)
		return 0;
	/* Whoever deletes the entry owns its reference: the kernel may take it too. */
	if (bpf_map_delete_elem(l->maps.arm, &tid) < 0)
		return 0;
	__atomic_fetch_sub(&l->live->arms, 1, __ATOMIC_SEQ_CST);
	layers_put(l, arm.layer);
	return 1;
}

int arm_thread_at(struct layers *l, uint32_t tid, uint32_t tgid, uint64_t start, uint32_t layer,
		  uint32_t flags)
{
	struct umb_arm arm = {
		.layer = layer, .flags = flags, .tgid = tgid, .state = UMB_ARM_ARMED, .start = start
	};
	int r;

	r = layers_hold(l, layer);
	if (r < 0)
		return r;
	__atomic_fetch_add(&l->live->arms, 1, __ATOMIC_SEQ_CST);
	/* BPF_NOEXIST: a thread's arm is not replaced. Its own rfork() takes back what it
	 * leaves, and another process (a stale connection whose pid was reused) must not
	 * swap it. */
	if (bpf_map_update_elem(l->maps.arm, &tid, &arm, BPF_NOEXIST) < 0) {
		r = errno == E2BIG || errno == ENOMEM ? -EBUSY : errno == EEXIST ? -EEXIST : -errno;
		__atomic_fetch_sub(&l->live->arms, 1, __ATOMIC_SEQ_CST);
		layers_put(l, layer);
		return r;
	}
	return 0;
}

int arm_thread(struct layers *l, uint32_t tid, uint32_t tgid, uint32_t layer, uint32_t flags)
{
	char path[64];
	uint64_t start;
	int r;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", tgid, tid);
	r = thread_start(AT_FDCWD, path, &start);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	return arm_thread_at(l, tid, tgid, start, layer, flags);
}

/* Whether the arm of thread @tid is left by a thread that is gone: none of its
 * process by that id, or one that started at another time (the id was reused). */
static bool arm_stale(uint32_t tid, const struct umb_arm *arm)
{
	char path[64];
	uint64_t start;
	int r;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", arm->tgid, tid);
	r = thread_start(AT_FDCWD, path, &start);
	if (r == -ENOENT || r == -ESRCH)
		return true;
	return r == 0 && start != arm->start;
}

unsigned int arm_sweep(struct layers *l)
{
	__u32 tids[256], key, *prev = NULL;
	unsigned int count = 0, taken = 0;

	/* Collected first: deleting while walking the keys would restart the walk. */
	while (count < ARRAY_SIZE(tids) && bpf_map_get_next_key(l->maps.arm, prev, &key) == 0) {
		struct umb_arm arm;

		prev = &key;
		if (bpf_map_lookup_elem(l->maps.arm, &key, &arm) < 0)
			continue;
		if (arm_stale(key, &arm))
			tids[count++] = key;
	}
	for (unsigned int i = 0; i < count; i++)
		taken += (unsigned int)arm_take(l, tids[i]);
	return taken;
}
