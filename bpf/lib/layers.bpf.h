/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - the layer stack of a task: pushing a layer, finding the layer that denies */
#ifndef UMBRELLA_LAYERS_BPF_H
#define UMBRELLA_LAYERS_BPF_H

#include "../maps.bpf.h"

/*
 * umb_push_layer() - put layer @id on top of @state's stack
 *
 * Merges the layer's deny sets into the task's unions. Returns 0, or -EPERM when the
 * stack is full or the layer does not exist: the caller must then refuse what it was
 * doing (fail closed), never carry on without the layer.
 */
static __always_inline int umb_push_layer(struct umb_task_state *state, __u32 id)
{
	const struct umb_layer *layer;
	__u32 count = state->layer_count;

	if (count >= UMB_MAX_LAYERS)
		return -EPERM;
	layer = bpf_map_lookup_elem(&umb_layers, &id);
	if (!layer)
		return -EPERM;
	state->layers[count & (UMB_MAX_LAYERS - 1)] = id;
	state->layer_count = count + 1;
	state->denied_caps |= layer->denied_caps;
	state->denied_families |= layer->denied_families;
	state->denied_capabilities |= layer->denied_capabilities;
	state->fs_access |= layer->fs_access;
	return 0;
}

/* Which deny set of struct umb_layer umb_layer_denying() looks at. */
enum umb_layer_set {
	UMB_SET_CAPS,	      /* denied_caps */
	UMB_SET_FAMILIES,     /* denied_families */
	UMB_SET_CAPABILITIES, /* denied_capabilities */
};

/*
 * umb_layer_denying() - the id of the lowest layer of @state whose set @set intersects
 * @bits, for the audit record of a denial the task's unions already decided. Returns 0
 * if no layer is found (cannot happen while layers are immutable).
 */
static __always_inline __u32 umb_layer_denying(const struct umb_task_state *state,
					       enum umb_layer_set set, __u64 bits)
{
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		const struct umb_layer *layer;
		__u32 id;
		__u64 denied;

		if (i >= state->layer_count)
			break;
		id = state->layers[i];
		layer = bpf_map_lookup_elem(&umb_layers, &id);
		if (!layer)
			continue;
		denied = set == UMB_SET_CAPS	       ? layer->denied_caps :
			 set == UMB_SET_FAMILIES ? layer->denied_families :
						   layer->denied_capabilities;
		if (denied & bits)
			return id;
	}
	return 0;
}

#endif /* UMBRELLA_LAYERS_BPF_H */
