/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the walk's interface: the state of one walk and the global functions of
 * walk.bpf.c (linked into the object like maps.bpf.c), for lib/path.bpf.h.
 *
 * The walk's functions are global functions in a unit of their own: the verifier
 * checks each once, on its own, instead of once per hook that walks (about 25), which
 * is what made loading the programs slow (6.12: the bounded loop inlined in every
 * hook; 6.1: a typed loop inlined in every hook took 106 s). A global function sees
 * plain memory and scalars only, so kernel pointers cross as numbers. Not __hidden:
 * the linker gives hidden functions static linkage, which the verifier checks per call
 * site again.
 */
#ifndef UMBRELLA_WALK_BPF_H
#define UMBRELLA_WALK_BPF_H

#include "maps.bpf.h"

/* include/linux/dcache.h (the same bit in 6.1 and 6.12): a dentry that the export
 * operations made for a file handle, with its ancestors not (yet) known. */
#define UMB_DCACHE_DISCONNECTED 0x20

/* Directory levels (file system roots and mount points count as one each). */
#define UMB_WALK_MAX 64

/* umb_fs_level_match(): the match is a permissive layer's (UMB_LAYER_PERMISSIVE). */
#define UMB_MATCH_PERMISSIVE (1ULL << 63)

/* In umb_walk.requested, beside the UMB_FS_* asked: the walk stops at the first level
 * where a rule of any layer matches, a permissive layer's too (lib/reach.bpf.h, which
 * compares where two walks stop). No rule's access has this bit. */
#define UMB_FS_WALK_FIRST (1U << 31)

/* Longest name a dentry holds (NAME_MAX). */
#define UMB_NAME_MAX 255

/* The state of one walk: lib/path.bpf.h starts it, umb_fs_walk_up() goes on with it. */
struct umb_walk {
	/* where the walk is: kernel pointers, as numbers (on Linux 6.1 the hook's own
	 * ones are pointers the verifier knows in lib/walk-typed.bpf.h) */
	__u64 mnt;	  /* struct vfsmount * of dentry; 0: do not leave its file system.
		       * Right before dentry: umb_walk_cross() reads struct mount's
		       * mnt_parent and mnt_mountpoint into both at once. */
	__u64 dentry;	  /* struct dentry *: the level to look at next */
	__u64 child;	  /* struct dentry * the walk came from: its name is looked up (0:
		       * none) */
	__u32 child_next; /* 6.1's typed walk: the child is valid in the step whose
			   * index + 1 is this */
	__u32 levels;	  /* levels walked before umb_fs_walk_up() (6.1's typed walk) */
	__u32 dev;	  /* s_dev of the super block of the dentries walked */
	__u32 dev_rules;  /* its bit in umb_fs_filter: some inode of it may have a rule */
	__u32 need_dev;	  /* umb_walk_level(): dev is to be read (a new super block) */
	/* what is asked (requested first: it fills the hole before state, and the
	 * struct stays at 72 bytes: on Linux 6.1 the stack of path_link and the walk's
	 * calls is at its limit of 512, each frame counted rounded up to 32) */
	__u32 requested;		    /* UMB_FS_* */
	const struct umb_task_state *state; /* the task's layers (6.1's typed walk) */
	/* outcome */
	__u32 done;	   /* UMB_WALK_DONE, UMB_WALK_FS_ROOT or 0 (not done) */
	__u32 deny_layer;  /* the layer that denies; 0: none (or the walk was too deep) */
	__u32 deny_access; /* the UMB_FS_* it denies */
	__u32 permissive;  /* deny_layer is UMB_LAYER_PERMISSIVE: the denial is only recorded */
};

/* umb_walk.done: the walk reached the root of the mount tree (or of the only file
 * system it may walk), or 6.1's typed walk stopped at the root of a file system */
#define UMB_WALK_DONE	 1
#define UMB_WALK_FS_ROOT 2

_Static_assert(sizeof(struct umb_walk) == 72, "see the comment of umb_walk.requested");
_Static_assert(__builtin_offsetof(struct umb_walk, dentry) ==
		       __builtin_offsetof(struct umb_walk, mnt) + 8,
	       "umb_walk_cross() reads mnt and dentry at once");

/*
 * umb_fs_level_match() - whether one of @state's fs layers denies @requested at the
 * inode (@dev, @ino), or at the name of @child in it (walk.bpf.c)
 * @child: the struct dentry the walk came from, as a number (0: none, or not valid)
 *
 * A layer that enforces comes first: a permissive layer's match (UMB_LAYER_PERMISSIVE) is
 * returned only when no other layer denies here, with UMB_MATCH_PERMISSIVE, and the
 * walk then goes on up for an enforcing one.
 *
 * Return: 0, or the denying layer in the low 32 bits and the access it denies in the
 * high 32 bits (with UMB_MATCH_PERMISSIVE).
 */
extern __u64 umb_fs_level_match(const struct umb_task_state *state, __u32 dev, __u64 ino,
				__u64 child, __u32 requested);

/*
 * umb_fs_unfinished_permissive() - whether the denial of a walk for @state that did not
 * end (too deep, an unreadable mount, a disconnected dentry) is only recorded: the
 * layer that answers for it, umb_fs_layer(), is permissive (walk.bpf.c). Returns 0 or 1.
 */
extern int umb_fs_unfinished_permissive(const struct umb_task_state *state);

/*
 * umb_fs_walk_up() - the walk from @w->dentry (a number) through @w->mnt up to the root
 * of the mount tree, for @state's layers and @w->requested (walk.bpf.c). Sets
 * w->deny_layer and w->deny_access (and w->permissive) of a match; an enforcing one ends
 * the walk, a permissive one does not (an enforcing layer further up comes first).
 * Sets w->done when the walk reached its end; not done: the walk could not end (too
 * deep, an unreadable mount, a disconnected dentry), which the caller denies. Returns 0.
 */
extern int umb_fs_walk_up(struct umb_walk *w, const struct umb_task_state *state);

/* The FNV-1a 64 hash of the name of the struct dentry at @dentry (walk.bpf.c), 0 if
 * unreadable. */
extern __u64 umb_fs_name_hash(__u64 dentry);

/* umb_fs_names_ruled(): a name rule of an enforcing layer, of a permissive one. */
#define UMB_NAMES_ENFORCING  1
#define UMB_NAMES_PERMISSIVE 2

/*
 * umb_fs_names_ruled() - whether a layer of @state has a name rule (umb_fs_names) in the
 * directory @dir on the name of @a or of @b (struct dentry pointers as numbers), of any
 * access (walk.bpf.c). Returns UMB_NAMES_ENFORCING and UMB_NAMES_PERMISSIVE or'ed, or 0;
 * UMB_NAMES_ENFORCING when it cannot tell (no directory, no name: fail closed).
 */
extern __u32 umb_fs_names_ruled(const struct umb_task_state *state, __u64 dir, __u64 a, __u64 b);

/*
 * umb_walk_match() - keeps in @w the match @match of umb_fs_level_match() (not 0).
 * Returns 1 when its layer enforces (the walk ends, denied), 0 when it only records
 * (the walk goes on: a layer further up may enforce, and its match then replaces this
 * one); 1 for any match with UMB_FS_WALK_FIRST. Sets fields only: no decision here reads @w (Linux 6.1's bpf_loop() callback
 * in lib/walk-typed.bpf.h).
 */
static __always_inline int umb_walk_match(struct umb_walk *w, __u64 match)
{
	w->deny_layer = (__u32)match;
	w->deny_access = (match >> 32) & UMB_FS_ALL;
	w->permissive = !!(match & UMB_MATCH_PERMISSIVE);
	return !(match & UMB_MATCH_PERMISSIVE) || (w->requested & UMB_FS_WALK_FIRST);
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

/*
 * umb_ns_root() - the root mount of the current task's mount namespace, from pointers
 * the verifier knows: plain loads, no helper call (NULL for a task that has left its
 * namespaces while exiting). Most walks end on its file system, so on Linux 6.1 its
 * super block and its own parent need no bpf_probe_read_kernel().
 */
static __always_inline const struct mount *umb_ns_root(void)
{
	return bpf_get_current_task_btf()->nsproxy->mnt_ns->root;
}

/* Bytes one umb_read_pair() reads at most. */
#define UMB_PAIR_SPAN 32

/*
 * umb_read_pair() - two 8-byte fields of the kernel struct at @base, at CO-RE offsets
 * @off_a < @off_b, into @buf[0] and @buf[1], in one bpf_probe_read_kernel() when they
 * are close (each helper call is most of what a level costs on Linux 6.1), else in
 * two. The offsets are constants once libbpf has relocated them: the verifier keeps
 * one branch. Unreadable: zeros, as BPF_CORE_READ() gives. @buf: the caller's (the
 * stack of the hook, the walk and umb_fs_name_hash() together is at most 512 bytes,
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

#endif /* UMBRELLA_WALK_BPF_H */
