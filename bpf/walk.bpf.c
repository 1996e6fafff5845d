// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - the walk: matching a file system object against the fs rules of a task's
 * layers, from the object up to the root of the mount tree.
 *
 * Rules name objects, not strings (docs/design.md section 1): umb_fs_inodes holds restricted
 * inodes, umb_fs_names restricted names in directories. An object is denied when it, or
 * any directory above it, carries a deny slot of one of the task's layers for the
 * requested access, or when one of the names on the way up does. A permissive layer's
 * match (UMB_LAYER_PERMISSIVE) is only recorded: an enforcing layer comes first at each
 * level, and the walk goes on past a permissive match for an enforcing one further up,
 * so a permissive layer never hides an enforcing one.
 *
 * The walk goes from the object's dentry through d_parent to the root of its file
 * system, then, when the caller knows the mount, from that mount's mount point on in
 * the parent mount, and so on up to the root mount of the namespace (a mount that is
 * its own parent). It goes up to the root of the file system even inside a bind mount
 * of a subdirectory: the directories above the bind mount's root are still the
 * object's ancestors. So bind mounts, chroot, /proc/self/root, new mount namespaces and
 * detached mounts all end at the same inodes. A file system on which no rule names an
 * inode (its bit in umb_fs_filter is clear: most are) is left at once, from any level,
 * at its mount's mount point: nothing on it can deny. A walk that does not end within
 * UMB_WALK_MAX levels (of file systems with rules, and mount points) denies (fail
 * closed), and so does one that ends at a disconnected dentry on a file system with
 * rules (open_by_handle_at() of a file whose dentry had been evicted), whose
 * ancestors cannot be known. The root of a mounted btrfs subvolume or NFS export is
 * a root of its own, not disconnected (d_obtain_root()).
 *
 * Architecture (global functions, each verified once: see walk.bpf.h):
 *   umb_fs_walk_up()      the walk, one bounded loop for every kernel. It reads the
 *                         kernel's structures through umb_kread_*(): plain loads
 *                         through bpf_core_cast() where the kernel has it (6.2 and
 *                         later), bpf_probe_read_kernel() on Linux 6.1, where
 *                         lib/walk-typed.bpf.h first walks the object's own file
 *                         system with plain loads in the hook.
 *   umb_fs_level_match()  the rules of the task's layers at one level.
 * Both consult umb_fs_filter first, a bitmap of the inodes that have rules and of
 * their file systems: most levels end there, without a hash lookup, and a file system
 * with no rule at all is not walked.
 *
 * The walk reads kernel memory without locks (as d_path does under RCU, minus the retry):
 * a concurrent rename can make one check see a mix of the old and the new tree.
 */
#include "walk.bpf.h"
#include "lib/layers.bpf.h"

/*
 * Whether kernel memory can be read with plain loads through bpf_core_cast()
 * (bpf_rdonly_cast(), Linux 6.2 and later; the verifier makes it a move): much cheaper
 * than a bpf_probe_read_kernel() call per field. On older kernels libbpf resolves the
 * weak kfunc to 0 and the verifier drops the branch that would call it.
 */
static __always_inline int umb_have_cast(void)
{
	return bpf_ksym_exists(bpf_rdonly_cast);
}

/* Bytes of a name hashed per read (with the verifier's bound, (n & 63) == n). 63, not
 * 127: on Linux 6.1 the stack of a hook and of the calls down to this one may be 512
 * bytes, each frame rounded up to 32, and path_rename's reached 544 with a 128-byte
 * buffer once umb_fs_level_match() kept a permissive match. */
#define UMB_NAME_CHUNK 63

/* umb_fs_name_hash() - FNV-1a 64 of the name of the struct dentry at @dentry, as
 * layer_name_hash() computes it in umbrellad. Read in chunks to keep the stack small.
 * Global, as the walk's other functions: a static one is checked again at each call,
 * and its loop of 127 along every path of umb_fs_level_match() is too much (E2BIG). */
__noinline __u64 umb_fs_name_hash(__u64 dentry)
{
	unsigned char buf[UMB_NAME_CHUNK + 1];
	const unsigned char *p = BPF_CORE_READ((struct dentry *)dentry, d_name.name);
	__u32 len = BPF_CORE_READ((struct dentry *)dentry, d_name.len);
	__u64 hash = UMB_FNV64_OFFSET;

	if (len > UMB_NAME_MAX)
		return 0; /* no such name on a real file system: matches no rule */
	for (__u32 off = 0; off < UMB_NAME_MAX; off += UMB_NAME_CHUNK) {
		__u32 n;

		if (off >= len)
			break;
		n = len - off;
		if (n > UMB_NAME_CHUNK)
			n = UMB_NAME_CHUNK;
		/* The mask is a no-op that shows the verifier the bound; the barrier keeps
		 * clang from dropping it. Unreadable: hash 0, which matches no rule in
		 * practice. */
		barrier_var(n);
		if (bpf_probe_read_kernel(buf, n & UMB_NAME_CHUNK, p + off))
			return 0;
		for (__u32 i = 0; i < UMB_NAME_CHUNK; i++) {
			if (i >= n)
				break;
			hash ^= buf[i];
			hash *= UMB_FNV64_PRIME;
		}
	}
	return hash;
}

/*
 * umb_fs_level_match() - (walk.bpf.h) Each layer's rules are its own entries (struct
 * umb_fs_key), so one lookup per layer of the task that has fs rules
 * (state->fs_layers); the name is hashed at most once, and only where a layer
 * restricts names in this directory. The first enforcing layer that denies ends the
 * search; a permissive one is kept only until then (the last one, if several).
 */
__noinline __u64 umb_fs_level_match(const struct umb_task_state *state, __u32 dev, __u64 ino,
				    __u64 child, __u32 requested)
{
	__u64 name_hash = 0, permissive = 0;

	if (!state)
		return 0;
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		struct umb_fs_name_key key = { .dir = { .dev = dev, .ino = ino } };
		const struct umb_fs_rule *rule;
		__u32 access;

		if (i >= state->layer_count)
			break;
		if (!(state->fs_layers & (1U << i)))
			continue; /* a layer without fs rules */
		key.dir.layer = state->layers[i];
		rule = bpf_map_lookup_elem(&umb_fs_inodes, &key.dir);
		if (!rule)
			continue;
		access = rule->access & requested;
		if (!access && (rule->flags & UMB_FS_HAS_NAMES) && child) {
			if (!name_hash)
				name_hash = umb_fs_name_hash(child);
			key.name_hash = name_hash;
			rule = bpf_map_lookup_elem(&umb_fs_names, &key);
			access = rule ? rule->access & requested : 0;
		}
		if (!access)
			continue;
		if (!umb_layer_permissive(key.dir.layer))
			return (__u64)access << 32 | key.dir.layer;
		/* Kept untested (the last one that matches): were it tested ("keep the
		 * first"), the verifier would keep the loop's states with and without one
		 * apart, and check this function twice over in every program that walks.
		 * Which permissive layer a record names, when several match at one level,
		 * decides nothing. */
		permissive = UMB_MATCH_PERMISSIVE | (__u64)access << 32 | key.dir.layer;
	}
	return permissive;
}

/*
 * umb_fs_names_ruled() - (walk.bpf.h) One lookup per fs layer of the task, and the two
 * names hashed only where a layer restricts names in @dir.
 */
__noinline __u32 umb_fs_names_ruled(const struct umb_task_state *state, __u64 dir, __u64 a, __u64 b)
{
	const struct inode *inode;
	__u64 hash_a = 0, hash_b = 0;
	__u32 dev, found = 0;
	__u64 ino;

	if (!state || !dir || !a || !b)
		return UMB_NAMES_ENFORCING;
	inode = BPF_CORE_READ((struct dentry *)dir, d_inode);
	if (!inode)
		return UMB_NAMES_ENFORCING;
	dev = BPF_CORE_READ((struct dentry *)dir, d_sb, s_dev);
	ino = BPF_CORE_READ(inode, i_ino);
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		struct umb_fs_name_key key = { .dir = { .dev = dev, .ino = ino } };
		const struct umb_fs_rule *rule;

		if (i >= state->layer_count)
			break;
		if (!(state->fs_layers & (1U << i)))
			continue;
		key.dir.layer = state->layers[i];
		rule = bpf_map_lookup_elem(&umb_fs_inodes, &key.dir);
		if (!rule || !(rule->flags & UMB_FS_HAS_NAMES))
			continue;
		if (!hash_a) {
			hash_a = umb_fs_name_hash(a);
			hash_b = umb_fs_name_hash(b);
		}
		key.name_hash = hash_a;
		rule = bpf_map_lookup_elem(&umb_fs_names, &key);
		if (!rule) {
			key.name_hash = hash_b;
			rule = bpf_map_lookup_elem(&umb_fs_names, &key);
		}
		if (rule)
			found |= umb_layer_permissive(key.dir.layer) ? UMB_NAMES_PERMISSIVE :
								       UMB_NAMES_ENFORCING;
	}
	return found;
}

/*
 * umb_fs_unfinished_permissive() - (walk.bpf.h) Global, as the walk: inlined at each
 * walk of a hook, its loop over the layers was checked once per call site.
 */
__noinline int umb_fs_unfinished_permissive(const struct umb_task_state *state)
{
	if (!state)
		return 0;
	return umb_layer_permissive(umb_fs_layer(state));
}

/*
 * The reads of the walk, from kernel pointers held as numbers: plain loads through
 * bpf_core_cast() where umb_have_cast(), else bpf_probe_read_kernel() (Linux 6.1; as
 * few calls as the fields allow: each is most of what a level costs there). The
 * verifier keeps one branch of each. A fault reads as 0 either way.
 */

/* d_parent and d_inode of the dentry @d. */
static __always_inline void umb_kread_dentry(__u64 d, __u64 *parent, __u64 *inode)
{
	__u64 buf[UMB_PAIR_SPAN / 8];

	if (umb_have_cast()) {
		const struct dentry *dentry = bpf_core_cast((void *)d, struct dentry);

		*parent = (__u64)dentry->d_parent;
		*inode = (__u64)dentry->d_inode;
		return;
	}
	umb_read_pair(d, bpf_core_field_offset(struct dentry, d_parent),
		      bpf_core_field_offset(struct dentry, d_inode), buf);
	*parent = buf[0];
	*inode = buf[1];
}

/* s_dev of the super block of the dentry @d. */
static __always_inline __u32 umb_kread_dev(__u64 d)
{
	if (umb_have_cast())
		return bpf_core_cast((void *)d, struct dentry)->d_sb->s_dev;
	return BPF_CORE_READ((struct dentry *)d, d_sb, s_dev);
}

/* i_ino of the inode @i. */
static __always_inline __u64 umb_kread_ino(__u64 i)
{
	if (umb_have_cast())
		return bpf_core_cast((void *)i, struct inode)->i_ino;
	return BPF_CORE_READ((struct inode *)i, i_ino);
}

/* d_flags of the dentry @d. */
static __always_inline __u32 umb_kread_dflags(__u64 d)
{
	if (umb_have_cast())
		return bpf_core_cast((void *)d, struct dentry)->d_flags;
	return BPF_CORE_READ((struct dentry *)d, d_flags);
}

/* mnt_parent and mnt_mountpoint of the struct mount @m. */
static __always_inline void umb_kread_mount(__u64 m, __u64 *parent, __u64 *mountpoint)
{
	__u64 buf[UMB_PAIR_SPAN / 8];

	if (umb_have_cast()) {
		const struct mount *mount = bpf_core_cast((void *)m, struct mount);

		*parent = (__u64)mount->mnt_parent;
		*mountpoint = (__u64)mount->mnt_mountpoint;
		return;
	}
	umb_read_pair(m, bpf_core_field_offset(struct mount, mnt_parent),
		      bpf_core_field_offset(struct mount, mnt_mountpoint), buf);
	*parent = buf[0];
	*mountpoint = buf[1];
}

/*
 * umb_walk_level() - one level of the walk @w for @state's layers: the inode of
 * w->dentry (and the name of w->child in it) against the rules, then its parent; at the
 * root of a file system, or at once on one with no rule, the mount point in the parent
 * mount. Returns 0 to go on (@w moved), 1 when the walk has ended (@w tells how: done,
 * denied by an enforcing layer, or neither, which denies).
 *
 * A global function of its own, so that the loop in umb_fs_walk_up() holds nothing
 * but a counter: the verifier checks a level once, not along every path through 64 of
 * them (a loop carrying the walk in registers made it give up, E2BIG). The walk's
 * state is in @w, plain memory: what is read back from it is a number.
 */
__noinline int umb_walk_level(struct umb_walk *w, const struct umb_task_state *state)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	const struct umb_fs_filter *filter = umb_fs_filter_get();
	const struct mount *ns_root = umb_ns_root();
	__u64 d, m = 0, parent, inode, mount_parent, mountpoint, match;
	__u32 dev;

	if (!w || !filter)
		return 1; /* cannot happen: not done, the walk denies (fail closed) */
	d = w->dentry;
	if (w->mnt)
		m = w->mnt - mnt_off;
	/* dev at the first level on each super block: the d_parent chain stays on one.
	 * That of the namespace's root mount is known without a read. */
	if (w->need_dev) {
		if (ns_root && m == (__u64)ns_root)
			w->dev = ns_root->mnt.mnt_sb->s_dev;
		else
			w->dev = umb_kread_dev(d);
		/* No rule on this super block: skip its inodes. */
		w->dev_rules = umb_fs_filter_has(filter, w->dev, UMB_FS_FILTER_ANY_INO);
		w->need_dev = 0;
	}
	dev = w->dev;
	if (w->dev_rules) {
		umb_kread_dentry(d, &parent, &inode);
		/* A negative dentry (a name about to be created) has no inode of its own.
		 * Most inodes have no rule: their bit in umb_fs_filter is clear. */
		if (inode) {
			__u64 ino = umb_kread_ino(inode);

			if (umb_fs_filter_has(filter, dev, ino)) {
				match = umb_fs_level_match(state, dev, ino, w->child, w->requested);
				/* An enforcing layer's match ends the walk; a permissive one's
				 * is kept, and the walk goes on for an enforcing one above. */
				if (match && umb_walk_match(w, match))
					return 1;
			}
		}
		if (parent && parent != d) {
			w->child = d;
			w->dentry = parent;
			return 0;
		}
		/* A disconnected dentry (open_by_handle_at() of a file whose dentry was
		 * evicted) on a file system with rules: its ancestors are unknown, and the
		 * walk ends unfinished, which denies. */
		if (umb_kread_dflags(d) & UMB_DCACHE_DISCONNECTED)
			return 1;
	}
	/* The root of a file system (or a pseudo dentry), or any level of one with no
	 * rule: go on at the mount point of the mount, unless it is the root of its tree. */
	if (!m) {
		w->done = UMB_WALK_DONE; /* a hook that knows no mount: this file system only */
		return 1;
	}
	if (ns_root && m == (__u64)ns_root && ns_root->mnt_parent == ns_root) {
		w->done = UMB_WALK_DONE; /* the usual end, known without a read */
		return 1;
	}
	umb_kread_mount(m, &mount_parent, &mountpoint);
	/* A fault reads as 0: the walk ends unfinished and denies. */
	if (!mount_parent || !mountpoint)
		return 1;
	if (mount_parent == m) {
		w->done = UMB_WALK_DONE; /* the root of the tree is its own parent */
		return 1;
	}
	/* The mount point stands where the root just left did: no child for it. */
	w->dentry = mountpoint;
	w->mnt = mount_parent + mnt_off;
	w->child = 0;
	w->need_dev = 1;
	return 0;
}

/*
 * umb_fs_walk_up() - (walk.bpf.h) A level per umb_walk_level(), up to UMB_WALK_MAX in
 * all: w->levels were walked before (6.1's typed start).
 */
int umb_fs_walk_up(struct umb_walk *w, const struct umb_task_state *state)
{
	if (!w)
		return 0;
	w->child = 0; /* where the walk starts, no level below is known */
	w->need_dev = 1;
	for (__u32 i = 0; i < UMB_WALK_MAX; i++) {
		if (i + w->levels >= UMB_WALK_MAX)
			return 0; /* too deep: not done, the walk denies */
		if (umb_walk_level(w, state))
			return 0;
	}
	return 0;
}
