// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - turning a set of restrictions into a layer in the BPF maps.
 *
 * This is the one place that knows how a restriction item becomes map entries:
 *   - capability, family and Linux capability items become bits of struct umb_layer;
 *   - "fs:PATH" becomes a deny slot on PATH's inode (umb_fs_inodes: follows the object
 *     through renames, hard links and bind mounts) and, unless PATH is "/", a deny slot
 *     on PATH's name in its parent directory (umb_fs_names: holds for a file created
 *     there later or put there by rename), with UMB_FS_HAS_NAMES set on the parent.
 *     PATH need not exist, but its parent must.
 * Installing is all or nothing: on any failure the entries already written are taken
 * back, and the error names the item. Beside the layer goes its description
 * (umb_layer_desc: the text, who asked and when), since umbrella-cli cannot turn inode
 * keys back into paths.
 */
#include <errno.h>
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

/* What one install wrote, to take it back on failure. */
struct written {
	int map_fd;
	union {
		struct umb_inode_key inode;
		struct umb_name_key name;
	} key;
};

struct install {
	const struct layer_maps *maps;
	uint32_t layer;
	struct written *written;
	size_t count, capacity;
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

static int remember(struct install *in, int map_fd, const void *key, size_t key_size)
{
	if (in->count == in->capacity) {
		size_t capacity = in->capacity ? 2 * in->capacity : 16;
		struct written *w = reallocarray(in->written, capacity, sizeof(*w));

		if (!w)
			return -ENOMEM;
		in->written = w;
		in->capacity = capacity;
	}
	memset(&in->written[in->count].key, 0, sizeof(in->written[in->count].key));
	in->written[in->count].map_fd = map_fd;
	memcpy(&in->written[in->count].key, key, key_size);
	in->count++;
	return 0;
}

/*
 * Sets in umb_fs_filter (@filter_fd) the bits of every inode the install wrote to
 * umb_fs_inodes, and of its dev: before the layer exists, so before any task can carry
 * it (the hooks look up only inodes whose bits are set). One read and one write of the
 * bitmap; umbrellad is its only writer and writes from one thread. A hook reading the
 * bitmap meanwhile sees each word old or new: the bits already set stay set.
 */
static int filter_commit(const struct install *in)
{
	struct umb_fs_filter *filter = malloc(sizeof(*filter));
	uint32_t zero = 0;
	int r = 0;

	if (!filter)
		return -ENOMEM;
	if (bpf_map_lookup_elem(in->maps->fs_filter, &zero, filter) < 0) {
		r = -errno;
		goto out;
	}
	for (size_t i = 0; i < in->count; i++) {
		const struct umb_inode_key *key = &in->written[i].key.inode;
		uint32_t bits[2] = { umb_fs_filter_bit(key->dev, key->ino),
				     umb_fs_filter_bit(key->dev, UMB_FS_FILTER_ANY_INO) };

		if (in->written[i].map_fd != in->maps->fs_inodes)
			continue;
		for (int b = 0; b < 2; b++)
			filter->words[bits[b] / 64] |= 1ULL << (bits[b] % 64);
	}
	if (bpf_map_update_elem(in->maps->fs_filter, &zero, filter, BPF_ANY) < 0)
		r = -errno;
out:
	free(filter);
	return r;
}

/*
 * Adds @access for this layer to the rule at @key in @map_fd (creating the rule), and
 * ORs @flags into it. Returns 0, -ENOSPC when UMB_FS_DENY_SLOTS layers already restrict
 * the object, -E2BIG when the map is full, or another -errno.
 */
static int rule_add(struct install *in, int map_fd, const void *key, size_t key_size,
		    uint32_t access, uint32_t flags)
{
	struct umb_fs_rule rule = {};
	int slot = -1, r;

	if (bpf_map_lookup_elem(map_fd, key, &rule) < 0 && errno != ENOENT)
		return -errno;
	for (int i = 0; access && i < UMB_FS_DENY_SLOTS; i++) {
		if (rule.deny[i].layer == in->layer) {
			slot = i;
			break;
		}
		if (!rule.deny[i].layer && slot < 0)
			slot = i;
	}
	if (access && slot < 0)
		return -ENOSPC;
	if (access) {
		rule.deny[slot].layer = in->layer;
		rule.deny[slot].access |= access;
	}
	rule.flags |= flags;
	r = remember(in, map_fd, key, key_size);
	if (r < 0)
		return r;
	if (bpf_map_update_elem(map_fd, key, &rule, BPF_ANY) < 0)
		return errno == ENOMEM || errno == E2BIG ? -E2BIG : -errno;
	return 0;
}

/* Takes this layer's slots out of every rule the install touched; drops empty rules.
 * UMB_FS_HAS_NAMES stays set on directories: it costs a lookup, never a wrong verdict. */
static void rollback(struct install *in)
{
	for (size_t i = in->count; i-- > 0;) {
		struct written *w = &in->written[i];
		struct umb_fs_rule rule;
		bool empty = true;

		if (bpf_map_lookup_elem(w->map_fd, &w->key, &rule) < 0)
			continue;
		for (int s = 0; s < UMB_FS_DENY_SLOTS; s++) {
			if (rule.deny[s].layer == in->layer)
				rule.deny[s] = (struct umb_fs_deny){};
			empty &= !rule.deny[s].layer;
		}
		if (empty && !rule.flags)
			(void)bpf_map_delete_elem(w->map_fd, &w->key);
		else
			(void)bpf_map_update_elem(w->map_fd, &w->key, &rule, BPF_ANY);
	}
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

static int install_fs(struct install *in, const struct umb_item *item, char **ret_error)
{
	char canon[PATH_MAX];
	struct umb_inode_key key = {};
	struct umb_name_key name_key = {};
	struct stat st;
	char *name;
	int r;

	r = canonicalize(item->path, canon, ret_error);
	if (r < 0)
		return r;

	if (stat(canon, &st) == 0) {
		key.dev = umb_kdev(st.st_dev);
		key.ino = st.st_ino;
		r = rule_add(in, in->maps->fs_inodes, &key, sizeof(key), item->fs_access, 0);
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
	if (stat(canon[0] ? canon : "/", &st) < 0)
		return -errno;
	name_key.dir.dev = umb_kdev(st.st_dev);
	name_key.dir.ino = st.st_ino;
	name_key.name_hash = layer_name_hash(name, strlen(name));
	r = rule_add(in, in->maps->fs_inodes, &name_key.dir, sizeof(name_key.dir), 0,
		     UMB_FS_HAS_NAMES);
	if (r < 0)
		return r;
	return rule_add(in, in->maps->fs_names, &name_key, sizeof(name_key), item->fs_access, 0);
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
	if (bpf_map_update_elem(maps->layer_desc, &id, &desc, BPF_NOEXIST) < 0)
		return errno == E2BIG || errno == ENOMEM ? -E2BIG : -errno;
	return 0;
}

int layer_install(const struct layer_maps *maps, uint32_t id, const struct umb_restrictions *r,
		  uint32_t creator_pid, uint32_t origin, char **ret_error)
{
	struct install in = { .maps = maps, .layer = id };
	struct umb_layer layer = { .creator_pid = creator_pid, .origin = origin };
	int ret = 0;

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
					       ret == -ENOSPC ? "restricted by too many layers" :
					       ret == -E2BIG  ? "the rule map is full" :
								strerror(-ret));
			break;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret < 0)
			goto out_rollback;
	}

	ret = filter_commit(&in);
	if (ret < 0) {
		if (ret_error)
			(void)asprintf(ret_error, "cannot update the rule filter: %s",
				       strerror(-ret));
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
	if (bpf_map_update_elem(maps->layers, &id, &layer, BPF_NOEXIST) < 0) {
		ret = errno == E2BIG || errno == ENOMEM ? -E2BIG : -errno;
		if (ret_error)
			(void)asprintf(ret_error, "cannot add layer %u: %s", id,
				       ret == -E2BIG ? "the layer map is full" : strerror(-ret));
		if (maps->layer_desc > 0)
			(void)bpf_map_delete_elem(maps->layer_desc, &id);
		goto out_rollback;
	}
	free(in.written);
	return 0;

out_rollback:
	rollback(&in);
	free(in.written);
	return ret;
}
