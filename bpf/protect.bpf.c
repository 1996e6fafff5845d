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
 * When umbrellad's thread group leader is freed, task.bpf.c's lsm/task_free (one program
 * per hook) clears umb_ctl.daemon_tgid with umb_protect_task_free(), so that a restarted
 * umbrellad can adopt the pinned state.
 * The bpf(2) commands that act through a link or program fd (detach, update, attach to
 * one of our programs) are checked by system.bpf.c's lsm/bpf (one program per hook),
 * and the pin directory by file.bpf.c's path hooks (lib/protect-pins.bpf.h), both with
 * lib/protect.bpf.h.
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
