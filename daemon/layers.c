// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the layer lifecycle (layers.h): slots and ids, umbrellad's references,
 * per-user limits, and freeing a layer when its last holder goes.
 *
 * Who holds a layer is counted in its slot (struct umb_layer.refs): the kernel counts
 * the tasks and the arms (bpf/lib/layers.bpf.h), umbrellad its exec gate. The count
 * never rises from 0, so a layer at 0 can be freed at any time, by the one thread of
 * umbrellad: its fs entries are deleted (names, then inodes, then their filter bits),
 * then its description, and last its slot is marked free. A umbrellad killed half way
 * leaves a live slot at 0 (freed again by the next start) or entries of a free slot
 * (deleted by the next start): never an entry of a live layer missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include "fs-watch.h"
#include "layers.h"
#include "state.h"

/* Non-root users together may fill at most this share of a map (numerator of 4), so
 * that many users cannot keep root from making layers either. */
#define USERS_SHARE_QUARTERS 3

#define FS_ENTRIES_MAX 65536 /* max_entries of umb_fs_inodes and of umb_fs_names */

static struct layer_usage *usage_of(struct layers *l, uint32_t uid, bool create)
{
	struct layer_usage *grown;

	for (size_t i = 0; i < l->usage_count; i++)
		if (l->usage[i].uid == uid)
			return &l->usage[i];
	if (!create)
		return NULL;
	grown = reallocarray(l->usage, l->usage_count + 1, sizeof(*grown));
	if (!grown)
		return NULL;
	l->usage = grown;
	l->usage[l->usage_count] = (struct layer_usage){ .uid = uid };
	return &l->usage[l->usage_count++];
}

/* Counts a live layer of @uid with @rules entries (in the totals too). */
static void usage_add(struct layers *l, uint32_t uid, unsigned int rules)
{
	struct layer_usage *u = usage_of(l, uid, true);

	l->live_count++;
	l->rule_count += rules;
	if (u) {
		u->layers++;
		u->rules += rules;
	}
}

/* Counts one more fs entry of a live layer of @uid (found at start). */
static void usage_add_rule(struct layers *l, uint32_t uid)
{
	struct layer_usage *u = usage_of(l, uid, true);

	l->rule_count++;
	if (u)
		u->rules++;
}

static void usage_sub(struct layers *l, uint32_t uid, unsigned int rules)
{
	struct layer_usage *u = usage_of(l, uid, false);

	l->live_count--;
	l->rule_count -= rules;
	if (u) {
		u->layers--;
		u->rules -= rules;
	}
}

/* The usage of every uid but root's. */
static void users_total(const struct layers *l, unsigned int *ret_layers, unsigned int *ret_rules)
{
	*ret_layers = *ret_rules = 0;
	for (size_t i = 0; i < l->usage_count; i++) {
		if (l->usage[i].uid == 0)
			continue;
		*ret_layers += l->usage[i].layers;
		*ret_rules += l->usage[i].rules;
	}
}

/* Whether @uid may make one more layer (@new_layer) of at most @rules entries, or add
 * @rules entries to a layer it has; if not, the message says which limit. */
static int check_limits(struct layers *l, uint32_t uid, bool new_layer, unsigned int rules,
			char **ret_error)
{
	struct layer_usage *u = usage_of(l, uid, false);
	unsigned int layers = u ? u->layers : 0, used = u ? u->rules : 0;
	unsigned int all_layers, all_rules;
	const char *what = NULL;
	unsigned int limit = 0;

	if (uid == 0)
		return 0;
	users_total(l, &all_layers, &all_rules);
	if (new_layer && l->limits.user_layers && layers >= l->limits.user_layers) {
		what = "live layers per user (max_layers_per_user in umbrella.conf)";
		limit = l->limits.user_layers;
	} else if (l->limits.user_rules && used + rules > l->limits.user_rules) {
		what = "fs rules per user (max_rules_per_user in umbrella.conf)";
		limit = l->limits.user_rules;
	} else if (new_layer && all_layers >= UMB_LAYER_SLOTS / 4 * USERS_SHARE_QUARTERS) {
		what = "live layers of all users but root";
		limit = UMB_LAYER_SLOTS / 4 * USERS_SHARE_QUARTERS;
	} else if (all_rules + rules > FS_ENTRIES_MAX / 4 * USERS_SHARE_QUARTERS) {
		what = "fs rules of all users but root";
		limit = FS_ENTRIES_MAX / 4 * USERS_SHARE_QUARTERS;
	}
	if (!what)
		return 0;
	if (ret_error && (uid == LAYER_UID_RESTRICTED_ROOT ?
				  asprintf(ret_error,
					   "restricted root processes have reached the limit of "
					   "%u %s; it frees up as they exit",
					   limit, what) :
				  asprintf(ret_error,
					   "uid %u has reached the limit of %u %s; it frees up "
					   "as the restricted processes exit",
					   uid, limit, what)) < 0)
		*ret_error = NULL;
	return -ENOSPC;
}

static void *map_mmap(int fd, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

#define SLOTS_SIZE ((size_t)UMB_LAYER_SLOTS * sizeof(struct umb_layer))
#define LIVE_SIZE  4096 /* one page: a mapping of an array map is page-sized */

int layers_open(struct layers *l, const struct layer_maps *maps, int meta_fd)
{
	int r;

	*l = (struct layers){ .maps = *maps, .meta_fd = meta_fd, .limits = LAYER_LIMITS_DEFAULT };
	l->slots = map_mmap(maps->layers, SLOTS_SIZE);
	if (!l->slots) {
		r = -errno;
		goto fail;
	}
	l->live = map_mmap(maps->live, LIVE_SIZE);
	if (!l->live) {
		r = -errno;
		goto fail;
	}
	l->rules = calloc(UMB_LAYER_SLOTS, sizeof(*l->rules));
	if (!l->rules) {
		r = -ENOMEM;
		goto fail;
	}
	r = fs_filter_open(&l->filter, maps->fs_filter);
	if (r < 0)
		goto fail;
	/* Read once: umbrellad writes umb_meta from this one thread, and only its count of
	 * freed layers changes after state_meta_create() made it. */
	if (meta_fd >= 0 && bpf_map_lookup_elem(meta_fd, &(__u32){ 0 }, &l->meta) < 0) {
		r = -errno;
		goto fail;
	}
	return 0;
fail:
	layers_close(l);
	return r;
}

void layers_close(struct layers *l)
{
	if (l->rules)
		for (uint32_t i = 0; i < UMB_LAYER_SLOTS; i++)
			layer_rules_clear(&l->rules[i]);
	free(l->rules);
	free(l->usage);
	if (l->slots)
		munmap(l->slots, SLOTS_SIZE);
	if (l->live)
		munmap(l->live, LIVE_SIZE);
	fs_filter_close(&l->filter);
	*l = (struct layers){ .meta_fd = -1 };
}

const struct umb_layer *layers_get(const struct layers *l, uint32_t id)
{
	const struct umb_layer *slot = &l->slots[umb_layer_slot(id)];

	return id && __atomic_load_n(&slot->id, __ATOMIC_ACQUIRE) == id ? slot : NULL;
}

/* Frees the live layer in @slot_index, which nobody holds. */
static void layer_free(struct layers *l, uint32_t slot_index)
{
	struct umb_layer *slot = &l->slots[slot_index];
	struct layer_rules *rules = &l->rules[slot_index];
	unsigned int count = (unsigned int)(rules->inode_count + rules->name_count);
	uint32_t id = slot->id;

	if (l->watch)
		fs_watch_forget(l->watch, id);
	layer_rules_remove(&l->maps, &l->filter, rules);
	if (l->maps.layer_desc >= 0)
		(void)bpf_map_delete_elem(l->maps.layer_desc, &id);
	usage_sub(l, slot->uid, count);
	__atomic_store_n(&slot->id, 0, __ATOMIC_RELEASE);
	/* A metric: the layer is freed whether or not the count is written. */
	(void)state_meta_count_freed(l->meta_fd, &l->meta);
}

/* Frees the layer @id if it is live and nobody holds it. */
static bool free_if_unheld(struct layers *l, uint32_t id)
{
	const struct umb_layer *slot = layers_get(l, id);

	if (!slot || __atomic_load_n(&slot->refs, __ATOMIC_ACQUIRE) != 0)
		return false;
	layer_free(l, umb_layer_slot(id));
	return true;
}

void layers_released(struct layers *l, uint32_t id)
{
	(void)free_if_unheld(l, id);
}

unsigned int layers_sweep(struct layers *l)
{
	unsigned int freed = 0;

	for (uint32_t i = 0; i < UMB_LAYER_SLOTS; i++) {
		uint32_t id = __atomic_load_n(&l->slots[i].id, __ATOMIC_ACQUIRE);

		if (id && free_if_unheld(l, id))
			freed++;
	}
	return freed;
}

int layers_hold(struct layers *l, uint32_t id)
{
	const struct umb_layer *slot = layers_get(l, id);

	if (!slot)
		return -ENOENT;
	__atomic_fetch_add(&l->slots[umb_layer_slot(id)].refs, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void layers_put(struct layers *l, uint32_t id)
{
	const struct umb_layer *slot = layers_get(l, id);

	if (slot &&
	    __atomic_fetch_sub(&l->slots[umb_layer_slot(id)].refs, 1, __ATOMIC_SEQ_CST) == 1)
		layer_free(l, umb_layer_slot(id));
}

/* Whether a layer of @fs_items fs items, which the caller resolved as @refs (NULL:
 * umbrellad resolves them), may restrict a directory, whose mounts it then follows. */
static bool may_restrict_dir(const struct fs_refs *refs, unsigned int fs_items)
{
	struct statx stx;

	if (!refs)
		return fs_items > 0;
	/* AT_STATX_DONT_SYNC: the type is the inode's, no round trip to a FUSE server. */
	for (size_t i = 0; i < refs->count; i++)
		if (refs->items[i].obj_fd >= 0 &&
		    (statx(refs->items[i].obj_fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
			   STATX_TYPE, &stx) < 0 ||
		     !(stx.stx_mask & STATX_TYPE) || S_ISDIR(stx.stx_mode)))
			return true;
	return false;
}

/* A free slot, or -ENOSPC. */
static int slot_find(struct layers *l, uint32_t *ret_slot)
{
	for (uint32_t n = 0; n < UMB_LAYER_SLOTS; n++) {
		uint32_t i = (l->next_slot + n) & (UMB_LAYER_SLOTS - 1);

		if (!__atomic_load_n(&l->slots[i].id, __ATOMIC_ACQUIRE)) {
			l->next_slot = i + 1;
			*ret_slot = i;
			return 0;
		}
	}
	return -ENOSPC;
}

int layers_create(struct layers *l, const struct umb_restrictions *r, uint32_t creator_pid,
		  uint32_t uid, uint32_t origin, uint32_t *ret_id, char **ret_error)
{
	return layers_create_at(l, r, NULL, creator_pid, uid, origin, 0, ret_id, ret_error);
}

int layers_create_at(struct layers *l, const struct umb_restrictions *r, const struct fs_refs *refs,
		     uint32_t creator_pid, uint32_t uid, uint32_t origin, uint32_t flags,
		     uint32_t *ret_id, char **ret_error)
{
	struct fs_watch_ns *ns = NULL;
	struct layer_dirs dirs = {};
	struct umb_layer layer;
	struct layer_rules rules;
	unsigned int fs_items = 0, entries;
	uint32_t index, gen, id;
	struct umb_layer *slot;
	int ret;

	*ret_error = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++)
		fs_items += umb_restrictions__item(r, i)->kind == UMB_ITEM_FS;
	/* An fs item writes at most three entries: the object, its name, its directory. */
	ret = check_limits(l, uid, true, 3 * fs_items, ret_error);
	if (ret < 0)
		return ret;
	if (slot_find(l, &index) < 0) {
		*ret_error = strdup("every layer slot is in use (16384 live layers); new layers "
				    "can be made as restricted processes exit");
		return -ENOSPC;
	}
	slot = &l->slots[index];
	gen = slot->gen >= UMB_LAYER_GEN_MAX ? 1 : slot->gen + 1;
	id = gen << UMB_LAYER_SLOT_BITS | index;

	/* The caller's mount namespace is watched before its mounts are read for the
	 * install: a mount made after that read is a change the watch reports. */
	if (l->watch && may_restrict_dir(refs, fs_items)) {
		ret = fs_watch_ns_get(l->watch, refs ? refs->proc_fd : -1, refs ? refs->peer : 0,
				      uid, &ns, ret_error);
		if (ret < 0)
			return ret;
	}
	ret = layer_install(&l->maps, &l->filter, id, r, refs, creator_pid, origin, &layer, &rules,
			    ns ? &dirs : NULL, ret_error);
	if (ret < 0) {
		/* A full map: as full slots. Past the request's budget of work in the
		 * caller's mounts (mount-guard.h): the request is too big. */
		ret = ret == -E2BIG ? -ENOSPC : ret == -MOUNT_BUDGET_ERRNO ? -E2BIG : ret;
		goto out;
	}
	for (size_t i = 0; i < dirs.count; i++) {
		ret = fs_watch_add_dir(l->watch, ns, id, dirs.v[i].path, dirs.v[i].access);
		if (ret < 0) {
			*ret_error = strdup("cannot follow the mounts below the restricted "
					    "directories: out of memory");
			fs_watch_forget(l->watch, id);
			layer_rules_remove(&l->maps, &l->filter, &rules);
			if (l->maps.layer_desc >= 0)
				(void)bpf_map_delete_elem(l->maps.layer_desc, &id);
			goto out;
		}
	}
	entries = (unsigned int)(rules.inode_count + rules.name_count);

	/* The slot is free: no task and no hook can reach it before its id is there. */
	layer.refs = 0;
	layer.uid = uid;
	layer.gen = gen;
	layer.flags = flags;
	layer.id = 0;
	*slot = layer;
	l->rules[index] = rules;
	__atomic_store_n(&slot->id, id, __ATOMIC_RELEASE);
	usage_add(l, uid, entries);
	*ret_id = id;
	ret = 0;
out:
	if (ns)
		fs_watch_ns_put(l->watch, ns);
	layer_dirs_clear(&dirs);
	return ret;
}

int layers_add_root_rule(struct layers *l, uint32_t id, uint32_t dev, uint64_t ino, uint32_t access,
			 char **ret_error)
{
	const struct umb_layer *slot = layers_get(l, id);
	struct umb_fs_key key = { .layer = id, .dev = dev, .ino = ino };
	struct layer_rules *rules;
	struct umb_fs_rule old;
	size_t before;
	int r;

	*ret_error = NULL;
	if (!slot)
		return -ENOENT;
	if (bpf_map_lookup_elem(l->maps.fs_inodes, &key, &old) == 0 &&
	    (old.access & access) == access)
		return 0; /* followed already */
	rules = &l->rules[umb_layer_slot(id)];
	before = rules->inode_count;
	/* A new entry counts against its owner's limits, as the layer's first ones did. */
	r = check_limits(l, slot->uid, false, 1, ret_error);
	if (r < 0)
		return r;
	r = layer_rules_add_root(&l->maps, &l->filter, rules, &key, access);
	if (r < 0)
		return r == -E2BIG ? -ENOSPC : r;
	if (rules->inode_count > before)
		usage_add_rule(l, slot->uid);
	return 1;
}

/* Every key of hash map @fd, into a malloc'd array of *@ret_count keys of @size bytes. */
static int map_keys(int fd, size_t size, void **ret_keys, size_t *ret_count)
{
	char prev[64], next[64];
	void *keys = NULL;
	size_t count = 0;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : prev, next) == 0) {
		void *grown;

		if ((count & (count - 1)) == 0) {
			grown = realloc(keys, (count ? 2 * count : 16) * size);
			if (!grown) {
				free(keys);
				return -ENOMEM;
			}
			keys = grown;
		}
		memcpy((char *)keys + count * size, next, size);
		count++;
		memcpy(prev, next, size);
		first = false;
	}
	*ret_keys = keys;
	*ret_count = count;
	return 0;
}

int layers_adopt(struct layers *l)
{
	struct umb_fs_key *inodes = NULL;
	struct umb_fs_name_key *names = NULL;
	uint32_t *descs = NULL;
	size_t inode_count = 0, name_count = 0, desc_count = 0;
	int r;

	for (uint32_t i = 0; i < UMB_LAYER_SLOTS; i++)
		if (l->slots[i].id)
			usage_add(l, l->slots[i].uid, 0);

	r = map_keys(l->maps.fs_inodes, sizeof(*inodes), (void **)&inodes, &inode_count);
	if (r == 0)
		r = map_keys(l->maps.fs_names, sizeof(*names), (void **)&names, &name_count);
	if (r == 0 && l->maps.layer_desc >= 0)
		r = map_keys(l->maps.layer_desc, sizeof(*descs), (void **)&descs, &desc_count);
	if (r < 0)
		goto out;

	/* Entries of live layers are theirs; those of layers that are gone go. */
	for (size_t i = 0; i < inode_count; i++) {
		uint32_t slot = umb_layer_slot(inodes[i].layer);

		if (!layers_get(l, inodes[i].layer)) {
			(void)bpf_map_delete_elem(l->maps.fs_inodes, &inodes[i]);
			continue;
		}
		r = layer_rules_adopt_inode(&l->maps, &l->filter, &l->rules[slot], &inodes[i]);
		if (r < 0)
			goto out;
		usage_add_rule(l, l->slots[slot].uid);
	}
	for (size_t i = 0; i < name_count; i++) {
		uint32_t slot = umb_layer_slot(names[i].dir.layer);

		if (!layers_get(l, names[i].dir.layer)) {
			(void)bpf_map_delete_elem(l->maps.fs_names, &names[i]);
			continue;
		}
		r = layer_rules_add_name(&l->rules[slot], &names[i]);
		if (r < 0)
			goto out;
		usage_add_rule(l, l->slots[slot].uid);
	}
	for (size_t i = 0; i < desc_count; i++)
		if (!layers_get(l, descs[i]))
			(void)bpf_map_delete_elem(l->maps.layer_desc, &descs[i]);
	/* Every entry is counted: bits that none stands behind can go. */
	(void)fs_filter_trim(&l->filter);
	r = (int)layers_sweep(l);
out:
	free(inodes);
	free(names);
	free(descs);
	return r;
}

void layers_stats(const struct layers *l, struct layer_stats *ret)
{
	*ret = (struct layer_stats){ .live = l->live_count,
				     .rules = l->rule_count,
				     .freed = l->meta.layers_freed };
}
