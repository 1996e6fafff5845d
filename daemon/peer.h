/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - who is calling: the process behind a request, by a pidfd */
#ifndef UMBRELLA_PEER_H
#define UMBRELLA_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * The process that connected to umbrellad's socket and sent a request. A pid number
 * alone can name another process by the time it is used (the caller exited and the
 * number was reused), so the caller is held by a pidfd, and everything umbrellad reads
 * about it goes through that process's /proc directory, opened while the pidfd showed
 * it alive.
 */
struct peer {
	pid_t pid; /* the calling process, in umbrellad's pid namespace */
	uid_t uid; /* its uids and gids when it connected (SO_PEERCRED) */
	gid_t gid;
	uid_t account_uid; /* whom @uid is charged to (userns_account_uid()) */
	int pidfd;	   /* the calling process */
	int proc_fd;	   /* its /proc/PID directory */
	bool exact;	   /* pidfd is the process that connected and sent (SO_PEERPIDFD, or its
		      * own pidfd sent with the request), not the one with its pid now */
};

/* Room for the SCM_CREDENTIALS message that peer_identify() reads. */
#define PEER_CMSG_SPACE CMSG_SPACE(sizeof(struct ucred))

/*
 * peer_identify() - the process that connected @sock and sent @msg (received with
 * SO_PASSCRED set: its SCM_CREDENTIALS)
 *
 * The connecting process comes from the kernel as a pidfd (SO_PEERPIDFD, Linux 6.5);
 * before 6.5, it is the process that has the connector's pid now, which must have the
 * connector's effective uid, or the process of @sender_pidfd (a pidfd the request
 * brought, -1 if none), which must have that pid now and run (ret->exact). Either way,
 * the request must have been sent by the process that had the connector's pid
 * (SCM_CREDENTIALS), and that process must not have exited.
 *
 * Return: 0, or -ESRCH (the caller has exited), -EPERM (the request comes from another
 * process than the one that connected), -errno; *@ret_error says why (static text).
 */
int peer_identify(int sock, const struct msghdr *msg, int sender_pidfd, struct peer *ret,
		  const char **ret_error);

/*
 * peer_connector() - the process that connected @sock, as peer_identify() finds it, for
 * a connection that has sent nothing yet (no SCM_CREDENTIALS to check, no pidfd sent)
 *
 * Return: 0, or -ESRCH (it has exited), -errno; *@ret_error says why (static text).
 */
int peer_connector(int sock, struct peer *ret, const char **ret_error);

/*
 * peer_thread() - the start time of thread @tid of the caller (thread_start())
 *
 * Return: 0, -EPERM when @tid is no thread of the caller, -ESRCH when the caller has
 * exited since peer_identify(), or -errno.
 */
int peer_thread(const struct peer *p, uint32_t tid, uint64_t *ret_start);

/* peer_release() - closes what peer_identify() opened */
void peer_release(struct peer *p);

/* Whether the process behind @pidfd has not exited (a zombie has: it runs nothing). */
bool pidfd_alive(int pidfd);

#endif /* UMBRELLA_PEER_H */
