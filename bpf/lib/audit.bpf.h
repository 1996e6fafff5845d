/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - denial records on the ring buffer, and the counters beside them */
#ifndef UMBRELLA_AUDIT_BPF_H
#define UMBRELLA_AUDIT_BPF_H

#include "../maps.bpf.h"

static __always_inline void umb_stat_inc(__u32 stat)
{
	__u64 *counter = bpf_map_lookup_elem(&umb_stats, &stat);

	if (counter)
		*counter += 1; /* per-CPU: no atomic needed */
}

/*
 * umb_event_begin() - start the record of a denial
 *
 * Counts the denial and reserves its record with the common fields filled in. The
 * caller adds the object (path, inode, target) and calls umb_event_submit(). Returns
 * NULL when the ring buffer is full: the drop is counted, and the denial stands.
 */
static __always_inline struct umb_event *umb_event_begin(__u32 hook, __u32 layer, __u32 item_kind,
							 __u64 item)
{
	struct umb_event *e;
	__u64 pid_tgid;

	umb_stat_inc(UMB_STAT_DENIALS);
	e = bpf_ringbuf_reserve(&umb_events, sizeof(*e), 0);
	if (!e) {
		umb_stat_inc(UMB_STAT_EVENTS_DROPPED);
		return NULL;
	}
	pid_tgid = bpf_get_current_pid_tgid();
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->hook = hook;
	e->layer = layer;
	e->item_kind = item_kind;
	e->target_pid = 0;
	e->item = item;
	e->dev = 0;
	e->__pad0 = 0;
	e->ino = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->path[0] = '\0';
	return e;
}

static __always_inline void umb_event_submit(struct umb_event *e)
{
	if (e)
		bpf_ringbuf_submit(e, 0);
}

/* Records a denial that has no object beyond its item (and maybe a target task), and
 * returns the hook's verdict: -EPERM. */
static __always_inline int umb_deny(__u32 hook, __u32 layer, __u32 item_kind, __u64 item,
				    __u32 target_pid)
{
	struct umb_event *e = umb_event_begin(hook, layer, item_kind, item);

	if (e)
		e->target_pid = target_pid;
	umb_event_submit(e);
	return -EPERM;
}

#endif /* UMBRELLA_AUDIT_BPF_H */
