// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - sockets.
 *
 * Architecture:
 *   lsm/socket_create   denies creating sockets (socket(2), socketpair(2)) to tasks
 *                       restricted with "net:all" (any family), "net" (any family but
 *                       AF_UNIX) or "net:FAMILY". Sockets the kernel creates for
 *                       itself are not the task's doing. Every record carries
 *                       the family asked for (struct umb_event.family, passed as
 *                       umb_deny()'s target: the two share a field), whichever item
 *                       denied it.
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/layers.bpf.h"

#ifndef AF_UNIX
#define AF_UNIX 1 /* a macro of the UAPI: vmlinux.h has no macros */
#endif

SEC("lsm/socket_create")
int BPF_PROG(umb_socket_create, int family, int type, int protocol, int kern, int ret)
{
	const struct umb_task_state *state;
	struct umb_denial_pick p = {};
	__u64 family_bit;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */
	if (kern)
		return 0;

	/* Quick return for unrestricted tasks. */
	state = umb_current_state();
	if (!state)
		return 0;

	/* Each restriction that denies, until one whose layer enforces (umb_denial_pick():
	 * a permissive layer's "net:all" must not hide an enforcing layer's "net"). */
	if ((state->denied_caps & UMB_CR_NET_ALL) &&
	    umb_denial_pick(&p, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_NET_ALL),
			    UMB_ITEM_CAP, UMB_CR_NET_ALL))
		goto deny;
	/* "net" leaves local sockets: a task that may not reach the network still reaches
	 * umbrellad (rfork), nscd and systemd (sd_notify). */
	if (family != AF_UNIX && (state->denied_caps & UMB_CR_NET) &&
	    umb_denial_pick(&p, umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_NET), UMB_ITEM_CAP,
			    UMB_CR_NET))
		goto deny;
	/* Families beyond 63 do not exist yet (AF_MAX is 46): deny them to a task with
	 * any family restriction, rather than let a new family slip through. */
	family_bit = family >= 0 && family < 64 ? 1ULL << family : ~0ULL;
	if (state->denied_families & family_bit)
		umb_denial_pick(&p, umb_layer_denying(state, UMB_SET_FAMILIES, family_bit),
				UMB_ITEM_NET_FAMILY, family);
	if (!p.found)
		return 0;
deny:
	return umb_deny(UMB_HOOK_SOCKET_CREATE, p.layer, p.item_kind, p.item, family);
}
