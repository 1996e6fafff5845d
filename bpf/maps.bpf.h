/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - every BPF map, declared once: defined in maps.bpf.c, extern elsewhere */
#ifndef UMBRELLA_MAPS_BPF_H
#define UMBRELLA_MAPS_BPF_H

#include "umbrella.bpf.h"

#ifdef UMB_MAPS_OWNER
#define UMB_MAP
#else
#define UMB_MAP extern
#endif

/*
 * umb_task: per-task restriction state (struct umb_task_state).
 * Key: the task (a pidfd from user space). Writers: task.bpf.c copies the parent's
 * entry into each new task; umbrellad adds layers. Readers: every enforcement hook.
 * Task storage lives and dies with its task: no size limit, nothing to clean up.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct umb_task_state);
} umb_task SEC(".maps");

/* The state of @task, or NULL when it is unrestricted. */
static __always_inline struct umb_task_state *umb_task_state_get(struct task_struct *task)
{
	return bpf_task_storage_get(&umb_task, task, NULL, 0);
}

#endif /* UMBRELLA_MAPS_BPF_H */
