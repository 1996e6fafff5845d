/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - the exec gate's state, shared by exec-gate.c (which ties the parts
 * together) and its parts: gate-fanotify.c (events and answers), gate-verify.c (the
 * PENDING -> verify -> BPF_EXIST protocol), gate-keyring.c (the key ring and its
 * reload) and gate-self.c (umbrellad's own executable); gate-policies.c has a state
 * of its own. Not for the rest of umbrellad: exec-gate.h is the gate's interface.
 */
#ifndef UMBRELLA_GATE_INTERNAL_H
#define UMBRELLA_GATE_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/umbrella.h>

#include "exec-gate.h"
#include "gate-libraries.h"
#include "gate-marks.h"
#include "gate-mounts.h"
#include "gate-policies.h"
#include "gate-stats.h"
#include "keyring.h"
#include "signed-elf.h"
#include "time-util.h"

struct exec_gate {
	struct exec_gate_maps maps;
	const char *keyring_dir;
	struct keyring *keyring;
	int fan_fd;	  /* the fanotify group */
	int mountinfo_fd; /* /proc/self/mountinfo: POLLPRI when the mounts change */
	int inotify_fd;	  /* the key ring directory (or the one above it, below) */
	int ring_wd;	  /* its watch on the key ring directory; -1: none */
	/* While the key ring directory does not exist: the watch on the nearest directory
	 * above it that does, for the name of the next one down (-1: none). */
	int ring_ancestor_wd;
	char ring_ancestor_child[NAME_MAX + 1];
	struct ring_buffer *invalidated;
	struct gate_mounts mounts; /* as last read from /proc/self/mountinfo */
	struct gate_marks marks;   /* the ignore marks, by inode */
	bool flush_marks;	   /* an ignore mark could not be removed alone: drop them all */
	bool mark_warned;	   /* gate_marks_add() failed once: said so */
	bool remove_warned;	   /* gate_marks_remove() failed once: said so */
	bool self_warned; /* gate_trust_self() said why it cannot trust umbrellad's executable */
	__u32 epoch;	  /* umb_ctl.verdict_epoch, which only we write */
	struct gate_policies policies; /* the layers of signed policies */
	struct gate_job *jobs;	       /* the execs held while their files are read, oldest first */
	struct gate_libraries libs;    /* the inodes of verified library closures */
	struct gate_stats stats;
	/* Its sources in the event loop (exec_gate_attach()); NULL until attached. */
	sd_event_source *fan_source, *mountinfo_source, *keyring_source, *libs_source;
	sd_event_source *invalidated_source;
	sd_event_source *jobs_source; /* a turn of the jobs: enabled while there are any */
	/* The flushes for libraries (gate_libraries_changed()): the last one's time, and
	 * the next one while it is due; NULL before the gate is attached. */
	uint64_t libs_flushed_usec;
	sd_event_source *libs_flush_source;

	/* Its thread (gate-thread.c) and its loop, which alone touches the sources above
	 * (NULL before it starts and after it ends). */
	sd_event *loop;
	pthread_t thread;
	bool running;	  /* the thread runs: the main thread's calls go to it */
	int start_result; /* 1 while it starts, then 0 or -errno (under bridge_lock) */
	int stop_fd;	  /* an eventfd: exec_gate_stop() */
	sd_event_source *stop_source;
	/* Whether the gate's loop still turns, for the watchdog (exec_gate_alive()): the
	 * gate's thread stamps each turn of its loop (a post source, first of all), the main
	 * thread pings it (an eventfd in the gate's loop) and reads the stamp. */
	_Atomic uint64_t turn_usec; /* CLOCK_MONOTONIC µs of its last turn: the gate's */
	uint64_t ping_usec;	    /* when the main thread last pinged it: the main's */
	bool stall_said;	    /* the main thread logged the stall: the main's */
	int ping_fd;
	sd_event_source *ping_source, *turn_source;
	/* keyring_rejected_count(keyring), for the main thread's status text. */
	atomic_size_t keyring_rejected;

	/* What the two threads hand each other (gate-bridge.c), under bridge_lock; a
	 * change is broadcast on bridge_changed (CLOCK_MONOTONIC). */
	bool bridge_ready; /* the lock and condition are set up */
	pthread_mutex_t bridge_lock;
	pthread_cond_t bridge_changed;
	bool bridge_closed; /* exec_gate_stop(): the main loop serves no more layer jobs */
	/* The layer the gate waits for (one at a time), made by the main loop: */
	struct gate_layer_job *layer_job;
	int layer_fd;		       /* an eventfd in the main loop: a job is queued */
	sd_event_source *layer_source; /* the main loop's (exec_gate_attach_main()) */
	/* The main thread's call into the gate (one at a time), run by the gate's loop: */
	int call_op;	    /* enum gate_call_op */
	int call_state;	    /* enum gate_call_state */
	bool call_orphaned; /* its caller stopped waiting: nobody reads call_result */
	int call_result;
	int call_fd;		      /* an eventfd in the gate's loop: a call is queued */
	sd_event_source *call_source; /* the gate loop's */
};

/* At most one flush of every ignore mark per interval for library changes: any user
 * can change a library directory it may write to as often as it likes, and each
 * flush costs every program a verification of its closure at its next exec. */
#define GATE_LIBS_FLUSH_INTERVAL_USEC (1 * USEC_PER_SEC)

/* What a verification found. */
struct outcome {
	bool allow;  /* the fanotify answer */
	bool cached; /* a final verdict is in umb_verdicts: set the ignore mark */
	struct umb_verdict verdict;
	__u8 key_id[UMB_KEY_ID_LEN];
	bool has_key_id;
	char reason[160];
};

/*
 * One exec held by the gate (or umbrellad's own executable, whose descriptor is not an
 * event's): a verification that may take several turns of the event loop. Jobs wait in
 * one list, oldest first; each turn advances the oldest job of each owner of a file by
 * GATE_STEP_BYTES (gate_run_jobs()), so that one user's large files delay only
 * that user's: every other owner's files, and the socket, are served in between.
 */
struct gate_job {
	struct gate_job *next;
	int fd;
	__u32 pid;
	bool event;	 /* @fd is a fanotify event's: answer it, then close it */
	bool trust_self; /* umbrellad's own executable: unsigned counts as signed */
	bool markable;	 /* its mount is known: an ignore mark can be removed again */
	struct stat st;
	uint32_t kdev;	   /* the super block's s_dev, as BPF names the inode */
	int attempt;	   /* reads begun: a file that changed while read is read twice at most */
	uint64_t deadline; /* CLOCK_MONOTONIC µs: the current read gives up after it */
	uint64_t event_us; /* CLOCK_MONOTONIC µs: when the gate got the exec's event */
	struct signed_elf e;
	struct signed_elf_reader *reader; /* while the body is being hashed */
	struct outcome o;
	char path[PATH_MAX];
};

/* gate-verify.c */

/* The path of the file @fd, as far as the kernel knows it, in @buf. */
const char *gate_fd_path(int fd, char *buf, size_t size);

/* One FAN_OPEN_EXEC_PERM event: the exec by @pid of the file @fd, which this takes.
 * Answered now, or by gate_run_jobs() once the file is read. */
void gate_handle_exec(struct exec_gate *g, int fd, __u32 pid);

/* (the gate's thread) Stamps progress within a turn, after each event and each job's
 * step: a turn that serves many events, each within its budget, is busy, not stuck
 * (exec_gate_alive()), and a user who keeps it busy must not get umbrellad restarted by
 * the watchdog. A call that never returns stamps nothing. */
static inline void gate_progress(struct exec_gate *g)
{
	atomic_store(&g->turn_usec, now_usec());
}

/* One turn: the oldest job of each owner that may run advances by GATE_STEP_BYTES. */
void gate_run_jobs(struct exec_gate *g);

/* Where @j's file is: the super block's device number (BPF's name for it) and whether
 * verdicts may be cached there. Return: true when that ended the job (refused). */
bool gate_job_locate(struct exec_gate *g, struct gate_job *j);

/* Advances @j: hashes about @budget bytes (0: to the end). Return: true when the job
 * is done (j->o says how), false when it must wait for another turn. */
bool gate_job_run(struct exec_gate *g, struct gate_job *j, uint64_t budget);

/* exec-gate.c */

/* Reads BPF's invalidations (their ignore marks go), and drops every ignore mark when
 * one could not be removed alone. */
void gate_read_invalidations(struct exec_gate *g);

/* Makes the next turn of the loop run gate_run_jobs() if there are jobs. */
void gate_schedule_jobs(struct exec_gate *g);

/* gate-fanotify.c */

/* Serves the fanotify group and the mount changes (mark_filesystems()) from @e.
 * Return: 0 or -errno (logged). */
int gate_fanotify_attach(struct exec_gate *g, sd_event *e);

/* Answers the permission event of @fd. */
void gate_answer(struct exec_gate *g, int fd, bool allow);

/* Marks the file system of every mount that may cache verdicts. */
void mark_filesystems(struct exec_gate *g);

/* Keeps later execs of @j's inode out of user space (until an invalidation). */
void gate_ignore_mark(struct exec_gate *g, struct gate_job *j);

/* Drops every ignore mark (the file system marks stay): each file asks once more. */
void gate_flush_ignore_marks(struct exec_gate *g);

/*
 * A library of a verified closure changed (its directory, or its verdict died): every
 * ignore mark goes, at once if none went for that reason within
 * GATE_LIBS_FLUSH_INTERVAL_USEC, else when that interval is over (never later). Until
 * then a program still marked maps the changed library without a verdict, which is
 * refused: late costs an exec, never lets code run unverified.
 */
void gate_libraries_changed(struct exec_gate *g);

/* gate-keyring.c */

/* Watches the key ring directory, if it exists (a missing one is an empty ring). */
void keyring_watch(struct exec_gate *g);

/* Reads the key ring @dir into @ret, logging each file it rejects, and a failure with
 * @failed_suffix after it. Return: 0 or -ENOMEM. */
int keyring_read(const char *dir, const char *failed_suffix, struct keyring **ret);

/* What the key ring @k trusts, for the line that says it is in force, in @buf. */
const char *keyring_summary(const struct keyring *k, char *buf, size_t size);

/* Reads the key ring again when its directory changes. Return: 0 or -errno (logged). */
int gate_keyring_attach(struct exec_gate *g, sd_event *e);

/* exec-gate.c, for the gate's thread */

/* Serves the gate from the event loop @e (its thread's): its fanotify events, BPF's
 * invalidations, the mounts, the key ring and library directories it watches, and the
 * files being verified, a step per turn (event-priority.h says in which order).
 * Return: 0 or -errno (logged). */
int gate_attach(struct exec_gate *g, sd_event *e);

/* Takes the gate's sources out of its loop (the loop's thread, before it ends). */
void gate_detach(struct exec_gate *g);

/* exec_gate_flush() and exec_gate_reload_keyring() on the gate's own thread (or before
 * it starts). Return: 0 or -errno. */
int gate_flush(struct exec_gate *g);
int gate_reload_keyring(struct exec_gate *g);

/* gate-bridge.c */

/* What the main thread asks of the gate's loop (gate_call()). */
enum gate_call_op {
	GATE_CALL_FLUSH,
	GATE_CALL_RELOAD_KEYRING,
};

enum gate_call_state {
	GATE_CALL_IDLE,
	GATE_CALL_QUEUED,
	GATE_CALL_RUNNING,
	GATE_CALL_DONE,
};

/* How long the gate waits for the main loop to make a new layer: that loop serves
 * the job after the event it serves (a request's mounts, up to MOUNT_BUDGET_USEC), and
 * every exec the gate holds meanwhile waits too. Past it the exec is refused. */
#define GATE_LAYER_WAIT_USEC (10 * USEC_PER_SEC)
/* How long the main thread waits for the gate to run a call (a flush, a key ring
 * reload): the gate may be stuck reading a file on a stalled FUSE or NFS mount, and the
 * main loop must not stall with it. Past it the call fails with -EBUSY. */
#define GATE_CALL_WAIT_USEC  (5 * USEC_PER_SEC)

/* Sets up the bridge's lock, condition and eventfds. Return: 0 or -errno. */
int gate_bridge_init(struct exec_gate *g);
void gate_bridge_release(struct exec_gate *g);

/* The gate's thread: the call source in the gate's loop @e. Return: 0 or -errno. */
int gate_bridge_attach_gate(struct exec_gate *g, sd_event *e);

/* The main thread: no more layer jobs (the main loop ended); a waiting one is dropped. */
void gate_bridge_close(struct exec_gate *g);

/* The main thread: runs @op on the gate's thread, waiting at most GATE_CALL_WAIT_USEC
 * (meanwhile it makes the layer the gate may wait for). Return: its result, or -EBUSY
 * (the call was not made, or its result is not known; logged). */
int gate_call(struct exec_gate *g, enum gate_call_op op);

/* The gate's thread: the layer cached in umb_policies (gate_policies_cached()), or else
 * gate_policies_layer() made by the main loop, waited for at most
 * GATE_LAYER_WAIT_USEC (-ETIMEDOUT with *@ret_error past it). Same return. */
int gate_layer_get(struct exec_gate *g, const char *text, const struct gate_policy_signer *s,
		   __u32 pid, const char *path, __u32 *ret_layer, char **ret_error);

/* gate-backing.c */

/* Copies @j's cached verdict into the note BPF made for the exec of an overlayfs file
 * whose file underneath is @j's (bpf/lib/backing.bpf.h), if the exec'ing thread has one. */
void gate_backing_fill(struct exec_gate *g, const struct gate_job *j);

/* gate-self.c */

/* Writes a verdict for umbrellad's own executable (see exec_gate_new()). */
void gate_trust_self(struct exec_gate *g);

#endif /* UMBRELLA_GATE_INTERNAL_H */
