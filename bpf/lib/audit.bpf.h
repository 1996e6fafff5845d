/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella - denial records on the ring buffer, and the counters beside them */
#ifndef UMBRELLA_AUDIT_BPF_H
#define UMBRELLA_AUDIT_BPF_H

#include "../maps.bpf.h"
#include "layers.bpf.h"

static __always_inline void umb_stat_inc(__u32 stat)
{
	__u64 *counter = bpf_map_lookup_elem(&umb_stats, &stat);

	if (counter)
		*counter += 1; /* per-CPU: no atomic needed */
}

/* Adds one to the counter @index of umb_counters (enum umb_counter). */
static __always_inline void umb_counter_inc(__u32 index)
{
	__u64 *counter = bpf_map_lookup_elem(&umb_counters, &index);

	if (counter)
		*counter += 1; /* per-CPU: no atomic needed */
}

/*
 * umb_deny_flags() - the flags of a denial's record (struct umb_event.flags)
 *
 * UMB_EVENT_PERMISSIVE when umbrellad's configuration says "mode = permissive": the
 * denial is recorded and the hook allows the access all the same. Read only once a hook
 * has decided to deny, so that allowed accesses and unrestricted tasks never pay for it;
 * read once per denial, so that the record and the verdict agree across a reload.
 */
static __always_inline __u32 umb_deny_flags(void)
{
	const struct umb_ctl *ctl = umb_ctl_get();

	return ctl && (ctl->flags & UMB_CTL_PERMISSIVE) ? UMB_EVENT_PERMISSIVE : 0;
}

/* umb_layer_deny_flags() - umb_deny_flags() of a denial by layer @layer (0: by none),
 * and UMB_EVENT_PERMISSIVE when that layer only records (UMB_LAYER_PERMISSIVE) */
static __always_inline __u32 umb_layer_deny_flags(__u32 layer)
{
	return umb_deny_flags() | (umb_layer_permissive(layer) ? UMB_EVENT_PERMISSIVE : 0);
}

#define UMB_EVENT_INTERVAL_NS  (1000000000ULL / UMB_EVENT_RATE)
#define UMB_EVENT_TOLERANCE_NS (UMB_EVENT_BURST * UMB_EVENT_INTERVAL_NS)

/* The uid whose budget a denial by @layer (0: none) takes (bpf-abi.h): the layer's,
 * else the task's effective uid. */
static __always_inline __u32 umb_event_uid(__u32 layer)
{
	const struct umb_layer *l = umb_layer_get(layer);
	struct task_struct *task;

	if (l)
		return l->uid;
	task = bpf_get_current_task_btf();
	return BPF_CORE_READ(task, cred, euid.val);
}

/*
 * umb_event_budget_take() - take a record's place from @uid's budget (struct
 * umb_event_budget). Returns the uid's entry (for a drop to count) in *@ret, NULL if
 * there is none. Return: true if the record may be made; false when the budget is
 * spent, the drop counted for the uid. A uid without an entry that the map cannot take
 * gets no record: nothing would bound its records.
 */
static __always_inline bool umb_event_budget_take(__u32 uid, struct umb_event_budget **ret)
{
	struct umb_event_budget *b, fresh = {};
	__u64 now = bpf_ktime_get_ns(), from;

	*ret = NULL;
	b = bpf_map_lookup_elem(&umb_event_budget, &uid);
	if (!b) {
		/* Whole, unless the ring is half full: then a new uid is more likely one of
		 * many churning the map than one that had been quiet (bpf-abi.h). */
		fresh.spent_until = now;
		if (bpf_ringbuf_query(&umb_events, BPF_RB_AVAIL_DATA) > UMB_EVENTS_RING_SIZE / 2)
			fresh.spent_until = now + UMB_EVENT_TOLERANCE_NS;
		bpf_map_update_elem(&umb_event_budget, &uid, &fresh, BPF_NOEXIST);
		b = bpf_map_lookup_elem(&umb_event_budget, &uid);
		if (!b)
			return false;
	}
	*ret = b;
	from = b->spent_until > now ? b->spent_until : now;
	if (from + UMB_EVENT_INTERVAL_NS - now > UMB_EVENT_TOLERANCE_NS) {
		__sync_fetch_and_add(&b->dropped, 1);
		return false;
	}
	b->spent_until = from + UMB_EVENT_INTERVAL_NS;
	return true;
}

/*
 * umb_event_begin() - start the record of a denial
 * @flags: UMB_EVENT_*, from umb_deny_flags() (0 for a denial enforced in any mode)
 *
 * Counts the denial and reserves its record with the common fields filled in. The
 * caller adds the object (path, inode, target) and calls umb_event_submit(). Returns
 * NULL when the uid's budget is spent or the ring buffer is full: the drop is counted
 * (in all and for the uid), and the verdict stands.
 */
static __always_inline struct umb_event *umb_event_begin(__u32 hook, __u32 layer, __u32 item_kind,
							 __u64 item, __u32 flags)
{
	struct umb_event_budget *budget;
	struct umb_event *e;
	__u64 pid_tgid;
	__u32 uid;

	umb_stat_inc(UMB_STAT_DENIALS);
	umb_counter_inc(umb_counter_denials(hook, item_kind));
	uid = umb_event_uid(layer);
	if (!umb_event_budget_take(uid, &budget)) {
		umb_stat_inc(UMB_STAT_EVENTS_DROPPED);
		return NULL;
	}
	e = bpf_ringbuf_reserve(&umb_events, sizeof(*e), 0);
	if (!e) {
		if (budget)
			__sync_fetch_and_add(&budget->dropped, 1);
		umb_stat_inc(UMB_STAT_EVENTS_DROPPED);
		return NULL;
	}
	e->uid = uid;
	e->__pad0 = 0;
	pid_tgid = bpf_get_current_pid_tgid();
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->hook = hook;
	e->layer = layer;
	e->item_kind = item_kind;
	e->target_pid = 0;
	e->item = item;
	e->dev = 0;
	e->flags = flags;
	e->ino = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->path[0] = '\0';
	return e;
}

/*
 * umb_event_set_file() - name @file as the object of the record @e (if any): its
 * inode, and its whole path with @full_path (bpf_d_path(), which the kernel allows in
 * the hooks that may sleep, such as the exec hooks), else its name only.
 */
static __always_inline void umb_event_set_file(struct umb_event *e, struct file *file,
					       bool full_path)
{
	struct inode *inode;

	if (!e)
		return;
	inode = file->f_inode;
	e->dev = inode->i_sb->s_dev;
	e->ino = inode->i_ino;
	if (full_path)
		bpf_d_path(&file->f_path, e->path, sizeof(e->path));
	else
		bpf_probe_read_kernel_str(e->path, sizeof(e->path),
					  file->f_path.dentry->d_name.name);
}

static __always_inline void umb_event_submit(struct umb_event *e)
{
	if (e)
		bpf_ringbuf_submit(e, 0);
}

/* Records a denial that has no object beyond its item (and maybe a target task) with
 * @flags, and returns the hook's verdict: -EPERM, or 0 with UMB_EVENT_PERMISSIVE. */
static __always_inline int umb_deny_flagged(__u32 hook, __u32 layer, __u32 item_kind, __u64 item,
					    __u32 target_pid, __u32 flags)
{
	struct umb_event *e = umb_event_begin(hook, layer, item_kind, item, flags);

	if (e)
		e->target_pid = target_pid;
	umb_event_submit(e);
	return umb_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/* A denial by a restriction of @layer: enforced, or in permissive mode or by a
 * permissive layer only recorded. */
static __always_inline int umb_deny(__u32 hook, __u32 layer, __u32 item_kind, __u64 item,
				    __u32 target_pid)
{
	return umb_deny_flagged(hook, layer, item_kind, item, target_pid,
				umb_layer_deny_flags(layer));
}

/*
 * umb_deny_strict() - a denial that protects Umbrella itself: enforced in permissive
 * mode too. Permissive mode is for trying restrictions out, not for lifting them:
 * a restricted task that could use bpf() or signal or trace umbrellad could remove
 * its own layers (or every task's), and nothing it did under them could be trusted
 * again once "mode = enforcing" came back.
 */
static __always_inline int umb_deny_strict(__u32 hook, __u32 layer, __u32 item_kind, __u64 item,
					   __u32 target_pid)
{
	return umb_deny_flagged(hook, layer, item_kind, item, target_pid, 0);
}

/* A denial by @layer that the kernel does not log either (a quiet capability probe):
 * no record, the verdict of umb_deny(). */
static __always_inline int umb_deny_quiet(__u32 layer)
{
	return umb_verdict(!(umb_layer_deny_flags(layer) & UMB_EVENT_PERMISSIVE));
}

#endif /* UMBRELLA_AUDIT_BPF_H */
