/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - matching a file system object against the fs rules of a task's layers.
 *
 * Rules name objects, not strings (DESIGN.md section 2): umb_fs_inodes holds restricted
 * inodes, umb_fs_names restricted names in directories. An object is denied when it, or
 * any directory above it, carries a deny slot of one of the task's layers for the
 * requested access, or when one of the names on the way up does.
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
 * The cost is per level. Where the kernel has bpf_rdonly_cast() (6.2 and later), the
 * walk is a bounded loop in the program that reads the kernel's structures with plain
 * loads (umb_walk_fast()). On Linux 6.1 it is two bpf_loop() callbacks: the first
 * (umb_walk_step_typed()) reads with plain loads from the hook's own dentry up to the
 * root of its file system, the second (umb_walk_step()) goes on from the mount point
 * with bpf_probe_read_kernel(). All consult umb_fs_filter first, a bitmap of the
 * inodes that have rules and of their file systems: most levels end there, without a
 * hash lookup, and a file system with no rule at all is not walked.
 *
 * The walk reads kernel memory without locks (as d_path does under RCU, minus the retry):
 * a concurrent rename can make one check see a mix of the old and the new tree.
 */
#ifndef UMBRELLA_PATH_BPF_H
#define UMBRELLA_PATH_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"

/* include/linux/dcache.h (the same bit in 6.1 and 6.12): a dentry that the export
 * operations made for a file handle, with its ancestors not (yet) known. */
#define UMB_DCACHE_DISCONNECTED 0x20

/* Directory levels (file system roots and mount points count as one each). */
#define UMB_WALK_MAX 64

/* umb_fs_level_match(): the match is a permissive layer's (UMB_LAYER_PERMISSIVE). */
#define UMB_MATCH_PERMISSIVE (1ULL << 63)

/* Longest name a dentry holds (NAME_MAX). */
#define UMB_NAME_MAX 255

/* The state of one walk, shared with the bpf_loop() callback. */
struct umb_walk {
	/* where the walk is: kernel pointers (the verifier sees them as such in
	 * umb_walk_step_typed(), elsewhere maybe as numbers: then they are only read
	 * through BPF_CORE_READ() or bpf_probe_read_kernel()) */
	__u64 mnt;	  /* struct vfsmount * of dentry; 0: do not leave its file system.
		       * Right before dentry: umb_walk_cross() reads struct mount's
		       * mnt_parent and mnt_mountpoint into both at once. */
	__u64 dentry;	  /* struct dentry *: the level to look at next */
	__u64 child;	  /* struct dentry * the walk came from: its name is looked up */
	__u32 child_next; /* the child is valid in the step whose index + 1 is this */
	__u32 dev_step;	  /* the step of umb_walk_step() that reads dev (the first, and the
			   * first after a mount point: the d_parent chain stays on one
			   * super block) */
	__u32 dev;	  /* s_dev of the super block of the dentries walked */
	__u32 dev_rules;  /* its bit in umb_fs_filter: some inode of it may have a rule */
	/* what is asked */
	const struct umb_task_state *state; /* the task's layers (read on a match only) */
	__u32 requested;		    /* UMB_FS_* */
	/* outcome */
	__u32 done;	   /* UMB_WALK_DONE, UMB_WALK_FS_ROOT or 0 (not done) */
	__u32 deny_layer;  /* the layer that denies; 0: none (or the walk was too deep) */
	__u32 deny_access; /* the UMB_FS_* it denies */
	__u32 permissive;  /* deny_layer is UMB_LAYER_PERMISSIVE: the denial is only recorded */
};

/* umb_walk.done: the walk reached the root of the mount tree (or of the only file
 * system it may walk), or umb_walk_step_typed() stopped at the root of a file system */
#define UMB_WALK_DONE	 1
#define UMB_WALK_FS_ROOT 2

_Static_assert(__builtin_offsetof(struct umb_walk, dentry) ==
		       __builtin_offsetof(struct umb_walk, mnt) + 8,
	       "umb_walk_cross() reads mnt and dentry at once");

/*
 * The two loops of a step are global functions: the verifier checks each once, on its
 * own, instead of once per step of the walk it explores (Linux 6.7 and later explore a
 * bpf_loop() callback until its state converges). A global function sees plain memory
 * and scalars only, hence the kernel pointer passed as a number. Not __hidden: the
 * linker gives hidden functions static linkage, which the verifier inlines again.
 */

/* Bytes of a name hashed per read (with the verifier's bound, (n & 127) == n). */
#define UMB_NAME_CHUNK 127

/* umb_fs_name_hash() - FNV-1a 64 of the name of the struct dentry at @dentry, as
 * layer_name_hash() computes it in umbrellad. Read in chunks to keep the stack small. */
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
 * umb_fs_level_match() - whether one of @state's fs layers denies @requested at the
 * inode (@dev, @ino), or at the name of @child in it
 * @child: the struct dentry the walk came from, as a number (0: none, or not valid)
 *
 * Each layer's rules are its own entries (struct umb_fs_key), so one lookup per layer
 * of the task that has fs rules (state->fs_layers); the name is hashed at most once,
 * and only where a layer restricts names in this directory.
 *
 * A layer that enforces comes first: a permissive layer's match (UMB_LAYER_PERMISSIVE) is
 * returned only when no other layer denies here, with UMB_MATCH_PERMISSIVE, and the
 * walk then goes on up for an enforcing one.
 *
 * Return: 0, or the denying layer in the low 32 bits and the access it denies in the
 * high 32 bits (with UMB_MATCH_PERMISSIVE).
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
		if (!permissive)
			permissive = UMB_MATCH_PERMISSIVE | (__u64)access << 32 | key.dir.layer;
	}
	return permissive;
}

/*
 * umb_walk_match() - keeps in @w the match @match of umb_fs_level_match() (not 0).
 * Returns 1 when its layer enforces (the walk ends, denied), 0 when it only records
 * (the walk goes on: a layer further up may enforce). Sets fields only: no decision
 * here reads @w (see the bpf_loop() callbacks below).
 */
static __always_inline int umb_walk_match(struct umb_walk *w, __u64 match)
{
	w->deny_layer = (__u32)match;
	w->deny_access = (match >> 32) & UMB_FS_ALL;
	w->permissive = !!(match & UMB_MATCH_PERMISSIVE);
	return !(match & UMB_MATCH_PERMISSIVE);
}

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

/* The bitmap umb_fs_filter, or NULL (cannot happen: an array always has its entry). */
static __always_inline const struct umb_fs_filter *umb_fs_filter_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&umb_fs_filter, &zero);
}

/* Whether the inode (@dev, @ino) may have an entry in umb_fs_inodes: its bit in
 * @filter is set. */
static __always_inline int umb_fs_filter_has(const struct umb_fs_filter *filter, __u32 dev,
					     __u64 ino)
{
	__u32 bit = umb_fs_filter_bit(dev, ino);

	return (filter->words[(bit >> 6) & (UMB_FS_FILTER_WORDS - 1)] >> (bit & 63)) & 1;
}

/* Bytes one umb_read_pair() reads at most. */
#define UMB_PAIR_SPAN 32

/*
 * umb_read_pair() - two 8-byte fields of the kernel struct at @base, at CO-RE offsets
 * @off_a < @off_b, into @buf[0] and @buf[1], in one bpf_probe_read_kernel() when they
 * are close (each helper call is most of what a level of umb_walk_step() costs), else
 * in two. The offsets are constants once libbpf has relocated them: the verifier keeps
 * one branch. Unreadable: zeros, as BPF_CORE_READ() gives. @buf: the caller's (the
 * stack of the hook, the step and umb_fs_name_hash() together is at most 512 bytes,
 * counted per frame rounded up to 32 on Linux 6.1).
 */
static __always_inline void umb_read_pair(__u64 base, __u32 off_a, __u32 off_b,
					  __u64 buf[UMB_PAIR_SPAN / 8])
{
	if (off_a < off_b && off_b - off_a < UMB_PAIR_SPAN && !(off_a & 7) && !(off_b & 7)) {
		bpf_probe_read_kernel(buf, off_b - off_a + 8, (const void *)(base + off_a));
		buf[1] = buf[(off_b - off_a) / 8];
	} else {
		bpf_probe_read_kernel(&buf[0], 8, (const void *)(base + off_a));
		bpf_probe_read_kernel(&buf[1], 8, (const void *)(base + off_b));
	}
}

/*
 * umb_level_denies() - whether a rule on the inode (w->dev, @ino), or on the name of
 * w->child in it, denies the walk @w (records the layer and access). @index: the step's,
 * which tells whether w->child is the level below this one.
 */
static __always_inline int umb_level_denies(struct umb_walk *w, __u32 index, __u64 ino)
{
	const struct umb_fs_filter *filter = umb_fs_filter_get();
	__u64 child = 0, match;

	/* Most inodes have no rule: their bit in umb_fs_filter is clear. */
	if (filter && !umb_fs_filter_has(filter, w->dev, ino))
		return 0;
	/* The child as a number for the global function (the verifier may know it as a
	 * pointer): a copy it cannot follow. */
	if (w->child_next == index + 1)
		bpf_probe_read_kernel(&child, sizeof(child), &w->child);
	match = umb_fs_level_match(w->state, w->dev, ino, child, w->requested);
	if (!match)
		return 0;
	return umb_walk_match(w, match);
}

/*
 * umb_ns_root() - the root mount of the current task's mount namespace, from pointers
 * the verifier knows: plain loads, no helper call (NULL for a task that has left its
 * namespaces while exiting). Most walks on Linux 6.1 end on its file system, so its
 * super block and its own parent need no bpf_probe_read_kernel().
 */
static __always_inline const struct mount *umb_ns_root(void)
{
	return bpf_get_current_task_btf()->nsproxy->mnt_ns->root;
}

/*
 * umb_walk_cross() - at the root of a file system (or anywhere on one with no rule),
 * moves @w from its mount (w->mnt) to the mount point in the parent mount. Returns 1
 * when the walk ends there: the root of the mount tree, or a hook that knows no mount
 * (w->done set), or an unreadable mount (w->done not set: the walk denies). No stack:
 * the fields are read into @w.
 */
static __always_inline int umb_walk_cross(struct umb_walk *w)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	__u32 off_parent = bpf_core_field_offset(struct mount, mnt_parent);
	__u32 off_point = bpf_core_field_offset(struct mount, mnt_mountpoint);
	const struct mount *ns_root = umb_ns_root();
	__u64 m = w->mnt - mnt_off;
	long err;

	if (!w->mnt) {
		w->done = UMB_WALK_DONE; /* a hook that knows no mount: this file system only */
		return 1;
	}
	if (ns_root && w->mnt == (__u64)&ns_root->mnt && ns_root->mnt_parent == ns_root) {
		w->done = UMB_WALK_DONE; /* the usual end, known without a read */
		return 1;
	}
	/* mnt_parent into w->mnt, mnt_mountpoint into w->dentry */
	if (off_point == off_parent + 8) {
		err = bpf_probe_read_kernel(&w->mnt, 16, (const void *)(m + off_parent));
	} else {
		err = bpf_probe_read_kernel(&w->mnt, 8, (const void *)(m + off_parent));
		err |= bpf_probe_read_kernel(&w->dentry, 8, (const void *)(m + off_point));
	}
	if (err || !w->mnt || !w->dentry)
		return 1;
	if (w->mnt == m) {
		w->done = UMB_WALK_DONE; /* the root of the tree is its own parent */
		return 1;
	}
	w->mnt += mnt_off;
	/* The mount point stands where the root just left did: no child for it. */
	w->child_next = 0;
	return 0;
}

/*
 * Linux 6.1's bpf_loop() callbacks. Each returns 1 to stop, 0 to go on.
 *
 * Up to Linux 6.6 the verifier checks a bpf_loop() callback once, with the context as
 * it is before the first call, and drops code that is dead then: no decision here may
 * depend on a context field that starts as a constant and changes later. Whether the
 * child is valid is therefore told by the loop index (child_next), not by child != 0.
 */

/*
 * umb_walk_step_typed() - one level, where w->dentry is a struct dentry pointer the
 * verifier knows (the hook's, and every d_parent read from it with a plain load:
 * fault-safe loads, no helper call). Stops at the root of the file system
 * (UMB_WALK_FS_ROOT): struct mount cannot be reached from a typed pointer on 6.1.
 * w->dev is the dentry's super block's, set before the loop, which only runs on a file
 * system with rules.
 */
static long umb_walk_step_typed(__u32 index, void *data)
{
	struct umb_walk *w = data;
	const struct dentry *d = (const struct dentry *)w->dentry;
	const struct dentry *parent = d->d_parent;
	const struct inode *inode = d->d_inode;

	/* A negative dentry (a name about to be created) has no inode of its own. */
	if (inode && umb_level_denies(w, index, inode->i_ino))
		return 1;
	if (parent && parent != d) {
		w->child = (__u64)d;
		w->child_next = index + 2;
		w->dentry = (__u64)parent;
		return 0;
	}
	/* A disconnected dentry (open_by_handle_at() of a file whose dentry was
	 * evicted) has no ancestors to check: not done, the walk denies. */
	if (d->d_flags & UMB_DCACHE_DISCONNECTED)
		return 1;
	w->done = UMB_WALK_FS_ROOT; /* the root of the file system */
	return 1;
}

/*
 * umb_walk_step() - one level, where w->dentry may be a number to the verifier: read
 * with bpf_probe_read_kernel(). Crosses mount points.
 */
static long umb_walk_step(__u32 index, void *data)
{
	struct umb_walk *w = data;
	const struct umb_fs_filter *filter;
	__u64 dentry = w->dentry, parent, inode;
	__u64 buf[UMB_PAIR_SPAN / 8];

	/* dev at the first step on each super block, and whether it has rules */
	if (index == w->dev_step) {
		const struct mount *ns_root = umb_ns_root();

		if (ns_root && w->mnt == (__u64)&ns_root->mnt)
			w->dev = ns_root->mnt.mnt_sb->s_dev; /* known without a read */
		else
			w->dev = BPF_CORE_READ((struct dentry *)dentry, d_sb, s_dev);
		filter = umb_fs_filter_get();
		w->dev_rules = !filter || umb_fs_filter_has(filter, w->dev, UMB_FS_FILTER_ANY_INO);
	}
	if (w->dev_rules) {
		umb_read_pair(dentry, bpf_core_field_offset(struct dentry, d_parent),
			      bpf_core_field_offset(struct dentry, d_inode), buf);
		parent = buf[0];
		inode = buf[1];
		if (inode &&
		    umb_level_denies(w, index, BPF_CORE_READ((struct inode *)inode, i_ino)))
			return 1;
		if (parent && parent != dentry) {
			w->child = dentry;
			w->child_next = index + 2;
			w->dentry = parent;
			return 0;
		}
		/* Disconnected (see umb_walk_step_typed()): the walk denies. */
		if (BPF_CORE_READ((struct dentry *)dentry, d_flags) & UMB_DCACHE_DISCONNECTED)
			return 1;
	}
	/* The root of a file system, or any level of one with no rule (none of its inodes
	 * can deny): go on at the mount point of the mount, unless it is the root of its
	 * tree. The mount point is on the parent mount's super block. */
	if (umb_walk_cross(w))
		return 1;
	w->dev_step = index + 1;
	return 0;
}

/*
 * umb_walk_fast() - the walk of umb_walk_step(), as a bounded loop in the program, with
 * plain loads through bpf_core_cast() (only where umb_have_cast()): no helper call and
 * no callback per level, the walk's state in registers. On a rule found (its bit in
 * umb_fs_filter set: rare) the step does what umb_walk_step() does.
 */
static __always_inline void umb_walk_fast(struct umb_walk *w, const struct umb_fs_filter *filter)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	const struct umb_task_state *state = w->state;
	struct dentry *d = bpf_core_cast((void *)w->dentry, struct dentry), *child = NULL;
	struct mount *m = NULL;
	__u32 dev = 0, need_dev = 1, dev_rules = 0, requested = w->requested;

	if (w->mnt)
		m = bpf_core_cast((void *)(w->mnt - mnt_off), struct mount);
	for (__u32 i = 0; i < UMB_WALK_MAX; i++) {
		struct dentry *parent = d->d_parent;
		struct inode *inode = d->d_inode;
		struct mount *mount_parent;

		/* dev at the first level on each super block: the d_parent chain stays on one */
		if (need_dev) {
			dev = d->d_sb->s_dev;
			/* No rule on this super block: skip its inodes. */
			dev_rules = umb_fs_filter_has(filter, dev, UMB_FS_FILTER_ANY_INO);
			need_dev = 0;
		}
		/* A negative dentry (a name about to be created) has no inode of its own. */
		if (dev_rules && inode) {
			__u64 ino = inode->i_ino;

			if (umb_fs_filter_has(filter, dev, ino)) {
				__u64 c = 0, match;

				/* The child as a number for the global function. */
				if (child) {
					w->child = (__u64)child;
					bpf_probe_read_kernel(&c, sizeof(c), &w->child);
				}
				match = umb_fs_level_match(state, dev, ino, c, requested);
				if (match && umb_walk_match(w, match))
					return;
			}
		}

		if (dev_rules && parent && parent != d) {
			child = d;
			d = parent;
			continue;
		}
		/* A disconnected dentry (open_by_handle_at() of a file whose dentry was
		 * evicted) on a file system with rules: its ancestors are unknown, and
		 * the walk ends unfinished, which denies (fail closed). */
		if (dev_rules && (d->d_flags & UMB_DCACHE_DISCONNECTED))
			return;
		/* The root of a file system (or a disconnected or pseudo dentry), or any level
		 * of one with no rule: go on at the mount point of the mount, unless it is the
		 * root of its tree. */
		if (!m) {
			w->done =
				UMB_WALK_DONE; /* a hook that knows no mount: this file system only */
			return;
		}
		/* A fault reads as NULL: the walk ends unfinished and denies, as on 6.1. */
		mount_parent = m->mnt_parent;
		if (!mount_parent)
			return;
		if (mount_parent == m) {
			w->done = UMB_WALK_DONE; /* the root of the tree is its own parent */
			return;
		}
		/* The mount point stands where the root just left did: no child for it. */
		d = m->mnt_mountpoint;
		if (!d)
			return;
		m = mount_parent;
		child = NULL;
		need_dev = 1;
	}
}

/*
 * umb_walk_pointer() - the start of a walk on Linux 6.1 from @dentry, a pointer the
 * verifier knows: the levels of its file system with plain loads (none when no rule
 * is on it), then its mount point. Returns the levels walked, for umb_walk_step() to
 * go on from w->dentry, or UMB_WALK_MAX when the walk has ended (w tells how).
 */
static __always_inline long umb_walk_pointer(struct umb_walk *w, const struct umb_fs_filter *filter,
					     const struct dentry *dentry)
{
	long steps = 0;

	w->dev = dentry->d_sb->s_dev;
	w->dev_rules = umb_fs_filter_has(filter, w->dev, UMB_FS_FILTER_ANY_INO);
	if (w->dev_rules) {
		steps = bpf_loop(UMB_WALK_MAX, umb_walk_step_typed, w, 0);
		if (w->done != UMB_WALK_FS_ROOT)
			return UMB_WALK_MAX; /* denied, or deeper than UMB_WALK_MAX */
		w->done = 0;
	}
	if (umb_walk_cross(w))
		return UMB_WALK_MAX; /* done, or an unreadable mount */
	return steps;
}

/* How the verifier knows a hook's dentry: a pointer (the hook's argument, or read
 * from one with a plain load), or a number (read with BPF_CORE_READ(), or computed). */
enum umb_dentry_kind {
	UMB_DENTRY_POINTER,
	UMB_DENTRY_NUMBER,
};

/*
 * umb_fs_walk() - whether @state's layers deny @requested on @dentry
 * @mnt: the mount @dentry was reached through, or NULL to stay on its file system
 *	(hooks that get no mount: the rules above the file system's mount point are
 *	then not seen)
 * @kind: UMB_DENTRY_POINTER lets Linux 6.1 walk @dentry's file system with plain
 *	loads; the verifier refuses the program if @dentry is then a number
 * @w: filled with the outcome (deny_layer, deny_access)
 *
 * @dentry may be negative: the name is then checked in its directory, and the walk
 * goes on from there. Returns 1 when denied, 0 when allowed.
 */
static __always_inline int umb_fs_walk(const struct umb_task_state *state, __u32 requested,
				       const struct dentry *dentry, const struct vfsmount *mnt,
				       enum umb_dentry_kind kind, struct umb_walk *w)
{
	const struct umb_fs_filter *filter = umb_fs_filter_get();
	long steps = 0;

	w->dentry = (__u64)dentry;
	w->mnt = (__u64)mnt;
	w->child = 0;
	w->child_next = 0;
	w->dev_step = 0;
	w->dev = 0;
	w->dev_rules = 1;
	w->requested = requested;
	w->state = state;
	w->done = 0;
	w->deny_layer = 0;
	w->deny_access = 0;
	w->permissive = 0;

	if (!filter) {
		/* cannot happen (an array has its entry): deny (fail closed) */
	} else if (umb_have_cast()) {
		umb_walk_fast(w, filter);
	} else {
		if (kind == UMB_DENTRY_POINTER)
			steps = umb_walk_pointer(w, filter, dentry);
		if (steps >= 0 && steps < UMB_WALK_MAX)
			bpf_loop(UMB_WALK_MAX - steps, umb_walk_step, w, 0);
	}
	if (w->deny_layer && !w->permissive)
		return 1;
	if (w->done != UMB_WALK_DONE) {
		/* Deeper than UMB_WALK_MAX, an unreadable mount, or bpf_loop() failed: deny
		 * (fail closed). The record names no layer; only permissive layers with fs
		 * rules (umb_fs_layer()) only record it. */
		w->deny_layer = 0;
		w->deny_access = requested;
		w->permissive = umb_layer_permissive(umb_fs_layer(state));
		return 1;
	}
	/* A permissive layer's match, and none that enforces: recorded, allowed. */
	return w->deny_layer != 0;
}

/* The flags of the record of the denial the walk @w found (umb_deny_flags()). */
static __always_inline __u32 umb_walk_flags(const struct umb_walk *w)
{
	return umb_deny_flags() | (w->permissive ? UMB_EVENT_PERMISSIVE : 0);
}

/* The verdict of a file system hook: -EACCES ("Permission denied") when @denied.
 * The compiler barrier keeps the two constant returns (see umb_verdict()). */
static __always_inline int umb_fs_verdict(__u64 denied)
{
	barrier_var(denied);
	if (denied)
		return -EACCES;
	return 0;
}

/* Starts the record, with @flags (umb_deny_flags()), of the denial the walk @w found on
 * @dentry (NULL when the ring buffer is full); the caller adds the path and submits.
 * The inode recorded is the object's, or for a name not yet created its directory's. */
static __always_inline struct umb_event *umb_fs_event(const struct umb_walk *w, __u32 hook,
						      const struct dentry *dentry, __u32 flags)
{
	struct umb_event *e =
		umb_event_begin(hook, w->deny_layer, UMB_ITEM_FS, w->deny_access, flags);
	struct inode *inode;

	if (e) {
		inode = BPF_CORE_READ(dentry, d_inode);
		if (!inode)
			inode = BPF_CORE_READ(dentry, d_parent, d_inode);
		e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
		e->ino = BPF_CORE_READ(inode, i_ino);
	}
	return e;
}

/*
 * umb_fs_check_kind() - the whole check of a hook that has a dentry (and maybe its
 * mount), known to the verifier as @kind (see umb_fs_walk())
 *
 * Walks, and on denial records the event with the dentry's own name as its path (the
 * full path is only cheap where bpf_d_path() is allowed: see file_open). Returns the
 * hook's verdict: 0 or -EACCES (0 in permissive mode: the denial is only recorded).
 */
static __always_inline int umb_fs_check_kind(const struct umb_task_state *state, __u32 requested,
					     const struct dentry *dentry,
					     const struct vfsmount *mnt, enum umb_dentry_kind kind,
					     __u32 hook)
{
	struct umb_walk w;
	struct umb_event *e;
	__u32 flags;

	if (!umb_fs_walk(state, requested, dentry, mnt, kind, &w))
		return umb_fs_verdict(0);
	flags = umb_walk_flags(&w);
	e = umb_fs_event(&w, hook, dentry, flags);
	if (e)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ(dentry, d_name.name));
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/*
 * umb_fs_check_path() - umb_fs_check() of @path, whose denial names the whole path
 * (bpf_d_path()). Only in the hooks where the kernel lets a BPF LSM program call it:
 * those of its sleepable set (kernel/bpf/bpf_lsm.c: inode_getattr, mmap_file,
 * path_notify, file_receive, file_open; not the path_* hooks, whose records keep the
 * object's name only). @path must come from the hook's arguments.
 */
static __always_inline int umb_fs_check_path(const struct umb_task_state *state, __u32 requested,
					     const struct path *path, __u32 hook)
{
	struct umb_walk w;
	struct umb_event *e;
	__u32 flags;

	if (!umb_fs_walk(state, requested, path->dentry, path->mnt, UMB_DENTRY_POINTER, &w))
		return umb_fs_verdict(0);
	flags = umb_walk_flags(&w);
	e = umb_fs_event(&w, hook, path->dentry, flags);
	if (e && bpf_d_path((struct path *)path, e->path, sizeof(e->path)) < 0)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ(path, dentry, d_name.name));
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/* umb_fs_check() - umb_fs_check_kind() of a dentry the verifier knows as a pointer: the
 * hook's argument, or read from one with a plain load (file->f_path.dentry). */
static __always_inline int umb_fs_check(const struct umb_task_state *state, __u32 requested,
					const struct dentry *dentry, const struct vfsmount *mnt,
					__u32 hook)
{
	return umb_fs_check_kind(state, requested, dentry, mnt, UMB_DENTRY_POINTER, hook);
}

/* umb_fs_check_number() - umb_fs_check_kind() of a dentry the verifier knows as a
 * number (read with BPF_CORE_READ(), or computed) */
static __always_inline int umb_fs_check_number(const struct umb_task_state *state, __u32 requested,
					       const struct dentry *dentry,
					       const struct vfsmount *mnt, __u32 hook)
{
	return umb_fs_check_kind(state, requested, dentry, mnt, UMB_DENTRY_NUMBER, hook);
}

#endif /* UMBRELLA_PATH_BPF_H */
