// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - turning a set of restrictions into a layer in the BPF maps.
 *
 * This is the one place that knows how a restriction item becomes map entries:
 *   - capability, family and Linux capability items become bits of struct umb_layer;
 *   - "fs:PATH" becomes the layer's entry on PATH's inode (umb_fs_inodes: follows the
 *     object through renames, hard links and bind mounts) and, unless PATH is "/", on
 *     PATH's name in its parent directory (umb_fs_names: holds for a file created there
 *     later or put there by rename), with the layer's UMB_FS_HAS_NAMES entry on the
 *     parent. PATH need not exist, but its parent must. Inodes are keyed as the BPF
 *     walk keys them (kdev.h). Every entry is the layer's own
 *     (its id is in the key): no other layer's entries are read or changed, and the
 *     entries go with the layer (layer_rules_remove()).
 * Installing is all or nothing: on any failure the entries already written are taken
 * back, and the error names the item. Beside the layer goes its description
 * (umb_layer_desc: the text, who asked and when), since umbrella-cli cannot turn inode
 * keys back into paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <umbrella/kdev.h>

#include "layer-install.h"

struct install {
	const struct layer_maps *maps;
	struct fs_filter *filter;
	uint32_t layer;
	struct layer_rules *rules; /* what it wrote, to take back or to free with the layer */
};

uint64_t layer_name_hash(const char *name, size_t len)
{
	uint64_t hash = UMB_FNV64_OFFSET;

	for (size_t i = 0; i < len; i++) {
		hash ^= (unsigned char)name[i];
		hash *= UMB_FNV64_PRIME;
	}
	return hash;
}

/* Appends @key to the array *@keys of *@count (grown by doubling). */
static int keys_append(void **keys, size_t *count, size_t size, const void *key)
{
	if ((*count & (*count - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
		void *grown = realloc(*keys, (*count ? 2 * *count : 4) * size);

		if (!grown)
			return -ENOMEM;
		*keys = grown;
	}
	memcpy((char *)*keys + *count * size, key, size);
	(*count)++;
	return 0;
}

int layer_rules_add_inode(struct layer_rules *rules, const struct umb_fs_key *key)
{
	return keys_append((void **)&rules->inodes, &rules->inode_count, sizeof(*key), key);
}

int layer_rules_add_name(struct layer_rules *rules, const struct umb_fs_name_key *key)
{
	return keys_append((void **)&rules->names, &rules->name_count, sizeof(*key), key);
}

/*
 * Adds @access and @flags to this layer's entry at @key in @map_fd (creating it). A new
 * inode entry is counted in the filter before it is written. Returns 0, -E2BIG when
 * the map is full, or another -errno.
 */
static int rule_add(struct install *in, int map_fd, const void *key, uint32_t access,
		    uint32_t flags)
{
	bool inode = map_fd == in->maps->fs_inodes;
	const struct umb_fs_key *dir = key; /* the inode, or a name's directory */
	struct umb_fs_rule rule = {};
	int r;

	if (bpf_map_lookup_elem(map_fd, key, &rule) == 0) {
		/* Written by this install already (the same path twice, or a directory that
		 * is restricted and holds restricted names): merge. */
		rule.access |= access;
		rule.flags |= flags;
		return bpf_map_update_elem(map_fd, key, &rule, BPF_EXIST) < 0 ? -errno : 0;
	}
	if (errno != ENOENT)
		return -errno;
	rule = (struct umb_fs_rule){ .access = access, .flags = flags };
	r = inode ? layer_rules_add_inode(in->rules, key) : layer_rules_add_name(in->rules, key);
	if (r < 0)
		return r;
	if (inode)
		fs_filter_add(in->filter, dir->dev, dir->ino);
	if (bpf_map_update_elem(map_fd, key, &rule, BPF_NOEXIST) < 0) {
		r = errno == ENOMEM || errno == E2BIG ? -E2BIG : -errno;
		/* Not written: forget it, so that it is neither deleted nor uncounted. */
		if (inode) {
			in->rules->inode_count--;
			fs_filter_remove(in->filter, dir->dev, dir->ino);
		} else {
			in->rules->name_count--;
		}
		return r;
	}
	return 0;
}

void layer_rules_remove(const struct layer_maps *maps, struct fs_filter *filter,
			struct layer_rules *rules)
{
	/* Names first: a name entry is looked up only below its directory's entry. */
	for (size_t i = 0; i < rules->name_count; i++)
		(void)bpf_map_delete_elem(maps->fs_names, &rules->names[i]);
	for (size_t i = 0; i < rules->inode_count; i++) {
		const struct umb_fs_key *key = &rules->inodes[i];

		if (bpf_map_delete_elem(maps->fs_inodes, key) == 0 || errno == ENOENT)
			fs_filter_remove(filter, key->dev, key->ino);
	}
	layer_rules_clear(rules);
}

void layer_rules_clear(struct layer_rules *rules)
{
	free(rules->inodes);
	free(rules->names);
	*rules = (struct layer_rules){};
}

/*
 * The canonical form of @path (symlinks and ".." resolved, as open() would) in @canon:
 * of the path itself when it exists, else of its parent directory plus the last name.
 */
static int canonicalize(const char *path, char canon[PATH_MAX], char **ret_error)
{
	char parent[PATH_MAX], real_parent[PATH_MAX];
	char *name;
	size_t len = strlen(path);

	if (realpath(path, canon))
		return 0;
	if (errno != ENOENT)
		return -errno;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	name = strrchr(parent, '/');
	*name++ = '\0'; /* parent: the directory ("" for the root), name: the last name */
	if (!realpath(parent[0] ? parent : "/", real_parent)) {
		int r = -errno;

		if (ret_error && r == -ENOENT)
			(void)asprintf(ret_error, "fs:%s: the directory %s does not exist", path,
				       parent);
		return r;
	}
	if ((size_t)snprintf(canon, PATH_MAX, "%s/%s", strcmp(real_parent, "/") ? real_parent : "",
			     name) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* The inode @fd refers to, keyed as the BPF walk keys it: the super block's s_dev and
 * i_ino, which stat() does not tell on btrfs and overlayfs (kdev.h). */
static int key_of(int fd, struct umb_fs_key *key)
{
	uint64_t ino;
	int r = umb_kernel_inode(fd, 0, &key->dev, &ino);

	key->ino = ino;
	return r;
}

static int install_fs(struct install *in, const struct umb_item *item, char **ret_error)
{
	char canon[PATH_MAX];
	struct umb_fs_key key = { .layer = in->layer };
	struct umb_fs_name_key name_key = { .dir = { .layer = in->layer } };
	char *name;
	int fd, r;

	r = canonicalize(item->path, canon, ret_error);
	if (r < 0)
		return r;

	/* The canonical path holds no symlink: one put there since is not followed. */
	fd = open(canon, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		r = key_of(fd, &key);
		close(fd);
		if (r < 0)
			return r;
		r = rule_add(in, in->maps->fs_inodes, &key, item->fs_access, 0);
		if (r < 0)
			return r;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (strcmp(canon, "/") == 0)
		return 0; /* the root has no name in a parent */

	/* The name in its parent directory, marked so the hooks look names up there. */
	name = strrchr(canon, '/');
	*name++ = '\0';
	fd = open(canon[0] ? canon : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = key_of(fd, &name_key.dir);
	close(fd);
	if (r < 0)
		return r;
	name_key.name_hash = layer_name_hash(name, strlen(name));
	r = rule_add(in, in->maps->fs_inodes, &name_key.dir, 0, UMB_FS_HAS_NAMES);
	if (r < 0)
		return r;
	return rule_add(in, in->maps->fs_names, &name_key, item->fs_access, 0);
}

/* Is the comma at @text[@i] a separator, not an escaped comma inside a path? */
static bool is_separator(const char *text, size_t i)
{
	size_t backslashes = 0;

	while (i > backslashes && text[i - 1 - backslashes] == '\\')
		backslashes++;
	return text[i] == ',' && backslashes % 2 == 0;
}

/* Copies the text of @r into @desc, cut after the last whole item that fits. */
static int describe_text(struct umb_layer_desc *desc, const struct umb_restrictions *r)
{
	char *text = NULL;
	size_t len;

	if (umb_restrictions__format(r, &text) < 0)
		return -ENOMEM;
	len = strlen(text);
	if (len >= sizeof(desc->text)) {
		desc->flags |= UMB_DESC_TEXT_TRUNCATED;
		len = sizeof(desc->text) - 1;
		while (len > 0 && !is_separator(text, len))
			len--;
	}
	memcpy(desc->text, text, len);
	free(text);
	return 0;
}

/* Who asked for the layer, as far as /proc still tells: best effort, the creator may
 * be gone (a signed binary's exec), and the layer is no less valid for it. */
static void describe_creator(struct umb_layer_desc *desc, uint32_t pid)
{
	char path[64];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(desc->creator_comm, sizeof(desc->creator_comm), f))
			desc->creator_comm[strcspn(desc->creator_comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, desc->origin_path, sizeof(desc->origin_path) - 1);
	if (n == (ssize_t)sizeof(desc->origin_path) - 1)
		desc->flags |= UMB_DESC_ORIGIN_TRUNCATED; /* readlink() does not say */
	if (n < 0)
		desc->origin_path[0] = '\0';
}

/* Writes the description of layer @id, before the layer: a reader that finds the layer
 * finds its description. */
static int describe(const struct layer_maps *maps, uint32_t id, const struct umb_restrictions *r,
		    uint32_t creator_pid, uint32_t origin)
{
	struct umb_layer_desc desc = { .creator_pid = creator_pid, .origin = origin };
	struct timespec now;
	int ret;

	if (maps->layer_desc <= 0)
		return 0;
	if (clock_gettime(CLOCK_REALTIME, &now) == 0)
		desc.created_ns = (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec;
	describe_creator(&desc, creator_pid);
	ret = describe_text(&desc, r);
	if (ret < 0)
		return ret;
	if (bpf_map_update_elem(maps->layer_desc, &id, &desc, BPF_ANY) < 0)
		return errno == E2BIG || errno == ENOMEM ? -E2BIG : -errno;
	return 0;
}

int layer_install(const struct layer_maps *maps, struct fs_filter *filter, uint32_t id,
		  const struct umb_restrictions *r, uint32_t creator_pid, uint32_t origin,
		  struct umb_layer *ret_layer, struct layer_rules *ret_rules, char **ret_error)
{
	struct install in = { .maps = maps, .filter = filter, .layer = id, .rules = ret_rules };
	struct umb_layer layer = { .creator_pid = creator_pid, .origin = origin };
	int ret = 0;

	*ret_rules = (struct layer_rules){};
	if (ret_error)
		*ret_error = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);

		switch (item->kind) {
		case UMB_ITEM_CAP:
			layer.denied_caps |= item->value;
			break;
		case UMB_ITEM_NET_FAMILY:
			layer.denied_families |= 1ULL << item->value;
			break;
		case UMB_ITEM_LINUX_CAP:
			layer.denied_capabilities |= 1ULL << item->value;
			break;
		case UMB_ITEM_FS:
			layer.fs_access |= item->fs_access;
			layer.fs_rule_count++;
			ret = install_fs(&in, item, ret_error);
			if (ret < 0 && ret_error && !*ret_error)
				(void)asprintf(ret_error, "fs:%s: %s", item->path,
					       ret == -E2BIG ? "the rule map is full (it frees up "
							       "as restricted processes exit)" :
							       strerror(-ret));
			break;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret < 0)
			goto out_rollback;
	}

	ret = describe(maps, id, r, creator_pid, origin);
	if (ret < 0) {
		if (ret_error)
			(void)asprintf(ret_error, "cannot describe layer %u: %s", id,
				       ret == -E2BIG ? "the description map is full" :
						       strerror(-ret));
		goto out_rollback;
	}
	*ret_layer = layer;
	return 0;

out_rollback:
	layer_rules_remove(maps, filter, ret_rules);
	return ret;
}
