/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - ABI shared between the BPF programs and user space */
#ifndef UMBRELLA_BPF_ABI_H
#define UMBRELLA_BPF_ABI_H

#ifndef __VMLINUX_H__ /* the BPF side gets __u32 & co. from vmlinux.h */
#include <linux/types.h>
#endif

/* The values of restrictions, shared with libumbrella's API: UMB_CR_*, UMB_FS_*, the
 * item kinds, the policy section. */
#include <umbrella/restrictions.h>

/* Bumped on any change to a struct, value or map layout below. umbrellad checks it
 * against the pinned objects it finds before adopting them (struct umb_meta).
 * 1: never pinned. 2: pinned under the pin directory, with umb_meta. 3: umb_ctl grew
 * the configuration flags and the pin directory's identity; the maps umb_layer_desc
 * and umb_fs_filter. 4: signed binaries: umb_ctl grew verdict_epoch and
 * UMB_CTL_UNSIGNED_DENY; the maps umb_verdicts and umb_invalidated. 5: layers are
 * reference counted and freed: umb_layers is an array of slots (id, refs, uid), fs rules
 * are keyed by (object, layer), umb_task_state grew fs_layers and flags, umb_arm is
 * consumed by the kernel, the maps umb_live and umb_released. 6: umb_arm grew start (the
 * armed thread's start time: a thread id reused by a later task does not match). 7: bit 0
 * of denied_caps is UMB_CR_NET_ALL (every family, what "net" meant before), the new bit
 * UMB_CR_NET every family but AF_UNIX: an older umbrellad, whose programs know no bit 9,
 * must not adopt layers that carry it. 8: umb_layer grew flags (UMB_LAYER_PERMISSIVE): an
 * older umbrellad's programs would enforce a layer that is only to be recorded; and the
 * map umb_policies (struct umb_policy_key): the layers of signed policies are found
 * again by their ids, not by umb_layer_desc's text. 9: umb_event grew uid (whose budget
 * the record took), umb_events grew to UMB_EVENTS_RING_SIZE, the map umb_event_budget.
 * 10: the map umb_protected (struct umb_protect_key) and the inode_* hooks that consult
 * it: an older umbrellad's programs would leave Umbrella's own files unprotected. */
#define UMB_ABI_VERSION 10

/* The uid that a root process carrying layers is charged as (umbrellad's per-user
 * limits; the key of umb_conn_full): not exempt like root. */
#define UMB_UID_RESTRICTED_ROOT 0xfffffffeU

/* The key of umb_conn_full that refuses every caller but root that carries no layer:
 * all users together hold what umbrellad keeps for them, some of it being closed. No
 * task has this uid ((uid_t)-1 is never a credential). */
#define UMB_CONN_FULL_USERS 0xffffffffU

/* A task carries at most this many layers, as Landlock does. */
#define UMB_MAX_LAYERS 16

/*
 * Layers live in the slots of the array map umb_layers. A layer id names a slot and
 * the generation of the slot's layer: id = generation << UMB_LAYER_SLOT_BITS | slot,
 * never 0 (generations start at 1). When the last holder of a layer goes, umbrellad
 * frees it (its rules, its description, its slot) and the slot takes a new generation:
 * ids live as long as their layer, and a stale id never matches a slot's current one.
 */
#define UMB_LAYER_SLOT_BITS 14
#define UMB_LAYER_SLOTS	    (1U << UMB_LAYER_SLOT_BITS) /* layers alive at once, at most */
#define UMB_LAYER_GEN_MAX   ((1U << (32 - UMB_LAYER_SLOT_BITS)) - 1)

static inline __u32 umb_layer_slot(__u32 id)
{
	return id & (UMB_LAYER_SLOTS - 1);
}

/*
 * A slot of the array map umb_layers (key: umb_layer_slot(id)), mapped into umbrellad's
 * memory (BPF_F_MMAPABLE). A live layer is immutable, but for its reference count.
 * Producer: umbrellad, which writes a layer's fields and then its id (a slot with id 0
 * is free). Consumers: the enforcement hooks, umbrella-cli.
 *
 * refs counts the holders of the layer: every task whose stack or pending layer has it
 * (processes and threads: task.bpf.c, taken at task_alloc, dropped at task_free), every
 * umb_arm entry that names it, and umbrellad's exec gate for the layer of a signed
 * policy. Both sides change it atomically; it never rises again from 0 (there is then
 * no holder to copy it from), and whoever drops it to 0 reports the id on umb_released.
 */
struct umb_layer {
	__u64 denied_caps;	   /* UMB_CR_* */
	__u64 denied_families;	   /* bit n: creating sockets of address family n */
	__u64 denied_capabilities; /* bit n: using Linux capability n (cap:NAME) */
	__u32 fs_access;	   /* union of the UMB_FS_* of the layer's fs rules */
	__u32 fs_rule_count;	   /* number of fs rules (for inspection) */
	__u32 creator_pid;	   /* provenance: the process that asked for the layer */
	__u32 origin;		   /* enum umb_layer_origin */
	__u32 id;		   /* the live layer's id; 0: a free slot */
	__u32 refs;		   /* holders (above) */
	__u32 uid;		   /* the uid that asked for it (per-user limits) */
	__u32 gen;		   /* the generation of the slot's latest layer */
	__u32 flags;		   /* UMB_LAYER_* */
	__u32 __pad0;		   /* must be zero */
};

_Static_assert(sizeof(struct umb_layer) == 64, "struct umb_layer is ABI");

/* umb_layer.flags */
enum umb_layer_flags {
	/*
	 * The layer's denials are recorded (UMB_EVENT_PERMISSIVE), not enforced: "umbrella-cli
	 * run --permissive" tries a list out. Set only on a layer a process asks for its own
	 * child (UMB_ARM_PERMISSIVE), so it relaxes nothing the child had: a hook that finds
	 * such a layer denying looks on for a layer without the flag that denies too, and
	 * enforces that one. The scope and self-protection, which name no layer, stay
	 * enforced.
	 */
	UMB_LAYER_PERMISSIVE = 1 << 0,
};

enum umb_layer_origin {
	UMB_ORIGIN_RFORK = 1,	      /* rfork(): a parent restricted its child */
	UMB_ORIGIN_RESTRICT_SELF = 2, /* restrict_self(): a task restricted itself */
	UMB_ORIGIN_SIGNED_BINARY = 3, /* the execute restrictions of a signed binary */
	/* The execute restrictions of a binary signed by a key the ring does not know, run
	 * as unsigned with them under "unsigned = allow": anyone can write such a policy,
	 * so it counts as chosen by a user (the scope), whoever the file's owner is. */
	UMB_ORIGIN_UNKNOWN_SIGNER = 4,
};

/*
 * Value of the task storage map umb_task: the restriction state of one task.
 * Producers: task.bpf.c (copies the creating task's state into each new task, pushes
 * armed and pending layers). Consumers: every enforcement hook. A task without an entry
 * is unrestricted. The deny sets are the unions over all layers, so that a hook can
 * return at once when no layer restricts what it guards.
 */
struct umb_task_state {
	__u32 layer_count;	   /* layers on the stack, 0..UMB_MAX_LAYERS */
	__u32 pending_layer;	   /* pushed at the next successful exec (0: none) */
	__u64 denied_caps;	   /* union of umb_layer.denied_caps */
	__u64 denied_families;	   /* union of umb_layer.denied_families */
	__u64 denied_capabilities; /* union of umb_layer.denied_capabilities */
	__u32 fs_access;	   /* union of umb_layer.fs_access: 0 skips every fs check */
	__u32 fs_layers;	   /* bit i: layers[i] has fs rules (the walk looks only there) */
	__u32 flags;		   /* UMB_TASK_* */
	__u32 __pad0;		   /* must be zero */
	__u32 layers[UMB_MAX_LAYERS]; /* layer ids, bottom first */
};

_Static_assert(sizeof(struct umb_task_state) == 112, "struct umb_task_state is ABI");

/* umb_task_state.flags */
enum umb_task_flags {
	/* The task holds a reference on each of its layers and its pending layer (so it
	 * drops them when it is freed). A state written by other means (a test) has not. */
	UMB_TASK_COUNTED = 1 << 0,
	/* bprm_check_security put a signed binary's layer in umb_exec for this exec's
	 * commit, which kills the new program if it cannot read it back. */
	UMB_TASK_CARRYING = 1 << 1,
};

/*
 * An inode on a file system, as the kernel names it: dev is the super block's s_dev
 * (MKDEV(major, minor) = major << 20 | minor, not user space's st_dev encoding).
 */
struct umb_inode_key {
	__u32 dev;
	__u32 __pad0; /* must be zero */
	__u64 ino;
};

_Static_assert(sizeof(struct umb_inode_key) == 16, "struct umb_inode_key is ABI");

/*
 * Key of umb_protected: one of Umbrella's own files (its configuration, key ring,
 * profiles, unit and drop-ins, umbrellad's binary) or a directory above one, as an
 * inode (name_hash 0), or a name in a directory (the FNV-1a 64 hash of the name, as in
 * struct umb_fs_name_key), which holds for whatever file bears that name, one that does
 * not exist yet or one put there by rename. Value: __u32, enum umb_protect_flags.
 * Producer: umbrellad at start (daemon/self-files.c). Consumer: lib/protect-files.bpf.h.
 */
struct umb_protect_key {
	__u32 dev;    /* the super block's s_dev, as struct umb_inode_key */
	__u32 __pad0; /* must be zero */
	__u64 ino;
	__u64 name_hash; /* 0: the inode itself */
};

_Static_assert(sizeof(struct umb_protect_key) == 24, "struct umb_protect_key is ABI");

/* Value of umb_protected: what no task that carries a layer may do there. */
enum umb_protect_flags {
	/* The object: no write, truncate, attribute or xattr change, link, unlink,
	 * rename, nor a mount over it or the unmount of a mount rooted there. */
	UMB_PROTECT_OBJECT = 1 << 0,
	/* As UMB_PROTECT_OBJECT, and the same for everything below the directory (up to
	 * UMB_PROTECT_LEVELS - 1 levels), no new name in it either. */
	UMB_PROTECT_TREE = 1 << 1,
	/* A directory (or symbolic link) on the way to a protected object: no unlink,
	 * rename, mount over it or unmount of a mount rooted there, which would move the
	 * object away from the path umbrellad and systemd read. */
	UMB_PROTECT_ANCESTOR = 1 << 2,
	/* A directory in which some names have entries of their own: the hooks hash a
	 * child's name only where it is set. */
	UMB_PROTECT_NAMES = 1 << 3,
};

/* The ino of the entry (dev, UMB_PROTECT_FS_INO, 0) that umbrellad adds for each file
 * system holding a protected object: a disconnected dentry there (open_by_handle_at()
 * of a file whose dentry was evicted), whose directories are unknown, is refused. No
 * inode has this number. */
#define UMB_PROTECT_FS_INO 0xffffffffffffffffULL

/* The levels lib/protect-files.bpf.h looks at: the object and the directories above it. */
#define UMB_PROTECT_LEVELS 4

/* umb_fs_rule.flags */
enum umb_fs_rule_flags {
	/* The object is a directory in which this layer restricts names (umb_fs_names):
	 * the hooks hash the name of a child on the way up only where it is set. */
	UMB_FS_HAS_NAMES = 1 << 0,
	/* The object is a directory above a path this layer restricts (the path's
	 * directory and each one up to the root): a task of the layer may not rename,
	 * replace or remove it, which would take the rules below it away from their
	 * path (lib/ancestors.bpf.h). Such an entry restricts no access by itself. */
	UMB_FS_ANCESTOR = 1 << 1,
};

/*
 * Key of umb_fs_inodes: an object restricted by one layer. An object that n layers
 * restrict has n entries: each entry belongs to one layer, and goes with it, so that no
 * number of layers restricting the same object is too many.
 */
struct umb_fs_key {
	__u32 dev;   /* the object's super block's s_dev, as struct umb_inode_key */
	__u32 layer; /* the layer id */
	__u64 ino;
};

_Static_assert(sizeof(struct umb_fs_key) == 16, "struct umb_fs_key is ABI");

/*
 * Value of the hash maps umb_fs_inodes (keyed by struct umb_fs_key: the object itself,
 * which follows it through renames, hard links and bind mounts) and umb_fs_names (keyed
 * by struct umb_fs_name_key: a name in a directory, which holds for whatever file bears
 * that name, one created later or one put there by rename): which access kinds that
 * layer denies there. Producer: umbrellad. Consumer: lib/path.bpf.h.
 */
struct umb_fs_rule {
	__u32 access; /* UMB_FS_*; 0 in an entry made only for its flags */
	__u32 flags;  /* UMB_FS_HAS_NAMES, UMB_FS_ANCESTOR (umb_fs_inodes only) */
};

_Static_assert(sizeof(struct umb_fs_rule) == 8, "struct umb_fs_rule is ABI");

/* Key of umb_fs_names: the directory (and layer) and the 64-bit FNV-1a hash of the
 * name in it. */
struct umb_fs_name_key {
	struct umb_fs_key dir;
	__u64 name_hash;
};

_Static_assert(sizeof(struct umb_fs_name_key) == 24, "struct umb_fs_name_key is ABI");

/*
 * umb_fs_filter: the array map of one struct umb_fs_filter (key 0), a bitmap in which
 * bit umb_fs_filter_bit() of the (dev, ino) of every key of umb_fs_inodes that the walk
 * reads (an access, or UMB_FS_HAS_NAMES; not a mark that is UMB_FS_ANCESTOR only) is
 * set, and that of (its dev, UMB_FS_FILTER_ANY_INO): a prefilter that spares the hooks
 * the hash lookups on the (nearly all) inodes that no rule names, and on file systems
 * without rules even the reading of inode numbers. A clear bit means "no entry in
 * umb_fs_inodes that the walk reads" (for that inode, or any inode of that dev); a set
 * bit means nothing. Producer: umbrellad, through its mapping of the map
 * (BPF_F_MMAPABLE), one word at a time: it counts the entries behind each bit
 * (daemon/fs-filter.c), sets a bit before the first entry behind it is written and
 * clears it after the last one is deleted. Consumer: walk.bpf.c.
 */
#define UMB_FS_FILTER_SHIFT   20 /* 2^20 bits: 128 KiB */
#define UMB_FS_FILTER_WORDS   (1U << (UMB_FS_FILTER_SHIFT - 6))
#define UMB_FS_FILTER_ANY_INO 0 /* the inode number of a dev's own bit (no inode's) */

struct umb_fs_filter {
	__u64 words[UMB_FS_FILTER_WORDS]; /* bit b: words[b / 64] & 1 << b % 64 */
};

_Static_assert(sizeof(struct umb_fs_filter) == 131072, "struct umb_fs_filter is ABI");

/* The bit of the inode (@dev, @ino) in umb_fs_filter (Fibonacci hashing). */
static inline __u32 umb_fs_filter_bit(__u32 dev, __u64 ino)
{
	return (__u32)(((ino ^ (__u64)dev << 40) * 0x9e3779b97f4a7c15ULL) >>
		       (64 - UMB_FS_FILTER_SHIFT));
}

/* FNV-1a, 64 bit: the hash of a name in umb_name_key (computed the same on both sides). */
#define UMB_FNV64_OFFSET 0xcbf29ce484222325ULL
#define UMB_FNV64_PRIME	 0x100000001b3ULL

/*
 * Value of the hash map umb_arm, keyed by the __u32 thread id that asked umbrellad to
 * restrict its next child (rfork) or itself (restrict_self). Producer: umbrellad
 * (daemon/arm.c), which counts the entry in umb_live.arms and gives it one reference
 * on the layer. Consumer: task.bpf.c, which deletes the entry when it is used (the
 * thread's next fork gives the layer to the child, its UMB_PRCTL_APPLY prctl to
 * itself), refused, or left behind by the thread's end, and passes its reference on.
 */
struct umb_arm {
	__u32 layer; /* the layer to push */
	__u32 flags; /* UMB_ARM_* */
	__u32 tgid;  /* the thread's process: a thread id reused elsewhere does not match */
	__u32 state; /* UMB_ARM_ARMED (what a reader of the map finds) */
	/* The thread's start time (task->start_boottime) in clock ticks of UMB_TICK_NS, as
	 * field 22 of /proc/TID/stat shows it to umbrellad: a task that reuses the thread
	 * id later (the thread exited before the arm was written, or its exit did not
	 * delete it) does not match, and the kernel deletes the arm instead of using it. */
	__u64 start;
};

_Static_assert(sizeof(struct umb_arm) == 24, "struct umb_arm is ABI");

/* One clock tick of /proc/PID/stat (1 / USER_HZ, 100 on every architecture we build for). */
#define UMB_TICK_NS 10000000ULL

enum umb_arm_flags {
	UMB_ARM_SELF = 1 << 0,	  /* restrict the thread itself, at UMB_PRCTL_APPLY */
	UMB_ARM_ON_EXEC = 1 << 1, /* the layer takes effect at the next exec */
};

enum umb_arm_state {
	UMB_ARM_ARMED = 1, /* waiting for the fork or the prctl */
};

/*
 * The one entry of the array map umb_live: counters that the kernel and umbrellad both
 * change, with atomic operations (umbrellad through its mapping, BPF_F_MMAPABLE).
 */
struct umb_live {
	__u32 arms;   /* entries in umb_arm: 0 spares every fork and task_free the lookup */
	__u32 __pad0; /* must be zero */
};

_Static_assert(sizeof(struct umb_live) == 8, "struct umb_live is ABI");

/*
 * Records of the ring buffer umb_released: a layer whose last reference the kernel
 * dropped, for umbrellad to free. Producer: lib/layers.bpf.h. Consumer: umbrellad. A
 * record that does not fit is counted in umb_stats[UMB_STAT_RELEASES_DROPPED]: the
 * layer is then freed by umbrellad's next sweep of the slots.
 */
struct umb_release {
	__u32 layer;
	__u32 __pad0;
};

/*
 * The one entry of the array map umb_ctl. Producer: umbrellad (daemon/state.c, its one
 * writer; the BPF side only clears daemon_tgid when umbrellad is gone). Consumer: the
 * hooks.
 */
struct umb_ctl {
	__u32 daemon_tgid; /* umbrellad: restricted tasks may not signal or trace it */
	__u32 __pad1;	   /* must be zero (was the count of arms, now in umb_live) */
	__u32 flags;	   /* UMB_CTL_*: umbrellad's configuration (umbrella.conf) */
	__u32 pin_dev;	   /* the pin directory (s_dev, i_ino): self-protection */
	__u64 pin_ino;
	/* Verdicts (struct umb_verdict) made under another epoch count as none:
	 * "umbrella-cli verdict flush" and a changed key ring bump it. */
	__u32 verdict_epoch;
	__u32 __pad0; /* must be zero */
};

_Static_assert(sizeof(struct umb_ctl) == 32, "struct umb_ctl is ABI");

/* umb_ctl.flags */
enum umb_ctl_flags {
	UMB_CTL_PERMISSIVE = 1 << 0, /* denials are recorded, not enforced */
	/* "unsigned = deny": an exec without a valid signature is refused for every task
	 * (else only for tasks with exec-unsigned); so is one without a verdict (a miss). */
	UMB_CTL_UNSIGNED_DENY = 1 << 1,
};

/*
 * Value of the inode storage map umb_verdicts: what umbrellad found when it verified an
 * executable (docs/design.md section 3). Inode storage lives and dies with the inode, so a
 * verdict can never pass to a later file that reuses the inode number. From user space
 * the key is a file descriptor of the file (the fanotify event's).
 * Producer: umbrellad (the exec gate). Consumers: exec.bpf.c (bprm_check_security,
 * bprm_committed_creds), file.bpf.c (mmap and mprotect with PROT_EXEC).
 * Deleted, or made STALE, by BPF on any change to the file: an open for writing,
 * truncate, attribute and xattr changes. A writer already open when umbrellad began to verify makes its
 * read lease fail, and nothing is cached.
 */
struct umb_verdict {
	__u32 state; /* enum umb_verdict_state */
	__u32 layer; /* UMB_VERDICT_SIGNED, and UNSIGNED with UMB_VERDICT_F_UNKNOWN_SIGNER:
		      * the layer of the binary's execute restrictions, pushed at exec; 0:
		      * the binary has none */
	__u32 epoch; /* umb_ctl.verdict_epoch when made */
	/* UMB_VERDICT_F_*. Was padding (zero) before: no ABI bump, since umbrellad starts
	 * a new verdict epoch whenever it starts, and no verdict made before counts. */
	__u32 flags;
};

_Static_assert(sizeof(struct umb_verdict) == 16, "struct umb_verdict is ABI");

/* umb_verdict.flags: what umbrellad read in the verified file, so covered by its
 * signature. */
enum umb_verdict_flags {
	/* A shared library (ET_DYN with a DT_SONAME, signing/elf-dynamic.h: ld.so and
	 * libc.so.6 too; as binary sign decides, which signs no policy into one): it
	 * never runs as the program of an exec (bprm->file) where unsigned code may not
	 * run ("unsigned = deny", a task with exec-unsigned). Run as a program, ld.so
	 * maps the program named on its command line itself, and no exec checks it. */
	UMB_VERDICT_F_LIBRARY = 1 << 0,
	/* UNSIGNED only: a signature section by a key the ring does not know (neither in
	 * it nor revoked). It runs where an unsigned file runs, as unsigned, with the
	 * restrictions its section carries (a layer only takes rights away); the signature
	 * mark does not make it a miss (exec.bpf.c). Never trusted: a key added later
	 * starts a new epoch, and a change to the file deletes the verdict. */
	UMB_VERDICT_F_UNKNOWN_SIGNER = 1 << 1,
};

enum umb_verdict_state {
	/* umbrellad is verifying the file. Counts as no verdict. umbrellad writes it before
	 * reading the file and replaces it with BPF_EXIST: if BPF deleted it meanwhile (the
	 * file changed), the replacement fails and the result is known to be stale. */
	UMB_VERDICT_PENDING = 1,
	UMB_VERDICT_UNSIGNED = 2, /* no signature section: runs unless unsigned exec is denied */
	UMB_VERDICT_SIGNED = 3,	  /* a valid signature by a key in the ring, not revoked */
	/* A signature section that does not verify (bad signature, unknown or revoked key,
	 * malformed policy or ELF): never runs, whatever the mode. */
	UMB_VERDICT_REFUSED = 4,
	/* A SIGNED or REFUSED verdict whose file changed (BPF wrote it in place): refused,
	 * whatever the mode, until umbrellad verifies the file again. A change that is not
	 * a write(2) (a store through a shared mapping, chmod) leaves the fanotify ignore
	 * mark, so the next exec may come before umbrellad has read the invalidation and
	 * dropped the mark; a miss there would run a tampered signed binary as unsigned.
	 * An UNSIGNED or PENDING verdict is deleted instead (a miss means the same as
	 * UNSIGNED; a deleted PENDING tells umbrellad that what it read is stale). */
	UMB_VERDICT_STALE = 5,
	/* Never stored: the item of a denial record (UMB_ITEM_VERDICT) of a file that
	 * carries the signature mark (signed-elf-format.h) and has no SIGNED verdict (a miss, or
	 * UNSIGNED): it claims a signature, so it never runs unverified, whatever the mode
	 * (exec.bpf.c). A stored one counts as no verdict (umb_verdict_effective()). */
	UMB_VERDICT_UNVERIFIED = 6,
	/* Never stored: the item of a denial record of a SIGNED file with
	 * UMB_VERDICT_F_LIBRARY run as a program where unsigned code may not run: a
	 * signed library is not run as a program (exec.bpf.c). */
	UMB_VERDICT_LIBRARY = 7,
};

/*
 * Value of the task storage map umb_backing_exec: the file underneath an overlayfs file
 * that an exec is opening (its "backing" file, on the layer that holds the content),
 * with that file's verdict, for bprm_check_security, which sees only the overlay file
 * (exec.bpf.c). Written by BPF at the backing file's open (file_open, before its
 * fanotify event); its verdict is then the inode's if it had a final one, else filled
 * in by umbrellad's gate when it answers that event (the verdict it just stored in the
 * same inode). Stored on the thread group leader (the fanotify event names the process).
 * Producers: file.bpf.c (file_open), umbrellad (key: a pidfd of the leader).
 * Consumer: exec.bpf.c (once: it clears @file). Deleted at the exec's commit.
 */
struct umb_backing_exec {
	__u64 file; /* the backing file's address: an identity, never read through */
	struct umb_inode_key inode; /* its inode */
	struct umb_verdict verdict; /* that inode's verdict; state 0: none (a miss) */
};

_Static_assert(sizeof(struct umb_backing_exec) == 40, "struct umb_backing_exec is ABI");

/* Records of the ring buffer umb_invalidated: a verdict that BPF deleted, so that
 * umbrellad removes the fanotify ignore mark it set on that inode and the next exec of
 * the changed file reaches the gate again. Producer: the hooks that delete verdicts.
 * Consumer: umbrellad. A record that does not fit is counted in
 * umb_stats[UMB_STAT_INVALIDATIONS_DROPPED]. */
struct umb_invalidation {
	struct umb_inode_key inode;
};

/*
 * The one entry of the array map umb_meta, pinned as "umb_meta" in umbrellad's pin
 * directory before anything else, so that a daemon of any version can tell whose
 * objects it finds there. Producer and consumer: umbrellad (daemon/state.c writes it;
 * umbrella-cli reads it).
 * The BPF programs do not use it. Its layout never changes: fields are only added at
 * the end (the map's value_size tells how many there are).
 */
struct umb_meta {
	__u32 abi_version;  /* UMB_ABI_VERSION of the daemon that created the pinned maps */
	__u32 next_layer;   /* ABI 4 and older: the next layer id (unused since 5) */
	__u64 layers_freed; /* layers umbrellad freed since the maps were created */
};

_Static_assert(sizeof(struct umb_meta) == 16, "struct umb_meta is ABI");

/*
 * prctl(2) options that Umbrella's task_prctl program answers. An answer of the
 * program's own is an errno that the kernel never gives for an unknown option, so that
 * a kernel without Umbrella's programs (EINVAL) is never taken for a yes.
 *   UMB_PRCTL_APPLY (arg2: the layer id umbrellad answered): a thread armed with
 *	UMB_ARM_SELF pushes that layer: UMB_PRCTL_YES, or EPERM (refused, nothing armed,
 *	or an arm of another layer, which stays for UMB_PRCTL_DISARM), ENOMEM.
 *   UMB_PRCTL_DISARM: after the fork of an rfork, the parent thread asks whether its
 *	arm was used: UMB_PRCTL_YES (the child has the layer), or ENOENT after taking
 *	back an arm that no fork used (the child, if any, has not). Also takes back an
 *	arm after a failed request or restrict_self.
 *   UMB_PRCTL_CARRIES (arg2: a layer id): whether the calling task has the layer on its
 *	stack or pending: UMB_PRCTL_YES, or ENOENT. An rfork child asks it before it
 *	runs any of its caller's code.
 */
#define UMB_PRCTL_APPLY	  0x554d4252 /* "UMBR" */
#define UMB_PRCTL_DISARM  0x554d4253
#define UMB_PRCTL_CARRIES 0x554d4254
#define UMB_PRCTL_YES	  114 /* EALREADY: "it is done" */

/*
 * The LSM hooks that deny, as recorded in struct umb_event.hook: always the hook whose
 * program made the record (the journal's UMBRELLA_HOOK=, umbrella-cli events, metrics).
 * Values are never reused: a renamed entry keeps its number (the records of the old
 * programs, still attached while an upgraded umbrellad swaps its links in, and the
 * counters in umb_counters keep their meaning), new ones go at the end.
 */
enum umb_hook {
	UMB_HOOK_FILE_OPEN = 1,
	UMB_HOOK_MMAP_FILE,
	UMB_HOOK_FILE_MPROTECT,
	UMB_HOOK_INODE_CREATE, /* self-protection: a file made by overlayfs (path_mknod: open) */
	UMB_HOOK_PATH_LINK,
	UMB_HOOK_PATH_UNLINK,
	UMB_HOOK_PATH_SYMLINK,
	UMB_HOOK_PATH_MKDIR,
	UMB_HOOK_PATH_RMDIR,
	UMB_HOOK_PATH_MKNOD, /* also open(O_CREAT) of a new file */
	UMB_HOOK_PATH_RENAME,
	UMB_HOOK_INODE_SETATTR,
	UMB_HOOK_PATH_TRUNCATE,
	UMB_HOOK_INODE_SETXATTR,
	UMB_HOOK_INODE_REMOVEXATTR,
	UMB_HOOK_INODE_GETXATTR,
	UMB_HOOK_INODE_LISTXATTR,
	UMB_HOOK_INODE_GETATTR,
	UMB_HOOK_INODE_PERMISSION, /* no program reports it any more (chdir is allowed) */
	UMB_HOOK_PATH_CHROOT,
	UMB_HOOK_SOCKET_CREATE,
	UMB_HOOK_TASK_ALLOC,
	UMB_HOOK_BPRM_CREDS_FOR_EXEC,
	UMB_HOOK_TASK_KILL,
	UMB_HOOK_FILE_SEND_SIGIOTASK,
	UMB_HOOK_PTRACE_ACCESS_CHECK,
	UMB_HOOK_PTRACE_TRACEME,
	UMB_HOOK_SB_MOUNT,
	UMB_HOOK_SB_UMOUNT,
	UMB_HOOK_SB_PIVOTROOT,
	UMB_HOOK_MOVE_MOUNT,
	UMB_HOOK_KERNEL_MODULE_REQUEST,
	UMB_HOOK_TASK_FIX_SETUID,
	UMB_HOOK_CAPABLE,
	UMB_HOOK_BPF,
	UMB_HOOK_BPF_MAP,	      /* self-protection: a writable fd of one of Umbrella's maps */
	UMB_HOOK_BPF_PROG,	      /* self-protection: a new program using Umbrella's maps */
	UMB_HOOK_BPRM_CHECK_SECURITY, /* signed binaries: the verdict of each file run */
	UMB_HOOK_TASK_SETRLIMIT,      /* the scope: setrlimit(2), prlimit(2) */
	UMB_HOOK_TASK_SETSCHEDULER,   /* umbrellad: sched_setscheduler(2), sched_setaffinity(2) */
	UMB_HOOK_TASK_SETNICE,	      /* umbrellad: setpriority(2) */
	UMB_HOOK_TASK_SETIOPRIO,      /* umbrellad: ioprio_set(2) */
	UMB_HOOK_TASK_MOVEMEMORY,     /* umbrellad: migrate_pages(2), move_pages(2) */
	UMB_HOOK_FILE_IOCTL,	      /* the scope: terminal injection (TIOCSTI, TIOCLINUX) */
	UMB_HOOK_PATH_NOTIFY,	      /* fs: inotify and fanotify watches */
	UMB_HOOK_FILE_RECEIVE,	      /* fs: a file received (SCM_RIGHTS, pidfd_getfd) */
	UMB_HOOK_PERF_EVENT_OPEN,     /* the scope: CPU-wide and kernel perf events */
	UMB_HOOK_UNIX_STREAM_CONNECT, /* fs: connect(2) to a unix socket bound to a path */
	UMB_HOOK_UNIX_MAY_SEND,	      /* fs: a datagram to a unix socket bound to a path */
	UMB_HOOK_BPRM_CREDS_FROM_FILE, /* setid and the scope: the exec of a privileged program */
	UMB_HOOK_PATH_CHMOD,	       /* fs: chmod(2) */
	UMB_HOOK_PATH_CHOWN,	       /* fs: chown(2) */
	UMB_HOOK_FILE_FCNTL,	       /* signal: F_SETOWN, F_SETSIG, O_ASYNC */
	UMB_HOOK_FILE_IOCTL_COMPAT,    /* as file_ioctl, for 32-bit tasks (6.8 and later) */
	UMB_HOOK_TASK_FIX_SETGID,      /* setid: setgid(2) & co. */
	UMB_HOOK_TASK_FIX_SETGROUPS,   /* setid: setgroups(2) */
	UMB_HOOK_KERNEL_READ_FILE,     /* module: finit_module(2) */
	UMB_HOOK_KERNEL_LOAD_DATA,     /* module: init_module(2) */
	UMB_HOOK_KEY_ALLOC,	       /* the scope: request_key(2)'s call to /sbin/request-key */
	UMB_HOOK_KEY_PERMISSION,       /* keys; the scope: KEYCTL_SESSION_TO_PARENT */
	UMB_HOOK_INODE_READLINK,       /* fs: readlink(2) */
	/* self-protection: what overlayfs does in its upper directory, which reaches no
	 * path hook (bpf/lib/protect-files.bpf.h) */
	UMB_HOOK_INODE_MKNOD,
	UMB_HOOK_INODE_MKDIR,
	UMB_HOOK_INODE_SYMLINK,
	UMB_HOOK_INODE_LINK,
	UMB_HOOK_INODE_UNLINK,
	UMB_HOOK_INODE_RMDIR,
	UMB_HOOK_INODE_RENAME,
	UMB_HOOK_SYSLOG, /* the scope: syslog(2) clearing or consuming the kernel log */
	UMB_HOOK_MAX,
};

/* What kind of item denied (struct umb_event.item_kind): a restriction item's kind
 * (enum umb_item_kind, <umbrella/restrictions.h>: UMB_ITEM_FS, UMB_ITEM_CAP,
 * UMB_ITEM_NET_FAMILY, UMB_ITEM_LINUX_CAP), or one that only denial records carry. */
enum umb_event_item_kind {
	/* Self-protection (no layer): Umbrella's own maps, programs, links or pins, while
	 * umbrellad is up. item: the map's or program's id; 0 for a pin or one of Umbrella's
	 * files (umb_protected; dev, ino, path). */
	UMB_ITEM_SELF = 5,
	/* The exec verdict (signed binaries): item: enum umb_verdict_state of the file, 0
	 * for none (a miss: no umbrellad, or a file system the gate does not cache),
	 * UMB_VERDICT_UNVERIFIED for a miss on a file that carries the signature mark. */
	UMB_ITEM_VERDICT = 6,
	/* The scope every layer has, whatever its items (no layer named it: layer 0).
	 * item: enum umb_scope. Enforced in permissive mode too. */
	UMB_ITEM_SCOPE = 7,
};

/*
 * What the scope of every layer keeps a restricted task from (UMB_ITEM_SCOPE): routes
 * by which a task would act outside its layers, through another task or the kernel.
 */
enum umb_scope {
	/* Tracing, /proc/PID/mem, process_vm_*(2), pidfd_getfd(2) of a task outside its
	 * domain (docs/design.md section 1); writing the /proc/PID files of another process;
	 * setting another process's resource limits when the layer has "signal";
	 * lowering an OOM score below its floor (the OOM killer would pick others). */
	UMB_SCOPE_PROCESS = 1,
	/* Writing kernel settings: sysctls and the other files of /proc that are not a
	 * process's, sysfs, cgroupfs, securityfs, debugfs, tracefs, configfs, binfmt_misc,
	 * efivarfs, pstore. Some make the kernel run a program outside every layer
	 * (core_pattern, modprobe, uevent_helper, binfmt_misc), and so does
	 * request_key(2) when the key must be made (/sbin/request-key). swapon(2) and
	 * swapoff(2): swap holds every process's memory. The host's hostname and domain
	 * name, the system clock, the kernel log's contents and console level, and the
	 * devices that act on the machine itself (nvram, i2c, the watchdog). */
	UMB_SCOPE_KERNEL = 2,
	/* Pushing input into a terminal (TIOCSTI, TIOCLINUX): the next reader of the
	 * terminal, outside the layers, would run it. And making an input device whose
	 * keys reach every session (uinput, /dev/input, uhid, vhci). */
	UMB_SCOPE_TERMINAL = 3,
	/* Gaining privilege by exec (a set-user-ID or set-group-ID program, file
	 * capabilities) under a layer that a user other than root chose: the privileged
	 * program would run under restrictions its caller picked to make it fail where it
	 * does not expect to (the reason Landlock and seccomp need no_new_privs). */
	UMB_SCOPE_PRIVILEGE = 4,
};

#define UMB_EVENT_PATH_MAX 256
#define UMB_COMM_LEN	   16

/*
 * A denial, sent on the ring buffer umb_events. Producer: every enforcement hook
 * (bpf/lib/audit.bpf.h). Consumer: umbrellad, which logs it to the journal.
 * Records beyond their uid's budget or that do not fit are counted in
 * umb_stats[UMB_STAT_EVENTS_DROPPED] and in their uid's umb_event_budget entry.
 */
struct umb_event {
	__u32 pid;	 /* tgid of the denied task */
	__u32 tid;	 /* its thread id */
	__u32 hook;	 /* enum umb_hook */
	__u32 layer;	 /* id of the layer that denied */
	__u32 item_kind; /* enum umb_item_kind or umb_event_item_kind */
	union {
		__u32 target_pid; /* signal and ptrace: the target */
		__u32 family;	  /* socket_create: the address family asked for */
	}; /* 0 for the other hooks */
	__u64 item;  /* see enum umb_item_kind and umb_event_item_kind */
	__u32 dev;   /* fs: the object's inode (kernel dev_t), 0 otherwise */
	__u32 flags; /* UMB_EVENT_* */
	__u64 ino;
	char comm[UMB_COMM_LEN];
	char path[UMB_EVENT_PATH_MAX]; /* fs: the object's path, as far as known */
	__u32 uid;		       /* the uid charged (struct umb_event_budget) */
	__u32 __pad0;		       /* must be zero */
};

_Static_assert(sizeof(struct umb_event) == 328, "struct umb_event is ABI");

/* The size of the ring buffer umb_events: 12,000 records and more, room for the whole
 * budgets (UMB_EVENT_BURST) of 24 uids at once before umbrellad reads any. */
#define UMB_EVENTS_RING_SIZE (4U << 20)

/*
 * Each uid's budget of records on umb_events, so that one uid's flood of denials loses
 * its own records, never another uid's: UMB_EVENT_BURST at once, then UMB_EVENT_RATE a
 * second (a token bucket). A denial beyond it is still enforced; only its record is
 * dropped, and counted for that uid. The uid charged is the one whose layer denied
 * (umb_layer.uid: the records that user reads with "umbrella-cli events"); for a denial
 * by no layer (the scope, self-protection), the task's effective uid.
 */
#define UMB_EVENT_BURST	      512
#define UMB_EVENT_RATE	      256 /* records a second */
#define UMB_EVENT_BUDGET_UIDS 4096

/*
 * Value of the LRU hash map umb_event_budget, keyed by the __u32 uid charged.
 * Producer: lib/audit.bpf.h, at each denial (never on an allowed access). Consumers:
 * umbrellad (the dropped counts, to the journal), umbrella-cli status.
 *
 * spent_until is the virtual time at which the uid's budget is whole again: each record
 * moves it on by NSEC_PER_SEC / UMB_EVENT_RATE from now or from where it was, whichever
 * is later, and a record that would move it past now + UMB_EVENT_BURST records' worth is
 * dropped. Updated without a lock: CPUs that race may each take the same record's place
 * (at most one more record per CPU). An entry the map evicts for a new uid (more than
 * UMB_EVENT_BUDGET_UIDS uids made denials since it last did) comes back whole, and its
 * dropped count goes (umbrellad has reported it within a second; umb_stats keeps the
 * total). While umb_events is more than half full, a new entry starts empty instead: a
 * flood by more uids than the map holds, churning its entries, then gets UMB_EVENT_RATE
 * records a second per new uid, and a uid that keeps its entry keeps its budget.
 */
struct umb_event_budget {
	__u64 spent_until; /* CLOCK_MONOTONIC (bpf_ktime_get_ns()), ns */
	__u64 dropped;	   /* records of this uid dropped since the entry was made */
};

_Static_assert(sizeof(struct umb_event_budget) == 16, "struct umb_event_budget is ABI");

/* umb_event.flags */
enum umb_event_flags {
	/* umb_ctl had UMB_CTL_PERMISSIVE, or the layer that denied is UMB_LAYER_PERMISSIVE
	 * (and no other layer denied): the access was allowed, the record says what
	 * enforcing would have denied. */
	UMB_EVENT_PERMISSIVE = 1 << 0,
	/* The path was built by bpf/lib/dpath.bpf.h and a rename moved one of its levels
	 * meanwhile (their d_seq changed): it may name the object as it never was. */
	UMB_EVENT_PATH_UNSURE = 1 << 1,
	/* The object had been unlinked: d_path()'s " (deleted)". */
	UMB_EVENT_PATH_DELETED = 1 << 2,
	/* The hook gave no mount (xattrs, utimes) and the file system is mounted more than
	 * once in the task's mount namespace: the path is through one of them, maybe not
	 * the one the task used. */
	UMB_EVENT_PATH_SOME_MOUNT = 1 << 3,
};

/* Indexes of the per-CPU counter array umb_stats. */
enum umb_stat {
	UMB_STAT_EVENTS_DROPPED = 0,	    /* denial records dropped: over budget, ring full */
	UMB_STAT_DENIALS = 1,		    /* all denials */
	UMB_STAT_INVALIDATIONS_DROPPED = 2, /* umb_invalidated records that found it full */
	UMB_STAT_RELEASES_DROPPED = 3,	    /* umb_released records that found it full */
	UMB_STAT_MAX,
};

/*
 * Indexes of the per-CPU counter array umb_counters (umbrella-cli metrics). Producer:
 * the BPF programs. Added after ABI 6 without a bump: a pin directory of an older
 * umbrellad gets the map at the next start, and readers take a missing map for zeros.
 *   UMB_COUNTER_VERDICT_HITS, _MISSES: files exec'd (each interpreter too) that had a
 *	valid verdict in umb_verdicts, or none (umb_verdict_effective() gave 0).
 *   umb_counter_denials(hook, item_kind): denials by enum umb_hook and enum
 *	umb_item_kind, whether or not their record reached the ring buffer.
 */
enum umb_counter {
	UMB_COUNTER_VERDICT_HITS = 0,
	UMB_COUNTER_VERDICT_MISSES = 1,
	UMB_COUNTER_DENIALS = 64, /* the first of UMB_COUNTER_HOOKS * UMB_COUNTER_ITEM_KINDS */
};

#define UMB_COUNTER_HOOKS      80
#define UMB_COUNTER_ITEM_KINDS 16
#define UMB_COUNTER_MAX	       (UMB_COUNTER_DENIALS + UMB_COUNTER_HOOKS * UMB_COUNTER_ITEM_KINDS)

_Static_assert(UMB_HOOK_MAX <= UMB_COUNTER_HOOKS, "umb_counters has a row per hook");

/* The index in umb_counters of the denials by @hook and @item_kind, or
 * UMB_COUNTER_MAX for numbers that have no counter. */
static inline __u32 umb_counter_denials(__u32 hook, __u32 item_kind)
{
	if (hook >= UMB_COUNTER_HOOKS || item_kind >= UMB_COUNTER_ITEM_KINDS)
		return UMB_COUNTER_MAX;
	return UMB_COUNTER_DENIALS + hook * UMB_COUNTER_ITEM_KINDS + item_kind;
}

/* Upper bounds (in microseconds) of the histogram of verification times in struct
 * umb_gate_stats; the last bucket has none (+Inf). */
#define UMB_GATE_LATENCY_BOUNDS_US { 1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000 }
#define UMB_GATE_LATENCY_BUCKETS   9

/*
 * The one entry of the array map umb_gate_stats: the exec gate's verifications since
 * the map was made (umbrellad adds to what a previous instance left). Producer:
 * umbrellad (exec-gate.c). Consumer: umbrella-cli metrics. Added after ABI 6 (see
 * enum umb_counter); its layout only grows at the end.
 */
struct umb_gate_stats {
	__u64 signed_ok;      /* files whose signature verified */
	__u64 unsigned_;      /* files with no signature section */
	__u64 refused;	      /* files refused: bad signature, unknown or revoked key, malformed */
	__u64 errors;	      /* files the gate could not read or verify (left without a verdict) */
	__u64 latency_sum_us; /* the time of all verifications */
	__u64 latency_buckets[UMB_GATE_LATENCY_BUCKETS]; /* not cumulative */
};

_Static_assert(sizeof(struct umb_gate_stats) == 112, "struct umb_gate_stats is ABI");

#define UMB_DESC_PATH_MAX   256
#define UMB_DESC_TEXT_MAX   2048
#define UMB_DESC_KEY_ID_LEN 32

/* umb_layer_desc.flags */
enum umb_layer_desc_flags {
	UMB_DESC_TEXT_TRUNCATED = 1 << 0,   /* text holds only the first items */
	UMB_DESC_ORIGIN_TRUNCATED = 1 << 1, /* origin_path was cut short */
};

/*
 * Value of the hash map umb_layer_desc, keyed by the __u32 layer id: a layer as an
 * operator reads it. The maps that enforce keep fs rules by inode and name hash, from
 * which no path can be recovered, so umbrellad records the text it installed.
 * Producer: umbrellad, with the layer (layer-install.c). Consumer: umbrella-cli.
 * The BPF programs never use it: it is a map only to be pinned with the others.
 */
struct umb_layer_desc {
	__u64 created_ns;  /* CLOCK_REALTIME when umbrellad installed the layer */
	__u32 creator_pid; /* the process that asked for the layer (umb_layer.creator_pid) */
	__u32 origin;	   /* enum umb_layer_origin */
	__u32 flags;	   /* UMB_DESC_* */
	__u32 __pad0;	   /* must be zero */
	/* UMB_ORIGIN_SIGNED_BINARY: the signing key's id (reserved, zero until signed
	 * binaries land); zero otherwise. */
	__u8 key_id[UMB_DESC_KEY_ID_LEN];
	char creator_comm[UMB_COMM_LEN];
	/* rfork, restrict_self: the creator's executable; signed binary: the binary */
	char origin_path[UMB_DESC_PATH_MAX];
	/* the restrictions in the text form, as umb_restrictions__format() writes them;
	 * with UMB_DESC_TEXT_TRUNCATED, cut after the last whole item that fitted */
	char text[UMB_DESC_TEXT_MAX];
};

_Static_assert(sizeof(struct umb_layer_desc) == 2376, "struct umb_layer_desc is ABI");

#define UMB_POLICY_DIGEST_LEN 32

/*
 * Key of the hash map umb_policies, whose value is a __u32 layer id: a signed policy,
 * as the exec gate tells one from another, so that the binaries that carry the same
 * policy signed by the same key share its layer, across restarts of umbrellad too.
 * Producer and consumer: umbrellad (daemon/gate-policies.c). The BPF programs never use
 * it: it is a map only to be pinned with the layers it names.
 */
struct umb_policy_key {
	__u8 digest[UMB_POLICY_DIGEST_LEN]; /* SHA-256 of the policy's text */
	__u8 key_id[UMB_DESC_KEY_ID_LEN];   /* the signing key's id */
};

_Static_assert(sizeof(struct umb_policy_key) == 64, "struct umb_policy_key is ABI");

/*
 * Value of the hash map umb_verdict_log, keyed by struct umb_inode_key: a verdict of the
 * exec gate as an operator reads it (umb_verdicts is inode storage, which cannot be
 * listed). Producer: umbrellad, with the verdict; deleted when BPF reports the verdict
 * invalidated, and all of them with a new epoch. Consumer: umbrella-cli verdict list.
 * The BPF programs never use it.
 */
struct umb_verdict_record {
	__u64 time_ns;			  /* CLOCK_REALTIME when umbrellad made the verdict */
	__u32 state;			  /* enum umb_verdict_state */
	__u32 layer;			  /* umb_verdict.layer */
	__u32 epoch;			  /* umb_verdict.epoch */
	__u32 pid;			  /* the process whose exec asked for it */
	__u32 flags;			  /* UMB_VERDICT_RECORD_* */
	__u32 __pad0;			  /* must be zero */
	__u8 key_id[UMB_DESC_KEY_ID_LEN]; /* the signing key's id; zero when unsigned */
	char path[UMB_DESC_PATH_MAX];	  /* the file, as far as known */
	char reason[64];		  /* why: "valid signature", "unknown key", ... */
};

_Static_assert(sizeof(struct umb_verdict_record) == 384, "struct umb_verdict_record is ABI");

/* umb_verdict_record.flags */
enum umb_verdict_record_flags {
	/* umbrellad's own executable, trusted as SIGNED without a signature so that it can
	 * start again under "unsigned = deny" (umbrellad(8)). */
	UMB_VERDICT_RECORD_TRUSTED_SELF = 1 << 0,
	/* UNSIGNED with UMB_VERDICT_F_UNKNOWN_SIGNER: signed by a key the ring does not
	 * know, run as unsigned with its restrictions (key_id: the key it names). */
	UMB_VERDICT_RECORD_UNKNOWN_SIGNER = 1 << 1,
};

#endif /* UMBRELLA_BPF_ABI_H */
