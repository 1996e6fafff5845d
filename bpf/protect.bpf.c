// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - self-protection: Umbrella's maps and programs belong to umbrellad while it
 * is up (lib/protect.bpf.h says who is umbrellad and which objects are ours).
 * Restricted tasks never get this far: they cannot use bpf() at all (system.bpf.c).
 *
 * Architecture:
 *   lsm/bpf_map    an fd of one of our maps is handed out (BPF_OBJ_GET of a pin,
 *                  BPF_MAP_GET_FD_BY_ID): for writing, only to umbrellad. Read-only
 *                  opens (BPF_F_RDONLY: bpftool map dump, umbrella-cli) stay allowed.
 *   lsm/bpf_prog   a program fd is handed out: a newly loaded program that uses one of
 *                  our maps (it could write them whatever mode its map fd had) only to
 *                  umbrellad. Our own programs' fds stay available (bpftool prog show).
 *   lsm/task_free  umbrellad's thread group leader is gone: umb_ctl.daemon_tgid is
 *                  cleared, so that a restarted umbrellad can adopt the pinned state.
 * The bpf(2) commands that act through a link or program fd (detach, update, attach to
 * one of our programs) are checked by system.bpf.c's lsm/bpf (one program per hook),
 * and the pin directory by file.bpf.c's path hooks, both with lib/protect.bpf.h.
 */
#include "maps.bpf.h"
#include "lib/protect.bpf.h"

SEC("lsm/bpf_map")
int BPF_PROG(umb_bpf_map, struct bpf_map *map, fmode_t fmode, int ret)
{
	if (ret)
		return ret;
	if (!(fmode & FMODE_WRITE) || !umb_is_our_map(map))
		return 0;
	if (!umb_protect_daemon())
		return 0;
	return umb_protect_deny(UMB_HOOK_BPF_MAP, BPF_CORE_READ(map, id));
}

SEC("lsm/bpf_prog")
int BPF_PROG(umb_bpf_prog, struct bpf_prog *prog, int ret)
{
	if (ret)
		return ret;
	/*
	 * The same hook serves BPF_PROG_LOAD and the later look-ups (BPF_PROG_GET_FD_BY_ID,
	 * BPF_OBJ_GET), and has no command. A program being loaded has one reference, its
	 * loader's, until this fd exists; one looked up again has at least two (whoever
	 * keeps it alive, and the look-up's own).
	 */
	if (BPF_CORE_READ(prog, aux, refcnt.counter) != 1)
		return 0;
	if (!umb_protect_daemon() || !umb_prog_uses_our_maps(prog))
		return 0;
	return umb_protect_deny(UMB_HOOK_BPF_PROG, BPF_CORE_READ(prog, aux, id));
}

SEC("lsm/task_free")
int BPF_PROG(umb_task_free, struct task_struct *task)
{
	struct umb_ctl *ctl = umb_ctl_get();
	__u32 daemon;

	if (!ctl)
		return 0;
	daemon = ctl->daemon_tgid;
	/*
	 * The leader is freed after every other thread of its group has exited. A leader
	 * replaced by a thread's exec (de_thread()) is no longer its group's leader. The
	 * pid may already be free (release_task() comes before the last put of the task,
	 * by an RCU grace period): umbrellad waits for this clearing before it adopts.
	 */
	if (!daemon || (__u32)task->pid != daemon || task->group_leader != task)
		return 0;
	/* Only if still ours: a new umbrellad may have registered meanwhile. */
	__sync_val_compare_and_swap(&ctl->daemon_tgid, daemon, 0);
	return 0;
}
