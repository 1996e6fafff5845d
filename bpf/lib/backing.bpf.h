/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the verdict of a file run from overlayfs (containers; docs/design.md section 3).
 *
 * An overlayfs file has no content of its own: opening it opens the file underneath
 * (its backing file, on the upper layer or a lower one), which the overlay file keeps in
 * private_data. A verdict on the overlay inode would not see a change made to the layer's
 * file from outside the overlay (a container image's lower directory, written on the
 * host), so the verdict of an overlayfs file is never read from the overlay inode: it is
 * that of the backing file's inode, where every change is seen (lib/verdict.bpf.h) and
 * where the gate verifies (Linux 6.12 sends the backing file's exec open to fanotify;
 * 6.1 opens it with FMODE_NONOTIFY: only a verdict the inode already has counts there).
 *
 * bprm_check_security gets only the overlay file, and private_data is a void pointer: no
 * typed way leads from it to the backing inode. file_open sees the backing file's exec
 * open with a typed pointer, before its fanotify event: it notes the file's address and
 * its inode's verdict in the thread's umb_backing_exec; the gate fills in the verdict it
 * stores when that event comes (the first exec of the file). bprm_check_security compares
 * the address with the overlay file's private_data, never reading through it: equal, the
 * note is about this exec's backing file (the overlay file holds a reference on it, so
 * the address is not another file's), and its verdict counts. Each note is used once.
 * A nested overlay (a lower layer that is itself an overlay; overlayfs stacks two deep
 * at most): the outer overlay file's backing file is an overlay file, whose open comes
 * first and is noted by its address, with no inode yet; the next exec open in the
 * thread is that file's own backing file (overlayfs opens nothing else between), which
 * fills in its inode and verdict and keeps the address: the outer file's private_data
 * then matches, and the verdict is that of the file holding the content.
 */
#ifndef UMBRELLA_BACKING_BPF_H
#define UMBRELLA_BACKING_BPF_H

#include "../maps.bpf.h"
#include "verdict.bpf.h"

/* include/uapi/linux/magic.h */
#define UMB_OVERLAYFS_SUPER_MAGIC 0x794c7630
/*
 * include/linux/fs.h: a file that does not count in nr_files, as overlayfs's backing
 * files (alloc_empty_backing_file() on 6.12, alloc_empty_file_noaccount() on 6.1) and
 * few others; the same bit in 6.1 and 6.12. FMODE_BACKING moved between releases. Only
 * a filter: a note about any other file is never matched by an overlay file.
 */
#define UMB_FMODE_NOACCOUNT	  0x20000000

/* Whether @file is an overlayfs file. */
static __always_inline bool umb_file_on_overlay(struct file *file)
{
	return file->f_inode->i_sb->s_magic == UMB_OVERLAYFS_SUPER_MAGIC;
}

/*
 * The kernel denies writes to a running binary (deny_write_access(), ETXTBSY) on the
 * overlay inode only: the file underneath opens for write from outside the overlay (any
 * user can make an overlay over a directory they write, unshare -Urm), and a write
 * reaches the running text through the shared page cache. So the inode underneath is
 * pinned before its SIGNED verdict is used (umb_exec_pins): from then on it refuses every
 * write open and truncate, for every task, until it leaves memory (a file replaced by
 * rename, as package managers and image pulls do, is a new inode). The same as any user
 * can get by keeping the binary running, so it gives them nothing more; longer than the
 * kernel's own denial, which ends with the last process running the file (no hook tells
 * when an mm drops its executable). Pinned first, then the writers counted: a writer
 * either sees the pin (file_open runs after its i_writecount was raised) or is counted.
 */
#define UMB_ETXTBSY 26

/* Pins @inode. Return: whether it is pinned (no memory: not). */
static __always_inline bool umb_exec_pin(struct inode *inode)
{
	__u32 *pin =
		bpf_inode_storage_get(&umb_exec_pins, inode, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!pin)
		return false;
	/* A full barrier (lock cmpxchg) between the pin and the read of i_writecount. */
	__sync_val_compare_and_swap(pin, 0, 1);
	return true;
}

/*
 * umb_exec_pin_signed() - pin @inode, whose verdict is SIGNED, before that verdict lets
 * its code run: the exec of the file underneath an overlayfs file (below), and a
 * PROT_EXEC mapping under exec-unsigned (file.bpf.c: a library, ld.so), which the
 * kernel does not keep from writes either. Return: the verdict as it is once pinned
 * with no writer open (a write before the pin voided it), or NULL: a writer got in
 * first, or no memory (a miss: fail closed).
 */
static __always_inline const struct umb_verdict *umb_exec_pin_signed(struct inode *inode)
{
	if (!umb_exec_pin(inode) || inode->i_writecount.counter > 0)
		return NULL;
	return umb_verdict_lookup(inode);
}

/* -ETXTBSY if @inode is pinned (a write to it would reach code run on its verdict), else 0. */
static __always_inline int umb_exec_pin_check_write(struct inode *inode)
{
	__u32 *pin;

	if (!inode)
		return 0;
	pin = bpf_inode_storage_get(&umb_exec_pins, inode, NULL, 0);
	return pin && *pin ? -UMB_ETXTBSY : 0;
}

/*
 * umb_backing_exec_open() - at file_open of @file (f_mode @mode): note an exec open of a
 * backing file, with its inode's verdict as it is now (none on a first exec: the gate
 * fills it in). A SIGNED verdict is noted only with the inode pinned and no writer open,
 * so that it cannot change before bprm_check_security uses the copy. No memory: no note,
 * the exec of the overlay file is a miss.
 */
static __always_inline void umb_backing_exec_open(struct file *file, __u32 mode)
{
	struct umb_backing_exec *b;
	const struct umb_verdict *v;
	struct inode *inode;

	if (!(mode & UMB_FMODE_NOACCOUNT) || !(file->f_flags & FMODE_EXEC))
		return;
	inode = file->f_inode;
	if (!inode)
		return;
	b = bpf_task_storage_get(&umb_backing_exec, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!b)
		return;
	if (umb_file_on_overlay(file)) {
		/* The inner overlay file of a nested overlay: pending, no inode yet. */
		b->file = (__u64)file;
		b->inode = (struct umb_inode_key){};
		b->verdict = (struct umb_verdict){};
		return;
	}
	/* Pending (an inner overlay file's, just noted): keep its address. A stale one (its
	 * open failed before this) matches no overlay file: a miss, fail closed. */
	if (!b->file || b->inode.dev || b->inode.ino)
		b->file = (__u64)file;
	b->inode.dev = inode->i_sb->s_dev;
	b->inode.__pad0 = 0;
	b->inode.ino = inode->i_ino;
	b->verdict = (struct umb_verdict){};
	v = umb_verdict_lookup(inode);
	if (!v)
		return;
	if (v->state == UMB_VERDICT_SIGNED) {
		v = umb_exec_pin_signed(inode);
		if (!v)
			return;
	}
	b->verdict = *v;
}

/*
 * umb_backing_exec_verdict() - the verdict of the overlayfs file @file that the current
 * task's exec runs: that of its backing file, as noted at its open, copied to @out and
 * the note used up. Return: @out, or NULL (no note about this file: a miss).
 */
static __always_inline const struct umb_verdict *
umb_backing_exec_verdict(struct task_struct *task, struct file *file, struct umb_verdict *out)
{
	struct umb_backing_exec *b;
	__u64 real;

	if (!task->bpf_storage)
		return NULL;
	b = bpf_task_storage_get(&umb_backing_exec, task, NULL, 0);
	if (!b || !b->file)
		return NULL;
	/* A void pointer: read as a number, compared, never followed. */
	real = (__u64)BPF_CORE_READ(file, private_data);
	if (b->file != real)
		return NULL;
	b->file = 0;
	*out = b->verdict;
	return out;
}

/* At the exec's commit: the note is of no use any more (and a task without any other
 * storage keeps its cheap NULL task->bpf_storage). */
static __always_inline void umb_backing_exec_forget(struct task_struct *task)
{
	if (task->bpf_storage)
		bpf_task_storage_delete(&umb_backing_exec, task);
}

#endif /* UMBRELLA_BACKING_BPF_H */
