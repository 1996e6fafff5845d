/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec gate's signed-policy -> layer cache (the pinned map umb_policies) */
#ifndef UMBRELLA_GATE_POLICIES_H
#define UMBRELLA_GATE_POLICIES_H

#include <linux/types.h>

#include <stdbool.h>

#include <umbrella/signed-elf-format.h> /* UMB_KEY_ID_LEN */

struct layers;

/* Who signed a policy, as the gate found it. */
struct gate_policy_signer {
	__u8 key_id[UMB_KEY_ID_LEN];
	/* A key the ring does not know: the layer is UMB_ORIGIN_UNKNOWN_SIGNER, charged to
	 * @uid (the file's owner: any user can write such a policy, so it counts against
	 * that user's limits), and cached apart from a known key's layers. */
	bool unknown;
	__u32 uid;
};

/* How many layers of policies signed by keys the ring does not know may be in force,
 * per file owner and in all (gate-policies.c: unknown_signer_room()). A vendor's
 * program on a machine without its key makes one per policy; past these its exec is
 * refused, as one whose restrictions cannot be applied. 64 such layers of at most 126
 * fs rules each stay well within the users' share of the rules. */
#define UNKNOWN_SIGNER_LAYERS_PER_OWNER 8
#define UNKNOWN_SIGNER_LAYERS_MAX	64

struct gate_policies {
	struct layers *layers; /* where the layers are made and held (not owned) */
	int map;	       /* umb_policies (not owned) */
};

/*
 * gate_policies_open() - the cache in @map, of layers made in @layers. Entries whose
 * layer is no longer live (a layer cannot be freed while the gate holds it; an entry
 * written just before a crash can outlive its layer) are deleted: the layers that a
 * previous umbrellad made are found again by their ids.
 */
void gate_policies_open(struct gate_policies *p, struct layers *layers, int map);

/*
 * gate_policies_cached() - (any thread: the gate's) the layer made before for @text
 * signed by @s, from umb_policies alone: live, held by the gate (gate-policies.c says
 * why no lock is needed). Return: 0 and *@ret_layer, -ENOENT when none was made yet, or
 * -errno.
 */
int gate_policies_cached(const struct gate_policies *p, const char *text,
			 const struct gate_policy_signer *s, __u32 *ret_layer);

/*
 * gate_policies_layer() - (the main loop's thread: the layers are its) the layer of
 * @text signed by @s: the one made for the same pair before (by this umbrellad or an
 * earlier one), or a new one, held by the gate for as long as the pins live, with the
 * key id and the binary's @path in its description.
 * Return: 0 and *@ret_layer, or -errno with *@ret_error (malloc'd, may be NULL).
 */
int gate_policies_layer(struct gate_policies *p, const char *text,
			const struct gate_policy_signer *s, __u32 pid, const char *path,
			__u32 *ret_layer, char **ret_error);

/*
 * gate_policies_abandon() - the layer @id that gate_policies_layer() returned for @text
 * and @s is not used after all (the exec that asked for it is refused): it is
 * dropped unless the cache keeps it, where the next exec of that policy finds it.
 */
void gate_policies_abandon(struct gate_policies *p, const char *text,
			   const struct gate_policy_signer *s, __u32 id);

#endif /* UMBRELLA_GATE_POLICIES_H */
