// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - who is calling (peer.h)
 *
 * The attack this closes: a process connects, hands the socket to a child and exits;
 * its pid is reused by another process (root's, say); the child then asks for a layer
 * on "its own" thread, which SO_PEERCRED's pid now names in the other process.
 * Linux 6.5 and later hand out a pidfd of the process that connected (SO_PEERPIDFD):
 * none once it has exited, so the request is refused. Before 6.5 there is only the
 * number: the request must have been sent by the process that had it when it
 * connected (SCM_CREDENTIALS, which an unprivileged sender cannot forge), and the
 * request brings a pidfd the sender opened of itself (protocol 4), which must have
 * that pid and run: a sender that exited right after sending, its pid reused by a
 * process of the same uid before umbrellad reads the request, is refused. A request
 * without one is only identified by the number (the process that has it now must be
 * alive and have the connector's effective uid) and may arm no thread (request.c).
 * What remains (a root sender may forge its credentials, and send any process's
 * pidfd) is in docs/security.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdinfo.h"
#include "peer.h"
#include "proc-status.h"
#include "thread-start.h"
#include "userns-owner.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5, asm-generic/socket.h */
#endif

/* The pid of the process behind @pidfd in umbrellad's pid namespace (its fdinfo), or
 * -ESRCH when it has exited. */
static pid_t pidfd_pid(int pidfd)
{
	uint64_t pid;
	int r;

	r = fdinfo_read(pidfd, 1, (const char *const[]){ "Pid" }, &pid);
	if (r == -EOPNOTSUPP)
		return -ESRCH;
	if (r < 0)
		return r;
	/* -1 once it has been reaped, 0 when it is in no namespace of ours. */
	return (int64_t)pid > 0 ? (pid_t)pid : -ESRCH;
}

bool pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* The pid the sender of @msg had when it sent it (SCM_CREDENTIALS), or 0. */
static pid_t sender_pid(const struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		struct ucred cred;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
		    c->cmsg_len != CMSG_LEN(sizeof(cred)))
			continue;
		memcpy(&cred, CMSG_DATA(c), sizeof(cred));
		return cred.pid;
	}
	return 0;
}

/*
 * The pidfd of the process that connected @sock (pid @pid then), or -errno: from the
 * kernel (*@ret_kernel); before Linux 6.5, a copy of @sender_pidfd, the sender's own,
 * once checked; failing one, of the process that has @pid now (*@ret_exact false).
 */
static int connector_pidfd(int sock, pid_t pid, int sender_pidfd, bool *ret_exact, bool *ret_kernel,
			   const char **ret_error)
{
	socklen_t len = sizeof(int);
	int pidfd;

	*ret_exact = *ret_kernel = true;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) {
		/* The pid names it in the fdinfo only while it has not been reaped. */
		if (pidfd_pid(pidfd) != pid) {
			close(pidfd);
			*ret_error = "the calling process has exited";
			return -ESRCH;
		}
		return pidfd;
	}
	if (errno != ENOPROTOOPT) {
		/* EINVAL: the kernel has no task for the connector's pid any more. */
		*ret_error = "the calling process has exited";
		return errno == EINVAL ? -ESRCH : -errno;
	}
	/* Before Linux 6.5, a pidfd the sender opened of itself (protocol 4). A pidfd stays
	 * bound to the process it was opened for: one that has the pid now and runs is
	 * the process that had it when it sent (SCM_CREDENTIALS, checked by the caller),
	 * since a sender cannot have held a pidfd of a process that got its pid after it
	 * exited. A sender that may forge SCM_CREDENTIALS (CAP_SYS_ADMIN) can send any
	 * live process's pidfd: see docs/security.md. */
	*ret_kernel = false;
	if (sender_pidfd >= 0) {
		if (pidfd_pid(sender_pidfd) != pid || !pidfd_alive(sender_pidfd)) {
			*ret_error = "the calling process has exited, or the pidfd sent with "
				     "the request is not of the process that sent it";
			return -ESRCH;
		}
		pidfd = fcntl(sender_pidfd, F_DUPFD_CLOEXEC, 3);
		if (pidfd < 0) {
			*ret_error = "cannot hold the calling process's pidfd";
			return -errno;
		}
		return pidfd;
	}
	/* Whoever has the pid now, checked by the caller: not enough to arm a thread. */
	*ret_exact = false;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		*ret_error = errno == ESRCH ? "the calling process has exited" :
					      "cannot open the calling process (pidfd_open)";
		return -errno;
	}
	return pidfd;
}

/* The effective uid of the process whose /proc directory is @proc_fd, or -errno. */
static int64_t proc_euid(int proc_fd)
{
	uid_t uid[4];
	int r = proc_status_uids(proc_fd, uid);

	return r < 0 ? r : (int64_t)uid[1];
}

/* Whom the process of @p is charged to, into p->account_uid: through its /proc directory,
 * which stays that process's. */
static int account(struct peer *p)
{
	int ns, r;

	ns = openat(p->proc_fd, "ns/user", O_RDONLY | O_CLOEXEC);
	if (ns < 0 && errno == ENOENT && pidfd_alive(p->pidfd)) {
		/* A kernel without user namespaces: every process is in the initial one. */
		p->account_uid = p->uid;
		return 0;
	}
	if (ns < 0)
		return -errno;
	r = userns_account_uid(ns, p->uid, &p->account_uid);
	close(ns);
	return r;
}

/* peer_identify() once the request's sender is known to be @cred's connector. */
static int identify(int sock, const struct ucred *cred, int sender_pidfd, struct peer *ret,
		    const char **ret_error)
{
	bool exact, kernel;
	char path[64];
	int r;

	r = connector_pidfd(sock, cred->pid, sender_pidfd, &exact, &kernel, ret_error);
	if (r < 0)
		return r;
	*ret = (struct peer){ .pid = cred->pid,
			      .uid = cred->uid,
			      .gid = cred->gid,
			      .pidfd = r,
			      .proc_fd = -1,
			      .exact = exact };
	/* The pidfd's process had the pid before this open and still runs after it: the
	 * directory is that process's (a pid is not reused while its process lives). */
	snprintf(path, sizeof(path), "/proc/%d", cred->pid);
	ret->proc_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ret->proc_fd < 0 || !pidfd_alive(ret->pidfd)) {
		peer_release(ret);
		*ret_error = "the calling process has exited";
		return -ESRCH;
	}
	/* Before 6.5, a process that got the pid after the sender exited (or whose pidfd a
	 * sender that forged its credentials sent) must at least not be another user's
	 * (SO_PEERCRED's uid is the connector's euid). */
	if (!kernel && proc_euid(ret->proc_fd) != (int64_t)cred->uid) {
		peer_release(ret);
		*ret_error = "the calling process has exited (its pid belongs to another user)";
		return -ESRCH;
	}
	r = account(ret);
	if (r < 0) {
		peer_release(ret);
		*ret_error = "cannot tell whose user namespace the calling process is in";
		return r;
	}
	return 0;
}

/* The credentials of @sock's connector, in umbrellad's namespaces. */
static int connector_cred(int sock, struct ucred *ret, const char **ret_error)
{
	socklen_t len = sizeof(*ret);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, ret, &len) < 0) {
		*ret_error = "cannot identify the caller (SO_PEERCRED)";
		return -errno;
	}
	if (ret->pid <= 0) {
		*ret_error = "the calling process is not in umbrellad's pid namespace";
		return -EPERM;
	}
	return 0;
}

int peer_identify(int sock, const struct msghdr *msg, int sender_pidfd, struct peer *ret,
		  const char **ret_error)
{
	struct ucred cred;
	int r;

	*ret = (struct peer){ .pidfd = -1, .proc_fd = -1 };
	r = connector_cred(sock, &cred, ret_error);
	if (r < 0)
		return r;
	/* A request from another process than the one that connected (one it handed the
	 * socket to) would be taken for the connector's; so would one sent by the
	 * connector's pid after it was reused, before Linux 6.5. */
	if (sender_pid(msg) != cred.pid) {
		*ret_error = "the request does not come from the process that connected";
		return -EPERM;
	}
	return identify(sock, &cred, sender_pidfd, ret, ret_error);
}

int peer_connector(int sock, struct peer *ret, const char **ret_error)
{
	struct ucred cred;
	int r;

	*ret = (struct peer){ .pidfd = -1, .proc_fd = -1 };
	r = connector_cred(sock, &cred, ret_error);
	if (r < 0)
		return r;
	return identify(sock, &cred, -1, ret, ret_error);
}

int peer_thread(const struct peer *p, uint32_t tid, uint64_t *ret_start)
{
	char path[64];
	int r;

	/* task/TID of a process's directory is a thread of that process, or nothing. */
	snprintf(path, sizeof(path), "task/%u/stat", tid);
	r = thread_start(p->proc_fd, path, ret_start);
	if (r == -ENOENT)
		return pidfd_alive(p->pidfd) ? -EPERM : -ESRCH;
	if (r < 0)
		return r;
	return pidfd_alive(p->pidfd) ? 0 : -ESRCH;
}

void peer_release(struct peer *p)
{
	if (p->proc_fd >= 0)
		close(p->proc_fd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->proc_fd = p->pidfd = -1;
}
