// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the local socket: callers ask for a layer on their next child (rfork) or
 * on themselves (restrict_self); root asks to flush the exec verdicts.
 *
 * A request names a thread; it must be a thread of the calling process, which the
 * kernel tells us (peer.h: a pidfd, never a pid number that may have been reused). The
 * arm is bound to that thread's start time, so a task that later reuses its id never
 * gets the layer. The restrictions are parsed with libumbrella's parser
 * (the one implementation of the grammar), written as a new layer by layers_create()
 * (within the caller's uid's limits), and armed for that thread (arm.h): the BPF side
 * pushes the layer at the thread's next fork or prctl(UMB_PRCTL_APPLY), and the thread
 * learns the outcome from the kernel. One round trip per rfork.
 * Restrictions only ever grow: nothing here removes a layer from a task.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <umbrella/protocol.h>

#include "arm.h"
#include "log.h"
#include "peer.h"
#include "request-fds.h"
#include "server.h"

int server_listen(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[sizeof(addr.sun_path)], *slash;
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* Every request carries its sender's pid (SCM_CREDENTIALS, peer.c); accepted
	 * sockets inherit the option. */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	(void)unlink(path);
	/* Any local process may restrict its own children: the socket is world-writable,
	 * and every request is checked against the caller's identity. */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || chmod(path, 0666) < 0 ||
	    listen(fd, 64) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* Sends a reply; @message (may be NULL) follows the header for errors. */
static void reply(int fd, int error, __u32 layer, const char *message)
{
	char buf[sizeof(struct umb_reply) + 512];
	struct umb_reply *rep = (struct umb_reply *)buf;
	size_t len = sizeof(*rep);

	*rep = (struct umb_reply){ .error = error, .layer = layer };
	if (error < 0) {
		len += snprintf(buf + len, sizeof(buf) - len, "%s",
				message ? message : strerror(-error)) + 1;
		if (len > sizeof(buf))
			len = sizeof(buf);
	}
	(void)send(fd, buf, len, MSG_NOSIGNAL);
}

/* Whether the caller carries layers (umb_task, looked up through its pidfd). */
static bool restricted(const struct server *s, const struct peer *peer)
{
	struct umb_task_state state;

	return bpf_map_lookup_elem(s->task_fd, &peer->pidfd, &state) == 0 &&
	       state.layer_count > 0;
}

/*
 * Who pays for a layer under the per-user limits (daemon/layers.c): the caller's uid;
 * but a root that Umbrella restricts pays as LAYER_UID_RESTRICTED_ROOT, with the users:
 * root's exemption is for the administrator, not for a task confined to do less.
 */
static uint32_t charged_uid(const struct server *s, const struct peer *peer)
{
	if (peer->uid == 0 && restricted(s, peer))
		return LAYER_UID_RESTRICTED_ROOT;
	return (uint32_t)peer->uid;
}

/*
 * Arms thread @tid of the caller, started at @start, with @layer; takes the arm back
 * if the thread has ended meanwhile (its exit deleted no arm written after it; the
 * kernel would not use it, the sweep would remove it, this is sooner).
 */
static int arm_caller(struct server *s, const struct peer *peer, __u32 tid, uint64_t start,
		      __u32 layer, __u32 flags)
{
	uint64_t now;
	int r;

	r = arm_thread_at(s->layers, tid, (__u32)peer->pid, start, layer, flags);
	if (r < 0)
		return r;
	if (peer_thread(peer, tid, &now) < 0 || now != start) {
		(void)arm_take(s->layers, tid);
		return -ESRCH;
	}
	return 0;
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
		reply(fd, -ENOMEM, 0, NULL);
		return;
	}
	if (req->flags & ~(__u32)UMB_ARM_ON_EXEC) {
		ret = -EINVAL;
		error = strdup("unknown flags");
		goto out;
	}
	/* An empty list is a valid, empty layer (the parser wants at least one item). */
	ret = text[0] ? umb_restrictions__parse(r, text, &error) : 0;
	if (ret < 0)
		goto out;
	/* umbrella.conf's limit, before a layer id is spent on the request. */
	if (s->max_rules && umb_restrictions__count(r) > s->max_rules) {
		ret = -E2BIG;
		if (asprintf(&error, "%zu restrictions in one layer, more than the %u that "
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
	ret = layers_create_at(s->layers, r, &refs, (__u32)peer->pid, charged_uid(s, peer),
			       self ? UMB_ORIGIN_RESTRICT_SELF : UMB_ORIGIN_RFORK, &id, &error);
	free(ref_items);
	if (ret < 0)
		goto out;
	/* The arm is the layer's first holder. */
	ret = arm_caller(s, peer, req->tid, start, id, req->flags | (self ? UMB_ARM_SELF : 0));
	if (ret < 0) {
		error = strdup(ret == -EBUSY	? "too many pending requests" :
			       ret == -EEXIST ? "this thread has a request pending already" :
			       ret == -ESRCH  ? "the calling thread has exited" :
						 strerror(-ret));
		layers_released(s->layers, id); /* never held: freed at once */
		goto out;
	}
	log_msg(LOG_INFO, "pid %d: layer %u armed for %s (%s)\n", peer->pid, id,
		self ? "itself" : "its next child", text[0] ? text : "no restrictions");
	reply(fd, 0, id, NULL);
	umb_restrictions__free(r);
	return;

out:
	log_msg(LOG_NOTICE, "pid %d: refused: %s\n", peer->pid, error ? error : strerror(-ret));
	reply(fd, ret, 0, error);
	free(error);
	umb_restrictions__free(r);
}

/*
 * umbrella-cli verdict flush. Root only: a flush costs every binary a verification, so
 * other users may not impose it on the system. A restricted root may: a flush only
 * makes umbrellad check again, it can never let anything run that would not.
 */
static void handle_flush(struct server *s, int fd, const struct peer *peer)
{
	int r;

	if (peer->uid != 0) {
		reply(fd, -EPERM, 0, "only root may flush the verdicts");
		return;
	}
	if (!s->gate) {
		reply(fd, -EOPNOTSUPP, 0, "umbrellad has no exec gate");
		return;
	}
	r = exec_gate_flush(s->gate);
	log_msg(LOG_INFO, "pid %d: flushed the exec verdicts%s%s\n", peer->pid, r < 0 ? ": " : "",
		r < 0 ? strerror(-r) : "");
	reply(fd, r, 0, NULL);
}

/* Reads and answers every request waiting on @fd. Returns false when the peer left. */
static bool serve_client(struct server *s, int fd)
{
	/* One control buffer for the caller's credentials (peer.h) and its descriptors. */
	char buf[UMB_MSG_MAX + 1], *end, control[PEER_CMSG_SPACE + REQUEST_FDS_CMSG_SPACE];
	struct iovec iov = { .iov_base = buf, .iov_len = UMB_MSG_MAX };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	const char *why = NULL;
	struct umb_request req;
	struct peer peer;
	uint64_t start;
	ssize_t n;
	int r;

	n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	request_fds_take(&msg, &s->request_fds);
	if (n == 0)
		return false;
	if ((size_t)n < sizeof(req)) {
		reply(fd, -EBADMSG, 0, "malformed request: too short");
		return true;
	}
	memcpy(&req, buf, sizeof(req));
	buf[n] = '\0';
	if (req.version != UMB_PROTOCOL_VERSION) {
		reply(fd, -EPROTO, 0, "unsupported protocol version");
		return true;
	}
	r = peer_identify(fd, &msg, &peer, &why);
	if (r < 0) {
		log_msg(LOG_NOTICE, "refused a request: %s\n", why);
		reply(fd, r, 0, why);
		return true;
	}
	r = peer_thread(&peer, req.tid, &start);
	if (r < 0) {
		reply(fd, r, 0, r == -EPERM ? "a caller may only restrict itself or its own children" :
			r == -ESRCH ? "the calling process has exited" : NULL);
		peer_release(&peer);
		return true;
	}
	switch (req.op) {
	case UMB_OP_ARM_CHILD:
	case UMB_OP_ARM_SELF:
		/* the text, its NUL, then the table of the fs items' descriptors */
		end = memchr(buf + sizeof(req), '\0', n - sizeof(req));
		if (!end) {
			reply(fd, -EBADMSG, 0, "malformed request: restrictions not terminated");
			break;
		}
		handle_arm(s, fd, &peer, &req, start, buf + sizeof(req), (unsigned char *)end + 1,
			   (size_t)(buf + n - end - 1));
		break;
	case UMB_OP_FLUSH_VERDICTS:
		handle_flush(s, fd, &peer);
		break;
	default:
		reply(fd, -EOPNOTSUPP, 0, "unknown request");
		break;
	}
	peer_release(&peer);
	return true;
}

int server_accept(struct server *s)
{
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (s->client_count >= SERVER_MAX_CLIENTS) {
		reply(fd, -EBUSY, 0, "too many clients");
		close(fd);
		return 0;
	}
	s->clients[s->client_count++] = fd;
	return 0;
}

void server_serve(struct server *s, int fd)
{
	bool keep = serve_client(s, fd);

	/* The descriptors a request brought, on every path. */
	request_fds_close(&s->request_fds);
	if (keep)
		return;
	close(fd);
	for (size_t i = 0; i < s->client_count; i++) {
		if (s->clients[i] == fd) {
			s->clients[i] = s->clients[--s->client_count];
			break;
		}
	}
}
