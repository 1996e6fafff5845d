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
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/protocol.h>

#include "arm.h"
#include "config.h"
#include "event-priority.h"
#include "log.h"
#include "macro.h"
#include "peer.h"
#include "request.h"
#include "server.h"
#include "time-util.h"

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
	    listen(fd, SERVER_BACKLOG) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/*
 * Whether the caller carries layers (umb_task, looked up through its pidfd). Fails
 * closed: a lookup that fails for a caller that has exited (ENOENT once it is reaped,
 * like a task with no storage) counts as restricted, so that a restricted root cannot
 * pass for root by exiting right after its request (its socket handed to another).
 */
static bool restricted(const struct server *s, const struct peer *peer)
{
	struct umb_task_state state;

	if (s->task_fd < 0)
		return false; /* no maps (the unit tests' server) */
	if (bpf_map_lookup_elem(s->task_fd, &peer->pidfd, &state) == 0)
		return state.layer_count > 0;
	return errno != ENOENT || !pidfd_alive(peer->pidfd);
}

bool server_unrestricted_root(const struct server *s, const struct peer *peer)
{
	return peer->uid == 0 && !restricted(s, peer);
}

/*
 * Who pays for a layer under the per-user limits (daemon/layers.c), and for its
 * requests (turns.h): whom the caller's uid is charged to (userns_account_uid(): the
 * owner of the user namespaces it is in); but a root that Umbrella restricts pays as LAYER_UID_RESTRICTED_ROOT, with the users:
 * root's exemption is for the administrator, not for a task confined to do less.
 */
static uint32_t charged_uid(const struct server *s, const struct peer *peer)
{
	if (peer->uid == 0 && restricted(s, peer))
		return LAYER_UID_RESTRICTED_ROOT;
	return (uint32_t)peer->account_uid;
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

void server_disarm(struct server *s, __u32 tid)
{
	/* The layer goes with its only holder, unless the caller's DISARM took it first. */
	(void)arm_take(s->layers, tid);
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

size_t server_events(const struct server *s, const struct peer *peer, struct umb_event_record *out)
{
	uint32_t uid = charged_uid(s, peer);

	/* Root that carries no layer reads the journal anyway: it may see every one. */
	return history_get(&s->history, uid, uid == 0, out);
}

/* The messages read from a connection being closed, at most: beyond, the rest is the
 * closer thread's. */
#define DRAIN_MAX 64

/*
 * Reads what is left on @fd, which nothing can be added to any more (shut down), and
 * closes the descriptors it brought where that cannot wait. Returns true once @fd is
 * empty: then its close() releases nothing of a caller's. Else the descriptors of the
 * message that brought one of another kind are @job's (with @fd, for the closer).
 */
static bool drain(int fd, struct closer_job *job)
{
	char control[PEER_CMSG_SPACE + REQUEST_FDS_CMSG_SPACE], byte;

	for (size_t i = 0; i < DRAIN_MAX; i++) {
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = control,
				      .msg_controllen = sizeof(control) };
		struct request_fds fds;
		ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0)
			return errno == EAGAIN;
		request_fds_take(&msg, &fds);
		if (fds.unexpected) {
			memcpy(job->fds, fds.fds, fds.count * sizeof(int));
			job->count = fds.count;
			if (fds.has_sender_pidfd)
				job->fds[job->count++] = fds.sender_pidfd;
			return false;
		}
		request_fds_close(&fds);
		/* The end (shut down and empty), not an empty message (which has a control
		 * message: SO_PASSCRED). */
		if (n == 0 && msg.msg_controllen == 0)
			return true;
	}
	return false;
}

/* What the connections hold, counted in one pass (conn_count()). */
struct conn_counts {
	size_t live;	      /* served, not being closed */
	size_t users;	      /* of every caller but root that carries no layer */
	size_t users_closing; /* of those, being closed */
	size_t own;	      /* of the uid asked about */
	size_t own_closing;   /* of those, being closed */
};

static struct conn_counts conn_count(const struct server *s, uint32_t uid)
{
	struct conn_counts n = {};

	for (size_t i = 0; i < s->client_count; i++) {
		const struct client *c = s->clients[i];

		n.live += !c->closing;
		if (c->uid == 0)
			continue;
		n.users++;
		n.users_closing += c->closing;
		n.own += c->uid == uid;
		n.own_closing += c->uid == uid && c->closing;
	}
	return n;
}

/*
 * Lists @key in umb_conn_full (@full) or takes it out, unless *@listed says it is so
 * already. A failed update is logged, and tried again at the next change: the table's
 * limits still apply.
 */
static void conn_full_set(struct server *s, uint32_t key, bool full, bool *listed)
{
	__u32 one = 1;
	int r;

	if (full == *listed)
		return;
	if (full)
		r = bpf_map_update_elem(s->conn_full_fd, &key, &one, BPF_ANY);
	else
		r = bpf_map_delete_elem(s->conn_full_fd, &key) < 0 && errno != ENOENT ? -1 : 0;
	if (r < 0) {
		log_warning_errno(errno, "Failed to update umb_conn_full for key %u: %m", key);
		return;
	}
	*listed = full;
}

/*
 * Keeps umb_conn_full as @n, counted after a change to @uid's connections, says: @uid
 * is listed while it holds max_connections_per_user slots and some of them wait for the
 * closer thread, and UMB_CONN_FULL_USERS while all users hold SERVER_USERS_MAX so; the
 * kernel then refuses their connect() (file.bpf.c). Otherwise a close that never
 * returns (a FUSE server that does not answer the FLUSH of a file it sent; whatever
 * else may wait in a release) would hold the closer thread, each connection queued
 * behind it would keep its slot, refused or not, and one user, or many uids (a user's
 * subordinate ids, a restricted root with CAP_SETUID), would take every slot. Refused
 * at connect(), they hold their share, and what they had queued in the listen backlog.
 * Root that carries no layer is never refused.
 */
static void conn_full_update(struct server *s, uint32_t uid, const struct conn_counts *n)
{
	size_t i = 0;
	bool listed;

	if (s->conn_full_fd < 0 || uid == 0)
		return;
	conn_full_set(s, UMB_CONN_FULL_USERS, n->users >= SERVER_USERS_MAX && n->users_closing,
		      &s->users_full);
	while (i < s->full_count && s->full_uids[i] != uid)
		i++;
	listed = i < s->full_count;
	/* Room for every uid that holds a slot; only failed deletes could fill it. */
	conn_full_set(s, uid,
		      n->own >= s->max_per_user && n->own_closing &&
			      (listed || s->full_count < SERVER_SLOTS),
		      &listed);
	if (listed && i == s->full_count)
		s->full_uids[s->full_count++] = uid;
	else if (!listed && i < s->full_count)
		s->full_uids[i] = s->full_uids[--s->full_count];
}

/* After a change to @uid's connections. */
static void conn_changed(struct server *s, uint32_t uid)
{
	struct conn_counts n = conn_count(s, uid);

	conn_full_update(s, uid, &n);
}

/* Forgets @c and frees it (its descriptors are closed). */
static void client_free(struct server *s, struct client *c)
{
	uint32_t uid = c->uid;

	for (size_t i = 0; i < s->client_count; i++) {
		if (s->clients[i] == c) {
			s->clients[i] = s->clients[--s->client_count];
			s->clients[s->client_count] = NULL;
			break;
		}
	}
	free(c);
	conn_changed(s, uid);
	/* A slot is free: new connections are taken again. */
	if (s->listen_source)
		(void)sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
}

/*
 * Closes connection @c (and the descriptors its request brought, s->request_fds, if
 * they are of a kind whose close() may wait). Nothing more can be sent on it once it is
 * shut down; what was sent is read, and its descriptors closed here as long as they are
 * O_PATH files and pidfds. Otherwise the connection and those descriptors go to the
 * closer thread, and @c holds its slot until that is done.
 */
static void client_close(struct server *s, struct client *c)
{
	follow_closed(&s->follows, c->fd);
	c->queued = 0; /* its uid's turn goes to its next request, or is skipped */
	c->io = sd_event_source_disable_unref(c->io);
	c->idle = sd_event_source_disable_unref(c->idle);
	(void)shutdown(c->fd, SHUT_RDWR);
	c->job.count = 0;
	if (s->request_fds.unexpected) {
		memcpy(c->job.fds, s->request_fds.fds, s->request_fds.count * sizeof(int));
		c->job.count = s->request_fds.count;
		if (s->request_fds.has_sender_pidfd)
			c->job.fds[c->job.count++] = s->request_fds.sender_pidfd;
		s->request_fds = (struct request_fds){};
	} else if (drain(c->fd, &c->job)) {
		close(c->fd);
		client_free(s, c);
		return;
	}
	c->job.fds[c->job.count++] = c->fd;
	c->closing = true;
	conn_changed(s, c->uid);
	/* Cannot fail: the queue has room for every slot. Should it, the slot stays
	 * taken, with its descriptors, and nothing waits. */
	if (closer_push(&s->closer, &c->job) < 0)
		log_error("cannot hand a connection to the closer thread: its slot stays taken");
}

/* The closer thread is done with some jobs: their slots are free. */
static int on_closer_done(_unused_ sd_event_source *source, int fd, _unused_ uint32_t revents,
			  void *userdata)
{
	struct server *s = userdata;
	eventfd_t count;

	(void)eventfd_read(fd, &count);
	for (size_t i = s->client_count; i-- > 0;) {
		struct client *c = s->clients[i];

		if (c->closing && atomic_load(&c->job.done))
			client_free(s, c);
	}
	return 0;
}

/* (Re)starts @c's idle timer: it must send a request within idle_timeout. */
static void idle_restart(struct server *s, struct client *c)
{
	int r = sd_event_source_set_time_relative(c->idle, s->idle_timeout_usec);

	if (r >= 0)
		r = sd_event_source_set_enabled(c->idle, SD_EVENT_ONESHOT);
	if (r < 0)
		log_error_errno(r, "Failed to time a connection out: %m");
}

/* Whether the peer of @fd is gone with nothing left to read: its next read is the end. */
static bool hung_up(int fd)
{
	char byte;

	/* A peek takes nothing: a message's descriptors stay in it, none is installed. */
	return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/*
 * A request (or a hang-up: EPOLLHUP comes unasked) waits on connection @c: it is queued
 * for its uid's turn (turns.h), and the connection is neither watched nor timed until
 * it is served. Nothing is read here. A hang-up with nothing before it is no work: the
 * connection is closed at once, as a turn would (client_close()), so that its slot is
 * free before the next connection of its user is counted (a turn could come after it).
 */
static void client_queue(struct server *s, struct client *c)
{
	int r;

	if (c->queued)
		return;
	if (hung_up(c->fd)) {
		client_close(s, c);
		return;
	}
	c->queued = ++s->turns.queued;
	c->queued_turn = s->turns.served;
	turns_enter(&s->turns, c->uid);
	(void)sd_event_source_set_enabled(c->io, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(c->idle, SD_EVENT_OFF);
	r = sd_event_source_set_enabled(s->turn_source, SD_EVENT_ON);
	if (r < 0) {
		/* Nothing would serve it: better closed than waiting forever. */
		log_error_errno(r, "Failed to queue a request: %m");
		client_close(s, c);
	}
}

static int on_client(_unused_ sd_event_source *source, _unused_ int fd, _unused_ uint32_t revents,
		     void *userdata)
{
	struct client *c = userdata;

	client_queue(c->server, c);
	return 0;
}

static bool accept_one(struct server *s);

/*
 * Before each turn: the connections waiting to be accepted, and the requests waiting on
 * connections not queued, take their places now, not when the loop gets to their
 * sources. sd-event dispatches one source per pass, and among sources of one priority
 * the longest pending first: the turn's own source, pending again at each pass, could
 * go before a caller's that became ready during the last request, and that caller's
 * request would wait behind one more of a flooding uid (two or three 4 s requests for
 * root's rfork in the emulated VM, past the client's 10 s). Gathered here, a request
 * that arrived while another was served is in the order before the next is chosen.
 */
static void gather(struct server *s)
{
	struct pollfd fds[SERVER_SLOTS];
	struct client *of[SERVER_SLOTS];
	size_t n = 0;

	for (size_t i = 0; i < SERVER_SLOTS && accept_one(s); i++)
		;
	for (size_t i = 0; i < s->client_count; i++) {
		struct client *c = s->clients[i];

		/* c->io is NULL once it is closed; queued ones wait already. */
		if (c->queued || c->closing || !c->io)
			continue;
		fds[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		of[n++] = c;
	}
	if (!n || poll(fds, n, 0) <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			client_queue(s, of[i]);
}

/* The oldest request of @uid waiting for its turn, or NULL. */
static struct client *oldest_queued(const struct server *s, uint32_t uid)
{
	struct client *oldest = NULL;

	for (size_t i = 0; i < s->client_count; i++) {
		struct client *c = s->clients[i];

		if (c->queued && !c->closing && c->uid == uid &&
		    (!oldest || c->queued < oldest->queued))
			oldest = c;
	}
	return oldest;
}

/* What a uid past its budget is told (turns.h). */
static const char *over_budget_text(const struct server *s)
{
	static char text[256];

	snprintf(text, sizeof(text),
		 "this user's share of umbrellad's time is used up: its requests took %llu s "
		 "of it within the last minute (request_time_per_user in umbrella.conf); try "
		 "again later",
		 (unsigned long long)(s->turns.budget_usec / USEC_PER_SEC));
	return text;
}

/*
 * Whether a turn's line may be logged at @now: TURN_LOG_BURST per TURN_LOG_INTERVAL_USEC.
 * A uid past its budget sends requests refused at no cost, as fast as it likes: a line
 * for each would write to the journal as fast, and its rate limit for umbrellad would
 * drop other users' records with them. The lines left out are counted in the next.
 */
#define TURN_LOG_BURST	       100
#define TURN_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)
static bool turn_log_allowed(struct server *s, uint64_t now)
{
	if (now - s->turn_log_start >= TURN_LOG_INTERVAL_USEC) {
		s->turn_log_start = now;
		s->turn_log_count = 0;
	}
	if (s->turn_log_count >= TURN_LOG_BURST) {
		s->turn_log_skipped++;
		return false;
	}
	s->turn_log_count++;
	return true;
}

/* Serves the request waiting on @c (queued), or refuses it when its uid is past its
 * budget; charges its uid the time it took. */
static void serve_turn(struct server *s, struct client *c)
{
	uint64_t start = now_usec(), behind = s->turns.served - c->queued_turn;
	bool keep, over, first;

	c->queued = 0;
	s->turns.served++;
	over = turns_over_budget(&s->turns, c->uid, start, &first);
	if (first)
		log_notice("uid %u is past its share of umbrellad's time (request_time_per_user "
			   "= %llu): its requests are refused until it has drained",
			   c->uid, (unsigned long long)(s->turns.budget_usec / USEC_PER_SEC));
	/* Only when others wait too: then the order is worth a line (tests read it). */
	if ((behind || turns_waiting(&s->turns)) && turn_log_allowed(s, start)) {
		char skipped[64] = "";

		if (s->turn_log_skipped)
			snprintf(skipped, sizeof(skipped), " (%llu turns before it not logged)",
				 (unsigned long long)s->turn_log_skipped);
		log_full_errno(LOG_DEBUG, 0,
			       "turn %llu: uid %u%s, queued behind %llu requests, %zu uids waiting"
			       "%s",
			       (unsigned long long)s->turns.served, c->uid,
			       over ? " refused (past its budget)" : "", (unsigned long long)behind,
			       turns_waiting(&s->turns), skipped);
		s->turn_log_skipped = 0;
	}
	keep = over ? request_refuse(s, c->fd, -EAGAIN, over_budget_text(s)) :
		      request_serve(s, c->fd);
	turns_charge(&s->turns, c->uid, now_usec() - start, now_usec());
	if (!keep) {
		client_close(s, c);
		return;
	}
	(void)sd_event_source_set_enabled(c->io, SD_EVENT_ON);
	/* A connection that follows layers waits for their records: no time limit (it
	 * counts for its user all the same). Any other must ask again in time. */
	if (follow_has(&s->follows, c->fd))
		(void)sd_event_source_set_enabled(c->idle, SD_EVENT_OFF);
	else
		idle_restart(s, c);
}

/*
 * One turn: the arrivals gathered, the next uid in the order serves its oldest request;
 * it goes back at the end at the next turn, behind those that arrive meanwhile, if it
 * has more waiting. turn_fd stays readable: this source is pending again at each pass
 * of the loop, in turn with the other sources of its priority (event-priority.h), so a
 * queue of requests never starves them.
 */
static int on_turn(_unused_ sd_event_source *source, _unused_ int fd, _unused_ uint32_t revents,
		   void *userdata)
{
	struct server *s = userdata;
	struct client *c = NULL;
	uint32_t uid;

	gather(s);
	while (!c && turns_next(&s->turns, &uid))
		c = oldest_queued(s, uid);
	if (c) {
		for (size_t i = 0; i < s->client_count; i++)
			if (s->clients[i] != c && s->clients[i]->queued &&
			    !s->clients[i]->closing && s->clients[i]->uid == uid) {
				turns_enter(&s->turns, uid); /* taken at the next turn */
				break;
			}
		serve_turn(s, c);
	}
	if (!turns_waiting(&s->turns))
		(void)sd_event_source_set_enabled(s->turn_source, SD_EVENT_OFF);
	return 0;
}

/* A connection sent no request for idle_timeout. */
static int on_idle(_unused_ sd_event_source *source, _unused_ uint64_t usec, void *userdata)
{
	struct client *c = userdata;

	client_close(c->server, c);
	return 0;
}

/*
 * The uid a new connection is charged to (turns.h, the limits below), into *@ret_uid:
 * whom its connector's uid is charged to (userns_account_uid()), and a root that
 * carries layers as LAYER_UID_RESTRICTED_ROOT (restricted()). Return: 0, or -errno
 * with *@ret_error set when the connection is to be refused (its connector has exited,
 * or cannot be told apart from another user's); it is charged all the same, while it is
 * closed: to its connector's uid as SO_PEERCRED tells it, as restricted if root (its
 * namespaces are gone with it), and to SERVER_UID_UNIDENTIFIED only when there is no
 * uid at all.
 * Still open: a connector with subordinate ids that exits before the accept is
 * charged to its own uid, not to the owner of its namespaces (each of its uids then
 * holds a share of connections being closed); the fix is a charge recorded at the
 * connect (lsm/unix_stream_connect), which sees the connector alive.
 */
static int connection_uid(const struct server *s, int fd, uint32_t *ret_uid, const char **ret_error)
{
	socklen_t len = sizeof(struct ucred);
	struct ucred cred;
	struct peer peer;
	int r;

	r = peer_connector(fd, &peer, ret_error);
	if (r >= 0) {
		*ret_uid = charged_uid(s, &peer);
		peer_release(&peer);
		return 0;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		*ret_uid = SERVER_UID_UNIDENTIFIED;
	else
		*ret_uid = cred.uid == 0 ? LAYER_UID_RESTRICTED_ROOT : cred.uid;
	return r;
}

/*
 * Why a connection of @uid is refused, or NULL: the limits above SERVER_MAX_CLIENTS.
 * @n counts it already.
 */
static const char *over_limit(const struct server *s, uint32_t uid, const struct conn_counts *n)
{
	if (n->live > SERVER_MAX_CLIENTS)
		return "too many clients";
	if (uid == 0)
		return NULL;
	if (n->own > s->max_per_user)
		return "too many connections of this user (max_connections_per_user in "
		       "umbrella.conf)";
	if (n->users > SERVER_USERS_MAX)
		return "too many clients (the rest is kept for root)";
	return NULL;
}

/* Accepts a waiting connection. Return: whether one was taken (served or refused). */
static bool accept_one(struct server *s)
{
	struct conn_counts n;
	const char *why;
	struct client *c;
	uint32_t uid;
	int fd, r;

	/* Every slot taken (most by connections the closer thread has not closed yet):
	 * new ones wait in the backlog until one is free (client_free()). */
	if (s->client_count >= SERVER_SLOTS) {
		(void)sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
		return false;
	}
	fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		/* A connection that went before we took it, or no descriptor left: the
		 * client sees its connection fail; the loop goes on. */
		if (errno != EAGAIN && errno != ECONNABORTED)
			log_warning_errno(errno, "Failed to accept a connection: %m");
		return false;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		/* No slot to hand it to the closer thread in, should it need one. */
		request_reply(fd, -ENOMEM, 0, NULL);
		close(fd);
		return true;
	}
	r = connection_uid(s, fd, &uid, &why);
	/* Refused or not, it has a slot: closing it may need the closer thread. */
	*c = (struct client){ .server = s, .fd = fd, .uid = uid };
	s->clients[s->client_count++] = c;
	if (r < 0) {
		request_reply(fd, r, 0, why);
		goto refuse;
	}
	n = conn_count(s, c->uid);
	why = over_limit(s, c->uid, &n);
	if (why) {
		request_reply(fd, -EBUSY, 0, why);
		goto refuse;
	}
	conn_full_update(s, c->uid, &n);
	r = event_add_io(s->event, &c->io, fd, EPOLLIN, PRIORITY_WORK, on_client, c);
	if (r >= 0)
		r = sd_event_add_time_relative(s->event, &c->idle, CLOCK_MONOTONIC,
					       s->idle_timeout_usec, 0, on_idle, c);
	if (r >= 0)
		r = sd_event_source_set_priority(c->idle, PRIORITY_WORK);
	if (r < 0) {
		log_warning_errno(r, "Failed to serve a connection: %m");
		request_reply(fd, r, 0, "umbrellad cannot serve this connection");
		goto refuse;
	}
	return true;

refuse:
	/* What it may have sent already is read and closed as for any connection. */
	client_close(s, c);
	return true;
}

static int on_listen(_unused_ sd_event_source *source, _unused_ int fd, _unused_ uint32_t revents,
		     void *userdata)
{
	(void)accept_one(userdata);
	return 0;
}

/*
 * Empties umb_conn_full (a previous umbrellad's entries: its connections are gone) and
 * marks the socket for file.bpf.c. Fails closed: without the mark, one user could take
 * every slot again. Return: 0 or -errno (logged).
 */
static int conn_full_reset(struct server *s)
{
	__u32 key, one = 1;

	if (s->conn_full_fd < 0)
		return 0;
	while (bpf_map_get_next_key(s->conn_full_fd, NULL, &key) == 0)
		if (bpf_map_delete_elem(s->conn_full_fd, &key) < 0)
			return log_error_errno(-errno, "Failed to empty umb_conn_full: %m");
	if (bpf_map_update_elem(s->daemon_sock_fd, &s->listen_fd, &one, BPF_ANY) < 0)
		return log_error_errno(-errno, "Failed to mark the socket in umb_daemon_sock: %m");
	return 0;
}

int server_attach(struct server *s, sd_event *e)
{
	int r;

	s->event = e;
	if (!s->max_per_user)
		s->max_per_user = CONFIG_MAX_CONNECTIONS_PER_USER_DEFAULT;
	if (!s->idle_timeout_usec)
		s->idle_timeout_usec = CONFIG_IDLE_TIMEOUT_DEFAULT * USEC_PER_SEC;
	r = conn_full_reset(s);
	if (r < 0)
		return r;
	r = closer_start(&s->closer, SERVER_SLOTS);
	if (r < 0)
		return log_error_errno(r, "Failed to start the closer thread: %m");
	r = event_add_io(e, &s->closer_source, s->closer.done_fd, EPOLLIN, PRIORITY_WORK,
			 on_closer_done, s);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the closer thread: %m");
	s->turn_fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->turn_fd < 0)
		return log_error_errno(-errno, "Failed to create an eventfd: %m");
	r = event_add_io(e, &s->turn_source, s->turn_fd, EPOLLIN, PRIORITY_WORK, on_turn, s);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->turn_source, SD_EVENT_OFF);
	if (r < 0)
		return log_error_errno(r, "Failed to serve the requests in turns: %m");
	r = event_add_io(e, &s->listen_source, s->listen_fd, EPOLLIN, PRIORITY_WORK, on_listen, s);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the socket: %m");
	return 0;
}

void server_close(struct server *s)
{
	/* Those being closed stay the closer thread's (it may never be done with them). */
	for (size_t i = s->client_count; i-- > 0;)
		if (!s->clients[i]->closing)
			client_close(s, s->clients[i]);
	s->closer_source = sd_event_source_disable_unref(s->closer_source);
	closer_stop(&s->closer);
	if (s->turn_source) {
		s->turn_source = sd_event_source_disable_unref(s->turn_source);
		close(s->turn_fd);
	}
	s->listen_source = sd_event_source_disable_unref(s->listen_source);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}
