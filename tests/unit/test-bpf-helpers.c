// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test: the pure BPF helpers (of bpf/lib/, and the walk's functions in walk.bpf.c)
 * on the running kernel, without an LSM program: each is called by a SEC("syscall")
 * program of tests/unit/bpf/helpers-test.bpf.c, run with BPF_PROG_TEST_RUN, on maps and
 * globals filled here. The layer stack (push, the layer that denies, permissive
 * layers), references and their release, verdicts, domains, the fs prefilter as
 * umbrellad writes it, the name hash against umbrellad's, one level of the walk against
 * fs rules and names, the walk (umb_fs_walk()) over a fake tree of dentries, and the
 * system call numbers.
 *
 * Needs root (CAP_BPF and CAP_PERFMON: the helpers read kernel memory) and the
 * kernel's BTF; skips without them. The host suite runs it on the host's kernel, the
 * VM suite (tests/integration) on each supported kernel.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/bpf-abi.h>

#include "test-bpf-helpers.h" /* before the skeleton: struct t_node */

#include "bpf-helpers.skel.h"
#include "fs-filter.h"
#include "layer-install.h"
#include "tap.h"

static struct umb_helpers_test *skel;

/* Runs @prog with the arguments @args (struct t_in of the BPF side), clears t_out
 * first. Returns the program's return value (a negative errno as such), or
 * INT32_MIN when it could not run. */
static int run_prog(struct bpf_program *prog, const uint64_t *args, size_t count)
{
	uint64_t in[6] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = in, .ctx_size_in = sizeof(in));

	memcpy(in, args, count * sizeof(*args));
	memset(skel->bss->t_out, 0, sizeof(skel->bss->t_out));
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		TAP_DIAG("running %s: %s", bpf_program__name(prog), strerror(errno));
		return INT32_MIN;
	}
	return (int32_t)opts.retval;
}

#define RUN(name, ...)                                                \
	run_prog(skel->progs.name, (const uint64_t[]){ __VA_ARGS__ }, \
		 sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))
#define OUT(i) (skel->bss->t_out[i])

/* The sets of t_layer_denying (enum umb_layer_set of lib/layers.bpf.h). */
enum { SET_CAPS, SET_FAMILIES, SET_CAPABILITIES };

/* Layer ids: generation 1 of slots 1, 2, ... */
#define LAYER(slot) (1U << UMB_LAYER_SLOT_BITS | (slot))

/* Writes the live layer @id into its slot of umb_layers. */
static void put_layer(uint32_t id, uint64_t caps, uint64_t families, uint32_t fs_access,
		      uint32_t flags, uint32_t refs)
{
	struct umb_layer layer = {
		.denied_caps = caps,
		.denied_families = families,
		.denied_capabilities = caps << 20, /* another set, other bits */
		.fs_access = fs_access,
		.id = id,
		.refs = refs,
		.gen = id >> UMB_LAYER_SLOT_BITS,
		.flags = flags,
	};
	uint32_t slot = umb_layer_slot(id);

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.umb_layers), &slot, &layer, 0))
		TAP_DIAG("writing layer %u: %s", id, strerror(errno));
}

static uint32_t layer_refs(uint32_t id)
{
	struct umb_layer layer = {};
	uint32_t slot = umb_layer_slot(id);

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_layers), &slot, &layer);
	return layer.refs;
}

/* Sets t_state to the layers @ids (@n of them), of which the first @count are on the
 * stack (layer_count), with fs_layers @fs_layers, and nothing else. */
static void set_stack(const uint32_t *ids, size_t n, uint32_t count, uint32_t fs_layers)
{
	struct umb_task_state *st = &skel->bss->t_state;

	*st = (struct umb_task_state){ .layer_count = count, .fs_layers = fs_layers };
	memcpy(st->layers, ids, n * sizeof(*ids));
}

/* SET_STACK(count, fs_layers, ids...) */
#define SET_STACK(count, fs_layers, ...)             \
	set_stack((const uint32_t[]){ __VA_ARGS__ }, \
		  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t), count, fs_layers)

static void test_push_layer(void)
{
	struct umb_task_state *st = &skel->bss->t_state;
	uint32_t a = LAYER(1), b = LAYER(2);
	int ret;

	put_layer(a, UMB_CR_FORK, 1ULL << 10, 0, 0, 1);
	put_layer(b, UMB_CR_MOUNT, 1ULL << 2, UMB_FS_READ | UMB_FS_EXEC, 0, 1);
	SET_STACK(0, 0, 0);
	TAP_EQ(RUN(t_push_layer, a), 0, "umb_push_layer: a layer without fs rules");
	TAP_EQ(RUN(t_push_layer, b), 0, "umb_push_layer: a layer with fs rules");
	TAP_EQ(st->layer_count, 2, "umb_push_layer: two layers on the stack");
	TAP_OK(st->layers[0] == a && st->layers[1] == b, "umb_push_layer: bottom first");
	TAP_EQ(st->denied_caps, UMB_CR_FORK | UMB_CR_MOUNT, "umb_push_layer: caps are the union");
	TAP_EQ(st->denied_families, 1ULL << 10 | 1ULL << 2,
	       "umb_push_layer: families are the union");
	TAP_EQ(st->denied_capabilities, (uint64_t)(UMB_CR_FORK | UMB_CR_MOUNT) << 20,
	       "umb_push_layer: capabilities are the union");
	TAP_EQ(st->fs_access, UMB_FS_READ | UMB_FS_EXEC, "umb_push_layer: fs_access is the union");
	TAP_EQ(st->fs_layers, 1U << 1, "umb_push_layer: fs_layers marks the layer with fs rules");

	ret = RUN(t_push_layer, LAYER(3));
	TAP_OK(ret == -EPERM && st->layer_count == 2,
	       "umb_push_layer: a free slot is refused, the stack unchanged (got %d)", ret);
	ret = RUN(t_push_layer, a + (1U << UMB_LAYER_SLOT_BITS));
	TAP_OK(ret == -EPERM && st->layer_count == 2,
	       "umb_push_layer: a stale id (slot of a live layer, another generation) is refused");
	for (int i = 2; i < UMB_MAX_LAYERS; i++)
		RUN(t_push_layer, a);
	TAP_EQ(st->layer_count, UMB_MAX_LAYERS, "umb_push_layer: the stack fills up");
	ret = RUN(t_push_layer, a);
	TAP_OK(ret == -EPERM && st->layer_count == UMB_MAX_LAYERS,
	       "umb_push_layer: a full stack refuses one more (got %d)", ret);
}

static void test_layer_lookup(void)
{
	uint32_t a = LAYER(1), b = LAYER(2), p = LAYER(4);

	put_layer(p, UMB_CR_FORK, 0, 0, UMB_LAYER_PERMISSIVE, 1);
	SET_STACK(1, 0, a, b); /* b is beyond layer_count */
	RUN(t_layer_lookup, a);
	TAP_OK(OUT(0) && OUT(1) && !OUT(2), "umb_state_has_layer: a layer on the stack");
	RUN(t_layer_lookup, b);
	TAP_OK(!OUT(0) && OUT(1), "umb_state_has_layer: not a live layer beyond layer_count");
	RUN(t_layer_lookup, p);
	TAP_OK(!OUT(0) && OUT(2), "umb_layer_permissive: a permissive layer");
	RUN(t_layer_lookup, a + (1U << UMB_LAYER_SLOT_BITS));
	TAP_OK(!OUT(1) && !OUT(2), "umb_layer_get: not a stale id; it is not permissive");
	RUN(t_layer_lookup, 0);
	TAP_OK(!OUT(1), "umb_layer_get: not id 0");
}

static void test_layer_denying(void)
{
	uint32_t p = LAYER(4), e1 = LAYER(5), e2 = LAYER(6), pfs = LAYER(7), efs = LAYER(8);

	put_layer(p, UMB_CR_FORK | UMB_CR_SIGNAL, 0, 0, UMB_LAYER_PERMISSIVE, 1);
	put_layer(e1, UMB_CR_FORK | UMB_CR_MOUNT, 1ULL << 7, 0, 0, 1);
	put_layer(e2, 0, 1ULL << 2, 0, 0, 1);
	SET_STACK(3, 0, p, e1, e2);
	RUN(t_layer_denying, SET_CAPS, UMB_CR_FORK);
	TAP_EQ(OUT(0), e1, "umb_layer_denying: an enforcing layer above a permissive one");
	RUN(t_layer_denying, SET_CAPS, UMB_CR_SIGNAL);
	TAP_EQ(OUT(0), p, "umb_layer_denying: the permissive layer when only it denies");
	RUN(t_layer_denying, SET_FAMILIES, 1ULL << 2);
	TAP_EQ(OUT(0), e2, "umb_layer_denying: families");
	/* The set decides which bits are looked at: e1 denies the cap UMB_CR_MOUNT, not
	 * the family of that bit, nor the capability. */
	RUN(t_layer_denying, SET_FAMILIES, UMB_CR_MOUNT);
	TAP_EQ(OUT(0), 0, "umb_layer_denying: families are not caps");
	RUN(t_layer_denying, SET_CAPABILITIES, UMB_CR_MOUNT);
	TAP_EQ(OUT(0), 0, "umb_layer_denying: capabilities are not caps");
	RUN(t_layer_denying, SET_FAMILIES, 1ULL << 7);
	TAP_EQ(OUT(0), e1, "umb_layer_denying: a family of the middle layer");
	RUN(t_layer_denying, SET_CAPABILITIES, (uint64_t)UMB_CR_MOUNT << 20);
	TAP_EQ(OUT(0), e1, "umb_layer_denying: capabilities");
	RUN(t_layer_denying, SET_CAPS, UMB_CR_PTRACE);
	TAP_EQ(OUT(0), 0, "umb_layer_denying: 0 when no layer denies");

	put_layer(pfs, 0, 0, UMB_FS_READ, UMB_LAYER_PERMISSIVE, 1);
	put_layer(efs, 0, 0, UMB_FS_READ, 0, 1);
	SET_STACK(3, 1U << 0 | 1U << 2, pfs, e1, efs);
	RUN(t_layer_denying, SET_CAPS, 0);
	TAP_EQ(OUT(1), efs, "umb_fs_layer: the enforcing layer with fs rules first");
	SET_STACK(3, 1U << 0, pfs, e1, efs);
	RUN(t_layer_denying, SET_CAPS, 0);
	TAP_EQ(OUT(1), pfs, "umb_fs_layer: only layers marked in fs_layers count");
	SET_STACK(1, 1U << 1, e1, efs);
	RUN(t_layer_denying, SET_CAPS, 0);
	TAP_EQ(OUT(1), 0, "umb_fs_layer: 0 when no layer (up to layer_count) has fs rules");
}

static void test_denial_pick(void)
{
	uint64_t p = LAYER(4), e1 = LAYER(5), e2 = LAYER(6), p2 = LAYER(9);

	put_layer(p2, 0, 0, 0, UMB_LAYER_PERMISSIVE, 1);
	RUN(t_denial_pick, 3, p | 11ULL << 32, e1 | 12ULL << 32, e2 | 13ULL << 32);
	TAP_OK(OUT(0) && OUT(1) == e1 && OUT(2) == 1 && OUT(3) == 12 && OUT(4) == 2,
	       "umb_denial_pick: the first enforcing denial replaces a permissive one, and ends "
	       "the search");
	RUN(t_denial_pick, 2, p | 11ULL << 32, p2 | 12ULL << 32);
	TAP_OK(OUT(0) && OUT(1) == p && OUT(2) == 0 && OUT(3) == 11 && OUT(4) == 2,
	       "umb_denial_pick: only permissive ones: the first is kept");
	RUN(t_denial_pick, 2, e2 | 13ULL << 32, e1 | 12ULL << 32);
	TAP_OK(OUT(1) == e2 && OUT(4) == 1, "umb_denial_pick: an enforcing one first ends it");
	RUN(t_denial_pick, 1, 0 | 14ULL << 32);
	TAP_OK(OUT(0) && OUT(4) == 1, "umb_denial_pick: a denial naming no layer enforces");
	RUN(t_denial_pick, 0);
	TAP_OK(!OUT(0), "umb_denial_pick: nothing found without a candidate");
}

/* The ids umb_layer_put() reported on umb_released since the last call. */
static uint32_t released[8];
static unsigned released_count;

static int on_release(void *ctx, void *data, size_t size)
{
	const struct umb_release *rec = data;

	(void)ctx;
	if (size >= sizeof(*rec) && released_count < ARRAY_SIZE(released))
		released[released_count++] = rec->layer;
	return 0;
}

static void test_references(void)
{
	struct umb_task_state *st = &skel->bss->t_state;
	uint32_t r = LAYER(10), a = LAYER(11), b = LAYER(12), c = LAYER(13);
	struct ring_buffer *rb;

	rb = ring_buffer__new(bpf_map__fd(skel->maps.umb_released), on_release, NULL, NULL);
	if (!TAP_OK(rb, "umb_released can be read"))
		return;
	put_layer(r, 0, 0, 0, 0, 1);
	TAP_EQ(RUN(t_layer_ref, 0, r), 0, "umb_layer_hold: a held layer");
	TAP_EQ(layer_refs(r), 2, "umb_layer_hold: one more reference");
	RUN(t_layer_ref, 1, r);
	released_count = 0;
	ring_buffer__consume(rb);
	TAP_OK(layer_refs(r) == 1 && released_count == 0,
	       "umb_layer_put: one reference less, not released");
	RUN(t_layer_ref, 1, r);
	ring_buffer__consume(rb);
	TAP_OK(layer_refs(r) == 0 && released_count == 1 && released[0] == r,
	       "umb_layer_put: the last one reports the layer on umb_released");
	TAP_EQ(RUN(t_layer_ref, 0, r), -EPERM, "umb_layer_hold: never from 0 references");
	TAP_EQ(layer_refs(r), 0, "umb_layer_hold: the count stays 0");
	TAP_EQ(RUN(t_layer_ref, 0, LAYER(14)), -EPERM, "umb_layer_hold: no such layer");

	put_layer(a, 0, 0, 0, 0, 1);
	put_layer(b, 0, 0, 0, 0, 1);
	put_layer(c, 0, 0, 0, 0, 1);
	SET_STACK(2, 0, a, b);
	st->pending_layer = c;
	TAP_EQ(RUN(t_layer_ref, 2), 0, "umb_state_hold: every layer is there");
	TAP_OK(layer_refs(a) == 2 && layer_refs(b) == 2 && layer_refs(c) == 2,
	       "umb_state_hold: a reference on each layer and on the pending one");
	TAP_OK(st->flags & UMB_TASK_COUNTED, "umb_state_hold: the state is counted");
	RUN(t_layer_ref, 3);
	TAP_OK(layer_refs(a) == 1 && layer_refs(b) == 1 && layer_refs(c) == 1 &&
		       !(st->flags & UMB_TASK_COUNTED),
	       "umb_state_put: drops them, and the state is no longer counted");
	RUN(t_layer_ref, 3);
	TAP_OK(layer_refs(a) == 1 && layer_refs(b) == 1 && layer_refs(c) == 1,
	       "umb_state_put: a second put drops nothing");

	SET_STACK(3, 0, a, b, LAYER(14));
	TAP_EQ(RUN(t_layer_ref, 2), -EPERM, "umb_state_hold: a layer is gone");
	TAP_OK(layer_refs(a) == 1 && layer_refs(b) == 1 && !(st->flags & UMB_TASK_COUNTED),
	       "umb_state_hold: all or nothing (what it took is given back, not counted)");
	/* A layer with no reference left (r) is not taken up again, and what was taken
	 * before it is given back: r's count stays 0. */
	SET_STACK(3, 0, a, b, r);
	TAP_EQ(RUN(t_layer_ref, 2), -EPERM, "umb_state_hold: a layer nobody holds any more");
	TAP_OK(layer_refs(a) == 1 && layer_refs(b) == 1 && layer_refs(r) == 0,
	       "umb_state_hold: gives back only what it took");
	released_count = 0;
	ring_buffer__consume(rb);
	TAP_EQ(released_count, 0, "umb_state_hold: giving back releases nothing");
	ring_buffer__free(rb);
}

static void test_verdicts(void)
{
	static const struct {
		uint32_t state, epoch;
		unsigned nulls;
		int expected;
		const char *what;
	} cases[] = {
		{ UMB_VERDICT_SIGNED, 5, 0, UMB_VERDICT_SIGNED, "SIGNED of this epoch" },
		{ UMB_VERDICT_UNSIGNED, 5, 0, UMB_VERDICT_UNSIGNED, "UNSIGNED" },
		{ UMB_VERDICT_REFUSED, 5, 0, UMB_VERDICT_REFUSED, "REFUSED" },
		{ UMB_VERDICT_STALE, 5, 0, UMB_VERDICT_STALE, "STALE" },
		{ UMB_VERDICT_SIGNED, 4, 0, 0, "another epoch's is a miss" },
		{ UMB_VERDICT_PENDING, 5, 0, 0, "PENDING is a miss" },
		{ UMB_VERDICT_UNVERIFIED, 5, 0, 0, "UNVERIFIED (never stored) is a miss" },
		{ UMB_VERDICT_LIBRARY, 5, 0, 0, "LIBRARY (never stored) is a miss" },
		{ 99, 5, 0, 0, "an unknown state is a miss" },
		{ UMB_VERDICT_SIGNED, 5, 1, 0, "no verdict is a miss" },
		{ UMB_VERDICT_SIGNED, 5, 2, 0, "no umb_ctl is a miss" },
	};
	uint32_t a = LAYER(11);

	skel->bss->t_ctl = (struct umb_ctl){ .verdict_epoch = 5 };
	SET_STACK(1, 0, a);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		skel->bss->t_verdict =
			(struct umb_verdict){ .state = cases[i].state, .epoch = cases[i].epoch };
		TAP_EQ(RUN(t_verdict_effective, cases[i].nulls, 0), cases[i].expected,
		       "umb_verdict_effective: %s", cases[i].what);
	}
	RUN(t_verdict_effective, 0, 0);
	TAP_EQ(OUT(0), 1, "umb_verdict_layer_carried: no layer");
	RUN(t_verdict_effective, 0, a);
	TAP_EQ(OUT(0), 1, "umb_verdict_layer_carried: a layer the task carries");
	RUN(t_verdict_effective, 0, LAYER(12));
	TAP_EQ(OUT(0), 0, "umb_verdict_layer_carried: one it does not");

	RUN(t_verdicts, 0);
	TAP_OK((int64_t)OUT(0) == 0 && (int64_t)OUT(1) == 0,
	       "umb_verdict, umb_fs_verdict: allowed");
	RUN(t_verdicts, 1ULL << 40);
	TAP_OK((int64_t)OUT(0) == -EPERM && (int64_t)OUT(1) == -EACCES,
	       "umb_verdict, umb_fs_verdict: denied (by a high bit)");
}

static void test_domain(void)
{
	struct umb_task_state *target = &skel->bss->t_target;
	static const struct {
		uint32_t layers[3], count;
		int inside;
		const char *what;
	} cases[] = {
		{ { LAYER(1), LAYER(2) }, 2, 1, "the same stack" },
		{ { LAYER(1), LAYER(2), LAYER(3) }, 3, 1, "a descendant" },
		{ { LAYER(1) }, 1, 0, "an ancestor" },
		{ { LAYER(1), LAYER(2) }, 1, 0, "an ancestor, the same ids beyond its layer_count" },
		{ { LAYER(1), LAYER(3) }, 2, 0, "a sibling" },
		{ { LAYER(2), LAYER(1) }, 2, 0, "the same layers in another order" },
		{ {}, 0, 0, "an unrestricted task with a state" },
	};

	SET_STACK(2, 0, LAYER(1), LAYER(2));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		*target = (struct umb_task_state){ .layer_count = cases[i].count };
		memcpy(target->layers, cases[i].layers, sizeof(cases[i].layers));
		TAP_EQ(RUN(t_in_domain, 0), cases[i].inside, "umb_in_domain: %s", cases[i].what);
		TAP_EQ(OUT(0), cases[i].count > 0, "umb_is_restricted: %s", cases[i].what);
	}
	TAP_EQ(RUN(t_in_domain, 1), 0, "umb_in_domain: an unrestricted task (no state)");
	TAP_EQ(OUT(0), 0, "umb_is_restricted: no state");
}

static void test_walk_match(void)
{
	uint64_t permissive = skel->rodata->t_match_permissive;
	uint32_t a = LAYER(1);

	TAP_EQ(RUN(t_walk_match, (uint64_t)UMB_FS_WRITE << 32 | a), 1,
	       "umb_walk_match: an enforcing match ends the walk");
	TAP_OK(OUT(0) == a && OUT(1) == UMB_FS_WRITE && OUT(2) == 0,
	       "umb_walk_match: its layer and access");
	TAP_EQ(RUN(t_walk_match, permissive | (uint64_t)UMB_FS_READ << 32 | a), 0,
	       "umb_walk_match: a permissive match does not end it");
	TAP_OK(OUT(0) == a && OUT(1) == UMB_FS_READ && OUT(2) == 1,
	       "umb_walk_match: its layer, its access (without the flag), permissive");
}

/* An inode number whose filter bit is @bit on @dev: umb_fs_filter_bit() multiplies by an
 * odd constant, which has an inverse modulo 2^64 (Newton's iteration; each step doubles
 * the bits that are right, and K * K = 1 modulo 8 to start with). */
static uint64_t ino_with_bit(uint32_t dev, uint32_t bit)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t inv = k;

	for (int i = 0; i < 6; i++)
		inv *= 2 - k * inv;
	return ((uint64_t)bit << (64 - UMB_FS_FILTER_SHIFT)) * inv ^ (uint64_t)dev << 40;
}

static void test_filter(void)
{
	struct fs_filter filter = {};
	uint32_t dev = 0x800003, other_dev = 0x800004, bit;
	uint64_t ino = 4242, neighbour, next_word;

	if (!TAP_EQ(fs_filter_open(&filter, bpf_map__fd(skel->maps.umb_fs_filter)), 0,
		    "umbrellad's fs_filter_open() maps umb_fs_filter"))
		return;
	bit = umb_fs_filter_bit(dev, ino);
	neighbour = ino_with_bit(dev, bit ^ 1);	 /* the same word, the next bit */
	next_word = ino_with_bit(dev, bit ^ 64); /* the same bit, the next word */
	TAP_EQ(RUN(t_filter_has, dev, ino), 0, "umb_fs_filter_has: an empty filter has nothing");
	fs_filter_add(&filter, dev, ino);
	TAP_EQ(RUN(t_filter_has, dev, ino), 1,
	       "umb_fs_filter_has: the inode umbrellad's fs_filter_add() set");
	TAP_EQ(RUN(t_filter_has, dev, UMB_FS_FILTER_ANY_INO), 1,
	       "umb_fs_filter_has: and its file system's bit");
	if (umb_fs_filter_bit(other_dev, UMB_FS_FILTER_ANY_INO) !=
		    umb_fs_filter_bit(dev, UMB_FS_FILTER_ANY_INO) &&
	    umb_fs_filter_bit(other_dev, UMB_FS_FILTER_ANY_INO) != bit)
		TAP_EQ(RUN(t_filter_has, other_dev, UMB_FS_FILTER_ANY_INO), 0,
		       "umb_fs_filter_has: not another file system");
	TAP_OK(umb_fs_filter_bit(dev, neighbour) == (bit ^ 1) &&
		       umb_fs_filter_bit(dev, next_word) == (bit ^ 64),
	       "inode numbers with the neighbouring bits found");
	TAP_EQ(RUN(t_filter_has, dev, neighbour), 0,
	       "umb_fs_filter_has: not the next bit of the same word");
	TAP_EQ(RUN(t_filter_has, dev, next_word), 0,
	       "umb_fs_filter_has: not the same bit of the next word");
	fs_filter_remove(&filter, dev, ino);
	TAP_EQ(RUN(t_filter_has, dev, ino), 0, "umb_fs_filter_has: cleared by fs_filter_remove()");
	fs_filter_close(&filter);
}

/* Puts @name (@len bytes) in t_name, the name of the BPF side's fake dentry. */
static void set_name(const void *name, size_t len)
{
	memset(skel->bss->t_name, 0, sizeof(skel->bss->t_name));
	memcpy(skel->bss->t_name, name, len);
}

static void test_name_hash(void)
{
	static const size_t lengths[] = { 0, 1, 62, 63, 64, 126, 127, 128, 189, 200, 255 };
	unsigned char name[256];
	int ret;

	/* The first check ties both sides to FNV-1a 64 itself, not only to each other. */
	TAP_EQ(layer_name_hash("a", 1), 0xaf63dc4c8601ec8cULL,
	       "umbrellad's layer_name_hash() is FNV-1a 64");
	for (size_t i = 0; i < sizeof(name); i++)
		name[i] = (unsigned char)(i * 37 + 128); /* bytes above 127 too */
	set_name(name, sizeof(name));
	for (size_t i = 0; i < ARRAY_SIZE(lengths); i++) {
		ret = RUN(t_name_hash, lengths[i]);
		TAP_OK(ret == 0 && OUT(0) == layer_name_hash((const char *)name, lengths[i]),
		       "umb_fs_name_hash: a name of %zu bytes hashes as umbrellad hashes it",
		       lengths[i]);
	}
	ret = RUN(t_name_hash, 256);
	TAP_OK(ret == 0 && OUT(0) == 0, "umb_fs_name_hash: longer than NAME_MAX: 0");
}

static int put_rule(struct bpf_map *map, const void *key, uint32_t access, uint32_t flags)
{
	struct umb_fs_rule rule = { .access = access, .flags = flags };

	return bpf_map_update_elem(bpf_map__fd(map), key, &rule, 0);
}

static void put_inode_rule(uint32_t dev, uint64_t ino, uint32_t layer, uint32_t access,
			   uint32_t flags)
{
	struct umb_fs_key key = { .dev = dev, .layer = layer, .ino = ino };

	if (put_rule(skel->maps.umb_fs_inodes, &key, access, flags))
		TAP_DIAG("writing an fs rule: %s", strerror(errno));
}

static void put_name_rule(uint32_t dev, uint64_t dir, uint32_t layer, const char *name,
			  uint32_t access)
{
	struct umb_fs_name_key key = {
		.dir = { .dev = dev, .layer = layer, .ino = dir },
		.name_hash = layer_name_hash(name, strlen(name)),
	};

	if (put_rule(skel->maps.umb_fs_names, &key, access, 0))
		TAP_DIAG("writing an fs name rule: %s", strerror(errno));
}

/* umb_fs_level_match() at (@dev, @ino) for @requested, the child named @child (NULL:
 * none). */
static uint64_t level_match(uint32_t dev, uint64_t ino, uint32_t requested, const char *child)
{
	if (child)
		set_name(child, strlen(child));
	if (RUN(t_level_match, dev, ino, requested, child ? strlen(child) : ~0ULL))
		return ~0ULL;
	return OUT(0);
}

static void test_level_match(void)
{
	uint64_t perm = skel->rodata->t_match_permissive;
	uint32_t e = LAYER(20), x = LAYER(21), p = LAYER(22), e2 = LAYER(23), dev = 0x800010;
	uint64_t file = 100, shared = 101, dir = 102, other = 103, beyond = 104;

	put_layer(e, 0, 0, UMB_FS_ALL, 0, 1);
	put_layer(x, 0, 0, 0, 0, 1);
	put_layer(p, 0, 0, UMB_FS_ALL, UMB_LAYER_PERMISSIVE, 1);
	put_layer(e2, 0, 0, UMB_FS_ALL, 0, 1);
	/* The stack e, x (no fs rules), p, and e2 beyond layer_count. */
	SET_STACK(3, 1U << 0 | 1U << 2 | 1U << 3, e, x, p, e2);

	put_inode_rule(dev, file, e, UMB_FS_READ | UMB_FS_EXEC, 0);
	TAP_EQ(level_match(dev, file, UMB_FS_READ | UMB_FS_WRITE, NULL),
	       (uint64_t)UMB_FS_READ << 32 | e,
	       "umb_fs_level_match: the layer, and of what was asked what it denies");
	TAP_EQ(level_match(dev, file, UMB_FS_WRITE, NULL), 0,
	       "umb_fs_level_match: not what the rule leaves");
	TAP_EQ(level_match(dev + 1, file, UMB_FS_READ, NULL), 0,
	       "umb_fs_level_match: not the same inode number on another file system");

	put_inode_rule(dev, shared, p, UMB_FS_WRITE, 0);
	TAP_EQ(level_match(dev, shared, UMB_FS_WRITE, NULL),
	       perm | (uint64_t)UMB_FS_WRITE << 32 | p,
	       "umb_fs_level_match: a permissive layer's match is marked so");
	put_inode_rule(dev, shared, e, UMB_FS_WRITE, 0);
	TAP_EQ(level_match(dev, shared, UMB_FS_WRITE, NULL), (uint64_t)UMB_FS_WRITE << 32 | e,
	       "umb_fs_level_match: an enforcing layer comes before a permissive one");

	put_inode_rule(dev, other, x, UMB_FS_READ, 0);
	put_inode_rule(dev, other, e2, UMB_FS_READ, 0);
	TAP_EQ(level_match(dev, other, UMB_FS_READ, NULL), 0,
	       "umb_fs_level_match: not a layer outside fs_layers, nor one beyond layer_count");
	put_inode_rule(dev, beyond, e2, UMB_FS_READ, 0);
	skel->bss->t_state.layer_count = 4;
	TAP_EQ(level_match(dev, beyond, UMB_FS_READ, NULL), (uint64_t)UMB_FS_READ << 32 | e2,
	       "umb_fs_level_match: the fourth layer once it is on the stack");
	skel->bss->t_state.layer_count = 3;

	/* Names: the directory's entry restricts nothing itself. */
	put_inode_rule(dev, dir, e, 0, UMB_FS_HAS_NAMES);
	put_name_rule(dev, dir, e, "secret", UMB_FS_READ);
	TAP_EQ(level_match(dev, dir, UMB_FS_READ, "secret"), (uint64_t)UMB_FS_READ << 32 | e,
	       "umb_fs_level_match: a restricted name in the directory");
	TAP_EQ(level_match(dev, dir, UMB_FS_READ, "secret2"), 0,
	       "umb_fs_level_match: not another name");
	TAP_EQ(level_match(dev, dir, UMB_FS_READ, NULL), 0,
	       "umb_fs_level_match: not the directory itself (no child)");
	TAP_EQ(level_match(dev, dir, UMB_FS_WRITE, "secret"), 0,
	       "umb_fs_level_match: not an access the name's rule leaves");
	put_inode_rule(dev, dir, e, 0, 0);
	TAP_EQ(level_match(dev, dir, UMB_FS_READ, "secret"), 0,
	       "umb_fs_level_match: names are looked up only under UMB_FS_HAS_NAMES");

	skel->bss->t_state.fs_layers = 0;
	TAP_EQ(level_match(dev, file, UMB_FS_READ, NULL), 0,
	       "umb_fs_level_match: nothing when no layer has fs rules");
}

/* include/linux/dcache.h: DCACHE_DISCONNECTED (walk.bpf.h's UMB_DCACHE_DISCONNECTED) */
#define DCACHE_DISCONNECTED 0x20

/* The fake tree of t_walk: 0 "/" (the root, ino 10), 1 "etc" (11) in it, 2 "app" (12)
 * in etc, 3 "conf" (13) in app; 4 "new", a name not yet created (no inode) in app; 5..70
 * a chain of 66 directories without inodes from 5 (under 0) down to 70, and 71 a root
 * that is disconnected (a file handle's), with no ancestors known. */
static void set_tree(uint32_t dev)
{
	struct t_node *t = skel->bss->t_tree;

	memset(t, 0, sizeof(skel->bss->t_tree));
	skel->bss->t_tree_dev = dev;
	t[0] = (struct t_node){ .parent = 0, .ino = 10, .name = "/" };
	t[1] = (struct t_node){ .parent = 0, .ino = 11, .name = "etc" };
	t[2] = (struct t_node){ .parent = 1, .ino = 12, .name = "app" };
	t[3] = (struct t_node){ .parent = 2, .ino = 13, .name = "conf" };
	t[4] = (struct t_node){ .parent = 2, .name = "new" };
	for (uint32_t i = 5; i < T_TREE - 1; i++)
		t[i] = (struct t_node){ .parent = i == 5 ? 0 : i - 1, .name = "d" };
	t[T_TREE - 1] = (struct t_node){
		.parent = T_TREE - 1, .ino = 20, .flags = DCACHE_DISCONNECTED, .name = "lost"
	};
}

/* umb_fs_walk() from @start for @requested; out: deny_layer, deny_access, permissive, done */
static int walk(uint32_t start, uint32_t requested)
{
	return RUN(t_walk, start, requested);
}

static void test_walk(void)
{
	struct fs_filter filter = {};
	uint32_t e = LAYER(30), p = LAYER(31), dev = 0x800020;

	if (!TAP_EQ(fs_filter_open(&filter, bpf_map__fd(skel->maps.umb_fs_filter)), 0,
		    "the walk: umb_fs_filter mapped"))
		return;
	set_tree(dev);
	put_layer(e, 0, 0, UMB_FS_ALL, 0, 1);
	put_layer(p, 0, 0, UMB_FS_ALL, UMB_LAYER_PERMISSIVE, 1);
	SET_STACK(2, 1U << 0 | 1U << 1, p, e);

	TAP_EQ(walk(3, UMB_FS_READ), 0, "umb_fs_walk: no rule on the file system: allowed");
	TAP_EQ(OUT(3), skel->rodata->t_walk_done, "umb_fs_walk: and done");

	/* A rule on etc, written as umbrellad writes one: the entry, and its bits. */
	fs_filter_add(&filter, dev, 11);
	put_inode_rule(dev, 11, e, UMB_FS_WRITE, 0);
	TAP_EQ(walk(3, UMB_FS_WRITE), 1, "umb_fs_walk: a rule two levels up denies");
	TAP_OK(OUT(0) == e && OUT(1) == UMB_FS_WRITE && OUT(2) == 0,
	       "umb_fs_walk: its layer and access, enforced");
	TAP_EQ(walk(3, UMB_FS_READ), 0, "umb_fs_walk: not an access the rule leaves");
	TAP_EQ(walk(0, UMB_FS_WRITE), 0, "umb_fs_walk: not above the rule (the root)");
	TAP_EQ(walk(4, UMB_FS_WRITE), 1, "umb_fs_walk: a name not yet created below it");

	/* A permissive layer's rule below the enforcing one: the enforcing one is found. */
	fs_filter_add(&filter, dev, 12);
	put_inode_rule(dev, 12, p, UMB_FS_WRITE | UMB_FS_READ, 0);
	TAP_EQ(walk(3, UMB_FS_WRITE), 1, "umb_fs_walk: permissive below, enforcing above");
	TAP_OK(OUT(0) == e && OUT(2) == 0,
	       "umb_fs_walk: the enforcing layer above answers, not the permissive one");
	TAP_EQ(walk(3, UMB_FS_READ), 1, "umb_fs_walk: only a permissive layer denies");
	TAP_OK(OUT(0) == p && OUT(1) == UMB_FS_READ && OUT(2) == 1,
	       "umb_fs_walk: recorded as the permissive layer's");

	/* A name in app, restricted by the enforcing layer. */
	put_inode_rule(dev, 12, e, 0, UMB_FS_HAS_NAMES);
	put_name_rule(dev, 12, e, "conf", UMB_FS_EXEC);
	TAP_EQ(walk(3, UMB_FS_EXEC), 1, "umb_fs_walk: the name of the object in its directory");
	TAP_OK(OUT(0) == e && OUT(1) == UMB_FS_EXEC, "umb_fs_walk: the name's layer and access");
	TAP_EQ(walk(2, UMB_FS_EXEC), 0, "umb_fs_walk: not the directory itself");
	TAP_EQ(walk(4, UMB_FS_EXEC), 0, "umb_fs_walk: not another name in it");

	/* The walk cannot end: denied (fail closed), by no layer. */
	TAP_EQ(walk(T_TREE - 2, UMB_FS_READ), 1,
	       "umb_fs_walk: deeper than UMB_WALK_MAX levels: denied");
	TAP_OK(OUT(0) == 0 && OUT(1) == UMB_FS_READ && OUT(3) == 0,
	       "umb_fs_walk: not done, no layer named");
	TAP_EQ(walk(T_TREE - 8, UMB_FS_READ), 0, "umb_fs_walk: 60 levels are walked");
	TAP_EQ(walk(T_TREE - 1, UMB_FS_READ), 1, "umb_fs_walk: a disconnected dentry: denied");
	TAP_OK(OUT(0) == 0 && OUT(3) == 0, "umb_fs_walk: not done, no layer named");

	fs_filter_close(&filter);
}

static void test_syscall(void)
{
	const struct umb_helpers_test__rodata *ro = skel->rodata;
	uint64_t nr_bpf = (uint64_t)SYS_bpf << 16 | nr32.bpf;
	uint64_t nr_swapon = (uint64_t)SYS_swapon << 16 | nr32.swapon;

	TAP_EQ(ro->t_nr_swapon, nr_swapon, "UMB_NR_SWAPON: swapon(2)'s numbers");
	TAP_EQ(ro->t_nr_swapoff, (uint64_t)SYS_swapoff << 16 | nr32.swapoff,
	       "UMB_NR_SWAPOFF: swapoff(2)'s numbers");
	TAP_EQ(ro->t_nr_add_key, (uint64_t)SYS_add_key << 16 | nr32.add_key,
	       "UMB_NR_ADD_KEY: add_key(2)'s numbers");
	TAP_EQ(ro->t_nr_request_key, (uint64_t)SYS_request_key << 16 | nr32.request_key,
	       "UMB_NR_REQUEST_KEY: request_key(2)'s numbers");
	TAP_EQ(ro->t_nr_keyctl, (uint64_t)SYS_keyctl << 16 | nr32.keyctl,
	       "UMB_NR_KEYCTL: keyctl(2)'s numbers");
	/* The program runs in this process's bpf(BPF_PROG_TEST_RUN, ...). */
	if (!TAP_EQ(RUN(t_syscall, nr_bpf, nr_swapon), 0, "t_syscall runs"))
		return;
	TAP_EQ(OUT(0), 1, "umb_in_syscall: in bpf(2)");
	TAP_EQ(OUT(1), 0, "umb_in_syscall: not in swapon(2)");
	TAP_EQ(OUT(2), BPF_PROG_TEST_RUN, "umb_syscall_arg1: bpf(2)'s command");
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	printf("# ");
	return vprintf(fmt, ap);
}

int main(void)
{
	int err;

	/* A skip is the plan "1..0 # SKIP" and exit 0: meson's TAP protocol takes any
	 * other exit status, 77 too, for an error. (tests/run, as root, never skips.) */
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (CAP_BPF, CAP_PERFMON) to load BPF programs\n");
		return 0;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("1..0 # SKIP the kernel has no BTF (/sys/kernel/btf/vmlinux)\n");
		return 0;
	}
	libbpf_set_print(print_libbpf);
	skel = umb_helpers_test__open_and_load();
	err = -errno;
	if (!TAP_OK(skel, "the test programs load"))
		TAP_DIAG("loading: %s (the verifier's log is above)", strerror(-err));
	if (!skel)
		return tap_finish();

	test_push_layer();
	test_layer_lookup();
	test_layer_denying();
	test_denial_pick();
	test_references();
	test_verdicts();
	test_domain();
	test_walk_match();
	test_filter();
	test_name_hash();
	test_level_match();
	test_walk();
	test_syscall();

	umb_helpers_test__destroy(skel);
	return tap_finish();
}
