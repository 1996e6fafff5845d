// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella tests - the pure BPF helpers under test: those of bpf/lib/ and the walk's
 * global functions (walk.bpf.c), called from SEC("syscall") programs that
 * tests/unit/test-bpf-helpers.c runs with BPF_PROG_TEST_RUN.
 *
 * Linked with maps.bpf.o, walk.bpf.o and refs.bpf.o as umbrella.bpf.o is
 * (bpf/meson.build), so the helpers run the code and read the maps the hooks do; the
 * runner fills the maps (layers, fs rules, the filter) and this object's globals (a
 * task's state, a verdict, fake dentries), then checks what each program wrote to t_out
 * or returned.
 *
 * Architecture: one program per helper (or pair of helpers), its inputs in struct
 * t_in (the program's context), its outputs in t_out.
 */
#include "maps.bpf.h"
#include "lib/domain.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/path.bpf.h"
#include "lib/syscall.bpf.h"
#include "lib/verdict.bpf.h"

#include "../test-bpf-helpers.h"

/* The context of every program: its inputs, as the runner passes them. */
struct t_in {
	__u64 arg[6];
};

/* What the programs report besides their return value. */
__u64 t_out[8];

/* Constants of the BPF side that user space has no copy of, for the runner to check
 * (the system call numbers against the C library's) or to use. */
const volatile __u64 t_match_permissive = UMB_MATCH_PERMISSIVE, t_walk_done = UMB_WALK_DONE;
const volatile __u64 t_nr_swapon = UMB_NR_SWAPON, t_nr_swapoff = UMB_NR_SWAPOFF;
const volatile __u64 t_nr_add_key = UMB_NR_ADD_KEY, t_nr_request_key = UMB_NR_REQUEST_KEY;
const volatile __u64 t_nr_keyctl = UMB_NR_KEYCTL;

/* A task's state (the sender, for umb_in_domain()) and a second one (the target). */
struct umb_task_state t_state, t_target;
struct umb_verdict t_verdict;
struct umb_ctl t_ctl;

/* A fake struct dentry for the name hash: its name and length at the running kernel's
 * offsets (CO-RE), so the walk reads it as it reads a real dentry. */
#define T_DENTRY_SIZE 512
#define T_NAME_SIZE   512
char t_dentry[T_DENTRY_SIZE] __attribute__((aligned(8)));
unsigned char t_name[T_NAME_SIZE];
__u64 t_dentry_addr;

/* walk.bpf.c's name hash: global there, not in walk.bpf.h (only the walk calls it). */
extern __u64 umb_fs_name_hash(__u64 dentry);

/* Makes t_dentry a dentry named by t_name, of length @len (which may exceed what
 * t_name holds: the hash must refuse it before reading). Returns the dentry as the
 * walk holds one, a number; 0 when the kernel's struct dentry does not fit. */
static __always_inline __u64 t_make_dentry(__u32 len)
{
	__u32 off_name = bpf_core_field_offset(struct dentry, d_name.name);
	__u32 off_len = bpf_core_field_offset(struct dentry, d_name.len);
	__u64 *name;
	__u32 *name_len;

	if (off_name > T_DENTRY_SIZE - 8 || off_len > T_DENTRY_SIZE - 4)
		return 0;
	/* Through pointers clang takes as aligned (the offsets are the kernel's, aligned
	 * for their fields): else it writes a byte at a time, and the verifier refuses to
	 * shift a pointer. */
	name = (__u64 *)&t_dentry[off_name];
	name_len = (__u32 *)&t_dentry[off_len];
	barrier_var(name);
	barrier_var(name_len);
	*name = (__u64)t_name;
	*name_len = len;
	/* The walk's functions take kernel pointers as numbers: read back from memory,
	 * the address is one to the verifier. */
	t_dentry_addr = (__u64)t_dentry;
	return *(volatile __u64 *)&t_dentry_addr;
}

/* arg[0]: layer id. Returns umb_push_layer()'s result; t_state is changed. */
SEC("syscall")
int t_push_layer(struct t_in *in)
{
	return umb_push_layer(&t_state, in->arg[0]);
}

/* arg[0]: layer id. out[0]: umb_state_has_layer(), out[1]: umb_layer_get() found it,
 * out[2]: umb_layer_permissive(). */
SEC("syscall")
int t_layer_lookup(struct t_in *in)
{
	t_out[0] = umb_state_has_layer(&t_state, in->arg[0]);
	t_out[1] = umb_layer_get(in->arg[0]) != NULL;
	t_out[2] = umb_layer_permissive(in->arg[0]);
	return 0;
}

/* arg[0]: the set (0 caps, 1 families, 2 capabilities), arg[1]: bits. out[0]:
 * umb_layer_denying(); out[1]: umb_fs_layer(). */
SEC("syscall")
int t_layer_denying(struct t_in *in)
{
	enum umb_layer_set set = in->arg[0] == 0 ? UMB_SET_CAPS :
				 in->arg[0] == 1 ? UMB_SET_FAMILIES :
						   UMB_SET_CAPABILITIES;

	t_out[0] = umb_layer_denying(&t_state, set, in->arg[1]);
	t_out[1] = umb_fs_layer(&t_state);
	return 0;
}

/* The search of a hook that several restrictions may deny (net.bpf.c's socket_create):
 * arg[0]: how many candidates, each arg[1 + i] = layer | item << 32 (item_kind: the
 * index). Tries each with umb_denial_pick() until one enforces. out[0..3]: the pick
 * (found, layer, item_kind, item), out[4]: candidates tried. */
SEC("syscall")
int t_denial_pick(struct t_in *in)
{
	struct umb_denial_pick p = {};
	struct t_in args = *in; /* the context is read at constant offsets only */
	__u32 i, n = args.arg[0];

	for (i = 0; i < 5; i++) {
		__u64 c;

		if (i >= n)
			break;
		c = args.arg[1 + i];
		if (umb_denial_pick(&p, (__u32)c, i, c >> 32)) {
			i++;
			break;
		}
	}
	t_out[0] = p.found;
	t_out[1] = p.layer;
	t_out[2] = p.item_kind;
	t_out[3] = p.item;
	t_out[4] = i;
	return 0;
}

/* References. arg[0]: 0 umb_layer_hold(arg[1]), 1 umb_layer_put(arg[1]),
 * 2 umb_state_hold(t_state), 3 umb_state_put(t_state). Returns the result (0 for the
 * puts). */
SEC("syscall")
int t_layer_ref(struct t_in *in)
{
	switch (in->arg[0]) {
	case 0:
		return umb_layer_hold(in->arg[1]);
	case 1:
		umb_layer_put(in->arg[1]);
		return 0;
	case 2:
		return umb_state_hold(&t_state);
	case 3:
		umb_state_put(&t_state);
		return 0;
	}
	return -EINVAL;
}

/* umb_verdict_effective() of t_verdict under t_ctl; arg[0] bit 0: no verdict (NULL),
 * bit 1: no umb_ctl (NULL). out[0]: umb_verdict_layer_carried(t_state, arg[1]). */
SEC("syscall")
int t_verdict_effective(struct t_in *in)
{
	const struct umb_verdict *v = in->arg[0] & 1 ? NULL : &t_verdict;
	const struct umb_ctl *ctl = in->arg[0] & 2 ? NULL : &t_ctl;

	t_out[0] = umb_verdict_layer_carried(&t_state, in->arg[1]);
	return umb_verdict_effective(v, ctl);
}

/* umb_in_domain(t_state, t_target, or NULL when arg[0]); out[0]: umb_is_restricted()
 * of t_target. */
SEC("syscall")
int t_in_domain(struct t_in *in)
{
	t_out[0] = umb_is_restricted(in->arg[0] ? NULL : &t_target);
	return umb_in_domain(&t_state, in->arg[0] ? NULL : &t_target);
}

/* The verdicts: arg[0] denied. out[0]: umb_verdict(), out[1]: umb_fs_verdict() (as
 * signed values). */
SEC("syscall")
int t_verdicts(struct t_in *in)
{
	t_out[0] = (__s64)umb_verdict(in->arg[0]);
	t_out[1] = (__s64)umb_fs_verdict(in->arg[0]);
	return 0;
}

/* umb_walk_match() of arg[0]. out[0..2]: the walk's deny_layer, deny_access,
 * permissive. Returns its result. */
SEC("syscall")
int t_walk_match(struct t_in *in)
{
	struct umb_walk w = {};
	int ret = umb_walk_match(&w, in->arg[0]);

	t_out[0] = w.deny_layer;
	t_out[1] = w.deny_access;
	t_out[2] = w.permissive;
	return ret;
}

/* umb_fs_filter_has() of (arg[0], arg[1]) in umb_fs_filter. */
SEC("syscall")
int t_filter_has(struct t_in *in)
{
	const struct umb_fs_filter *filter = umb_fs_filter_get();

	if (!filter)
		return -ENOENT;
	return umb_fs_filter_has(filter, in->arg[0], in->arg[1]);
}

/* umb_fs_name_hash() of a dentry named t_name, of length arg[0]. out[0]: the hash. */
SEC("syscall")
int t_name_hash(struct t_in *in)
{
	__u64 dentry = t_make_dentry(in->arg[0]);

	if (!dentry)
		return -E2BIG;
	t_out[0] = umb_fs_name_hash(dentry);
	return 0;
}

/* umb_fs_level_match() for t_state at (arg[0] dev, arg[1] ino), for arg[2] requested;
 * the child is a dentry named t_name of length arg[3], or none when arg[3] is ~0.
 * out[0]: the match. */
SEC("syscall")
int t_level_match(struct t_in *in)
{
	__u64 child = 0;

	if (in->arg[3] != ~0ULL) {
		child = t_make_dentry(in->arg[3]);
		if (!child)
			return -E2BIG;
	}
	t_out[0] = umb_fs_level_match(&t_state, in->arg[0], in->arg[1], child, in->arg[2]);
	return 0;
}

/* The system call the runner is in (bpf(2), BPF_PROG_TEST_RUN). arg[0], arg[1]: calls
 * (UMB_NR()). out[0], out[1]: umb_in_syscall() of each; out[2]: umb_syscall_arg1(). */
SEC("syscall")
int t_syscall(struct t_in *in)
{
	t_out[0] = umb_in_syscall(in->arg[0]);
	t_out[1] = umb_in_syscall(in->arg[1]);
	t_out[2] = umb_syscall_arg1();
	return 0;
}

/*
 * A fake file system for the walk: T_TREE dentries, each with an inode (or none) and a
 * name, on one super block, laid out at the running kernel's offsets. The runner says
 * what each is in t_tree (struct t_node); t_walk builds them and walks.
 */
#define T_OBJ_SIZE 256
struct t_node t_tree[T_TREE];
__u32 t_tree_dev;
char t_dentries[T_TREE][T_OBJ_SIZE] __attribute__((aligned(8)));
char t_inodes[T_TREE][T_OBJ_SIZE] __attribute__((aligned(8)));
char t_sb[T_OBJ_SIZE] __attribute__((aligned(8)));
__u64 t_addr;

/* Writes the 8 bytes @value at offset @off of @obj (T_OBJ_SIZE bytes), through a pointer
 * clang takes as aligned (see t_make_dentry()). */
static __always_inline void t_put64(char *obj, __u32 off, __u64 value)
{
	__u64 *p;

	if (off > T_OBJ_SIZE - 8)
		return;
	p = (__u64 *)(obj + off);
	barrier_var(p);
	*p = value;
}

static __always_inline void t_put32(char *obj, __u32 off, __u32 value)
{
	__u32 *p;

	if (off > T_OBJ_SIZE - 4)
		return;
	p = (__u32 *)(obj + off);
	barrier_var(p);
	*p = value;
}

/* umb_fs_walk() of t_state for arg[1] requested from the dentry arg[0] of t_tree, on
 * no mount (the walk stays on the file system, as for a hook that knows none). Returns
 * its result; out[0..3]: the walk's deny_layer, deny_access, permissive, done. */
SEC("syscall")
int t_walk(struct t_in *in)
{
	__u32 off_parent = bpf_core_field_offset(struct dentry, d_parent);
	__u32 off_inode = bpf_core_field_offset(struct dentry, d_inode);
	__u32 off_sb = bpf_core_field_offset(struct dentry, d_sb);
	__u32 off_flags = bpf_core_field_offset(struct dentry, d_flags);
	__u32 off_name = bpf_core_field_offset(struct dentry, d_name.name);
	__u32 off_len = bpf_core_field_offset(struct dentry, d_name.len);
	__u32 off_ino = bpf_core_field_offset(struct inode, i_ino);
	__u32 off_dev = bpf_core_field_offset(struct super_block, s_dev);
	__u32 start = in->arg[0];
	struct umb_walk w;
	int ret;

	t_put32(t_sb, off_dev, t_tree_dev);
	for (__u32 i = 0; i < T_TREE; i++) {
		const struct t_node *node = &t_tree[i];
		__u32 parent = node->parent, len = 0;

		if (parent >= T_TREE)
			return -EINVAL;
		while (len < T_TREE_NAME - 1 && node->name[len])
			len++;
		t_put64(t_dentries[i], off_parent, (__u64)t_dentries[parent]);
		t_put64(t_dentries[i], off_inode, node->ino ? (__u64)t_inodes[i] : 0);
		t_put64(t_dentries[i], off_sb, (__u64)t_sb);
		t_put32(t_dentries[i], off_flags, node->flags);
		t_put64(t_dentries[i], off_name, (__u64)node->name);
		t_put32(t_dentries[i], off_len, len);
		t_put64(t_inodes[i], off_ino, node->ino);
	}
	if (start >= T_TREE)
		return -EINVAL;
	/* A number, as in the hooks that read their dentry (UMB_DENTRY_NUMBER). */
	t_addr = (__u64)t_dentries[start];
	ret = umb_fs_walk(&t_state, in->arg[1], (const struct dentry *)*(volatile __u64 *)&t_addr,
			  NULL, UMB_DENTRY_NUMBER, &w);
	t_out[0] = w.deny_layer;
	t_out[1] = w.deny_access;
	t_out[2] = w.permissive;
	t_out[3] = w.done;
	return ret;
}
