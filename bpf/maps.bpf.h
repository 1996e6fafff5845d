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
 * Key: the task (a pidfd from user space). Writers: task.bpf.c (inheritance, armed and
 * pending layers). Readers: every enforcement hook, umbrella-cli.
 * Task storage lives and dies with its task: no size limit, nothing to clean up.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct umb_task_state);
} umb_task SEC(".maps");

/*
 * umb_layers: umb_layer_slot(id) -> struct umb_layer, the slots of the live layers.
 * Writer: umbrellad, through its mapping (BPF_F_MMAPABLE), before it hands the id to
 * any task; refs: lib/layers.bpf.h and umbrellad, atomically. Readers: task.bpf.c
 * (merging a pushed layer into the task's deny sets), the hooks (finding which layer
 * denied), umbrella-cli. Full (every slot live): umbrellad refuses new layers (ENOSPC)
 * until a holder goes.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UMB_LAYER_SLOTS);
	__type(key, __u32);
	__type(value, struct umb_layer);
} umb_layers SEC(".maps");

/*
 * umb_layer_desc: layer id -> struct umb_layer_desc, the layer as umbrella-cli shows it
 * (its restrictions as text, who made it and when). Writer: umbrellad, with the layer.
 * No program uses it: it is declared here to be pinned with the maps, as long-lived as
 * the layers it describes. No preallocation: entries are large and most ids unused.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct umb_layer_desc);
} umb_layer_desc SEC(".maps");

/*
 * umb_policies: struct umb_policy_key (a policy's digest and its signing key) -> __u32,
 * the id of the layer the exec gate made for that signed policy (daemon/gate-policies.c).
 * Writer: umbrellad, with the layer, which its gate holds as long as the pins live.
 * Reader: umbrellad, before it makes a layer for a signed policy and at start (a
 * restart finds the layers by id). No program uses it: declared here to be pinned with
 * the layers it names. One entry per such layer, so never full before umb_layers is;
 * full: the next binary with that policy gets a layer of its own (as correct, less
 * frugal).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, UMB_LAYER_SLOTS);
	__type(key, struct umb_policy_key);
	__type(value, __u32);
} umb_policies SEC(".maps");

/*
 * umb_fs_inodes: restricted file system objects, by inode and layer (struct umb_fs_key
 * -> struct umb_fs_rule). Writer: umbrellad (with the layer, deleted when it is freed).
 * Reader: walk.bpf.c, on every ancestor of an object a restricted task touches whose
 * bit in umb_fs_filter is set, once per fs layer of the task. Full: umbrellad refuses
 * the layer.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct umb_fs_key);
	__type(value, struct umb_fs_rule);
} umb_fs_inodes SEC(".maps");

/*
 * umb_fs_filter: one struct umb_fs_filter, a bit per hash of an umb_fs_inodes object
 * and of its dev (include/umbrella/bpf-abi.h). Writer: umbrellad, through its mapping.
 * Readers: walk.bpf.c and lib/walk-typed.bpf.h, before the umb_fs_inodes lookups. Never full.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct umb_fs_filter);
} umb_fs_filter SEC(".maps");

/*
 * umb_fs_names: restricted names in directories, by layer (struct umb_fs_name_key ->
 * struct umb_fs_rule), for paths that do not exist yet or whose file may be replaced by
 * rename. Writer: umbrellad. Reader: walk.bpf.c, only below a directory whose
 * umb_fs_inodes entry of the same layer has UMB_FS_HAS_NAMES. Full: umbrellad refuses
 * the layer.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct umb_fs_name_key);
	__type(value, struct umb_fs_rule);
} umb_fs_names SEC(".maps");

/*
 * umb_arm: thread id -> struct umb_arm, a layer waiting for that thread's next fork
 * (rfork) or its UMB_PRCTL_APPLY prctl (restrict_self). Writer: umbrellad
 * (daemon/arm.c). Deleted by task.bpf.c when used, refused, or left by a thread that
 * ends. As many entries as layer slots: each arm holds a live layer of its own (one arm
 * per thread at most), so the per-user layer limits bound it too, and it is never full
 * before umb_layers is.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UMB_LAYER_SLOTS);
	__type(key, __u32);
	__type(value, struct umb_arm);
} umb_arm SEC(".maps");

/*
 * umb_live: one struct umb_live, counters both sides change atomically (umbrellad
 * through its mapping).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct umb_live);
} umb_live SEC(".maps");

/*
 * umb_released: the layers whose last reference the kernel dropped (struct
 * umb_release), for umbrellad to free. Writer: lib/layers.bpf.h. Full: the record is
 * counted in umb_stats and the layer freed by umbrellad's next sweep.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
} umb_released SEC(".maps");

/* umb_ctl: one struct umb_ctl, written by umbrellad. */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct umb_ctl);
} umb_ctl SEC(".maps");

/*
 * umb_events: denial records (struct umb_event) for umbrellad. Writers: every hook
 * (lib/audit.bpf.h), each record within its uid's budget (umb_event_budget). Full: the
 * record is dropped and counted in umb_stats and for its uid.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, UMB_EVENTS_RING_SIZE);
} umb_events SEC(".maps");

/*
 * umb_event_budget: uid -> struct umb_event_budget, each uid's budget of records on
 * umb_events and its dropped count (bpf-abi.h). Writer: lib/audit.bpf.h, at denials
 * only. Readers: umbrellad, umbrella-cli. LRU: a uid that made no denial while
 * UMB_EVENT_BUDGET_UIDS others did gives its entry up (its budget was whole again).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UMB_EVENT_BUDGET_UIDS);
	__type(key, __u32);
	__type(value, struct umb_event_budget);
} umb_event_budget SEC(".maps");

/*
 * umb_verdicts: the exec verdict of a file (struct umb_verdict), in the file's inode
 * (docs/design.md section 3). Writer: umbrellad's exec gate (key: a file descriptor of the
 * file), PENDING before it reads the file and the result with BPF_EXIST after.
 * Readers: exec.bpf.c (each file an exec runs), file.bpf.c (PROT_EXEC mappings under
 * exec-unsigned), umbrella-cli. Deleted by BPF on any change to the file
 * (lib/verdict.bpf.h). Inode storage dies with its inode, so a verdict never passes to
 * a later file with the same inode number; no size limit, nothing to clean up.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct umb_verdict);
} umb_verdicts SEC(".maps");

/*
 * umb_invalidated: the inodes whose verdict BPF deleted (struct umb_invalidation), so
 * that umbrellad drops its fanotify ignore mark on them. Writers: the hooks that delete
 * verdicts (lib/verdict.bpf.h). Full: the record is dropped and counted in umb_stats
 * (the verdict is gone all the same; only the ignore mark outlives it).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
} umb_invalidated SEC(".maps");

/*
 * umb_exec: the layer of the binary an exec is about to run, from the verdict that
 * bprm_check_security saw (exec.bpf.c), for bprm_committed_creds to push (task.bpf.c).
 * Carried rather than looked up again at the commit, where nothing can fail any more:
 * a verdict deleted in between (chmod, an epoch bump) must not let the binary run
 * without its layer. Task storage: created only by a task that execs a signed binary
 * with a layer, deleted at the commit. Internal to the programs: user space never
 * reads it.
 */
struct umb_exec_layer {
	__u32 layer; /* the layer to push at the commit; 0: none */
	__u32 __pad0;
};

UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct umb_exec_layer);
} umb_exec SEC(".maps");

/*
 * umb_backing_exec: the backing file of the overlayfs file an exec is opening, with its
 * verdict (struct umb_backing_exec in bpf-abi.h). Task storage of the thread group
 * leader: created by file_open for the exec open of a backing file (only inside an
 * overlayfs open), filled in by umbrellad's gate, read once by bprm_check_security,
 * deleted at the commit (task.bpf.c).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct umb_backing_exec);
} umb_backing_exec SEC(".maps");

/*
 * umb_exec_pins: the files whose code runs on a SIGNED verdict where the kernel does not
 * keep writers off (lib/backing.bpf.h), in their inode: a __u32, non-zero once pinned.
 * The kernel denies writes to a running binary on the overlay inode only, and to no
 * mapped library at all; a pinned inode refuses every write open and truncate (ETXTBSY)
 * until it leaves memory, so that no write reaches code that runs on its verdict.
 * Writers: file.bpf.c (the exec open of a file underneath an overlayfs file with a
 * SIGNED verdict; a PROT_EXEC mapping under exec-unsigned), umbrellad's gate (key: a
 * file descriptor; a first exec it verified). Readers: file.bpf.c (file_open,
 * path_truncate, inode_setattr).
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} umb_exec_pins SEC(".maps");

/* umb_stats: per-CPU counters indexed by enum umb_stat. */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UMB_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} umb_stats SEC(".maps");

/* umb_counters: per-CPU counters indexed by enum umb_counter (umbrella-cli metrics).
 * Like every map here, listed in umb_is_our_map() (lib/protect.bpf.h). */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UMB_COUNTER_MAX);
	__type(key, __u32);
	__type(value, __u64);
} umb_counters SEC(".maps");

/* umb_gate_stats: the exec gate's figures, written by umbrellad only (bpf-abi.h). */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct umb_gate_stats);
} umb_gate_stats SEC(".maps");

/*
 * umb_daemon_sock: umbrellad's listening socket, marked (value 1) by umbrellad; and
 * umb_conn_full: charged uid (daemon/server.h: struct client.uid) -> 1 while that uid
 * holds its share of umbrellad's connections and some of them wait for its closer
 * thread; UMB_CONN_FULL_USERS (bpf-abi.h) -> 1 while all users together hold theirs,
 * some of it waiting. Writer: umbrellad (server.c), the only one, emptied at its start.
 * Reader: file.bpf.c's lsm/unix_stream_connect, which refuses such a uid's connect() to
 * the marked socket (every user's, for UMB_CONN_FULL_USERS), so that connections whose
 * close is stuck cost only their user's share, and the users' one, never root's (issue
 * 13): accepted, each would take one of umbrellad's slots whatever it is told.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} umb_daemon_sock SEC(".maps");

UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} umb_conn_full SEC(".maps");

/*
 * umb_protected: struct umb_protect_key -> __u32 (enum umb_protect_flags), Umbrella's own
 * files and the directories above them, kept from every task that carries a layer,
 * also while umbrellad is down. Writer: umbrellad at start (daemon/self-files.c), the
 * only one (lsm/bpf_map). Reader: lib/protect-files.bpf.h.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct umb_protect_key);
	__type(value, __u32);
} umb_protected SEC(".maps");

/*
 * The state of @task, or NULL when it is unrestricted.
 *
 * Most tasks have no BPF task storage at all (of any map): then task->bpf_storage is
 * NULL and the helper call, most of what an unrestricted task costs a hook, is skipped.
 * A plain load from the task (a BTF pointer; the verifier allows it, the JIT makes it a
 * load); a stale non-NULL only costs the helper call, which decides. A task gets its
 * umb_task storage before it runs restricted (task.bpf.c, at fork or by the task
 * itself), and loses it only when it is freed, so NULL here cannot hide a state.
 */
static __always_inline struct umb_task_state *umb_task_state_get(struct task_struct *task)
{
	if (!task->bpf_storage)
		return NULL;
	return bpf_task_storage_get(&umb_task, task, NULL, 0);
}

/* The state of the current task, or NULL when it is unrestricted. */
static __always_inline struct umb_task_state *umb_current_state(void)
{
	return umb_task_state_get(bpf_get_current_task_btf());
}

static __always_inline struct umb_ctl *umb_ctl_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&umb_ctl, &zero);
}

static __always_inline struct umb_live *umb_live_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&umb_live, &zero);
}

/* Whether any thread is armed (umb_arm has entries). */
static __always_inline bool umb_live_has_arms(void)
{
	struct umb_live *live = umb_live_get();

	return live && live->arms;
}

/*
 * umb_verdict_log: (dev, ino) -> struct umb_verdict_record, the verdicts umbrellad's
 * exec gate made, as "umbrella-cli verdict list" shows them (umb_verdicts, inode
 * storage, cannot be listed). Informational only: no program reads it. Writer:
 * umbrellad (added with a verdict, deleted on its invalidation record, emptied with a
 * new epoch). Full: the verdict still counts, it is only not listed.
 */
UMB_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct umb_inode_key);
	__type(value, struct umb_verdict_record);
} umb_verdict_log SEC(".maps");

#endif /* UMBRELLA_MAPS_BPF_H */
