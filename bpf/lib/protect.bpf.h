/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - self-protection: while umbrellad is up, no other process may write
 * Umbrella's maps, detach or replace its program links, attach programs to its
 * programs, load programs that use its maps, or change its pin directory. Reading stays
 * allowed (bpftool map dump, umbrella-cli's BPF_F_RDONLY opens, bpftool prog/link show).
 *
 * Restricted tasks are kept out of the pin directory also while umbrellad is down
 * (umb_protect_pins(), lib/protect-pins.bpf.h), and never use bpf() (system.bpf.c).
 *
 * "umbrellad is up" means umb_ctl.daemon_tgid is set: umbrellad writes it once it has
 * loaded (bpf_start()), clears it on a clean exit, and protect.bpf.c clears it when the
 * daemon's thread group leader is freed (a crash, kill -9), so that a restarted
 * umbrellad, or `umbrellad --reset-pins`, can take over. 0 protects nothing: the VM
 * tests load the object themselves and run without a daemon.
 *
 * Objects are told apart by identity, never by name (another root can create maps
 * called umb_*): a map is ours when it is one of the maps this object declares (the
 * program compares the kernel's pointer with its own map's); a program is ours when it
 * uses one of our maps (every Umbrella program reads umb_task or umb_ctl); a link is
 * ours when its program is.
 *
 * The helpers here run in hooks that also serve everyone else (bpf(), unlink, rename):
 * each starts with a test that is cheap and almost always false.
 */
#ifndef UMBRELLA_PROTECT_BPF_H
#define UMBRELLA_PROTECT_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "domain.bpf.h"

/* include/uapi/linux/magic.h */
#define UMB_BPF_FS_MAGIC 0xcafe4a11

/* Maps a program can name in its own used_maps list: more than any of ours uses. */
#define UMB_USED_MAPS_MAX 16

/* The pid of umbrellad when it is up and the current task is not part of it; 0 when
 * the access is not ours to refuse (no daemon, or the daemon itself). */
static __always_inline __u32 umb_protect_daemon(void)
{
	const struct umb_ctl *ctl = umb_ctl_get();
	__u32 daemon;

	/* No umb_ctl entry cannot happen (array map); no daemon: nothing to protect. */
	if (!ctl)
		return 0;
	daemon = ctl->daemon_tgid;
	if (!daemon || (__u32)(bpf_get_current_pid_tgid() >> 32) == daemon)
		return 0;
	return daemon;
}

/*
 * Whether @map is one of Umbrella's maps: every map of maps.bpf.h (keep this list
 * complete). The internal .rodata is frozen, so no fd writes it. umb_meta is
 * umbrellad's own map, not the object's: it holds only the ABI version, which umbrellad
 * checks at start, and a count of freed layers.
 */
static __always_inline bool umb_is_our_map(const void *map)
{
	return map == (const void *)&umb_task || map == (const void *)&umb_layers ||
	       map == (const void *)&umb_layer_desc || map == (const void *)&umb_fs_inodes ||
	       map == (const void *)&umb_fs_names || map == (const void *)&umb_arm ||
	       map == (const void *)&umb_ctl || map == (const void *)&umb_events ||
	       map == (const void *)&umb_stats || map == (const void *)&umb_fs_filter ||
	       map == (const void *)&umb_verdicts || map == (const void *)&umb_invalidated ||
	       map == (const void *)&umb_exec || map == (const void *)&umb_verdict_log ||
	       map == (const void *)&umb_live || map == (const void *)&umb_released ||
	       map == (const void *)&umb_counters || map == (const void *)&umb_gate_stats ||
	       map == (const void *)&umb_policies || map == (const void *)&umb_daemon_sock ||
	       map == (const void *)&umb_conn_full || map == (const void *)&umb_backing_exec ||
	       map == (const void *)&umb_exec_pins || map == (const void *)&umb_event_budget ||
	       map == (const void *)&umb_protected;
}

/* Whether the program @prog uses one of Umbrella's maps. */
static __always_inline bool umb_prog_uses_our_maps(const struct bpf_prog *prog)
{
	struct bpf_map **maps;
	__u32 count;

	if (!prog)
		return false;
	count = BPF_CORE_READ(prog, aux, used_map_cnt);
	maps = BPF_CORE_READ(prog, aux, used_maps);
	for (__u32 i = 0; i < UMB_USED_MAPS_MAX; i++) {
		struct bpf_map *map = NULL;

		if (i >= count)
			break;
		if (bpf_probe_read_kernel(&map, sizeof(map), &maps[i]) < 0)
			return false;
		if (umb_is_our_map(map))
			return true;
	}
	return false;
}

/* The file the current task has open as @fd, or NULL. */
static __always_inline struct file *umb_fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *file = NULL;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) < 0)
		return NULL;
	return file;
}

/*
 * The BPF object behind @fd of the current task: its file's private data (a struct
 * bpf_link or bpf_prog for the commands that take one). The command looks the fd up
 * again itself and refuses one that is not a link or a program (EINVAL); our reading
 * of what it holds goes through fault-safe reads only. Racy by nature: a second thread
 * sharing the fd table can swap the fd between this look-up and the command's (the
 * limits in docs/security.md).
 */
static __always_inline void *umb_fd_object(int fd)
{
	struct file *file = umb_fd_file(fd);

	return file ? BPF_CORE_READ(file, private_data) : NULL;
}

/* The program of the link behind @fd, or NULL. */
static __always_inline const struct bpf_prog *umb_fd_link_prog(int fd)
{
	struct bpf_link *link = umb_fd_object(fd);

	return link ? BPF_CORE_READ(link, prog) : NULL;
}

/* Records a self-protection denial of @hook on the BPF object @id; enforced in
 * permissive mode too (umb_deny_strict()). */
static __always_inline int umb_protect_deny(__u32 hook, __u64 id)
{
	return umb_deny_strict(hook, 0, UMB_ITEM_SELF, id, 0);
}

/*
 * umb_protect_bpf_cmd() - self-protection at bpf(2): the commands that act on a link
 * or attach to a program through an fd. The map and program fds themselves are guarded
 * where the kernel hands them out (lsm/bpf_map, lsm/bpf_prog in protect.bpf.c); links
 * have no such hook, and a link fd, which anyone may get to read its info, is enough
 * to detach it. So the commands that use one are checked here instead.
 *
 * Return: 0 or -EPERM.
 */
static __always_inline int umb_protect_bpf_cmd(int cmd, union bpf_attr *attr)
{
	const struct bpf_prog *prog;
	__u32 fd;

	switch (cmd) {
	case BPF_LINK_DETACH:
		fd = BPF_CORE_READ(attr, link_detach.link_fd);
		break;
	case BPF_LINK_UPDATE:
		fd = BPF_CORE_READ(attr, link_update.link_fd);
		break;
	case BPF_PROG_LOAD:
		/* fentry/fexit/freplace on one of our programs (attach_prog_fd shares its
		 * word with attach_btf_obj_fd: a BTF fd is no program of ours). */
		fd = BPF_CORE_READ(attr, attach_prog_fd);
		if (!fd)
			return 0;
		break;
	case BPF_LINK_CREATE:
		/* An extension re-targeted to a program: target_fd is that program. */
		if (!BPF_CORE_READ(attr, link_create.target_btf_id))
			return 0;
		fd = BPF_CORE_READ(attr, link_create.target_fd);
		break;
	default:
		return 0;
	}
	if (!umb_protect_daemon())
		return 0;
	if (cmd == BPF_LINK_DETACH || cmd == BPF_LINK_UPDATE)
		prog = umb_fd_link_prog(fd);
	else
		prog = umb_fd_object(fd);
	if (!umb_prog_uses_our_maps(prog))
		return 0;
	return umb_protect_deny(UMB_HOOK_BPF, BPF_CORE_READ(prog, aux, id));
}

/* The question to umb_protect_files_hit(): a global function takes no kernel pointer
 * as an argument on 6.1, so the dentry goes as a number in the caller's stack. */
struct umb_protect_query {
	__u64 dentry;  /* struct dentry * */
	__u32 removal; /* also unlink, rename, mount over: directories above count */
	__u32 __pad0;
};

/* Whether umb_protected (Umbrella's own files, lib/protect-files.bpf.h) refuses the
 * current task, which carries a layer, to change @q->dentry. Global, in file.bpf.c's
 * unit: one verification. */
extern int umb_protect_files_hit(const struct umb_protect_query *q);

/*
 * Whether the mount @mnt (a struct vfsmount *, as a number) counts for the protection
 * of mounts (mount over, MS_MOVE, move_mount, umount, pivot_root): what systemd and
 * umbrellad read is PID 1's mount namespace (umbrellad's own is its slave), so a mount
 * of another namespace counts only when it is shared, where a change propagates to its
 * peers, which may be there. Containers (unshare -m, bwrap, runc, nspawn) make their
 * mounts private or slaves and pivot_root. Global, in file.bpf.c's unit; the mount goes
 * in the caller's stack, as umb_protect_query's dentry.
 */
extern int umb_protect_mount_hit(const __u64 *mnt);

static __always_inline int umb_protect_mount_counts(__u64 mnt)
{
	__u64 m = mnt;

	return umb_protect_mount_hit(&m);
}

/* umb_protect_files_hit() of @dentry (a struct dentry *, as a number). */
static __always_inline int umb_protect_files_ask(__u64 dentry, bool removal)
{
	struct umb_protect_query q = { .dentry = dentry, .removal = removal };

	return umb_protect_files_hit(&q);
}

/* umb_protect_task_free() - at the free of @task: if it is umbrellad's thread group
 * leader, umbrellad is gone, and umb_ctl.daemon_tgid is cleared. */
static __always_inline void umb_protect_task_free(struct task_struct *task)
{
	struct umb_ctl *ctl = umb_ctl_get();
	__u32 daemon;

	if (!ctl)
		return;
	daemon = ctl->daemon_tgid;
	/*
	 * The leader is freed after every other thread of its group has exited. A leader
	 * replaced by a thread's exec (de_thread()) is no longer its group's leader. The
	 * pid may already be free (release_task() comes before the last put of the task,
	 * by an RCU grace period): umbrellad waits for this clearing before it adopts.
	 */
	if (!daemon || (__u32)task->pid != daemon || task->group_leader != task)
		return;
	/* Only if still ours: a new umbrellad may have registered meanwhile. */
	__sync_val_compare_and_swap(&ctl->daemon_tgid, daemon, 0);
}

#endif /* UMBRELLA_PROTECT_BPF_H */
