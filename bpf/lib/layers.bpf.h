/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the layer stack of a task: the references a stack holds, pushing a layer,
 * finding the layer that denies.
 *
 * A layer is freed when its last holder goes (include/umbrella/bpf-abi.h, struct
 * umb_layer): the kernel's holders take and drop their references with the functions
 * of refs.bpf.c declared here, and the one that drops the last reports the layer on
 * umb_released for umbrellad to free.
 */
#ifndef UMBRELLA_LAYERS_BPF_H
#define UMBRELLA_LAYERS_BPF_H

#include "../maps.bpf.h"

/* The live layer @id, or NULL (a free slot, or a slot since given to another layer). */
static __always_inline struct umb_layer *umb_layer_get(__u32 id)
{
	__u32 slot = umb_layer_slot(id);
	struct umb_layer *layer;

	if (!id)
		return NULL;
	layer = bpf_map_lookup_elem(&umb_layers, &slot);
	if (!layer || layer->id != id)
		return NULL;
	return layer;
}

/*
 * The references of layers (refs.bpf.c): global functions, which the verifier checks
 * once per program that calls them rather than inlined at every call site (each has a
 * bounded loop: task_alloc inlined the holds of a whole stack twice, 63 K instructions
 * processed). A global function sees plain memory and scalars only: the state is passed
 * as plain memory, which may be NULL to the verifier (each checks).
 */

/* umb_layer_hold() - take a reference on the live layer @id, for a holder that copies it
 * from another holder: 0, or -EPERM (the caller fails closed) */
int umb_layer_hold(__u32 id);
/* umb_layer_put() - drop a reference on layer @id; the last one reports it to umbrellad.
 * Returns 0 (a global function returns a scalar on Linux 6.1). */
int umb_layer_put(__u32 id);

/*
 * umb_state_create() - the state of @task, made empty if it has none
 *
 * A state made here holds nothing yet, so it is UMB_TASK_COUNTED at once: it holds
 * whatever is pushed on it from now on, and drops it when the task goes. (A state with
 * layers written by other means, a test's, stays uncounted.) Returns NULL when out of
 * memory, or on Linux 6.1 when the CPU's storage lock is busy.
 */
static __always_inline struct umb_task_state *umb_state_create(struct task_struct *task)
{
	struct umb_task_state *state;

	state = bpf_task_storage_get(&umb_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (state && !state->layer_count && !state->pending_layer)
		state->flags |= UMB_TASK_COUNTED;
	return state;
}

/* umb_state_hold() - take the references of a state copied from another task, all or
 * nothing: 0 (the state is UMB_TASK_COUNTED), or -EPERM with nothing taken */
int umb_state_hold(struct umb_task_state *state);
/* umb_state_put() - drop the references umb_state_hold() took, once. Returns 0. */
int umb_state_put(struct umb_task_state *state);

/*
 * umb_push_layer() - put layer @id on top of @state's stack, with the reference the
 * caller hands over (an arm's, a pending layer's, or one it took)
 *
 * Merges the layer's deny sets into the task's unions. Returns 0, or -EPERM when the
 * stack is full or the layer does not exist: the caller must then refuse what it was
 * doing (fail closed), never carry on without the layer, and still owns the reference.
 */
static __always_inline int umb_push_layer(struct umb_task_state *state, __u32 id)
{
	const struct umb_layer *layer;
	__u32 count = state->layer_count;

	if (count >= UMB_MAX_LAYERS)
		return -EPERM;
	layer = umb_layer_get(id);
	if (!layer)
		return -EPERM;
	state->layers[count & (UMB_MAX_LAYERS - 1)] = id;
	state->layer_count = count + 1;
	state->denied_caps |= layer->denied_caps;
	state->denied_families |= layer->denied_families;
	state->denied_capabilities |= layer->denied_capabilities;
	state->fs_access |= layer->fs_access;
	if (layer->fs_access)
		state->fs_layers |= 1U << (count & (UMB_MAX_LAYERS - 1));
	return 0;
}

/* Whether layer @id is on @state's stack. */
static __always_inline bool umb_state_has_layer(const struct umb_task_state *state, __u32 id)
{
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		if (i >= state->layer_count)
			break;
		if (state->layers[i] == id)
			return true;
	}
	return false;
}

/* Which deny set of struct umb_layer umb_layer_denying() looks at. */
enum umb_layer_set {
	UMB_SET_CAPS,	      /* denied_caps */
	UMB_SET_FAMILIES,     /* denied_families */
	UMB_SET_CAPABILITIES, /* denied_capabilities */
};

/* Whether layer @id only records its denials (UMB_LAYER_PERMISSIVE). A layer that is
 * gone (cannot happen while the task holds it) enforces: fail closed. */
static __always_inline bool umb_layer_permissive(__u32 id)
{
	const struct umb_layer *layer = umb_layer_get(id);

	return layer && (layer->flags & UMB_LAYER_PERMISSIVE);
}

/*
 * umb_layer_denying() - the id of the layer of @state whose set @set intersects @bits,
 * for the record of a denial the task's unions already decided: the lowest one that
 * enforces, else the lowest permissive one (whose denial is then only recorded). A
 * permissive layer never hides the denial of an enforcing one. Returns 0 if no layer is
 * found (cannot happen while the task holds its layers).
 */
static __always_inline __u32 umb_layer_denying(const struct umb_task_state *state,
					       enum umb_layer_set set, __u64 bits)
{
	__u32 permissive = 0;

	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		const struct umb_layer *layer;
		__u64 denied;

		if (i >= state->layer_count)
			break;
		layer = umb_layer_get(state->layers[i]);
		if (!layer)
			continue;
		denied = set == UMB_SET_CAPS	 ? layer->denied_caps :
			 set == UMB_SET_FAMILIES ? layer->denied_families :
						   layer->denied_capabilities;
		if (!(denied & bits))
			continue;
		if (!(layer->flags & UMB_LAYER_PERMISSIVE))
			return state->layers[i];
		if (!permissive)
			permissive = state->layers[i];
	}
	return permissive;
}

/*
 * umb_fs_layer() - the layer that answers for a denial by @state's fs rules that no rule
 * names (a walk that cannot end, a mount moved by name): the lowest layer with fs rules
 * that enforces, else the lowest one (permissive); 0 when none has fs rules.
 */
static __always_inline __u32 umb_fs_layer(const struct umb_task_state *state)
{
	__u32 permissive = 0;

	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		__u32 id;

		if (i >= state->layer_count)
			break;
		if (!(state->fs_layers & (1U << i)))
			continue;
		id = state->layers[i];
		if (!umb_layer_permissive(id))
			return id;
		if (!permissive)
			permissive = id;
	}
	return permissive;
}

/*
 * A hook that more than one restriction may deny (a socket: "net:all", "net",
 * "net:FAMILY") tries each with umb_denial_pick(), and records the one picked: the first
 * whose layer enforces, else the first found (permissive: only recorded).
 */
struct umb_denial_pick {
	__u64 item;
	__u32 item_kind;
	__u32 layer;
	bool found;
};

/* Keeps the denial by @layer (umb_layer_denying()) of @item in @p unless @p has one
 * already and @layer is permissive. Returns whether @layer enforces: the search ends. */
static __always_inline bool umb_denial_pick(struct umb_denial_pick *p, __u32 layer, __u32 item_kind,
					    __u64 item)
{
	bool enforcing = !umb_layer_permissive(layer);

	if (!p->found || enforcing) {
		p->item = item;
		p->item_kind = item_kind;
		p->layer = layer;
		p->found = true;
	}
	return enforcing;
}

#endif /* UMBRELLA_LAYERS_BPF_H */
