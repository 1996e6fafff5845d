// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - sockets.
 *
 * Architecture:
 *   lsm/socket_create   denies creating sockets (socket(2), socketpair(2)) to tasks
 *                       restricted with "net". Kernel-internal sockets are not the
 *                       task's doing and stay allowed.
 */
#include "maps.bpf.h"

SEC("lsm/socket_create")
int BPF_PROG(umb_socket_create, int family, int type, int protocol, int kern, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */
	if (kern)
		return 0;

	/* Quick return for unrestricted tasks. */
	state = umb_task_state_get(bpf_get_current_task_btf());
	if (!state)
		return 0;

	return umb_verdict(state->denied_caps & UMB_CR_NET);
}
