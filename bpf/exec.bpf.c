// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - exec.
 *
 * Architecture:
 *   lsm/bprm_creds_for_exec   "exec": every execve(2) and execveat(2) (once per call,
 *                             whatever interpreters follow). Next to task.bpf.c's
 *                             program on the same hook. A layer pending until the next
 *                             exec (rfork with UMB_ARM_ON_EXEC) is not on the stack
 *                             yet at that exec: "umbrella-cli run -r exec -- sh -c CMD"
 *                             starts sh, and sh cannot exec CMD.
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/layers.bpf.h"

SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(umb_exec_check, struct linux_binprm *bprm, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	/* Quick return for unrestricted tasks. */
	state = umb_current_state();
	if (!state || !(state->denied_caps & UMB_CR_EXEC))
		return 0;
	return umb_deny(UMB_HOOK_BPRM_CREDS_FOR_EXEC,
			umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_EXEC), UMB_ITEM_CAP,
			UMB_CR_EXEC, 0);
}
