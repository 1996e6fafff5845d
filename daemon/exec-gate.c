// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec-time gate of signed binaries (docs/design.md section 3, issue 5).
 *
 * BPF cannot sleep, so the kernel holds an exec here while umbrellad decides: one
 * fanotify group marks every file system where the kernel sees every write with
 * FAN_OPEN_EXEC_PERM. An exec-open of a file without a valid verdict waits until we
 * have read it through the event's descriptor (never by path), checked its signature
 * against the key ring, written the verdict (and the layer of its execute restrictions)
 * into the BPF maps and answered. An ignore mark on the inode keeps later execs of the
 * unchanged file in the kernel. The BPF hooks, not our answer, are the authority:
 * fanotify fails open when its listener dies, the pinned verdicts do not.
 *
 * Its parts, each with one concern: gate-fanotify.c (the events, the answers, the
 * marks), gate-verify.c (PENDING, read, BPF_EXIST: the verdict of one exec's file, in
 * turns per owner), gate-policies.c (the layers of signed policies), gate-keyring.c
 * (the key ring, watched with inotify), gate-self.c (umbrellad's own executable),
 * gate-libraries.c (a signed program's shared libraries get their verdicts before its
 * exec is answered: fanotify has no event for a mapping). This file ties them together:
 * the verdict epoch, BPF's invalidations (umb_invalidated: a verdict BPF deleted
 * takes its inode's ignore mark with it, gate-marks.c, so that its next exec asks), and
 * the gate's place in its event loop (gate_attach(): each part attaches its own
 * sources, this file those of the invalidations, of the library directories and of the
 * turns of the files being verified). That loop is on a thread of its own
 * (gate-thread.c), and the main thread's calls reach it as messages (gate-bridge.c).
 *
 * Every permission event is answered, on every path: an unanswered one would hold the
 * exec for ever. umbrellad never execs anything itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>
#include <umbrella/umbrella.h>

#include "events.h"
#include "event-priority.h"
#include "exec-gate.h"
#include "gate-internal.h"
#include "gate-libraries.h"
#include "gate-marks.h"
#include "gate-stats.h"
#include "gate-mounts.h"
#include "keyring.h"
#include "log.h"
#include "macro.h"
#include "signed-elf.h"
#include "state.h"

/* Sets umb_ctl.verdict_epoch to @epoch (read, modify, write under state.c's lock). */
static int epoch_write(struct exec_gate *g, __u32 epoch)
{
	int r = state_set_verdict_epoch(g->maps.ctl, epoch);

	if (r < 0)
		return r;
	g->epoch = epoch;
	return 0;
}

/* Empties umb_verdict_log (its records are of an epoch that ended). */
static void log_clear(struct exec_gate *g)
{
	struct umb_inode_key key;

	if (g->maps.verdict_log <= 0)
		return;
	/* Deleting while walking restarts the walk: take the first key each time. */
	while (bpf_map_get_next_key(g->maps.verdict_log, NULL, &key) == 0) {
		if (bpf_map_delete_elem(g->maps.verdict_log, &key) < 0)
			break;
	}
}

/* An umb_invalidated record: BPF deleted the verdict of an inode. */
static int on_invalidated(void *ctx, void *data, size_t size)
{
	struct exec_gate *g = ctx;
	struct umb_invalidation inv;
	int r;

	if (size < sizeof(inv))
		return 0;
	memcpy(&inv, data, sizeof(inv));
	if (g->maps.verdict_log > 0)
		(void)bpf_map_delete_elem(g->maps.verdict_log, &inv.inode);
	/* A library's verdict died: the programs that map it keep their ignore marks, and
	 * their next execs must verify it again. */
	if (gate_libraries_forget(&g->libs, inv.inode.dev, inv.inode.ino))
		gate_libraries_changed(g);
	/*
	 * The inode's ignore mark must go, or its next exec would skip the gate (and be
	 * refused as STALE, or a miss). That inode's alone: a mark that cannot be found
	 * again takes all of them with it (each cached file then asks once more, and
	 * finds its verdict).
	 */
	r = gate_marks_remove(&g->marks, inv.inode.dev, inv.inode.ino);
	if (r < 0) {
		if (!g->remove_warned)
			log_notice_errno(r, "exec gate: an ignore mark cannot be removed alone "
					    "(%m): all of them go (said once)");
		g->remove_warned = true;
		g->flush_marks = true;
	}
	return 0;
}

/*
 * Starts a new epoch: every verdict made so far counts as none. The ignore marks go
 * first: an exec of a marked file between the new epoch and the flush would skip the
 * gate and meet a verdict of the old epoch, a miss ("unsigned = deny" refuses it). The
 * other way round, an exec reaches the gate, which answers it once the epoch is new.
 */
static int new_epoch(struct exec_gate *g)
{
	int r;

	gate_flush_ignore_marks(g);
	gate_libraries_clear(&g->libs);
	r = epoch_write(g, g->epoch + 1);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot start a new verdict epoch: %m");
	log_clear(g);
	gate_trust_self(g);
	return 0;
}

int exec_gate_flush(struct exec_gate *g)
{
	return gate_call(g, GATE_CALL_FLUSH);
}

int exec_gate_reload_keyring(struct exec_gate *g)
{
	return gate_call(g, GATE_CALL_RELOAD_KEYRING);
}

int gate_flush(struct exec_gate *g)
{
	int r = new_epoch(g);

	if (r == 0)
		log_info("verdicts flushed (epoch %u)", g->epoch);
	return r;
}

int gate_reload_keyring(struct exec_gate *g)
{
	struct keyring *k = NULL;
	char summary[96];
	int r;

	/* A directory created since the last look is watched from now on. */
	keyring_watch(g);
	/* Only out of memory keeps the ring in force: a rejected file takes effect like
	 * the others (a key whose file went bad is not trusted any more). */
	r = keyring_read(g->keyring_dir, "; keeping the key ring in force", &k);
	if (r < 0)
		return r;
	keyring_free(g->keyring);
	g->keyring = k;
	atomic_store(&g->keyring_rejected, keyring_rejected_count(k));
	r = new_epoch(g);
	/* Once this is logged, every exec is decided by the new ring. */
	if (r == 0)
		log_info("key ring %s loaded: %s", g->keyring_dir,
			 keyring_summary(k, summary, sizeof(summary)));
	return r;
}

void gate_read_invalidations(struct exec_gate *g)
{
	(void)ring_buffer__consume(g->invalidated);
	if (g->flush_marks) {
		g->flush_marks = false;
		gate_flush_ignore_marks(g);
	}
}

static int on_invalidated_ready(_unused_ sd_event_source *s, _unused_ int fd,
				_unused_ uint32_t revents, void *userdata)
{
	gate_read_invalidations(userdata);
	return 0;
}

static void flush_for_libraries(struct exec_gate *g)
{
	g->libs_flushed_usec = now_usec();
	gate_flush_ignore_marks(g);
	log_info("exec gate: libraries changed: every program verifies its closure again at "
		 "its next exec");
}

static int on_libraries_flush_due(_unused_ sd_event_source *s, _unused_ uint64_t usec,
				  void *userdata)
{
	flush_for_libraries(userdata);
	return 0;
}

void gate_libraries_changed(struct exec_gate *g)
{
	uint64_t due = g->libs_flushed_usec + GATE_LIBS_FLUSH_INTERVAL_USEC;
	int enabled = SD_EVENT_OFF, r;

	if (!g->libs_flush_source || !g->libs_flushed_usec || now_usec() >= due) {
		if (g->libs_flush_source)
			(void)sd_event_source_set_enabled(g->libs_flush_source, SD_EVENT_OFF);
		flush_for_libraries(g);
		return;
	}
	(void)sd_event_source_get_enabled(g->libs_flush_source, &enabled);
	if (enabled != SD_EVENT_OFF)
		return; /* due already */
	r = sd_event_source_set_time(g->libs_flush_source, due);
	if (r >= 0)
		r = sd_event_source_set_enabled(g->libs_flush_source, SD_EVENT_ONESHOT);
	/* Only a bug makes this fail: flush now rather than never. */
	if (r < 0)
		flush_for_libraries(g);
}

/* A library directory changed: each program asks once more (gate-libraries.h). */
static int on_libraries_changed(_unused_ sd_event_source *s, _unused_ int fd,
				_unused_ uint32_t revents, void *userdata)
{
	struct exec_gate *g = userdata;

	if (gate_libraries_read(&g->libs))
		gate_libraries_changed(g);
	return 0;
}

/*
 * One turn of the files being verified (gate_run_jobs()), then the next one if any is
 * left. A time source due at once, not a defer source: sd-event keeps a defer source
 * pending with its first age, so that it would always win over the requests on the
 * socket at its priority (or always lose at a lower one). Made pending anew each turn,
 * it waits behind whatever became pending before it, as the poll() loop's turns did.
 */
static int on_jobs_turn(_unused_ sd_event_source *s, _unused_ uint64_t usec, void *userdata)
{
	struct exec_gate *g = userdata;

	gate_run_jobs(g);
	gate_schedule_jobs(g);
	return 0;
}

void gate_schedule_jobs(struct exec_gate *g)
{
	int enabled = SD_EVENT_OFF, r;

	if (!g->jobs_source || !g->jobs)
		return;
	/* A turn already armed keeps its place: setting its time again would take its
	 * pending state (and age) away, so that a stream of new files (each one calls this)
	 * could keep pushing the held execs back. sd-event turns a oneshot source off
	 * before it runs it, so on_jobs_turn() always arms the next turn. */
	if (sd_event_source_get_enabled(g->jobs_source, &enabled) >= 0 &&
	    enabled == SD_EVENT_ONESHOT)
		return;
	r = sd_event_source_set_time(g->jobs_source, 0);
	if (r >= 0)
		r = sd_event_source_set_enabled(g->jobs_source, SD_EVENT_ONESHOT);
	/* Only a bug makes this fail; the held execs would wait until their deadline. */
	if (r < 0)
		log_error_errno(r, "exec gate: cannot schedule the files being verified: %m");
}

int gate_attach(struct exec_gate *g, sd_event *e)
{
	int r;

	r = event_add_io(e, &g->invalidated_source, ring_buffer__epoll_fd(g->invalidated), EPOLLIN,
			 PRIORITY_INVALIDATED, on_invalidated_ready, g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch umb_invalidated: %m");
	if (g->libs.inotify_fd >= 0) {
		r = event_add_io(e, &g->libs_source, g->libs.inotify_fd, EPOLLIN, PRIORITY_WORK,
				 on_libraries_changed, g);
		if (r < 0)
			return log_error_errno(r,
					       "exec gate: cannot watch library directories: %m");
	}
	r = event_add_timer_off(e, &g->libs_flush_source, 0, PRIORITY_WORK, on_libraries_flush_due,
				g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot time the flushes for libraries: %m");
	r = event_add_timer_off(e, &g->jobs_source, 1, PRIORITY_WORK, on_jobs_turn, g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot schedule verifications: %m");
	r = gate_keyring_attach(g, e);
	if (r < 0)
		return r;
	return gate_fanotify_attach(g, e);
}

void gate_detach(struct exec_gate *g)
{
	sd_event_source **sources[] = {
		&g->fan_source,	       &g->mountinfo_source,   &g->keyring_source, &g->libs_source,
		&g->libs_flush_source, &g->invalidated_source, &g->jobs_source,	   &g->call_source,
		&g->stop_source,       &g->ping_source,	       &g->turn_source,
	};

	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		*sources[i] = sd_event_source_disable_unref(*sources[i]);
}

/* The layers of signed policies, those an earlier umbrellad made among them. */
static void policy_layers_adopt(struct exec_gate *g)
{
	gate_policies_open(&g->policies, g->maps.layers, g->maps.policies);
}

/* Each event holds a descriptor until answered: take the hard limit. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int exec_gate_new(const struct exec_gate_maps *maps, const char *keyring_dir,
		  struct exec_gate **ret)
{
	struct exec_gate *g = calloc(1, sizeof(*g));
	char summary[96];
	struct umb_ctl ctl;
	__u32 zero = 0;
	int r;

	if (!g)
		return -ENOMEM;
	g->maps = *maps;
	g->keyring_dir = keyring_dir;
	gate_stats_open(&g->stats, maps->gate_stats);
	g->fan_fd = g->mountinfo_fd = g->inotify_fd = g->libs.inotify_fd = -1;
	g->ring_wd = g->ring_ancestor_wd = -1;
	g->stop_fd = g->ping_fd = g->layer_fd = g->call_fd = -1;
	r = gate_bridge_init(g);
	if (r < 0) {
		log_error_errno(r, "exec gate: cannot set up its thread's messages: %m");
		goto fail;
	}

	raise_fd_limit();
	/* FAN_REPORT_TID: the thread that execs, whose note of an overlayfs file the
	 * verdict goes to (gate-backing.c). */
	g->fan_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_TID,
				  O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (g->fan_fd < 0) {
		r = log_error_errno(errno, "exec gate: cannot create the fanotify group "
					   "(fanotify_init): %m");
		goto fail;
	}
	g->marks = (struct gate_marks){ .fan_fd = g->fan_fd, .mounts = &g->mounts };
	g->mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (g->mountinfo_fd < 0) {
		r = log_error_errno(errno, "exec gate: cannot open /proc/self/mountinfo: %m");
		goto fail;
	}
	g->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (g->inotify_fd < 0)
		log_warning_errno(errno,
				  "exec gate: cannot watch the key ring %s (inotify): %m: "
				  "it is read again on SIGHUP only",
				  keyring_dir);
	/* Watched before it is read: a ring made in between is not missed. */
	keyring_watch(g);
	r = keyring_read(keyring_dir, "", &g->keyring);
	if (r < 0)
		goto fail;
	atomic_store(&g->keyring_rejected, keyring_rejected_count(g->keyring));
	r = gate_libraries_init(&g->libs);
	if (r < 0)
		log_warning_errno(r, "exec gate: no inotify for library directories: %m");
	g->invalidated = ring_buffer__new(maps->invalidated, on_invalidated, g, NULL);
	if (!g->invalidated) {
		r = log_error_errno(errno, "exec gate: cannot read umb_invalidated: %m");
		goto fail;
	}
	if (bpf_map_lookup_elem(maps->ctl, &zero, &ctl) < 0) {
		r = log_error_errno(errno,
				    "exec gate: cannot read the verdict epoch (umb_ctl): %m");
		goto fail;
	}
	g->epoch = ctl.verdict_epoch;
	policy_layers_adopt(g);

	/* The marks first, then the new epoch: no exec slips between the two unasked. */
	mark_filesystems(g);
	r = new_epoch(g);
	if (r < 0)
		goto fail;
	log_info("exec gate: key ring %s (%s), verdict epoch %u", keyring_dir,
		 keyring_summary(g->keyring, summary, sizeof(summary)), g->epoch);
	*ret = g;
	return 0;

fail:
	exec_gate_free(g);
	return r;
}

void exec_gate_free(struct exec_gate *g)
{
	if (!g)
		return;
	/* Its thread took its sources out of its loop as it ended. */
	exec_gate_stop(g);
	gate_detach(g);
	gate_bridge_release(g);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->ping_fd >= 0)
		close(g->ping_fd);
	/* Execs still held: the kernel answers them when the group closes (below). */
	while (g->jobs) {
		struct gate_job *j = g->jobs;

		g->jobs = j->next;
		signed_elf_reader_free(j->reader);
		signed_elf_release(&j->e);
		close(j->fd);
		free(j);
	}
	gate_marks_release(&g->marks);
	gate_libraries_release(&g->libs);
	gate_mounts_release(&g->mounts);
	ring_buffer__free(g->invalidated);
	if (g->fan_fd >= 0)
		close(g->fan_fd);
	if (g->mountinfo_fd >= 0)
		close(g->mountinfo_fd);
	if (g->inotify_fd >= 0)
		close(g->inotify_fd);
	keyring_free(g->keyring);
	free(g);
}
