// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - connections that follow layers' denials (follow.h)
 *
 * umbrellad's event loop must never wait for a reader: a record is sent with
 * MSG_DONTWAIT, and one that the socket cannot take (its reader is slow, or never
 * reads) is dropped and counted in the next one. The socket's own buffer is the
 * bounded queue, charged to the connection. A user holds at most UMB_FOLLOW_PER_UID
 * connections, all users FOLLOW_MAX: one user cannot take umbrellad's descriptors.
 * Who may follow what is server.c's (it has the layers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "follow.h"

static struct follower *find(struct follows *f, int fd)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->list[i].fd == fd)
			return &f->list[i];
	return NULL;
}

/* Whether the process behind @pidfd still runs: its pid is then still its own. */
static bool alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

static int add_layer(struct follower *w, uint32_t layer)
{
	for (unsigned int i = 0; i < w->layer_count; i++)
		if (w->layers[i] == layer)
			return 0;
	if (w->layer_count >= FOLLOW_LAYERS)
		return -E2BIG;
	w->layers[w->layer_count++] = layer;
	return 0;
}

int follow_add(struct follows *f, int fd, uid_t uid, pid_t pid, int pidfd, uint32_t layer,
	       const char **ret_error)
{
	struct follower *w = find(f, fd);
	bool added = false;
	unsigned int same_uid = 0;
	int r;

	if (!w) {
		for (size_t i = 0; i < f->count; i++)
			same_uid += f->list[i].uid == uid;
		if (same_uid >= UMB_FOLLOW_PER_UID) {
			*ret_error = "this user follows too many layers already";
			return -EUSERS;
		}
		if (f->count >= FOLLOW_MAX) {
			*ret_error = "umbrellad follows too many layers already";
			return -EBUSY;
		}
		w = &f->list[f->count];
		*w = (struct follower){ .fd = fd, .uid = uid, .pidfd = -1 };
		added = true;
	}
	if (layer) {
		r = add_layer(w, layer);
		if (r < 0) {
			*ret_error = "this connection follows too many layers";
			return r;
		}
	} else if (w->own) {
		*ret_error = "this connection follows the caller's layers already";
		return -EALREADY;
	} else {
		/* Its own descriptor: the request's goes with the request. */
		w->pidfd = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
		if (w->pidfd < 0) {
			*ret_error = "cannot keep the caller's pidfd";
			return -errno;
		}
		w->pid = pid;
		w->own = true;
	}
	if (added)
		f->count++;
	return 0;
}

void follow_layer_created(struct follows *f, pid_t pid, uint32_t id)
{
	for (size_t i = 0; i < f->count; i++) {
		struct follower *w = &f->list[i];

		if (w->own && w->pid == pid && alive(w->pidfd))
			(void)add_layer(w, id);
	}
}

bool follow_any(const struct follows *f)
{
	return f->count > 0;
}

bool follow_has(const struct follows *f, int fd)
{
	return find((struct follows *)f, fd) != NULL;
}

static bool follows_layer(const struct follower *w, uint32_t layer)
{
	for (unsigned int i = 0; i < w->layer_count; i++)
		if (w->layers[i] == layer)
			return true;
	return false;
}

void follow_denial(struct follows *f, const struct umb_denial *d)
{
	for (size_t i = 0; i < f->count; i++) {
		struct follower *w = &f->list[i];
		struct umb_denial copy;

		if (!follows_layer(w, d->layer))
			continue;
		copy = *d;
		copy.dropped = w->dropped;
		/* EPIPE and the like: the reader has gone, its POLLHUP closes it. */
		if (send(w->fd, &copy, sizeof(copy), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
		    (errno == EAGAIN || errno == ENOBUFS))
			w->dropped++;
	}
}

static void forget(struct follows *f, struct follower *w)
{
	if (w->pidfd >= 0)
		close(w->pidfd);
	*w = f->list[--f->count];
}

int follow_end(struct follows *f, int fd)
{
	struct follower *w = find(f, fd);
	struct umb_denial end = { .kind = UMB_DENIAL_END };
	int r = 0;

	if (!w)
		return -ENOENT;
	end.dropped = w->dropped;
	/* Never waited for either: a reader that cannot take it sees the connection close
	 * without it, and knows that records may be missing. */
	if (send(fd, &end, sizeof(end), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		r = -errno;
	forget(f, w);
	return r;
}

void follow_closed(struct follows *f, int fd)
{
	struct follower *w = find(f, fd);

	if (w)
		forget(f, w);
}
