/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the whole path of a denied object, for its record, in the hooks where the
 * kernel builds none for a BPF program.
 *
 * bpf_d_path() is allowed only in the hooks of the kernel's sleepable set
 * (kernel/bpf/bpf_lsm.c: file_open, inode_getattr, mmap_file, path_notify,
 * file_receive), on 6.1 and 6.12 alike; not in the path_* hooks (mkdir, mknod and
 * open(O_CREAT), link, symlink, unlink, rmdir, rename, truncate, chmod, chown, chroot),
 * file_mprotect, the inode_* hooks or the unix socket hooks. 6.12's bpf_path_d_path()
 * kfunc would take a struct path the verifier trusts, which only some of those hooks
 * have (not path_link's old dentry, the inode_* hooks' dentry or a unix socket's), and
 * not 6.1. So umb_event_dpath() builds the path itself, as the kernel's d_path() does,
 * on both kernels: one way, one format. It runs only once a hook has decided to deny,
 * so its cost is a denial's.
 *
 * The path is built from the object's dentry up, through d_parent to the root of its
 * mount, then from the mount point in the parent mount (struct mount, container_of the
 * vfsmount), up to the task's root (fs->root: a chrooted task sees its own paths) or
 * the root of the mount tree (an object outside the task's root is named from there,
 * as d_path() does). Names are written from the end of a scratch buffer, then copied
 * into the record. What could not be named whole begins with "...": a path longer
 * than the record's buffer (UMB_EVENT_PATH_MAX), deeper than UMB_DPATH_LEVELS levels,
 * or one whose memory could not be read. A hook that gives no mount (the inode_*
 * hooks: xattrs, utimes) gets the task's root mount when the object is on that file
 * system, else the first mount of the object's file system in the task's mount
 * namespace that shows all of it; if there is none, the path from the file system's
 * root begins with "?" (the record's inode then says which file system). When the file
 * system is mounted more than once there, the name may not be the one the task used
 * (another bind mount): the record says so (UMB_EVENT_PATH_SOME_MOUNT).
 *
 * The record's flags say what d_path() would say, or what it retries for:
 * UMB_EVENT_PATH_DELETED for an object that was unlinked (d_path()'s " (deleted)"),
 * UMB_EVENT_PATH_UNSURE when a rename moved a level of the path while it was built.
 * d_path() retries under the rename_lock seqlock; that global is not something a
 * BPF program can read here: it is in no BTF of 6.1 or 6.12 (pahole encodes only
 * per-CPU variables), and as a typeless ksym libbpf finds it in /proc/kallsyms, which
 * umbrellad's unit hides (ProcSubset=pid: the whole load would fail) and shows with
 * zero addresses without CAP_SYSLOG. Each dentry's own d_seq is read instead:
 * __d_move() and d_exchange() bump it on both ends of every rename. The build keeps
 * the d_seq of each level it read; a second pass walks the same levels again, and a
 * level whose d_seq differs (or was odd: a rename under way) marks the path unsure.
 * A name is read as the kernel's prepend_name() does: its length first, then the name,
 * copied up to that length and never past its NUL. Mounts moved meanwhile (mount_lock,
 * as hidden as rename_lock) are not seen.
 *
 * Only file.bpf.c includes this (through path.bpf.h): umb_event_dpath() is a global
 * function, verified once, not once per hook (see walk.bpf.h).
 */
#ifndef UMBRELLA_DPATH_BPF_H
#define UMBRELLA_DPATH_BPF_H

#include "../walk.bpf.h"

/* Levels the path is built from at most: names (each at least 2 bytes with its '/':
 * 127 fit in UMB_EVENT_PATH_MAX) and mount points crossed. */
#define UMB_DPATH_LEVELS 160

/* Mounts of a super block looked at for one in the task's namespace (a hook without
 * a mount: lib/dpath.bpf.h's umb_dpath_find_mount()). */
#define UMB_DPATH_MOUNTS 8

/* How the build ended (struct umb_dpath.end). */
enum umb_dpath_end {
	UMB_DPATH_GOING = 0,
	UMB_DPATH_ROOT,	   /* at the task's root, or the root of the mount tree */
	UMB_DPATH_CUT,	   /* not whole: too long, too deep, unreadable ("...") */
	UMB_DPATH_FS_ROOT, /* at the root of a file system whose mount is unknown ("?") */
};

/* The state of one build. Kernel pointers are numbers (read with BPF_CORE_READ(), as
 * 6.1 needs). */
struct umb_dpath {
	__u64 dentry;	   /* struct dentry *: the next level */
	__u64 mnt;	   /* struct vfsmount * it is reached through; 0: unknown */
	__u64 root_dentry; /* the task's root */
	__u64 root_mnt;
	__u64 start_dentry; /* the object, where the second pass starts again */
	__u64 start_mnt;
	__u32 pos;    /* the path so far is umb_dpath_scratch.buf[pos, UMB_EVENT_PATH_MAX) */
	__u32 end;    /* enum umb_dpath_end */
	__u32 check;  /* the second pass: compare each level's d_seq, write nothing */
	__u32 steps;  /* the levels of the first pass */
	__u32 result; /* end of the first pass */
	__u32 unsure; /* a level's d_seq changed, or was odd (UMB_EVENT_PATH_UNSURE) */
};

/*
 * The scratch space of one build, reserved in the ring buffer: names go in at offsets
 * below UMB_EVENT_PATH_MAX with lengths below it, so the verifier sees every write
 * within twice its size; seq holds the d_seq of each level read, for the second pass.
 * The build's state is here too, not on the stack: the verifier tracks no values in
 * this memory, so the bpf_loop() callback's many ways out (each level's end, each
 * pass) all come back to the caller in one state, which it checks once, not once per
 * constant they leave in it.
 */
struct umb_dpath_scratch {
	char buf[2 * UMB_EVENT_PATH_MAX];
	__u32 seq[UMB_DPATH_LEVELS];
	struct umb_dpath p;
};

/* The bpf_loop() callback's context (on the stack, as bpf_loop() wants it). */
struct umb_dpath_ctx {
	struct umb_dpath_scratch *scratch;
};

/* The rename sequence of the dentry @d (its d_seq): odd while a rename moves it, and
 * bumped by each rename of it (__d_move(), d_exchange()). */
static __always_inline __u32 umb_dpath_seq(__u64 d)
{
	return BPF_CORE_READ((struct dentry *)d, d_seq.seqcount.sequence);
}

/* One level: the name of p->dentry written before what is there, or, at the root of
 * its mount, on to the mount point. Returns 1 to stop (p->end says why), 0 to go on.
 * In the second pass (p->check) it only compares the level's d_seq with the one the
 * first pass read at the same @index, and follows the same way up. */
static __always_inline long umb_dpath_level(__u32 index, struct umb_dpath_scratch *scratch)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct umb_dpath *p = &scratch->p;
	__u64 d = p->dentry, mnt = p->mnt, parent, mnt_root = 0, m, mount_parent, mountpoint;
	const unsigned char *name;
	__u32 len, pos, old_pos, seq;
	long n;
	char sep;

	if (index >= UMB_DPATH_LEVELS)
		return 1;
	if (d == p->root_dentry && mnt == p->root_mnt) {
		p->end = UMB_DPATH_ROOT;
		return 1;
	}
	/* Before the level's parent and name: a rename after this read changes it. */
	seq = umb_dpath_seq(d);
	if (p->check) {
		if (seq != scratch->seq[index]) {
			p->unsure = 1;
			return 1;
		}
	} else {
		scratch->seq[index] = seq;
		if (seq & 1)
			p->unsure = 1;
	}
	parent = (__u64)BPF_CORE_READ((struct dentry *)d, d_parent);
	if (mnt)
		mnt_root = (__u64)BPF_CORE_READ((struct vfsmount *)mnt, mnt_root);
	if (!parent) {
		p->end = UMB_DPATH_CUT; /* unreadable */
		return 1;
	}
	if (d == mnt_root || parent == d) {
		if (!mnt) {
			p->end = UMB_DPATH_FS_ROOT;
			return 1;
		}
		/* The root of a file system that is not its mount's root: the dentry is
		 * not under the mount (disconnected): what is above it is unknown. */
		if (d != mnt_root) {
			p->end = UMB_DPATH_CUT;
			return 1;
		}
		m = mnt - mnt_off;
		mount_parent = (__u64)BPF_CORE_READ((struct mount *)m, mnt_parent);
		mountpoint = (__u64)BPF_CORE_READ((struct mount *)m, mnt_mountpoint);
		if (!mount_parent || !mountpoint) {
			p->end = UMB_DPATH_CUT;
			return 1;
		}
		if (mount_parent == m) {
			p->end = UMB_DPATH_ROOT; /* the root of the tree is its own parent */
			return 1;
		}
		p->dentry = mountpoint;
		p->mnt = mount_parent + mnt_off;
		return 0;
	}
	if (p->check) {
		p->dentry = parent;
		return 0;
	}
	/* The length first, then the name (prepend_name()): a rename swaps both, and a
	 * name read first could be copied with a longer name's length. */
	len = BPF_CORE_READ((struct dentry *)d, d_name.len);
	name = BPF_CORE_READ((struct dentry *)d, d_name.name);
	pos = p->pos;
	/* The name, its '/' and room for "..." before them. */
	if (!name || !len || len >= UMB_EVENT_PATH_MAX || len + 4 > pos) {
		p->end = UMB_DPATH_CUT;
		return 1;
	}
	old_pos = pos & (UMB_EVENT_PATH_MAX - 1);
	pos -= len;
	/* No-op masks that show the verifier the bounds (pos < UMB_EVENT_PATH_MAX, and
	 * len too): the write stays within the scratch buffer. The barriers keep clang
	 * from dropping them, or from using a copy checked before. */
	barrier_var(pos);
	barrier_var(len);
	pos &= UMB_EVENT_PATH_MAX - 1;
	len &= UMB_EVENT_PATH_MAX - 1;
	barrier_var(len);
	/* Up to len bytes, never past the name's NUL, which lands on what follows the
	 * name (its '/', or the path's NUL) and is put back. A shorter name was changed
	 * while read: the path is cut there, and unsure. */
	sep = scratch->buf[old_pos];
	n = bpf_probe_read_kernel_str(&scratch->buf[pos], len + 1, name);
	scratch->buf[old_pos] = sep;
	if (n != len + 1) {
		p->end = UMB_DPATH_CUT;
		if (n > 0)
			p->unsure = 1;
		return 1;
	}
	pos = (pos - 1) & (UMB_EVENT_PATH_MAX - 1);
	scratch->buf[pos] = '/';
	p->pos = pos;
	p->dentry = parent;
	return 0;
}

/* The bpf_loop() callback of both passes, from one call site (the verifier checks a
 * callback once per call site, in each program that names a path): the levels of the
 * first pass, then, from the object again, the same levels in the second. (Measured
 * on 6.1: the level's code inlined twice here costs the verifier less than one call
 * of it for both passes, and p->check read anew less than read once.) */
static long umb_dpath_step(__u32 index, struct umb_dpath_ctx *ctx)
{
	struct umb_dpath_scratch *scratch = ctx->scratch;
	struct umb_dpath *p;

	if (!scratch)
		return 1;
	p = &scratch->p;
	if (!p->check) {
		if (!umb_dpath_level(index, scratch))
			return 0;
		p->result = p->end;
		p->steps = index + 1;
		p->check = 1;
		p->dentry = p->start_dentry;
		p->mnt = p->start_mnt;
		return 0;
	}
	if (index - p->steps >= p->steps)
		return 1;
	return umb_dpath_level(index - p->steps, scratch);
}

/*
 * umb_dpath_find_mount() - for the hooks that give no mount: a mount of the file system
 * of the dentry @d in the current task's mount namespace that shows the whole file
 * system (its root is the file system's root), as a struct vfsmount * number; 0 if
 * there is none among the first UMB_DPATH_MOUNTS mounts of the super block. The task's root mount comes first when it is one (the name a task most likely
 * used); else the first such mount. @e gets UMB_EVENT_PATH_SOME_MOUNT when the file
 * system has other mounts in the namespace (or more than were looked at): the task may
 * have used another name (a flag in the record, where the verifier tracks no value:
 * the rest of the build is not checked once for each way through the loop).
 */
static __always_inline __u64 umb_dpath_find_mount(__u64 d, __u64 root_mnt, struct umb_event *e)
{
	__u32 inst_off = bpf_core_field_offset(struct mount, mnt_instance);
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct task_struct *task = bpf_get_current_task_btf();
	struct super_block *sb = BPF_CORE_READ((struct dentry *)d, d_sb);
	__u64 ns = (__u64)BPF_CORE_READ(task, nsproxy, mnt_ns);
	__u64 s_root = (__u64)BPF_CORE_READ(sb, s_root);
	__u64 head = (__u64)sb + bpf_core_field_offset(struct super_block, s_mounts);
	__u64 next = (__u64)BPF_CORE_READ(sb, s_mounts.next);
	__u64 found = 0;
	__u32 seen = 0;

	if (!sb || !ns)
		return 0;
	if (root_mnt && (__u64)BPF_CORE_READ((struct vfsmount *)root_mnt, mnt_sb) == (__u64)sb &&
	    (__u64)BPF_CORE_READ((struct vfsmount *)root_mnt, mnt_root) == s_root)
		found = root_mnt;
	for (__u32 i = 0; i < UMB_DPATH_MOUNTS; i++) {
		struct mount *m;

		if (!next || next == head)
			return found;
		m = (struct mount *)(next - inst_off);
		if ((__u64)BPF_CORE_READ(m, mnt_ns) == ns) {
			if (!found && (__u64)BPF_CORE_READ(m, mnt.mnt_root) == s_root)
				found = (__u64)m + mnt_off;
			if (seen) {
				e->flags |= UMB_EVENT_PATH_SOME_MOUNT; /* a second one here */
				if (found)
					return found;
			}
			seen = 1;
		}
		next = (__u64)BPF_CORE_READ(m, mnt_instance.next);
	}
	if (next && next != head)
		e->flags |= UMB_EVENT_PATH_SOME_MOUNT; /* more than were looked at */
	return found;
}

/* Whether the positive dentry @d was unlinked (d_unlinked(): unhashed, and not the
 * root of its file system), as d_path()'s " (deleted)" says. A negative dentry (the
 * name being created) is not: some file systems leave it unhashed until then. */
static __always_inline bool umb_dpath_deleted(__u64 d)
{
	return BPF_CORE_READ((struct dentry *)d, d_inode) &&
	       !BPF_CORE_READ((struct dentry *)d, d_hash.pprev) &&
	       (__u64)BPF_CORE_READ((struct dentry *)d, d_parent) != d;
}

/*
 * umb_event_dpath() - write the whole path of the dentry @o->dentry, reached through
 * the struct vfsmount @o->mnt (0: unknown), into the record @e, and its
 * UMB_EVENT_PATH_* flags. The object comes in a finished walk's state
 * (lib/path.bpf.h), since a global function takes kernel pointers only as numbers in
 * memory. Falls back to the dentry's own name when no scratch buffer can be had (the
 * ring buffer is nearly full). Returns 0.
 */
__noinline int umb_event_dpath(struct umb_event *e, const struct umb_walk *o)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct umb_dpath_scratch *scratch;
	struct umb_dpath_ctx ctx;
	struct umb_dpath *p;
	__u64 dentry, mnt, root_mnt;
	__u32 pos, end;
	const char *start;

	if (!e || !o || !o->dentry)
		return 0;
	dentry = o->dentry;
	mnt = o->mnt;
	root_mnt = (__u64)BPF_CORE_READ(task, fs, root.mnt);
	if (!mnt)
		mnt = umb_dpath_find_mount(dentry, root_mnt, e);
	if (umb_dpath_deleted(dentry))
		e->flags |= UMB_EVENT_PATH_DELETED;
	/* Scratch space from the ring buffer, given back below: it is this build's own,
	 * where a per-CPU buffer could be shared with a program that preempted it. */
	scratch = bpf_ringbuf_reserve(&umb_events, sizeof(struct umb_dpath_scratch), 0);
	if (!scratch) {
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ((struct dentry *)dentry, d_name.name));
		return 0;
	}
	p = &scratch->p;
	__builtin_memset(p, 0, sizeof(*p));
	p->dentry = dentry;
	p->mnt = mnt;
	p->start_dentry = dentry;
	p->start_mnt = mnt;
	p->root_dentry = (__u64)BPF_CORE_READ(task, fs, root.dentry);
	p->root_mnt = root_mnt;
	p->pos = UMB_EVENT_PATH_MAX - 1;
	scratch->buf[UMB_EVENT_PATH_MAX - 1] = '\0';
	/* Both passes: the levels up, then the same levels again, each d_seq as the first
	 * pass read it, or a rename moved a level meanwhile. */
	ctx.scratch = scratch;
	bpf_loop(2 * UMB_DPATH_LEVELS + 2, umb_dpath_step, &ctx, 0);
	end = p->check ? p->result : UMB_DPATH_CUT;
	if (end == UMB_DPATH_GOING)
		end = UMB_DPATH_CUT; /* deeper than UMB_DPATH_LEVELS */
	if (p->unsure)
		e->flags |= UMB_EVENT_PATH_UNSURE;
	pos = p->pos;
	barrier_var(pos);
	pos &= UMB_EVENT_PATH_MAX - 1;
	if (end == UMB_DPATH_CUT) {
		/* umb_dpath_level() kept room for it */
		pos = (pos - 3) & (UMB_EVENT_PATH_MAX - 1);
		scratch->buf[pos] = '.';
		scratch->buf[(pos + 1) & (UMB_EVENT_PATH_MAX - 1)] = '.';
		scratch->buf[(pos + 2) & (UMB_EVENT_PATH_MAX - 1)] = '.';
	} else if (end == UMB_DPATH_FS_ROOT) {
		pos = (pos - 1) & (UMB_EVENT_PATH_MAX - 1);
		scratch->buf[pos] = '?';
	} else if (pos == UMB_EVENT_PATH_MAX - 1) {
		pos--; /* the root itself */
		scratch->buf[pos] = '/';
	}
	barrier_var(pos);
	pos &= UMB_EVENT_PATH_MAX - 1;
	start = &scratch->buf[pos];
	bpf_probe_read_kernel(e->path, UMB_EVENT_PATH_MAX - pos, start);
	bpf_ringbuf_discard(scratch, 0);
	return 0;
}

#endif /* UMBRELLA_DPATH_BPF_H */
