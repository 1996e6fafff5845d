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
 * learns the outcome from the kernel. One round trip per rfork. A caller may follow the
 * denials of the layers it asked for (follow.h), so that it can explain them.
 * Restrictions only ever grow: nothing here removes a layer from a task.
 *
 * Reading and checking a request is request.c's; this file has the socket and what
 * touches the BPF maps (server_arm()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/protocol.h>

#include "arm.h"
#include "event-priority.h"
#include "log.h"
#include "macro.h"
#include "peer.h"
#include "request.h"
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

/* Whether the caller carries layers (umb_task, looked up through its pidfd). */
static bool restricted(const struct server *s, const struct peer *peer)
{
	struct umb_task_state state;

	return bpf_map_lookup_elem(s->task_fd, &peer->pidfd, &state) == 0 && state.layer_count > 0;
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

int server_arm(struct server *s, const struct peer *peer, const struct umb_request *req,
	       uint64_t start, const struct umb_restrictions *r, const struct fs_refs *refs,
	       __u32 *ret_id, char **ret_error)
{
	bool self = req->op == UMB_OP_ARM_SELF;
	struct fs_refs at = *refs;
	__u32 id = 0;
	int ret;

	/* The caller's namespace is read through its /proc directory (fs-watch.c). */
	at.proc_fd = peer->proc_fd;
	ret = layers_create_at(s->layers, r, &at, (__u32)peer->pid, charged_uid(s, peer),
			       self ? UMB_ORIGIN_RESTRICT_SELF : UMB_ORIGIN_RFORK,
			       req->flags & UMB_ARM_PERMISSIVE ? UMB_LAYER_PERMISSIVE : 0, &id,
			       ret_error);
	if (ret < 0)
		return ret;
	/* The arm is the layer's first holder. UMB_ARM_PERMISSIVE is the layer's, not the
	 * kernel's arm's. */
	ret = arm_caller(s, peer, req->tid, start, id,
			 (req->flags & UMB_ARM_ON_EXEC) | (self ? UMB_ARM_SELF : 0));
	if (ret < 0) {
		*ret_error = strdup(ret == -EBUSY  ? "too many pending requests" :
				    ret == -EEXIST ? "this thread has a request pending already" :
				    ret == -ESRCH  ? "the calling thread has exited" :
						     strerror(-ret));
		layers_released(s->layers, id); /* never held: freed at once */
		return ret;
	}
	*ret_id = id;
	/* Its creator's follow connection (umbrella-cli run) has it from the start. */
	follow_layer_created(&s->follows, peer->pid, id);
	return 0;
}

/*
 * Who may follow layer @id: the process that asked for it, with the uid it was charged
 * to (a pid reused by another user's process is not its creator); root that carries no
 * layer (it reads the journal anyway). Anyone else is refused, whether the layer
 * exists or not, so that other users' layers cannot be probed.
 */
static bool may_follow(const struct server *s, const struct peer *peer, __u32 id)
{
	const struct umb_layer *l;

	if (peer->uid == 0 && !restricted(s, peer))
		return layers_get(s->layers, id) != NULL;
	l = layers_get(s->layers, id);
	return l && l->creator_pid == (__u32)peer->pid && l->uid == charged_uid(s, peer);
}

int server_follow(struct server *s, int fd, const struct peer *peer, const struct umb_request *req,
		  __u32 layer, const char **ret_error)
{
	int r;

	if (req->flags & UMB_FOLLOW_END) {
		/* Every record written before the request, on to the followers. */
		if (s->events)
			(void)ring_buffer__consume(s->events);
		r = follow_end(&s->follows, fd);
		if (r == -ENOENT)
			*ret_error = "this connection follows no layer";
		else if (r < 0)
			r = -EPIPE;
		return r;
	}
	if (layer && !may_follow(s, peer, layer)) {
		*ret_error = "a caller may only follow the layers it asked for";
		return -EPERM;
	}
	return follow_add(&s->follows, fd, (uid_t)peer->uid, peer->pid, peer->pidfd, layer,
			  ret_error);
}

/* Forgets connection @i (its source) and closes it. */
static void client_close(struct server *s, size_t i)
{
	int fd = sd_event_source_get_io_fd(s->clients[i]);

	follow_closed(&s->follows, fd);
	sd_event_source_disable_unref(s->clients[i]);
	close(fd);
	s->clients[i] = s->clients[--s->client_count];
	s->clients[s->client_count] = NULL; /* a free slot holds no source */
}

/* Answers the requests waiting on a connection (and a hang-up: EPOLLHUP comes
 * unasked); closes it when the client has left. */
static int on_client(sd_event_source *source, int fd, _unused_ uint32_t revents, void *userdata)
{
	struct server *s = userdata;

	if (request_serve(s, fd))
		return 0;
	for (size_t i = 0; i < s->client_count; i++) {
		if (s->clients[i] == source) {
			client_close(s, i);
			break;
		}
	}
	return 0;
}

/* Accepts a waiting connection. */
static int on_listen(_unused_ sd_event_source *source, int listen_fd, _unused_ uint32_t revents,
		     void *userdata)
{
	struct server *s = userdata;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int r;

	if (fd < 0) {
		/* A connection that went before we took it, or no descriptor left: the
		 * client sees its connection fail; the loop goes on. */
		if (errno != EAGAIN && errno != ECONNABORTED)
			log_warning_errno(errno, "Failed to accept a connection: %m");
		return 0;
	}
	if (s->client_count >= SERVER_MAX_CLIENTS) {
		request_reply(fd, -EBUSY, 0, "too many clients");
		close(fd);
		return 0;
	}
	r = event_add_io(s->event, &s->clients[s->client_count], fd, EPOLLIN, PRIORITY_WORK,
			 on_client, s);
	if (r < 0) {
		log_warning_errno(r, "Failed to serve a connection: %m");
		request_reply(fd, r, 0, "umbrellad cannot serve this connection");
		close(fd);
		return 0;
	}
	s->client_count++;
	return 0;
}

int server_attach(struct server *s, sd_event *e)
{
	int r;

	s->event = e;
	r = event_add_io(e, &s->listen_source, s->listen_fd, EPOLLIN, PRIORITY_WORK, on_listen, s);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the socket: %m");
	return 0;
}

void server_close(struct server *s)
{
	while (s->client_count)
		client_close(s, s->client_count - 1);
	s->listen_source = sd_event_source_disable_unref(s->listen_source);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}
