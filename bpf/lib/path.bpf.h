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
 * detached mounts all end at the same inodes. A walk that does not end within
 * UMB_WALK_MAX levels denies (fail closed).
 *
 * The walk reads kernel memory without locks (as d_path does under RCU, minus the retry):
 * a concurrent rename can make one check see a mix of the old and the new tree.
 */
#ifndef UMBRELLA_PATH_BPF_H
#define UMBRELLA_PATH_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"

/* Directory levels (file system roots and mount points count as one each). */
#define UMB_WALK_MAX 64

/* Longest name a dentry holds (NAME_MAX). */
#define UMB_NAME_MAX 255

/* The state of one walk, shared with the bpf_loop() callback. */
struct umb_walk {
	/* where the walk is: kernel pointers, read with BPF_CORE_READ() */
	__u64 dentry; /* struct dentry *: the level to look at next */
	__u64 mnt;    /* struct vfsmount * of that dentry; 0: do not leave its file system */
	__u64 child;  /* struct dentry * the walk came from: its name is looked up */
	__u32 child_next; /* the child is valid in the step whose index + 1 is this */
	__u64 sb;     /* struct super_block * whose s_dev is dev (a cache); 0 at first */
	__u32 dev;    /* that super block's s_dev */
	/* what is asked */
	__u32 requested; /* UMB_FS_* */
	__u32 layer_count;
	__u32 layers[UMB_MAX_LAYERS]; /* the task's stack, copied */
	/* outcome */
	__u32 done;	   /* the walk reached the root: 1 */
	__u32 deny_layer;  /* the layer that denies; 0: none (or the walk was too deep) */
	__u32 deny_access; /* the UMB_FS_* it denies */
};

/*
 * The two loops of a step are global functions: the verifier checks each once, on its
 * own, instead of once per step of the walk it explores (Linux 6.7 and later explore a
 * bpf_loop() callback until its state converges). A global function sees plain memory
 * and scalars only, hence the kernel pointer passed as a number. Not __hidden: the
 * linker gives hidden functions static linkage, which the verifier inlines again.
 */

/*
 * umb_fs_rule_match() - whether one of @w's layers denies access @w asks in @rule
 *
 * Return: 0, or the denying layer in the low 32 bits and the access it denies in the
 * high 32 bits.
 */
__noinline __u64 umb_fs_rule_match(const struct umb_fs_rule *rule, const struct umb_walk *w)
{
	if (!rule || !w)
		return 0;
	for (__u32 s = 0; s < UMB_FS_DENY_SLOTS; s++) {
		__u32 layer = rule->deny[s].layer;
		__u32 access = rule->deny[s].access & w->requested;

		if (!layer || !access)
			continue; /* free slot, or another kind of access */
		for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
			if (i >= w->layer_count)
				break;
			if (w->layers[i] == layer)
				return (__u64)access << 32 | layer;
		}
	}
	return 0;
}

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

/* Whether @rule denies the walk @w; records the layer and access. */
static __always_inline int umb_rule_denies(struct umb_walk *w, const struct umb_fs_rule *rule)
{
	__u64 match = umb_fs_rule_match(rule, w);

	if (!match)
		return 0;
	w->deny_layer = (__u32)match;
	w->deny_access = match >> 32;
	return 1;
}

/* Bytes one umb_read_pair() reads at most. */
#define UMB_PAIR_SPAN 32

/*
 * umb_read_pair() - two 8-byte fields of the kernel struct at @base, at CO-RE offsets
 * @off_a < @off_b, into @buf[0] and @buf[1], in one bpf_probe_read_kernel() when they are close (each helper call
 * is most of what a level of the walk costs), else in two. The offsets are constants
 * once libbpf has relocated them: the verifier keeps one branch. Unreadable: zeros, as
 * BPF_CORE_READ() gives. @buf: the caller's, also scratch space (one for all the
 * reads of a step: the stack of the hook, the step and umb_fs_name_hash() together is at most 512
 * bytes, counted per frame rounded up to 32 on Linux 6.1).
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
 * One level of the walk (a bpf_loop() callback). Returns 1 to stop, 0 to go on.
 *
 * Up to Linux 6.6 the verifier checks a bpf_loop() callback once, with the context as
 * it is before the first call, and drops code that is dead then: no decision here may
 * depend on a context field that starts as a constant and changes later. Whether the
 * child is valid is therefore told by the loop index (child_next), not by child != 0.
 */
static long umb_walk_step(__u32 index, void *data)
{
	struct umb_walk *w = data;
	struct dentry *dentry = (struct dentry *)w->dentry, *parent;
	const struct umb_fs_rule *rule;
	struct mount *mount, *mount_parent;
	struct umb_name_key name_key = {};
	__u64 inode, sb, buf[UMB_PAIR_SPAN / 8];

	/* d_parent and d_inode in one read, i_sb and i_ino in another; the super block's
	 * s_dev is read again only when the super block changes (at mount points). */
	umb_read_pair(w->dentry, bpf_core_field_offset(struct dentry, d_parent),
		      bpf_core_field_offset(struct dentry, d_inode), buf);
	parent = (struct dentry *)buf[0];
	inode = buf[1];

	/* A negative dentry (a name about to be created) has no inode of its own. */
	if (inode) {
		/* name_key.dir is the inode's key (one key on the stack, not two) */
		struct umb_inode_key *key = &name_key.dir;

		umb_read_pair(inode, bpf_core_field_offset(struct inode, i_sb),
			      bpf_core_field_offset(struct inode, i_ino), buf);
		sb = buf[0];
		if (sb != w->sb) {
			w->sb = sb;
			w->dev = BPF_CORE_READ((struct super_block *)sb, s_dev);
		}
		key->dev = w->dev;
		key->ino = buf[1];
		rule = bpf_map_lookup_elem(&umb_fs_inodes, key);
		if (rule) {
			if (umb_rule_denies(w, rule))
				return 1;
			if ((rule->flags & UMB_FS_HAS_NAMES) && w->child_next == index + 1) {
				name_key.name_hash = umb_fs_name_hash(w->child);
				rule = bpf_map_lookup_elem(&umb_fs_names, &name_key);
				if (rule && umb_rule_denies(w, rule))
					return 1;
			}
		}
	}

	if (parent && parent != dentry) {
		w->child = (__u64)dentry;
		w->child_next = index + 2;
		w->dentry = (__u64)parent;
		return 0;
	}

	/* The root of a file system (or a disconnected or pseudo dentry): go on at the
	 * mount point of the mount, unless it is the root of its tree. */
	if (!w->mnt) {
		w->done = 1; /* a hook that knows no mount: this file system only */
		return 1;
	}
	mount = (struct mount *)(w->mnt - bpf_core_field_offset(struct mount, mnt));
	mount_parent = BPF_CORE_READ(mount, mnt_parent);
	if (!mount_parent || mount_parent == mount) {
		w->done = 1;
		return 1;
	}
	w->dentry = (__u64)BPF_CORE_READ(mount, mnt_mountpoint);
	w->mnt = (__u64)mount_parent + bpf_core_field_offset(struct mount, mnt);
	/* The mount point stands where the root just left did: no child for it (child_next
	 * stays behind). */
	return 0;
}

/*
 * umb_fs_walk() - whether @state's layers deny @requested on @dentry
 * @mnt: the mount @dentry was reached through, or NULL to stay on its file system
 *	(hooks that get no mount: the rules above the file system's mount point are
 *	then not seen)
 * @w: filled with the outcome (deny_layer, deny_access)
 *
 * @dentry may be negative: the name is then checked in its directory, and the walk
 * goes on from there. Returns 1 when denied, 0 when allowed.
 */
static __always_inline int umb_fs_walk(const struct umb_task_state *state, __u32 requested,
				       const struct dentry *dentry, const struct vfsmount *mnt,
				       struct umb_walk *w)
{
	w->dentry = (__u64)dentry;
	w->mnt = (__u64)mnt;
	w->child = 0;
	w->child_next = 0;
	w->sb = 0;
	w->dev = 0;
	w->requested = requested;
	w->layer_count = state->layer_count;
	__builtin_memcpy(w->layers, state->layers, sizeof(w->layers));
	w->done = 0;
	w->deny_layer = 0;
	w->deny_access = 0;

	bpf_loop(UMB_WALK_MAX, umb_walk_step, w, 0);
	if (w->deny_layer)
		return 1;
	if (!w->done) {
		/* Deeper than UMB_WALK_MAX, or bpf_loop() failed: deny (fail closed). The
		 * record names no layer. */
		w->deny_access = requested;
		return 1;
	}
	return 0;
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
	struct umb_event *e = umb_event_begin(hook, w->deny_layer, UMB_ITEM_FS, w->deny_access,
					      flags);
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
 * umb_fs_check() - the whole check of a hook that has a dentry (and maybe its mount)
 *
 * Walks, and on denial records the event with the dentry's own name as its path (the
 * full path is only cheap where bpf_d_path() is allowed: see file_open). Returns the
 * hook's verdict: 0 or -EACCES (0 in permissive mode: the denial is only recorded).
 */
static __always_inline int umb_fs_check(const struct umb_task_state *state, __u32 requested,
					const struct dentry *dentry,
					const struct vfsmount *mnt, __u32 hook)
{
	struct umb_walk w;
	struct umb_event *e;
	__u32 flags;

	if (!umb_fs_walk(state, requested, dentry, mnt, &w))
		return umb_fs_verdict(0);
	flags = umb_deny_flags();
	e = umb_fs_event(&w, hook, dentry, flags);
	if (e)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ(dentry, d_name.name));
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

#endif /* UMBRELLA_PATH_BPF_H */
