/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec-time gate of signed binaries (fanotify FAN_OPEN_EXEC_PERM) */
#ifndef UMBRELLA_EXEC_GATE_H
#define UMBRELLA_EXEC_GATE_H

#include <poll.h>
#include <stdint.h>

#include "layers.h"
#include "pin.h"

/* Verification gives up after this long (the exec is denied, nothing is cached)... */
#define GATE_DEADLINE_USEC (10 * 1000000ULL)
/* ...and files larger than this are denied without being read. */
#define GATE_SIZE_MAX (1ULL << 30)

/* The maps the gate reads and writes (file descriptors). */
struct exec_gate_maps {
	int verdicts;	 /* umb_verdicts (inode storage: the key is a file descriptor) */
	int verdict_log; /* umb_verdict_log: what "umbrella-cli verdict list" shows */
	int ctl;	 /* umb_ctl: verdict_epoch */
	int invalidated; /* umb_invalidated (ring buffer) */
	struct layers *layers; /* the layers of signed policies: made, and held, here */
};

struct exec_gate;

/*
 * exec_gate_new() - load the key ring @keyring_dir, mark every cacheable file system,
 * start a new verdict epoch (nothing is known about what changed while no umbrellad ran)
 * and record umbrellad's own executable as trusted (so that it can start again under
 * "unsigned = deny"). Logs what fails. Return: 0, -ENOKEY for a bad key ring (the
 * message names the file), or another -errno.
 */
int exec_gate_new(const struct exec_gate_maps *maps, const char *keyring_dir,
		  struct exec_gate **ret);

void exec_gate_free(struct exec_gate *g);

/* The descriptors to poll (at most GATE_POLL_FDS, written to @fds). Return: how many. */
#define GATE_POLL_FDS 4
size_t exec_gate_poll_fds(const struct exec_gate *g, struct pollfd *fds);

/* Handles what @fds (as filled by exec_gate_poll_fds() and polled) report. */
void exec_gate_dispatch(struct exec_gate *g, const struct pollfd *fds, size_t n);

/*
 * exec_gate_reload_keyring() - read the key ring again (SIGHUP, or a change seen by
 * inotify); on success a new verdict epoch starts. A ring with a bad file is logged and
 * the one in force is kept. Return: 0 or -errno.
 */
int exec_gate_reload_keyring(struct exec_gate *g);

/*
 * exec_gate_flush() - forget every verdict: a new epoch (verdicts of the old one count as
 * none), the fanotify ignore marks and the verdict log go. Return: 0 or -errno.
 */
int exec_gate_flush(struct exec_gate *g);

#endif /* UMBRELLA_EXEC_GATE_H */
