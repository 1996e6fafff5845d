/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - turning a set of restrictions into a layer's entries in the BPF maps */
#ifndef UMBRELLA_LAYER_INSTALL_H
#define UMBRELLA_LAYER_INSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/umbrella.h>

#include "fs-filter.h"

/* The maps a layer is written to (file descriptors). */
struct layer_maps {
	int layers;	/* umb_layers */
	int fs_inodes;	/* umb_fs_inodes */
	int fs_names;	/* umb_fs_names */
	int layer_desc; /* umb_layer_desc, for umbrella-cli; 0: not written (tests) */
	int fs_filter;	/* umb_fs_filter */
	int arm;	/* umb_arm */
	int live;	/* umb_live */
};

/* The entries of one layer in umb_fs_inodes and umb_fs_names, to delete with it. */
struct layer_rules {
	struct umb_fs_key *inodes;
	size_t inode_count;
	struct umb_fs_name_key *names;
	size_t name_count;
};

/* A directory that an fs item restricts: the mounts made below it later get its rule on
 * their roots too (fs-watch.h). */
struct layer_dir {
	char *path;	 /* canonical, as the caller sees it */
	uint32_t access; /* UMB_FS_* the item denies */
};

struct layer_dirs {
	struct layer_dir *v;
	size_t count;
};

/* The descriptors (O_PATH) a caller opened for one fs item of its request. */
struct fs_ref {
	int dir_fd; /* the directory that holds the item's last name; -1 for "/" */
	int obj_fd; /* the object; -1 when it does not exist */
};

/* A caller's fs items, as it resolved them (protocol.h): umbrellad resolves none. */
struct fs_refs {
	const struct fs_ref *items; /* one per fs item of the restrictions, in order */
	size_t count;
	int peer;    /* the caller's pid: its mountinfo names the super blocks of its mounts */
	int proc_fd; /* its /proc/PID directory (peer.h), or -1: /proc/PID is opened */
};

/*
 * layer_install() - write the fs entries and the description of the layer @id made of
 * @r, and work out its struct umb_layer
 * @filter: counts the inode entries written (fs-filter.h)
 * @refs: where the fs items are, as the caller resolved them; NULL: umbrellad resolves
 *        their paths itself, in its own mount namespace (signed binaries, the tests)
 * @creator_pid, @origin: provenance, kept in struct umb_layer and, with the text of @r,
 *                        in struct umb_layer_desc (when @maps has layer_desc)
 * @ret_layer: the layer's deny sets and provenance (for its slot: layers.c writes it)
 * @ret_rules: the entries written, which the caller owns from then on
 * @ret_dirs: if not NULL, the directories the fs items restrict (the caller frees them
 *            with layer_dirs_clear())
 * @ret_error: if not NULL, on failure a malloc'd message naming the item and why
 *
 * All or nothing. Return: 0, -E2BIG if a map is full, -ENOENT if an fs path's
 * directory does not exist, or another -errno.
 */
int layer_install(const struct layer_maps *maps, struct fs_filter *filter, uint32_t id,
		  const struct umb_restrictions *r, const struct fs_refs *refs,
		  uint32_t creator_pid, uint32_t origin, struct umb_layer *ret_layer,
		  struct layer_rules *ret_rules, struct layer_dirs *ret_dirs, char **ret_error);

void layer_dirs_clear(struct layer_dirs *dirs);

/*
 * layer_rules_add_root() - adds @access to the layer's (@key->layer) umb_fs_inodes entry
 * at @key, the root of a mount below one of its restricted directories (fs-watch.c),
 * creating it and remembering it in @rules, which the layer owns. Return: 0, -E2BIG when
 * the map is full, or another -errno.
 */
int layer_rules_add_root(const struct layer_maps *maps, struct fs_filter *filter,
			 struct layer_rules *rules, const struct umb_fs_key *key, uint32_t access);

/* Deletes the entries @rules lists (and uncounts them in @filter), then clears @rules. */
void layer_rules_remove(const struct layer_maps *maps, struct fs_filter *filter,
			struct layer_rules *rules);

/* Remembers an entry found in the maps (at start). Return: 0 or -ENOMEM. */
int layer_rules_add_inode(struct layer_rules *rules, const struct umb_fs_key *key);
int layer_rules_add_name(struct layer_rules *rules, const struct umb_fs_name_key *key);

/* Whether the walk reads the umb_fs_inodes entry @rule (an access it denies, or names
 * in the directory), which umb_fs_filter then counts: not a mark that is only an
 * ancestor's (UMB_FS_ANCESTOR), which lib/ancestors.bpf.h looks up without the filter.
 * So a file system that holds only the directories above the rules is not walked. */
bool layer_rule_filtered(const struct umb_fs_rule *rule);

/* Remembers the umb_fs_inodes entry @key found at start (layer_rules_add_inode()), and
 * counts it in @filter if the walk reads it. Return: 0 or -ENOMEM. */
int layer_rules_adopt_inode(const struct layer_maps *maps, struct fs_filter *filter,
			    struct layer_rules *rules, const struct umb_fs_key *key);

/* Frees what @rules holds, without touching the maps. */
void layer_rules_clear(struct layer_rules *rules);

/* The hash of a name in struct umb_fs_name_key (FNV-1a 64); the BPF side computes the same. */
uint64_t layer_name_hash(const char *name, size_t len);

#endif /* UMBRELLA_LAYER_INSTALL_H */
