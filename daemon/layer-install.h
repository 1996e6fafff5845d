/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - turning a set of restrictions into a layer in the BPF maps */
#ifndef UMBRELLA_LAYER_INSTALL_H
#define UMBRELLA_LAYER_INSTALL_H

#include <stddef.h>
#include <stdint.h>

#include <umbrella/umbrella.h>

/* The maps a layer is written to (file descriptors). */
struct layer_maps {
	int layers;	/* umb_layers */
	int fs_inodes;	/* umb_fs_inodes */
	int fs_names;	/* umb_fs_names */
	int layer_desc; /* umb_layer_desc, for umbrella-cli; 0: not written (tests) */
	int fs_filter;	/* umb_fs_filter */
};

/*
 * layer_install() - write the layer @id made of @r into the maps
 * @creator_pid, @origin: provenance, kept in struct umb_layer and, with the text of @r,
 *                        in struct umb_layer_desc (when @maps has layer_desc)
 * @ret_error: if not NULL, on failure a malloc'd message naming the item and why
 *
 * All or nothing. Return: 0, -EEXIST if @id is taken, -E2BIG if a map is full,
 * -ENOSPC if an object is restricted by too many layers, -ENOENT if an fs path's
 * directory does not exist, or another -errno.
 */
int layer_install(const struct layer_maps *maps, uint32_t id, const struct umb_restrictions *r,
		  uint32_t creator_pid, uint32_t origin, char **ret_error);

/* The hash of a name in struct umb_name_key (FNV-1a 64); the BPF side computes the same. */
uint64_t layer_name_hash(const char *name, size_t len);

#endif /* UMBRELLA_LAYER_INSTALL_H */
