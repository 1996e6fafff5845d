/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the layer lifecycle: creating layers, their holders, freeing them */
#ifndef UMBRELLA_LAYERS_H
#define UMBRELLA_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/umbrella.h>

#include "fs-filter.h"
#include "layer-install.h"

struct fs_watch;

/* Per-user limits (umbrella.conf). Root's layers count toward the maps' sizes only. */

/* The uid that a root process carrying layers is charged as: not exempt like root. */
#define LAYER_UID_RESTRICTED_ROOT UMB_UID_RESTRICTED_ROOT
struct layer_limits {
	unsigned int user_layers; /* live layers per uid; 0: no limit */
	unsigned int user_rules;  /* fs entries of the live layers per uid; 0: no limit */
};

#define LAYER_LIMITS_DEFAULT ((struct layer_limits){ .user_layers = 1024, .user_rules = 8192 })

/* What one uid holds. */
struct layer_usage {
	uint32_t uid;
	unsigned int layers, rules;
};

/* Figures for umbrella-cli status (and the benchmark's soak). */
struct layer_stats {
	unsigned int live;  /* layers alive */
	unsigned int rules; /* their fs entries (umb_fs_inodes + umb_fs_names) */
	uint64_t freed;	    /* layers freed since the maps were created */
};

/*
 * The one owner of the layers (include/umbrella/bpf-abi.h, struct umb_layer): it hands
 * out slots and ids, writes layers (with layer_install()), takes and drops umbrellad's
 * own references, and frees a layer when its last holder goes. Everything it keeps in
 * memory can be rebuilt from the maps (layers_adopt()), so umbrellad may be killed at
 * any point: a layer half made or half freed holds no reference, and the next start
 * frees it.
 */
struct layers {
	struct layer_maps maps;
	int meta_fd;		 /* umb_meta (layers_freed); -1: none (tests) */
	struct umb_meta meta;	 /* its value: layers_freed is ours to count */
	struct umb_layer *slots; /* umb_layers, mapped */
	struct umb_live *live;	 /* umb_live, mapped */
	struct fs_filter filter;
	struct layer_rules *rules; /* [UMB_LAYER_SLOTS]: each live layer's fs entries */
	struct layer_usage *usage; /* per uid, unsorted */
	size_t usage_count;
	struct layer_limits limits;
	unsigned int live_count, rule_count;
	uint32_t next_slot;	/* where the search for a free slot starts */
	struct fs_watch *watch; /* follows the mounts below restricted directories; NULL: not
				 * followed (the benchmark, the tests) */
};

/* Maps the slots and the filter of @maps. Return: 0 or -errno. */
int layers_open(struct layers *l, const struct layer_maps *maps, int meta_fd);
void layers_close(struct layers *l);

/*
 * layers_adopt() - learn the layers in the maps (a restart): their entries, the filter
 * counts, the usage per uid; delete entries and descriptions of layers that are gone,
 * and free the layers nobody holds. Return: the layers freed (>= 0), or -errno.
 */
int layers_adopt(struct layers *l);

/*
 * layers_create() - a new layer made of @r, asked for by @uid
 *
 * The layer holds no reference yet: the caller gives it its first holder at once
 * (arm_thread(), or layers_hold() for the exec gate); layers_sweep() frees a layer
 * without holders. Return: 0 and *@ret_id, or -errno with *@ret_error (malloc'd, may
 * be NULL): -ENOSPC when every slot is live, a rule map is full or a per-user limit is
 * reached (the message names which; it frees up as restricted processes exit), or what
 * layer_install() returns.
 */
int layers_create(struct layers *l, const struct umb_restrictions *r, uint32_t creator_pid,
		  uint32_t uid, uint32_t origin, uint32_t *ret_id, char **ret_error);

/* layers_create() of a caller's request, whose fs items the caller resolved: @refs
 * (layer_install()); layers_create() resolves them in umbrellad's mount namespace.
 * @flags: UMB_LAYER_* (UMB_LAYER_PERMISSIVE: the request's UMB_ARM_PERMISSIVE). */
int layers_create_at(struct layers *l, const struct umb_restrictions *r, const struct fs_refs *refs,
		     uint32_t creator_pid, uint32_t uid, uint32_t origin, uint32_t flags,
		     uint32_t *ret_id, char **ret_error);

/*
 * layers_add_root_rule() - adds @access to the rule of the live layer @id on the inode
 * (@dev, @ino), the root of a mount made below one of its restricted directories after
 * the layer (fs-watch.c). A new entry counts against the layer owner's limits and is
 * freed with the layer. Return: 1 when added, 0 when the rule was there, -ENOENT if the
 * layer is gone, -ENOSPC with
 * *@ret_error (malloc'd, may be NULL) when a limit or the map is full, or -errno.
 */
int layers_add_root_rule(struct layers *l, uint32_t id, uint32_t dev, uint64_t ino, uint32_t access,
			 char **ret_error);

/* Takes a reference on the live layer @id (umbrellad's own holders: the exec gate). */
int layers_hold(struct layers *l, uint32_t id);

/* Drops a reference umbrellad took; frees the layer if it was the last. */
void layers_put(struct layers *l, uint32_t id);

/* The kernel dropped the last reference on @id (a umb_released record): frees it, if it
 * is still live and unheld. */
void layers_released(struct layers *l, uint32_t id);

/* Frees every live layer that nobody holds (records lost to a full ring buffer).
 * Return: the number freed. */
unsigned int layers_sweep(struct layers *l);

void layers_stats(const struct layers *l, struct layer_stats *ret);

/* The live layer @id's slot, or NULL. */
const struct umb_layer *layers_get(const struct layers *l, uint32_t id);

#endif /* UMBRELLA_LAYERS_H */
