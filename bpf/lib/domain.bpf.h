/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - the domain of a task (docs/design.md section 1), and who is umbrellad */
#ifndef UMBRELLA_DOMAIN_BPF_H
#define UMBRELLA_DOMAIN_BPF_H

#include "../maps.bpf.h"

/*
 * umb_in_domain() - whether a target is inside a sender's domain
 *
 * @sender: the state of the acting task (not NULL: only restricted tasks are checked)
 * @target: the state of the task acted on, NULL when it is unrestricted
 *
 * The target is inside when its layer stack starts with the sender's: the same stack,
 * or a more restricted descendant of it. An unrestricted target is outside the domain
 * of every restricted sender. Pure: no map access.
 */
static __always_inline bool umb_in_domain(const struct umb_task_state *sender,
					  const struct umb_task_state *target)
{
	__u32 count = sender->layer_count;

	if (!target || target->layer_count < count)
		return false;
	for (__u32 i = 0; i < UMB_MAX_LAYERS; i++) {
		if (i >= count)
			break;
		if (target->layers[i] != sender->layers[i])
			return false;
	}
	return true;
}

/* Whether @state stands for a restricted task: one with at least one layer. A task
 * whose only layer is still pending (rfork with UMB_ARM_ON_EXEC) runs its parent's
 * code until that exec, and counts as unrestricted until then. */
static __always_inline bool umb_is_restricted(const struct umb_task_state *state)
{
	return state && state->layer_count > 0;
}

/* Whether @task belongs to umbrellad (umb_ctl.daemon_tgid; 0: no daemon registered). */
static __always_inline bool umb_is_daemon(const struct task_struct *task)
{
	const struct umb_ctl *ctl = umb_ctl_get();

	/* No umb_ctl entry cannot happen (array map); no daemon: nothing to protect. */
	return ctl && ctl->daemon_tgid && (__u32)task->tgid == ctl->daemon_tgid;
}

#endif /* UMBRELLA_DOMAIN_BPF_H */
