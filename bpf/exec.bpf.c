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
 *                             "exec-unsigned": until signature verification exists
 *                             (the signed-binaries issue), no binary counts as validly
 *                             signed, so it denies every exec as "exec" does: fail
 *                             closed rather than accept a restriction and not apply it.
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/layers.bpf.h"

SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(umb_exec_check, struct linux_binprm *bprm, int ret)
{
	const struct umb_task_state *state;
	__u64 denied;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	/* Quick return for unrestricted tasks. */
	state = umb_current_state();
	if (!state)
		return 0;
	denied = state->denied_caps & (UMB_CR_EXEC | UMB_CR_EXEC_UNSIGNED);
	if (!denied)
		return 0;
	/* Report "exec" when a layer has it, else "exec-unsigned". */
	denied = denied & UMB_CR_EXEC ? UMB_CR_EXEC : UMB_CR_EXEC_UNSIGNED;
	return umb_deny(UMB_HOOK_BPRM_CREDS_FOR_EXEC,
			umb_layer_denying(state, UMB_SET_CAPS, denied), UMB_ITEM_CAP, denied, 0);
}
