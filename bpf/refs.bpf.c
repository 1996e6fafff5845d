// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - the references of layers: a task's stack holds one on each of its layers
 * and on its pending layer, an arm holds one on its layer (include/umbrella/bpf-abi.h,
 * struct umb_layer). The holder that drops the last reports the layer on umb_released
 * for umbrellad to free.
 *
 * Global functions in a unit of their own (declared in lib/layers.bpf.h), as the walk
 * is (walk.bpf.h): the verifier checks each once per program that calls it, on its own,
 * instead of once per call site with its loops unrolled into the caller's states. Inlined,
 * umb_state_hold()'s loop over the stack, each step with umb_layer_hold()'s loop of
 * retries and the undo's loop of puts, was most of task_alloc's verification (63 K
 * instructions processed, twice: once per place that makes a child's state). Not
 * __hidden: the linker gives hidden functions static linkage, which the verifier checks
 * per call site again.
 */
#include "maps.bpf.h"
#include "lib/layers.bpf.h"

/* How often umb_layer_hold() retries a compare-and-swap that another CPU won. */
#define UMB_HOLD_TRIES 16

/*
 * umb_layer_hold() - (layers.bpf.h) Never from 0: a layer nobody holds may be being
 * freed by umbrellad right now, and must not be taken up again. -EPERM: no such layer,
 * not held, or the count kept changing.
 */
__noinline int umb_layer_hold(__u32 id)
{
	struct umb_layer *layer = umb_layer_get(id);

	if (!layer)
		return -EPERM;
	for (int i = 0; i < UMB_HOLD_TRIES; i++) {
		__u32 refs = layer->refs;

		if (!refs)
			return -EPERM;
		if (__sync_val_compare_and_swap(&layer->refs, refs, refs + 1) == refs)
			return 0;
	}
	return -EPERM;
}

/* umb_layer_put() - (layers.bpf.h) The last reference reports the layer to umbrellad,
 * which frees it (or, if the record is lost, its next sweep does). */
__noinline int umb_layer_put(__u32 id)
{
	struct umb_layer *layer = umb_layer_get(id);
	struct umb_release rec = { .layer = id };
	__u32 key = UMB_STAT_RELEASES_DROPPED;
	__u64 *dropped;

	if (!layer)
		return 0;
	if (__sync_fetch_and_sub(&layer->refs, 1) != 1)
		return 0;
	if (bpf_ringbuf_output(&umb_released, &rec, sizeof(rec), 0)) {
		dropped = bpf_map_lookup_elem(&umb_stats, &key);
		if (dropped)
			(*dropped)++;
	}
	return 0;
}

/*
 * umb_state_hold() - (layers.bpf.h) One reference on each layer of @state's stack and on
 * its pending layer, for a state copied from another task. -EPERM when a layer is gone
 * (cannot happen while the task copied from holds them), with nothing taken; also for
 * no state at all (never passed: the verifier does not know that).
 */
__noinline int umb_state_hold(struct umb_task_state *state)
{
	__u32 i, n;

	if (!state)
		return -EPERM;
	n = state->layer_count;
	state->flags &= ~UMB_TASK_COUNTED;
	for (i = 0; i < UMB_MAX_LAYERS; i++) {
		if (i >= n)
			break;
		if (umb_layer_hold(state->layers[i]))
			goto undo;
	}
	if (state->pending_layer && umb_layer_hold(state->pending_layer))
		goto undo;
	state->flags |= UMB_TASK_COUNTED;
	return 0;

undo:
	for (__u32 j = 0; j < UMB_MAX_LAYERS; j++) {
		if (j >= i)
			break;
		umb_layer_put(state->layers[j]);
	}
	return -EPERM;
}

/* umb_state_put() - (layers.bpf.h) Once: a second program version attached beside this
 * one finds the state no longer counted. */
__noinline int umb_state_put(struct umb_task_state *state)
{
	if (!state || !(state->flags & UMB_TASK_COUNTED))
		return 0;
	state->flags &= ~UMB_TASK_COUNTED;
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		if (i >= state->layer_count)
			break;
		umb_layer_put(state->layers[i]);
	}
	if (state->pending_layer)
		umb_layer_put(state->pending_layer);
	return 0;
}
