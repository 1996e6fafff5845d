// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's fanotify group: its events, its answers and its marks.
 *
 * One group marks every file system where the kernel sees every write with
 * FAN_OPEN_EXEC_PERM; an ignore mark on an inode keeps later execs of the unchanged
 * file in the kernel (gate-marks.c). Every permission event is answered, on every path:
 * an unanswered one would hold the exec for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "event-priority.h"
#include "gate-internal.h"
#include "log.h"
#include "macro.h"

/* Keeps later execs of @j's inode out of user space (until an invalidation). */
void gate_ignore_mark(struct exec_gate *g, struct gate_job *j)
{
	int r;

	if (!j->markable)
		return;
	r = gate_marks_add(&g->marks, j->fd, j->kdev, j->st.st_ino);
	/* No file handles (ramfs): no mark, each exec asks and is answered at once. */
	if (r < 0 && r != -EOPNOTSUPP && !g->mark_warned) {
		log_warning_errno(r, "exec gate: cannot set an ignore mark: %m");
		g->mark_warned = true;
	}
}

void gate_answer(struct exec_gate *g, int fd, bool allow)
{
	struct fanotify_response resp = { .fd = fd, .response = allow ? FAN_ALLOW : FAN_DENY };

	if (write(g->fan_fd, &resp, sizeof(resp)) != sizeof(resp))
		log_error_errno(errno, "exec gate: cannot answer an exec: %m");
}

/*
 * Reads and answers (or queues) one buffer of waiting events. One per turn of the loop:
 * the group stays readable (its source is level-triggered), and between two buffers
 * the loop serves what sits above it (a stop, the main thread's calls, BPF's
 * invalidations, the key ring's changes), which a user who execs in a loop would
 * otherwise hold off for as long as the loop lasts.
 */
static void read_events(struct exec_gate *g)
{
	/* Few at a time: each event holds a descriptor until it is answered. */
	char buf[64 * sizeof(struct fanotify_event_metadata)]
		__attribute__((aligned(__alignof__(struct fanotify_event_metadata))));

	for (bool done = false; !done;) {
		struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
		ssize_t n = read(g->fan_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* The kernel denies a permission event it could not hand over. */
			if (errno != EAGAIN)
				log_error_errno(errno, "exec gate: cannot read its events: %m");
			return;
		}
		done = true;
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			if (m->fd < 0)
				continue; /* a queue overflow: not a permission event */
			if (m->vers != FANOTIFY_METADATA_VERSION) {
				gate_answer(g, m->fd, false); /* cannot happen: the ABI is stable */
				close(m->fd);
			} else if (m->mask & FAN_OPEN_EXEC_PERM) {
				gate_handle_exec(g, m->fd, (__u32)m->pid);
			} else {
				close(m->fd);
			}
			gate_progress(g);
		}
	}
}

/*
 * Marks the file system of every mount that may cache verdicts (gate-mounts.c).
 * Marking one already marked changes nothing, so each scan simply marks them all: a
 * file system unmounted and another mounted with the same device number between two
 * scans is not missed.
 */
void mark_filesystems(struct exec_gate *g)
{
	int r = gate_mounts_scan(&g->mounts);

	if (r < 0) {
		log_error_errno(r, "exec gate: cannot read /proc/self/mountinfo: %m");
		return;
	}
	for (size_t i = 0; i < g->mounts.n; i++) {
		if (!g->mounts.v[i].cacheable)
			continue;
		/* A mount we cannot reach (over-mounted): its file system is marked through
		 * another mount, or its execs are misses. */
		(void)fanotify_mark(g->fan_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				    FAN_OPEN_EXEC_PERM, AT_FDCWD, g->mounts.v[i].path);
	}
}

/*
 * Exec events wait: BPF's invalidations first (a mark must not outlive its verdict
 * longer than needed, and a flush of every mark is due before the next answer), then
 * each event, then the files queued among them get their turns.
 */
static int on_fanotify_ready(_unused_ sd_event_source *s, _unused_ int fd,
			     _unused_ uint32_t revents, void *userdata)
{
	struct exec_gate *g = userdata;

	gate_read_invalidations(g);
	read_events(g);
	gate_schedule_jobs(g);
	return 0;
}

/* The mounts changed (POLLPRI on /proc/self/mountinfo): mark the new file systems. */
static int on_mounts_changed(_unused_ sd_event_source *s, _unused_ int fd, uint32_t revents,
			     void *userdata)
{
	if (revents & (EPOLLPRI | EPOLLERR))
		mark_filesystems(userdata);
	return 0;
}

int gate_fanotify_attach(struct exec_gate *g, sd_event *e)
{
	int r;

	r = event_add_io(e, &g->fan_source, g->fan_fd, EPOLLIN, PRIORITY_WORK, on_fanotify_ready,
			 g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch its fanotify group: %m");
	r = event_add_io(e, &g->mountinfo_source, g->mountinfo_fd, EPOLLPRI, PRIORITY_GATE_WATCH,
			 on_mounts_changed, g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch /proc/self/mountinfo: %m");
	return 0;
}

/* Drops every ignore mark (the file system marks stay): each file asks once more. */
void gate_flush_ignore_marks(struct exec_gate *g)
{
	int r = gate_marks_flush(&g->marks);

	if (r < 0)
		log_error_errno(r, "exec gate: cannot flush the ignore marks: %m");
}
