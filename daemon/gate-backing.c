// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the verdict of a file exec'd through overlayfs (containers).
 *
 * An exec of an overlayfs file opens the file underneath it; BPF notes that file in the
 * exec'ing thread's umb_backing_exec (bpf/lib/backing.bpf.h), before the open's fanotify
 * event reaches the gate, with the verdict its inode had then: none on a first exec.
 * The verdict the gate stores in the inode on that event is copied into the note, so
 * that bprm_check_security, which sees only the overlay file, finds it. The thread is
 * held by the event meanwhile: nothing else writes its note between the lookup and the
 * update. Linux 6.1 sends no event for the file underneath (only a verdict the inode
 * already had counts there): the note then never matches an event's file.
 * A SIGNED verdict goes into the note only once the file is pinned (no write opens from
 * then on, bpf/lib/backing.bpf.h), no writer is open (a read lease fails while one is)
 * and the verdict is still the one made (a write before the pin voided it).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <umbrella/kdev.h>

#include "gate-internal.h"
#include "log.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of one thread (include/uapi/linux/pidfd.h) */
#endif

/* A pidfd of the thread @tid, or -errno. Before Linux 6.9, only a leader's. */
static int thread_pidfd(pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_pidfd_open, tid, 0);
	return fd < 0 ? -errno : fd;
}

/* Pins the file @fd and tells whether its verdict is still @v with no writer open. */
static bool pin_signed(struct exec_gate *g, int fd, const struct umb_verdict *v)
{
	struct umb_verdict now;
	uint32_t pin = 1;

	if (g->maps.exec_pins <= 0 ||
	    bpf_map_update_elem(g->maps.exec_pins, &fd, &pin, BPF_ANY) < 0) {
		log_notice_errno(errno, "exec gate: cannot pin a file underneath an overlay: %m");
		return false;
	}
	if (fcntl(fd, F_SETLEASE, F_RDLCK) < 0)
		return false; /* a writer is open */
	(void)fcntl(fd, F_SETLEASE, F_UNLCK);
	return bpf_map_lookup_elem(g->maps.verdicts, &fd, &now) == 0 && now.state == v->state &&
	       now.layer == v->layer && now.epoch == v->epoch;
}

void gate_backing_fill(struct exec_gate *g, const struct gate_job *j)
{
	struct umb_backing_exec note;
	uint64_t ino;
	uint32_t dev;
	int pidfd;

	if (g->maps.backing_exec <= 0 || !j->event || !j->o.cached)
		return;
	/* The file underneath an overlay is on the overlay's private mount of its layer,
	 * which no mountinfo lists: then the device of the mount the gate found for it. */
	if (umb_kernel_inode(j->fd, 0, &dev, &ino) < 0) {
		dev = j->kdev;
		ino = (uint64_t)j->st.st_ino;
	}
	pidfd = thread_pidfd((pid_t)j->pid);
	if (pidfd < 0)
		return;
	/* Only a note about this very inode, not yet used: the event may be another
	 * exec's (a file that is not under an overlay), or the thread's note older. */
	if (bpf_map_lookup_elem(g->maps.backing_exec, &pidfd, &note) == 0 && note.file &&
	    note.inode.dev == dev && note.inode.ino == ino) {
		note.verdict = j->o.verdict;
		if (note.verdict.state == UMB_VERDICT_SIGNED &&
		    !pin_signed(g, j->fd, &note.verdict))
			note.verdict = (struct umb_verdict){}; /* a miss: fail closed */
		if (bpf_map_update_elem(g->maps.backing_exec, &pidfd, &note, BPF_EXIST) < 0)
			log_notice_errno(errno, "exec gate: cannot note the verdict for pid %u: %m",
					 j->pid);
	}
	close(pidfd);
}
