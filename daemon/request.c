// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - one request on the socket (request.h): the message read, its bytes, its
 * sender and the descriptors it brought checked, the restrictions parsed; then, for
 * what needs the BPF maps, server_arm() or server_follow() (server.c) or
 * exec_gate_flush(). Nothing here touches a map, so that tests/fuzz can feed it any
 * bytes without a kernel's BPF.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <umbrella/protocol.h>

#include "exec-gate.h"
#include "log.h"
#include "peer.h"
#include "request-fds.h"
#include "request.h"

/* Sends a reply; @message (may be NULL) follows the header for errors. */
int request_reply(int fd, int error, __u32 layer, const char *message)
{
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	struct umb_reply *rep = (struct umb_reply *)buf;
	size_t len = sizeof(*rep);

	*rep = (struct umb_reply){ .error = error, .layer = layer };
	if (error < 0) {
		len += snprintf(buf + len, sizeof(buf) - len, "%s",
				message ? message : strerror(-error)) +
		       1;
		if (len > sizeof(buf))
			len = sizeof(buf);
	}
	return send(fd, buf, len, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Whether the caller has shut its end of @fd down or closed it: it gave up waiting. */
static bool caller_gone(int fd)
{
	struct pollfd p = { .fd = fd };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLHUP);
}

static void handle_arm(struct server *s, int fd, const struct peer *peer,
		       const struct umb_request *req, uint64_t start, const char *text,
		       const unsigned char *table, size_t table_len)
{
	struct umb_restrictions *r = umb_restrictions__new();
	struct fs_ref *ref_items = NULL;
	struct fs_refs refs;
	bool self = req->op == UMB_OP_ARM_SELF;
	char *error = NULL;
	__u32 id = 0;
	int ret;

	if (!r) {
		request_reply(fd, -ENOMEM, 0, NULL);
		return;
	}
	/* Before Linux 6.5 the pid number alone may name a process that got it after the
	 * sender exited: arming its thread takes the sender's pidfd (peer.c). */
	if (!peer->exact) {
		ret = -EPROTO;
		error = strdup("this kernel (before Linux 6.5) does not tell umbrellad which "
			       "process connected: a request to restrict must bring a pidfd "
			       "of its sender (protocol 4; update libumbrella)");
		goto out;
	}
	if (req->flags & ~(__u32)(UMB_ARM_ON_EXEC | UMB_ARM_PERMISSIVE)) {
		ret = -EINVAL;
		error = strdup("unknown flags");
		goto out;
	}
	/* A permissive layer is for a child its creator starts to try a list out; a task
	 * has no use for one of its own, and refusing it keeps the rule simple. */
	if (self && (req->flags & UMB_ARM_PERMISSIVE)) {
		ret = -EINVAL;
		error = strdup("a permissive layer is only for a child (rfork), not for the "
			       "caller itself");
		goto out;
	}
	/* An empty list is a valid, empty layer (the parser wants at least one item). */
	ret = text[0] ? umb_restrictions__parse(r, text, &error) : 0;
	if (ret < 0)
		goto out;
	/* umbrella.conf's limit, before a layer id is spent on the request. */
	if (s->max_rules && umb_restrictions__count(r) > s->max_rules) {
		ret = -E2BIG;
		if (asprintf(&error,
			     "%zu restrictions in one layer, more than the %u that "
			     "umbrellad allows (max_rules_per_layer in umbrella.conf)",
			     umb_restrictions__count(r), s->max_rules) < 0)
			error = NULL;
		goto out;
	}
	/* The fs items as the caller resolved them: its descriptors (request-fds.h). */
	ret = request_fs_refs(r, table, table_len, &s->request_fds, peer->pid, &ref_items, &refs,
			      &error);
	if (ret < 0)
		goto out;
	/*
	 * A caller that gave up waiting (libumbrella's bound, umbrellad stopped or slow)
	 * shuts its end down, then takes back an arm made before that. One made after it
	 * is ours to take back: the reply's send() fails then (EPIPE: the kernel checks the
	 * caller's shutdown under the lock that its shutdown() takes), and the arm goes.
	 * Checked first too, so that a request read long after its caller left costs no
	 * layer.
	 */
	if (caller_gone(fd)) {
		free(ref_items);
		ret = -ECONNRESET;
		error = strdup("the caller gave up waiting (its connection is shut down)");
		goto out;
	}
	/* Everything from here on is in the BPF maps. */
	ret = server_arm(s, peer, req, start, r, &refs, &id, &error);
	free(ref_items);
	if (ret < 0)
		goto out;
	ret = request_reply(fd, 0, id, NULL);
	if (ret < 0) {
		server_disarm(s, req->tid);
		log_notice("pid %d: layer %u not armed: the caller gave up waiting (%s)", peer->pid,
			   id, strerror(-ret));
	} else {
		log_info("pid %d: %slayer %u armed for %s (%s)", peer->pid,
			 req->flags & UMB_ARM_PERMISSIVE ? "permissive " : "", id,
			 self ? "itself" : "its next child", text[0] ? text : "no restrictions");
	}
	umb_restrictions__free(r);
	return;

out:
	log_notice("pid %d: refused: %s", peer->pid, error ? error : strerror(-ret));
	request_reply(fd, ret, 0, error);
	free(error);
	umb_restrictions__free(r);
}

/*
 * umbrella-cli verdict flush. Root that carries no layer only: a flush costs every
 * binary a verification, and an exec whose answer races it is refused (docs/security.md, "Still
 * open"), so a caller that floods flushes makes other users' execs of signed binaries
 * fail. Neither other users nor a root that Umbrella restricts may impose that.
 */
static void handle_flush(struct server *s, int fd, const struct peer *peer)
{
	int r;

	if (!server_unrestricted_root(s, peer)) {
		log_notice("pid %d: refused to flush the exec verdicts (%s)", peer->pid,
			   peer->uid ? "not root" : "a root that carries layers");
		request_reply(fd, -EPERM, 0,
			      peer->uid ? "only root may flush the verdicts" :
					  "only root that carries no layer may flush the verdicts");
		return;
	}
	if (!s->gate) {
		request_reply(fd, -EOPNOTSUPP, 0, "umbrellad has no exec gate");
		return;
	}
	r = exec_gate_flush(s->gate);
	log_info("pid %d: flushed the exec verdicts%s%s", peer->pid, r < 0 ? ": " : "",
		 r < 0 ? strerror(-r) : "");
	request_reply(fd, r, 0, NULL);
}

/*
 * UMB_OP_EVENTS: the header alone. The reply is one message, the header and the records
 * (protocol.h), sent without waiting: a caller that does not read its replies gets
 * none rather than holding the loop.
 */
static void handle_events(struct server *s, int fd, const struct peer *peer,
			  const struct umb_request *req, size_t len)
{
	struct umb_event_record *records;
	struct umb_reply rep = {};
	char *buf;
	size_t n;

	if (req->flags || len) {
		request_reply(fd, -EINVAL, 0, "malformed events request");
		return;
	}
	buf = malloc(sizeof(rep) + UMB_EVENTS_MAX * sizeof(*records));
	if (!buf) {
		request_reply(fd, -ENOMEM, 0, NULL);
		return;
	}
	records = (struct umb_event_record *)(buf + sizeof(rep));
	n = server_events(s, peer, records);
	memcpy(buf, &rep, sizeof(rep));
	(void)send(fd, buf, sizeof(rep) + n * sizeof(*records), MSG_NOSIGNAL | MSG_DONTWAIT);
	free(buf);
}

/*
 * UMB_OP_FOLLOW: the header, then an optional layer id (@body, @len bytes). Returns
 * false when the connection is to be closed (an end record it could not take).
 */
static bool handle_follow(struct server *s, int fd, const struct peer *peer,
			  const struct umb_request *req, const char *body, size_t len)
{
	const char *error = NULL;
	__u32 layer = 0;
	int r;

	if (req->flags & ~(__u32)UMB_FOLLOW_END || (len && len != sizeof(layer)) ||
	    (len && (req->flags & UMB_FOLLOW_END))) {
		request_reply(fd, -EINVAL, 0, "malformed follow request");
		return true;
	}
	if (len)
		memcpy(&layer, body, sizeof(layer));
	r = server_follow(s, fd, peer, req, layer, &error);
	if (r == -EPIPE)
		return false;
	if (r < 0) {
		if (r != -ENOENT)
			log_notice("pid %d: refused to follow layer %u: %s", peer->pid, layer,
				   error ? error : strerror(-r));
		request_reply(fd, r, 0, error);
	} else if (!(req->flags & UMB_FOLLOW_END)) {
		request_reply(fd, 0, layer, NULL);
	}
	return true;
}

/* What receive() returns when it read no request (else the bytes read). */
enum {
	RECEIVE_AGAIN = -1, /* nothing there yet (EAGAIN, EINTR): keep the connection */
	RECEIVE_CLOSE = 0,  /* the peer left, the read failed, or the request was refused */
};

/* Reads the request waiting on @fd into @msg, its descriptors into s->request_fds. A
 * request that brings descriptors of other kinds is refused; nothing else of it is
 * looked at: the connection goes, with what it sent, to the closer thread (server.c).
 * Return: the bytes read, or RECEIVE_AGAIN, RECEIVE_CLOSE. */
static ssize_t receive(struct server *s, int fd, struct msghdr *msg)
{
	ssize_t n;

	s->request_fds = (struct request_fds){}; /* (the last request's: closed or handed on) */
	n = recvmsg(fd, msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? RECEIVE_AGAIN : RECEIVE_CLOSE;
	request_fds_take(msg, &s->request_fds);
	if (s->request_fds.unexpected) {
		request_reply(fd, -EBADMSG, 0,
			      "malformed request: a request brings only O_PATH descriptors "
			      "and its sender's pidfd");
		return RECEIVE_CLOSE;
	}
	return n;
}

/* Reads and answers the request waiting on @fd. Returns false when the peer left. */
static bool serve_client(struct server *s, int fd)
{
	/* One control buffer for the caller's credentials (peer.h) and its descriptors. */
	char buf[UMB_MSG_MAX + 1], *end, control[PEER_CMSG_SPACE + REQUEST_FDS_CMSG_SPACE];
	struct iovec iov = { .iov_base = buf, .iov_len = UMB_MSG_MAX };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control,
			      .msg_controllen = sizeof(control) };
	const char *why = NULL;
	struct umb_request req;
	bool keep = true;
	struct peer peer;
	uint64_t start;
	ssize_t n;
	int r, sender_pidfd;

	n = receive(s, fd, &msg);
	if (n <= 0)
		return n == RECEIVE_AGAIN;
	if ((size_t)n < sizeof(req)) {
		request_reply(fd, -EBADMSG, 0, "malformed request: too short");
		return true;
	}
	memcpy(&req, buf, sizeof(req));
	buf[n] = '\0';
	/* 3: no sender pidfd, which only a kernel without SO_PEERPIDFD needs. */
	if (req.version < 3 || req.version > UMB_PROTOCOL_VERSION) {
		request_reply(fd, -EPROTO, 0, "unsupported protocol version");
		return true;
	}
	if (req.version >= 4)
		request_fds_take_pidfd(&s->request_fds);
	sender_pidfd = s->request_fds.has_sender_pidfd ? s->request_fds.sender_pidfd : -1;
	r = peer_identify(fd, &msg, sender_pidfd, &peer, &why);
	if (r < 0) {
		log_notice("refused a request: %s", why);
		request_reply(fd, r, 0, why);
		return true;
	}
	r = peer_thread(&peer, req.tid, &start);
	if (r < 0) {
		request_reply(fd, r, 0,
			      r == -EPERM ?
				      "a caller may only restrict itself or its own children" :
			      r == -ESRCH ? "the calling process has exited" :
					    NULL);
		peer_release(&peer);
		return true;
	}
	switch (req.op) {
	case UMB_OP_ARM_CHILD:
	case UMB_OP_ARM_SELF:
		/* the text, its NUL, then the table of the fs items' descriptors */
		end = memchr(buf + sizeof(req), '\0', n - sizeof(req));
		if (!end) {
			request_reply(fd, -EBADMSG, 0,
				      "malformed request: restrictions not terminated");
			break;
		}
		handle_arm(s, fd, &peer, &req, start, buf + sizeof(req), (unsigned char *)end + 1,
			   (size_t)(buf + n - end - 1));
		break;
	case UMB_OP_FLUSH_VERDICTS:
		handle_flush(s, fd, &peer);
		break;
	case UMB_OP_FOLLOW:
		keep = handle_follow(s, fd, &peer, &req, buf + sizeof(req),
				     (size_t)n - sizeof(req));
		break;
	case UMB_OP_EVENTS:
		handle_events(s, fd, &peer, &req, (size_t)n - sizeof(req));
		break;
	default:
		request_reply(fd, -EOPNOTSUPP, 0, "unknown request");
		break;
	}
	peer_release(&peer);
	return keep;
}

bool request_serve(struct server *s, int fd)
{
	bool keep = serve_client(s, fd);

	/* Descriptors of other kinds are the caller's to hand to the closer thread. */
	if (s->request_fds.unexpected)
		return false;
	/* The descriptors a request brought, on every path. */
	request_fds_close(&s->request_fds);
	return keep;
}

bool request_refuse(struct server *s, int fd, int error, const char *message)
{
	char byte, control[PEER_CMSG_SPACE + REQUEST_FDS_CMSG_SPACE];
	/* One byte: the rest of the message is dropped (SOCK_SEQPACKET), unread. */
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control,
			      .msg_controllen = sizeof(control) };
	ssize_t n = receive(s, fd, &msg);

	if (n == RECEIVE_AGAIN)
		return true;
	/* As request_serve(): those are the caller's to hand to the closer thread. */
	if (s->request_fds.unexpected)
		return false;
	request_fds_close(&s->request_fds); /* also those of an empty message */
	if (n == RECEIVE_CLOSE)
		return false;
	request_reply(fd, error, 0, message);
	return true;
}
