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
 * hooks) gets the mount of the object's file system in the task's mount namespace
 * that shows all of it, if there is one; else the path from the file system's root
 * begins with "?" (the record's inode then says which file system).
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

/* The scratch buffer: names go in at offsets below UMB_EVENT_PATH_MAX with lengths
 * below it, so the verifier sees every write within twice its size. */
struct umb_dpath_scratch {
	char buf[2 * UMB_EVENT_PATH_MAX];
};

/* How the build ended (struct umb_dpath.end). */
enum umb_dpath_end {
	UMB_DPATH_GOING = 0,
	UMB_DPATH_ROOT,	   /* at the task's root, or the root of the mount tree */
	UMB_DPATH_CUT,	   /* not whole: too long, too deep, unreadable ("...") */
	UMB_DPATH_FS_ROOT, /* at the root of a file system whose mount is unknown ("?") */
};

/* The state of one build, shared with its bpf_loop() callback. Kernel pointers are
 * numbers (read with BPF_CORE_READ(), as 6.1 needs). */
struct umb_dpath {
	__u64 dentry;	   /* struct dentry *: the next level */
	__u64 mnt;	   /* struct vfsmount * it is reached through; 0: unknown */
	__u64 root_dentry; /* the task's root */
	__u64 root_mnt;
	struct umb_dpath_scratch *scratch;
	__u32 pos; /* the path so far is scratch->buf[pos, UMB_EVENT_PATH_MAX) */
	__u32 end; /* enum umb_dpath_end */
};

/* One level: the name of p->dentry written before what is there, or, at the root of
 * its mount, on to the mount point. Returns 1 to stop (p->end says why), 0 to go on. */
static long umb_dpath_step(__u32 index, struct umb_dpath *p)
{
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct umb_dpath_scratch *scratch = p->scratch;
	__u64 d = p->dentry, mnt = p->mnt, parent, mnt_root = 0, m, mount_parent, mountpoint;
	const unsigned char *name;
	__u32 len, pos;

	if (!scratch)
		return 1;
	if (d == p->root_dentry && mnt == p->root_mnt) {
		p->end = UMB_DPATH_ROOT;
		return 1;
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
	name = BPF_CORE_READ((struct dentry *)d, d_name.name);
	len = BPF_CORE_READ((struct dentry *)d, d_name.len);
	pos = p->pos;
	/* The name, its '/' and room for "..." before them. */
	if (!name || !len || len >= UMB_EVENT_PATH_MAX || len + 4 > pos) {
		p->end = UMB_DPATH_CUT;
		return 1;
	}
	pos -= len;
	/* No-op masks that show the verifier the bounds (pos < UMB_EVENT_PATH_MAX, and
	 * len too): the write stays within the scratch buffer. The barriers keep clang
	 * from dropping them, or from using a copy checked before. */
	barrier_var(pos);
	barrier_var(len);
	pos &= UMB_EVENT_PATH_MAX - 1;
	len &= UMB_EVENT_PATH_MAX - 1;
	barrier_var(len);
	if (bpf_probe_read_kernel(&scratch->buf[pos], len, name)) {
		p->end = UMB_DPATH_CUT;
		return 1;
	}
	pos = (pos - 1) & (UMB_EVENT_PATH_MAX - 1);
	scratch->buf[pos] = '/';
	p->pos = pos;
	p->dentry = parent;
	return 0;
}

/*
 * umb_dpath_find_mount() - a mount of the file system of the dentry @d in the current
 * task's mount namespace that shows the whole file system (its root is the file
 * system's root), as a struct vfsmount * number; 0 if none of the first
 * UMB_DPATH_MOUNTS mounts of the super block is one. For the hooks that give no mount.
 */
static __always_inline __u64 umb_dpath_find_mount(__u64 d)
{
	__u32 inst_off = bpf_core_field_offset(struct mount, mnt_instance);
	__u32 mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct task_struct *task = bpf_get_current_task_btf();
	struct super_block *sb = BPF_CORE_READ((struct dentry *)d, d_sb);
	__u64 ns = (__u64)BPF_CORE_READ(task, nsproxy, mnt_ns);
	__u64 s_root = (__u64)BPF_CORE_READ(sb, s_root);
	__u64 head = (__u64)sb + bpf_core_field_offset(struct super_block, s_mounts);
	__u64 next = (__u64)BPF_CORE_READ(sb, s_mounts.next);

	if (!sb || !ns)
		return 0;
	for (__u32 i = 0; i < UMB_DPATH_MOUNTS; i++) {
		struct mount *m;

		if (!next || next == head)
			return 0;
		m = (struct mount *)(next - inst_off);
		if ((__u64)BPF_CORE_READ(m, mnt_ns) == ns &&
		    (__u64)BPF_CORE_READ(m, mnt.mnt_root) == s_root)
			return (__u64)m + mnt_off;
		next = (__u64)BPF_CORE_READ(m, mnt_instance.next);
	}
	return 0;
}

/*
 * umb_event_dpath() - write the whole path of the dentry @o->dentry, reached through
 * the struct vfsmount @o->mnt (0: unknown), into the record @e. The object comes in a
 * finished walk's state (lib/path.bpf.h), since a global function takes kernel
 * pointers only as numbers in memory. Falls back to the dentry's own name when no
 * scratch buffer can be had (the ring buffer is nearly full). Returns 0.
 */
__noinline int umb_event_dpath(struct umb_event *e, const struct umb_walk *o)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct umb_dpath p = {};
	__u64 dentry, mnt;
	const char *start;
	__u32 pos;

	if (!e || !o || !o->dentry)
		return 0;
	dentry = o->dentry;
	mnt = o->mnt;
	if (!mnt)
		mnt = umb_dpath_find_mount(dentry);
	/* Scratch space from the ring buffer, given back below: it is this build's own,
	 * where a per-CPU buffer could be shared with a program that preempted it. */
	p.scratch = bpf_ringbuf_reserve(&umb_events, sizeof(struct umb_dpath_scratch), 0);
	if (!p.scratch) {
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  BPF_CORE_READ((struct dentry *)dentry, d_name.name));
		return 0;
	}
	p.dentry = dentry;
	p.mnt = mnt;
	p.root_dentry = (__u64)BPF_CORE_READ(task, fs, root.dentry);
	p.root_mnt = (__u64)BPF_CORE_READ(task, fs, root.mnt);
	p.pos = UMB_EVENT_PATH_MAX - 1;
	p.scratch->buf[UMB_EVENT_PATH_MAX - 1] = '\0';
	if (bpf_loop(UMB_DPATH_LEVELS, umb_dpath_step, &p, 0) < 0 || p.end == UMB_DPATH_GOING)
		p.end = UMB_DPATH_CUT; /* deeper than UMB_DPATH_LEVELS */
	pos = p.pos;
	barrier_var(pos);
	pos &= UMB_EVENT_PATH_MAX - 1;
	if (p.end == UMB_DPATH_CUT) {
		/* umb_dpath_step() kept room for it */
		pos = (pos - 3) & (UMB_EVENT_PATH_MAX - 1);
		p.scratch->buf[pos] = '.';
		p.scratch->buf[(pos + 1) & (UMB_EVENT_PATH_MAX - 1)] = '.';
		p.scratch->buf[(pos + 2) & (UMB_EVENT_PATH_MAX - 1)] = '.';
	} else if (p.end == UMB_DPATH_FS_ROOT) {
		pos = (pos - 1) & (UMB_EVENT_PATH_MAX - 1);
		p.scratch->buf[pos] = '?';
	} else if (pos == UMB_EVENT_PATH_MAX - 1) {
		pos--; /* the root itself */
		p.scratch->buf[pos] = '/';
	}
	barrier_var(pos);
	pos &= UMB_EVENT_PATH_MAX - 1;
	start = &p.scratch->buf[pos];
	bpf_probe_read_kernel(e->path, UMB_EVENT_PATH_MAX - pos, start);
	bpf_ringbuf_discard(p.scratch, 0);
	return 0;
}

#endif /* UMBRELLA_DPATH_BPF_H */
