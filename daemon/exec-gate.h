/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec-time gate of signed binaries (fanotify FAN_OPEN_EXEC_PERM) */
#ifndef UMBRELLA_EXEC_GATE_H
#define UMBRELLA_EXEC_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "layers.h"
#include "pin.h"

/* Reading a signed file gives up after this long (the exec is denied, nothing cached). */
#define GATE_DEADLINE_USEC   (10 * 1000000ULL)
/* A gate's loop whose ping waits longer than this is stuck (exec_gate_alive()): longer
 * than any one event it serves may take (a read step, a layer waited for 10 s). */
#define GATE_STALL_USEC	     (20 * 1000000ULL)
/* How much of one file is hashed before the others' turn: the longest that another
 * owner's exec waits on a large signed file (the socket is another thread's). */
#define GATE_STEP_BYTES	     (1024 * 1024)
/* Execs held while their files are read, per owner of the file, and in all for owners
 * other than root (each held descriptor, and the one read per owner, costs memory: up
 * to some MiB for a file with a huge section table): past these an exec is refused at
 * once (nothing cached) rather than held. Root's files count only against the first. */
#define GATE_QUEUE_OWNER_MAX 32
#define GATE_QUEUE_MAX	     64

/* The maps the gate reads and writes (file descriptors). */
struct exec_gate_maps {
	int verdicts;	       /* umb_verdicts (inode storage: the key is a file descriptor) */
	int verdict_log;       /* umb_verdict_log: what "umbrella-cli verdict list" shows */
	int ctl;	       /* umb_ctl: verdict_epoch */
	int invalidated;       /* umb_invalidated (ring buffer) */
	int gate_stats;	       /* umb_gate_stats: the figures of "umbrella-cli metrics" */
	int policies;	       /* umb_policies: the layers of signed policies, by digest and key */
	int backing_exec;      /* umb_backing_exec: the execs of overlayfs files (task storage) */
	int exec_pins;	       /* umb_exec_pins: files underneath overlays that ran signed */
	struct layers *layers; /* the layers of signed policies: made, and held, here */
};

struct exec_gate;

/*
 * exec_gate_new() - load the key ring @keyring_dir, mark every cacheable file system,
 * start a new verdict epoch (nothing is known about what changed while no umbrellad ran)
 * and record umbrellad's own executable as trusted (so that it can start again under
 * "unsigned = deny"). Logs what fails. A key ring file that is not a valid key is
 * logged and not trusted (keyring_load()): it never keeps the gate from starting.
 * Return: 0 or -errno.
 */
int exec_gate_new(const struct exec_gate_maps *maps, const char *keyring_dir,
		  struct exec_gate **ret);

void exec_gate_free(struct exec_gate *g);

/*
 * exec_gate_attach_main() - serve, from the main event loop @e, the gate's requests for
 * the layers of signed policies (the layers are that loop's, gate-bridge.c). Before
 * exec_gate_start(). Return: 0 or -errno (logged).
 */
int exec_gate_attach_main(struct exec_gate *g, sd_event *e);

/*
 * exec_gate_start() - serve the gate from an event loop on a thread of its own
 * (gate-thread.c): its fanotify events, BPF's invalidations, the mounts, the key ring
 * and library directories it watches, and the files being verified, a step per turn.
 * From then on the functions below are the main thread's, and each waits for the gate
 * at most GATE_CALL_WAIT_USEC. If the gate's loop fails, umbrellad exits.
 * Return: 0 or -errno (logged).
 */
int exec_gate_start(struct exec_gate *g);

/*
 * exec_gate_alive() - (the main thread) whether the gate's loop still turns: false when
 * it has not served the previous call's ping for more than GATE_STALL_USEC (logged once,
 * and once when it turns again). Pings it for the next call. Without a thread: true.
 * Called at each pet of systemd's watchdog (watchdog.c), which stops while it is false.
 */
bool exec_gate_alive(struct exec_gate *g);

/* exec_gate_stop() - ends the gate's thread after the event it serves, and joins it (a
 * layer it waits for is refused). Without a thread it does nothing. */
void exec_gate_stop(struct exec_gate *g);

/*
 * exec_gate_reload_keyring() - read the key ring again (SIGHUP; the gate reads it itself
 * on a change seen by inotify) and start a new verdict epoch. Files it rejects are logged
 * and not trusted, as at start; only a failure (out of memory) keeps the ring in force.
 * Return: 0 or -errno; -EBUSY if the gate did not run it in time (logged).
 */
int exec_gate_reload_keyring(struct exec_gate *g);

/* How many files the key ring in force rejected (for the unit's status; any thread). */
size_t exec_gate_keyring_rejected(const struct exec_gate *g);

/*
 * exec_gate_flush() - forget every verdict: a new epoch (verdicts of the old one count as
 * none), the fanotify ignore marks and the verdict log go. Return: 0 or -errno; -EBUSY
 * if the gate did not run it in time (logged).
 */
int exec_gate_flush(struct exec_gate *g);

#endif /* UMBRELLA_EXEC_GATE_H */
