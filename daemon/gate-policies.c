// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's signed-policy -> layer cache: the binaries that carry the
 * same policy, signed by the same key, share one layer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "gate-internal.h"
#include "layers.h"

/* Remembers that @layer is the layer of @text signed by @key_id. Without memory it is
 * not remembered: the next binary with this policy gets a layer of its own, which is as
 * correct, only less frugal. */
static void policy_remember(struct exec_gate *g, const char *text, const __u8 *key_id,
			    __u32 layer)
{
	struct policy_layer *grown;

	grown = realloc(g->policies, (g->policy_count + 1) * sizeof(*grown));
	if (!grown)
		return;
	g->policies = grown;
	grown[g->policy_count] = (struct policy_layer){ .text = strdup(text), .layer = layer };
	memcpy(grown[g->policy_count].key_id, key_id, UMB_KEY_ID_LEN);
	if (grown[g->policy_count].text)
		g->policy_count++;
}

/*
 * The layer for @text signed by @key_id: the one made for the same pair before, or a new
 * one (with the key id and the binary's path in its description).
 * Return: 0 and *@ret_layer, or -errno with *@ret_error (malloc'd, may be NULL).
 */
int gate_policy_layer_get(struct exec_gate *g, const char *text, const __u8 *key_id,
			    __u32 pid, const char *path, __u32 *ret_layer, char **ret_error)
{
	struct umb_restrictions *r;
	struct umb_layer_desc desc;
	int ret, desc_fd;
	__u32 id;

	for (size_t i = 0; i < g->policy_count; i++) {
		if (!memcmp(g->policies[i].key_id, key_id, UMB_KEY_ID_LEN) &&
		    !strcmp(g->policies[i].text, text)) {
			*ret_layer = g->policies[i].layer;
			return 0;
		}
	}

	r = umb_restrictions__new();
	if (!r)
		return -ENOMEM;
	ret = umb_restrictions__parse(r, text, ret_error);
	if (ret < 0)
		goto out;
	/* Charged to root: the system's, not the exec'ing user's (see struct policy_layer). */
	ret = layers_create(g->maps.layers, r, pid, 0, UMB_ORIGIN_SIGNED_BINARY, &id, ret_error);
	if (ret < 0)
		goto out;
	(void)layers_hold(g->maps.layers, id);
	/* layers_create() describes rfork layers: add what only we know. No task carries
	 * the layer before its verdict is written, so nobody reads a half description. */
	desc_fd = g->maps.layers->maps.layer_desc;
	if (desc_fd > 0 && bpf_map_lookup_elem(desc_fd, &id, &desc) == 0) {
		memcpy(desc.key_id, key_id, sizeof(desc.key_id));
		if (snprintf(desc.origin_path, sizeof(desc.origin_path), "%s", path) >=
		    (int)sizeof(desc.origin_path))
			desc.flags |= UMB_DESC_ORIGIN_TRUNCATED;
		(void)bpf_map_update_elem(desc_fd, &id, &desc, BPF_EXIST);
	}

	policy_remember(g, text, key_id, id);
	*ret_layer = id;
	ret = 0;
out:
	umb_restrictions__free(r);
	return ret;
}

/*
 * Layers of signed binaries a previous umbrellad made (umb_layer_desc): reused, so that
 * restarts do not make a new layer per policy each time. A truncated text cannot be
 * compared and is skipped.
 */
void policy_layers_adopt(struct exec_gate *g)
{
	int desc_fd = g->maps.layers->maps.layer_desc;
	struct umb_layer_desc desc;
	__u32 key, next;
	bool first = true;

	if (desc_fd <= 0)
		return;
	/* Their references are still counted in their slots: held already. */
	while (bpf_map_get_next_key(desc_fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(desc_fd, &key, &desc) < 0 ||
		    desc.origin != UMB_ORIGIN_SIGNED_BINARY || desc.flags & UMB_DESC_TEXT_TRUNCATED ||
		    !layers_get(g->maps.layers, key))
			continue;
		desc.text[sizeof(desc.text) - 1] = '\0';
		policy_remember(g, desc.text, desc.key_id, key);
	}
}
