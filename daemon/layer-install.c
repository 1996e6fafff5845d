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
 *     parent. PATH need not exist, but its parent must. The paths are resolved as the
 *     caller sees them: a caller's request brings them as its own descriptors (fs_refs),
 *     and the inodes are keyed as the BPF walk keys them (kdev.h). Every entry is the layer's own
 *     (its id is in the key): no other layer's entries are read or changed, and the
 *     entries go with the layer (layer_rules_remove()). The directories above PATH
 *     get the layer's UMB_FS_ANCESTOR entries: its tasks may not move them away.
 *     A directory's rule goes on the roots of the mounts below it too (fs-mounts.c),
 *     and the directory is kept (layer_dirs) so that umbrellad follows the mounts made
 *     below it later (fs-watch.c).
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
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <umbrella/caller-paths.h>
#include <umbrella/kdev.h>

#include "fd-mount.h"
#include "fs-mounts.h"
#include "fs-stable.h"
#include "layer-install.h"
#include "mount-guard.h"

struct install {
	const struct layer_maps *maps;
	struct fs_filter *filter;
	uint32_t layer;
	struct layer_rules *rules;  /* what it wrote, to take back or to free with the layer */
	const struct fs_refs *refs; /* the caller's descriptors of the fs items, or NULL */
	int peer;		    /* the caller's pid, or 0 */
	struct layer_dirs *dirs;    /* the directories restricted, to follow; NULL: not kept */
	struct mount_guard guard;   /* where names may be looked up in the caller's namespace */
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

bool layer_rule_filtered(const struct umb_fs_rule *rule)
{
	return rule->access || (rule->flags & UMB_FS_HAS_NAMES);
}

int layer_rules_adopt_inode(const struct layer_maps *maps, struct fs_filter *filter,
			    struct layer_rules *rules, const struct umb_fs_key *key)
{
	struct umb_fs_rule rule;
	int r = layer_rules_add_inode(rules, key);

	if (r < 0)
		return r;
	/* Unreadable (cannot happen): counted, as a bit set only costs a lookup. */
	if (bpf_map_lookup_elem(maps->fs_inodes, key, &rule) < 0 || layer_rule_filtered(&rule))
		fs_filter_add(filter, key->dev, key->ino);
	return 0;
}

/*
 * Adds @access and @flags to this layer's entry at @key in @map_fd (creating it). An
 * inode entry the walk reads (layer_rule_filtered()) is counted in the filter before it
 * is written: a new one, or one that only marked an ancestor until now. Returns 0,
 * -E2BIG when the map is full, or another -errno.
 */
static int rule_add(struct install *in, int map_fd, const void *key, uint32_t access,
		    uint32_t flags)
{
	bool inode = map_fd == in->maps->fs_inodes, counted;
	const struct umb_fs_key *dir = key; /* the inode, or a name's directory */
	struct umb_fs_rule rule = {}, old;
	int r;

	if (bpf_map_lookup_elem(map_fd, key, &old) == 0) {
		/* Written by this install already (the same path twice, a directory that
		 * is restricted and holds restricted names, or an ancestor mark that a
		 * later item restricts): merge. */
		rule = (struct umb_fs_rule){ .access = old.access | access,
					     .flags = old.flags | flags };
		if (rule.access == old.access && rule.flags == old.flags)
			return 0; /* nothing new (a mount followed again: fs-watch.c) */
		counted = inode && !layer_rule_filtered(&old) && layer_rule_filtered(&rule);
		if (counted)
			fs_filter_add(in->filter, dir->dev, dir->ino);
		if (bpf_map_update_elem(map_fd, key, &rule, BPF_EXIST) < 0) {
			r = -errno;
			if (counted)
				fs_filter_remove(in->filter, dir->dev, dir->ino);
			return r;
		}
		return 0;
	}
	if (errno != ENOENT)
		return -errno;
	rule = (struct umb_fs_rule){ .access = access, .flags = flags };
	r = inode ? layer_rules_add_inode(in->rules, key) : layer_rules_add_name(in->rules, key);
	if (r < 0)
		return r;
	counted = inode && layer_rule_filtered(&rule);
	if (counted)
		fs_filter_add(in->filter, dir->dev, dir->ino);
	if (bpf_map_update_elem(map_fd, key, &rule, BPF_NOEXIST) < 0) {
		r = errno == ENOMEM || errno == E2BIG ? -E2BIG : -errno;
		/* Not written: forget it, so that it is neither deleted nor uncounted. */
		if (inode)
			in->rules->inode_count--;
		else
			in->rules->name_count--;
		if (counted)
			fs_filter_remove(in->filter, dir->dev, dir->ino);
		return r;
	}
	return 0;
}

int layer_rules_add_root(const struct layer_maps *maps, struct fs_filter *filter,
			 struct layer_rules *rules, const struct umb_fs_key *key, uint32_t access)
{
	struct install in = { .maps = maps, .filter = filter, .layer = key->layer, .rules = rules };

	return rule_add(&in, maps->fs_inodes, key, access, 0);
}

void layer_dirs_clear(struct layer_dirs *dirs)
{
	for (size_t i = 0; i < dirs->count; i++)
		free(dirs->v[i].path);
	free(dirs->v);
	*dirs = (struct layer_dirs){};
}

/* Keeps the directory @path that an item restricts with @access (layer_dirs). */
static int dirs_add(struct layer_dirs *dirs, const char *path, uint32_t access)
{
	struct layer_dir d = { .path = strdup(path), .access = access };
	int r;

	if (!d.path)
		return -ENOMEM;
	r = keys_append((void **)&dirs->v, &dirs->count, sizeof(d), &d);
	if (r < 0)
		free(d.path);
	return r;
}

void layer_rules_remove(const struct layer_maps *maps, struct fs_filter *filter,
			struct layer_rules *rules)
{
	/* Names first: a name entry is looked up only below its directory's entry. */
	for (size_t i = 0; i < rules->name_count; i++)
		(void)bpf_map_delete_elem(maps->fs_names, &rules->names[i]);
	for (size_t i = 0; i < rules->inode_count; i++) {
		const struct umb_fs_key *key = &rules->inodes[i];
		struct umb_fs_rule rule;

		/* Counted in the filter only if the walk reads it (an ancestor mark is
		 * not). Not found: whether it was is not known, and its bits stay set,
		 * which costs a lookup and never hides a rule. */
		if (bpf_map_lookup_elem(maps->fs_inodes, key, &rule) < 0)
			continue;
		if (bpf_map_delete_elem(maps->fs_inodes, key) == 0 && layer_rule_filtered(&rule))
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

/* The inode @fd holds into @key's dev and ino, as the BPF walk keys it (kdev.h), from the
 * request's tables of mounts (mount_guard_mount()): not a read of mountinfo each. */
static int key_of(struct install *in, int fd, struct umb_fs_key *key)
{
	struct mount_entry m;
	uint64_t ino;
	int r;

	r = mount_guard_mount(&in->guard, fd, in->peer, &m, &ino);
	if (r < 0)
		return r;
	key->dev = m.dev;
	key->ino = ino;
	return 0;
}

/* Directory levels install_ancestors() climbs at most: a path of PATH_MAX has fewer. */
#define ANCESTORS_MAX (PATH_MAX / 2)

/*
 * Marks the directory @dir_fd holds and each one above it, up to the root (umbrellad's,
 * or that of the mount namespace the directory is in), as an ancestor of a rule of the
 * layer: its tasks may not move or remove them (bpf/lib/ancestors.bpf.h). ".." crosses
 * mount points as the path did. Stops at a directory the layer marked already: the ones
 * above it are marked too. Opening ".." asks the file system for permission to search
 * the directory: each is checked first (mount-guard.h).
 */
static int install_ancestors(struct install *in, int dir_fd)
{
	struct umb_fs_key key = { .layer = in->layer }, below = {};
	int fd, parent, r;

	r = mount_guard_check(&in->guard, dir_fd);
	if (r < 0)
		return r;
	fd = openat(dir_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (unsigned int level = 0;; level++) {
		struct umb_fs_rule rule;

		if (level == ANCESTORS_MAX) {
			r = -ELOOP; /* cannot happen: deny the layer rather than leave one open */
			break;
		}
		r = mount_guard_step(&in->guard, 1); /* a deep path is the caller's to make */
		if (r == 0)
			r = key_of(in, fd, &key);
		if (r < 0)
			break;
		if (level && key.dev == below.dev && key.ino == below.ino)
			break; /* ".." of the root is the root */
		if (bpf_map_lookup_elem(in->maps->fs_inodes, &key, &rule) == 0 &&
		    (rule.flags & UMB_FS_ANCESTOR))
			break;
		r = rule_add(in, in->maps->fs_inodes, &key, 0, UMB_FS_ANCESTOR);
		if (r < 0)
			break;
		below = key;
		r = mount_guard_check(&in->guard, fd);
		if (r < 0)
			break;
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0) {
			r = -errno;
			break;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	return r;
}

/* What install_mount_root() needs. */
struct mount_rule {
	struct install *in;
	const struct umb_item *item;
};

/* The rule of an fs item on a directory, on the root of a mount below it (@fd): see
 * fs-mounts.c. */
static int install_mount_root(int fd, void *arg)
{
	const struct mount_rule *m = arg;
	struct umb_fs_key key = { .layer = m->in->layer };
	int r;

	r = key_of(m->in, fd, &key);
	if (r < 0)
		return r;
	return rule_add(m->in, m->in->maps->fs_inodes, &key, m->item->fs_access, 0);
}

/* The rules of an fs item on the objects @ref holds: the object's inode, and the name
 * @name (NULL for "/") in its directory, with the directory's UMB_FS_HAS_NAMES entry,
 * and the marks of the directories above (install_ancestors()). For a directory, also
 * the roots of the mounts below @path (canonical, as the caller sees it). */
static int install_fs_ref(struct install *in, const struct umb_item *item, const struct fs_ref *ref,
			  const char *path, const char *name)
{
	struct mount_rule mounts = { .in = in, .item = item };
	struct umb_fs_key key = { .layer = in->layer };
	struct umb_fs_name_key name_key = { .dir = { .layer = in->layer } };
	int r;

	/* The keys of the BPF walk: the super block's s_dev and i_ino, which stat() does
	 * not tell on btrfs and overlayfs (kdev.h). */
	if (ref->obj_fd >= 0) {
		r = key_of(in, ref->obj_fd, &key);
		if (r < 0)
			return r;
		r = rule_add(in, in->maps->fs_inodes, &key, item->fs_access, 0);
		if (r < 0)
			return r;
		/* Not fstat(): a FUSE server could stall umbrellad (fd-mount.h). */
		r = fd_is_dir(ref->obj_fd);
		if (r < 0)
			return r;
		if (r) {
			r = fs_mounts_below(&in->guard, ref->obj_fd, path, install_mount_root,
					    &mounts);
			if (r == 0 && in->dirs)
				r = dirs_add(in->dirs, path, item->fs_access);
			if (r < 0)
				return r;
		}
	}
	if (!name)
		return 0; /* the root has no name in a parent */
	r = key_of(in, ref->dir_fd, &name_key.dir);
	if (r < 0)
		return r;
	name_key.name_hash = layer_name_hash(name, strlen(name));
	r = rule_add(in, in->maps->fs_inodes, &name_key.dir, 0, UMB_FS_HAS_NAMES);
	if (r < 0)
		return r;
	r = rule_add(in, in->maps->fs_names, &name_key, item->fs_access, 0);
	if (r < 0)
		return r;
	return install_ancestors(in, ref->dir_fd);
}

/* An fs item whose path umbrellad resolves itself, in its own mount namespace (signed
 * binaries' policies, the tests): opened here, then as a caller's descriptors. */
static int install_fs_path(struct install *in, const struct umb_item *item, char **ret_error)
{
	struct fs_ref ref = { .dir_fd = -1, .obj_fd = -1 };
	char canon[PATH_MAX], dir[PATH_MAX];
	const char *name;
	int r;

	r = umb_path_canonical(item->path, canon, ret_error);
	if (r < 0)
		return r;
	name = umb_path_last_name(canon);
	if (name) {
		size_t len = (size_t)(name - canon);

		memcpy(dir, canon, len > 1 ? len - 1 : 1);
		dir[len > 1 ? len - 1 : 1] = '\0';
		ref.dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (ref.dir_fd < 0)
			return -errno;
	}
	ref.obj_fd = open(canon, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (ref.obj_fd < 0 && (errno != ENOENT || !name)) {
		r = -errno;
		goto out;
	}
	r = fs_ref_stable(&ref, &in->guard, 0, canon, ret_error);
	if (r == 0)
		r = install_fs_ref(in, item, &ref, canon, name);
out:
	if (ref.obj_fd >= 0)
		close(ref.obj_fd);
	if (ref.dir_fd >= 0)
		close(ref.dir_fd);
	return r;
}

/* An fs item of a caller's request: its path is canonical as the caller saw it, its
 * objects are the caller's descriptors (umbrellad resolves none of its paths). */
static int install_fs(struct install *in, const struct umb_item *item, size_t fs_index,
		      char **ret_error)
{
	const struct fs_ref *ref;
	const char *name;
	int r;

	if (!in->refs)
		return install_fs_path(in, item, ret_error);
	if (fs_index >= in->refs->count)
		return -EINVAL; /* server.c matched them: cannot happen */
	ref = &in->refs->items[fs_index];
	name = umb_path_last_name(item->path);
	/* A path the caller's library did not make canonical: a name rule on "" or ".."
	 * would match nothing, and the caller would think the path restricted. */
	if ((name && (!name[0] || !strcmp(name, ".") || !strcmp(name, "..") || ref->dir_fd < 0)) ||
	    (!name && (ref->obj_fd < 0 || ref->dir_fd >= 0))) {
		if (ret_error && asprintf(ret_error,
					  "fs:%s: not a canonical path, or its descriptors "
					  "do not match it",
					  item->path) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	/* Before fs_ref_stable(): on an overlay, it lists the directories on the way up,
	 * which a user's overlay passes on to its layers (a FUSE server). Its climb stays
	 * on the descriptors' super blocks, which the guard judges. */
	r = ref->obj_fd >= 0 ? mount_guard_check(&in->guard, ref->obj_fd) : 0;
	if (r == 0 && ref->dir_fd >= 0)
		r = mount_guard_check(&in->guard, ref->dir_fd);
	if (r == 0)
		r = fs_ref_stable(ref, &in->guard, in->peer, item->path, ret_error);
	if (r == 0)
		r = install_fs_ref(in, item, ref, item->path, name);
	if (r == -ENOENT && ret_error && !*ret_error &&
	    asprintf(ret_error,
		     "fs:%s: its mount is in no mount namespace umbrellad "
		     "can read (a detached mount?)",
		     item->path) < 0)
		*ret_error = NULL;
	if (r == -EREMOTEIO && ret_error && !*ret_error &&
	    asprintf(ret_error, "fs:%s: refused: %s", item->path, MOUNT_GUARD_WHY) < 0)
		*ret_error = NULL;
	return r;
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

	if (maps->layer_desc < 0)
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
		  const struct umb_restrictions *r, const struct fs_refs *refs,
		  uint32_t creator_pid, uint32_t origin, struct umb_layer *ret_layer,
		  struct layer_rules *ret_rules, struct layer_dirs *ret_dirs, char **ret_error)
{
	struct install in = { .maps = maps,
			      .filter = filter,
			      .layer = id,
			      .rules = ret_rules,
			      .refs = refs,
			      .peer = refs ? refs->peer : 0,
			      .dirs = ret_dirs };
	size_t fs_index = 0;
	struct umb_layer layer = { .creator_pid = creator_pid, .origin = origin };
	int ret = 0;

	*ret_rules = (struct layer_rules){};
	if (ret_dirs)
		*ret_dirs = (struct layer_dirs){};
	if (ret_error)
		*ret_error = NULL;
	/* umbrellad's own namespace too without @refs: the request's tables and budget. */
	ret = mount_guard_open(&in.guard, refs ? refs->proc_fd : -1, refs ? refs->peer : 0, -1);
	if (ret < 0) {
		if (ret_error &&
		    asprintf(ret_error, "cannot tell who made the caller's mount namespace: %s",
			     strerror(-ret)) < 0)
			*ret_error = NULL;
		return ret;
	}
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
			ret = install_fs(&in, item, fs_index++, ret_error);
			if (ret == -MOUNT_BUDGET_ERRNO && ret_error && !*ret_error)
				*ret_error = mount_guard_budget_text(&in.guard, item->path);
			if (ret < 0 && ret_error && !*ret_error &&
			    asprintf(ret_error, "fs:%s: %s", item->path,
				     ret == -E2BIG ? "the rule map is full (it frees up "
						     "as restricted processes exit)" :
						     strerror(-ret)) < 0)
				*ret_error = NULL;
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
		if (ret_error &&
		    asprintf(ret_error, "cannot describe layer %u: %s", id,
			     ret == -E2BIG ? "the description map is full" : strerror(-ret)) < 0)
			*ret_error = NULL;
		goto out_rollback;
	}
	*ret_layer = layer;
	mount_guard_close(&in.guard);
	return 0;

out_rollback:
	mount_guard_close(&in.guard);
	layer_rules_remove(maps, filter, ret_rules);
	if (ret_dirs)
		layer_dirs_clear(ret_dirs);
	return ret;
}
