// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - following the mounts made below restricted directories (fs-watch.h).
 *
 * A layer's rule on a directory D goes on the roots of the mounts below D when the layer
 * is made (fs-mounts.c): a bind mount or an open_tree(OPEN_TREE_CLONE) copy of such a
 * mount elsewhere is never walked up to D. A file system mounted below D later (a USB
 * stick on D/usb, a tmpfs) needs the same, or a restricted task with "unshare -Urm"
 * copies its mount elsewhere and reads it. So umbrellad keeps, for each layer, the
 * directories it restricts and the mount namespace its caller saw them in, and each time
 * that namespace's mounts change (POLLPRI on its mountinfo) puts each directory's rule on
 * the roots of the mounts on it and below it.
 *
 * A namespace is kept as an open /proc/PID/mountinfo of the caller, opened through the
 * caller's /proc directory that umbrellad opened while its pidfd showed it alive (peer.h;
 * it holds the
 * namespace and the caller's root: its paths stay the caller's view after the caller is
 * gone) and an O_PATH descriptor of that root, from which a mount point is opened, in
 * that root and through no symbolic link, and checked to be that mount (by its id).
 * Namespaces are shared by every layer whose caller saw the same one, and counted per
 * uid: a user makes as many mount namespaces as it likes, umbrellad holds two
 * descriptors for each. Every pass reads the whole mountinfo, once: a mount uncovered
 * since (the one above it unmounted) is reached then, and a mount id that the kernel
 * reused for a new mount between two passes is not taken for the old one. A pass does
 * at most MOUNT_BUDGET_STEPS of work (lines read, names looked up: mount-guard.h).
 *
 * A pass is not made at each change but put in a queue: any user can mount and unmount
 * in a loop in a namespace of its own (or with fusermount in the system's), and a pass
 * reads every mount. A namespace is read again at most once per
 * FS_WATCH_RESCAN_GAP_USEC, the passes of one uid's namespaces (root's aside) take at
 * most FS_WATCH_USER_BUDGET_USEC of the loop a second, the namespace that waits the
 * longest goes first, and one pass is made per turn of the loop (beside the socket's
 * requests, in turn by age). The kernel reports a change once per poll and umbrellad
 * keeps it (pending_since) until the pass, which starts after it: the last change is
 * always read, later.
 *
 * The rules added count against the layer owner's max_rules_per_user and the maps'
 * share of all users (layers_add_root_rule()), and go with the layer. A rule refused for
 * a limit leaves that mount uncovered: logged, once per directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event-priority.h"
#include "fdinfo.h"
#include "fs-mounts.h"
#include "fs-watch.h"
#include "layers.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"

/* Brings @u's debt up to @now: paid back at FS_WATCH_USER_BUDGET_USEC a second. */
static void user_repay(struct fs_watch_user *u, uint64_t now)
{
	uint64_t paid;

	if (now <= u->at_usec)
		return;
	paid = (now - u->at_usec) * FS_WATCH_USER_BUDGET_USEC / USEC_PER_SEC;
	u->debt_usec = paid >= u->debt_usec ? 0 : u->debt_usec - paid;
	u->at_usec = now;
}

/* The earliest time @ns's next pass may start (its gap, its uid's budget). */
static uint64_t ns_due(const struct fs_watch_ns *ns, uint64_t now)
{
	uint64_t due = ns->scanned_at + FS_WATCH_RESCAN_GAP_USEC;

	if (ns->user) {
		user_repay(ns->user, now);
		if (ns->user->debt_usec > FS_WATCH_USER_BUDGET_USEC) {
			uint64_t wait = (ns->user->debt_usec - FS_WATCH_USER_BUDGET_USEC) *
					USEC_PER_SEC / FS_WATCH_USER_BUDGET_USEC;

			if (now + wait + 1 > due)
				due = now + wait + 1;
		}
	}
	return due;
}

/* Arms the pass timer for the first pending namespace due, or turns it off. */
static void schedule_rescan(struct fs_watch *w)
{
	uint64_t now = now_usec(), next = UINT64_MAX, armed;
	int enabled = SD_EVENT_OFF, r;

	if (!w->rescan)
		return;
	for (size_t i = 0; i < w->ns_count; i++) {
		uint64_t due;

		if (!w->ns[i]->pending_since)
			continue;
		due = ns_due(w->ns[i], now);
		if (due < next)
			next = due;
	}
	if (next == UINT64_MAX) {
		(void)sd_event_source_set_enabled(w->rescan, SD_EVENT_OFF);
		return;
	}
	/* One armed as early keeps its place (setting it again would cost its age). */
	if (sd_event_source_get_enabled(w->rescan, &enabled) >= 0 && enabled == SD_EVENT_ONESHOT &&
	    sd_event_source_get_time(w->rescan, &armed) >= 0 && armed <= next)
		return;
	r = sd_event_source_set_time(w->rescan, next);
	if (r >= 0)
		r = sd_event_source_set_enabled(w->rescan, SD_EVENT_ONESHOT);
	/* Only a bug makes this fail; the next change arms it again. */
	if (r < 0)
		log_error_errno(r, "cannot schedule a pass over the followed mounts: %m");
}

/* The pending namespace due that waits the longest: read now; one a turn. */
static int on_rescan_due(_unused_ sd_event_source *s, _unused_ uint64_t usec, void *userdata)
{
	struct fs_watch *w = userdata;
	struct fs_watch_ns *first = NULL;
	uint64_t now = now_usec();

	for (size_t i = 0; i < w->ns_count; i++) {
		struct fs_watch_ns *ns = w->ns[i];

		if (ns->pending_since && ns_due(ns, now) <= now &&
		    (!first || ns->pending_since < first->pending_since))
			first = ns;
	}
	if (first) {
		first->pending_since = 0;
		first->scanned_at = now;
		(void)fs_watch_scan(w, first);
		if (first->user) {
			user_repay(first->user, now);
			first->user->debt_usec += now_usec() - now;
		}
	}
	schedule_rescan(w);
	return 0;
}

static int on_ns_changed(_unused_ sd_event_source *s, _unused_ int fd, uint32_t revents,
			 void *userdata)
{
	struct fs_watch_ns *ns = userdata;

	if (!(revents & (EPOLLPRI | EPOLLERR)))
		return 0;
	if (!ns->pending_since)
		ns->pending_since = now_usec();
	schedule_rescan(ns->watch);
	return 0;
}

static int ns_attach(struct fs_watch *w, struct fs_watch_ns *ns)
{
	return event_add_io(w->event, &ns->source, ns->mountinfo_fd, EPOLLPRI, PRIORITY_WORK,
			    on_ns_changed, ns);
}

static void ns_free(struct fs_watch_ns *ns)
{
	if (ns->user && --ns->user->refs == 0)
		free(ns->user);
	sd_event_source_disable_unref(ns->source);
	mount_guard_close(&ns->guard);
	if (ns->mountinfo_fd >= 0)
		close(ns->mountinfo_fd);
	if (ns->root_fd >= 0)
		close(ns->root_fd);
	free(ns);
}

/* The namespaces charged to @uid, and in *@ret_users those of every uid but root. */
static size_t ns_count_of(const struct fs_watch *w, uint32_t uid, size_t *ret_users)
{
	size_t n = 0;

	*ret_users = 0;
	for (size_t i = 0; i < w->ns_count; i++) {
		n += w->ns[i]->uid == uid;
		*ret_users += w->ns[i]->uid != 0;
	}
	return n;
}

int fs_watch_ns_get(struct fs_watch *w, int proc_fd, int peer, uint32_t uid,
		    struct fs_watch_ns **ret, char **ret_error)
{
	_cleanup_close_ int own_proc = -1;
	struct fs_watch_ns *ns = NULL, **grown;
	struct stat ns_st, root_st, st;
	size_t own, users;
	int r;

	if (proc_fd < 0) {
		char path[32];

		if (peer > 0)
			snprintf(path, sizeof(path), "/proc/%d", peer);
		else
			snprintf(path, sizeof(path), "/proc/self");
		own_proc = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (own_proc < 0)
			goto fail_errno;
		proc_fd = own_proc;
	}
	if (fstatat(proc_fd, "ns/mnt", &ns_st, 0) < 0 || fstatat(proc_fd, "root", &root_st, 0) < 0)
		goto fail_errno;
	for (size_t i = 0; i < w->ns_count; i++) {
		ns = w->ns[i];
		if (ns->ns_dev == ns_st.st_dev && ns->ns_ino == ns_st.st_ino &&
		    ns->root_dev == root_st.st_dev && ns->root_ino == root_st.st_ino) {
			ns->refs++;
			*ret = ns;
			return 0;
		}
	}
	ns = NULL;
	own = ns_count_of(w, uid, &users);
	if (w->ns_count >= FS_WATCH_NS_MAX ||
	    (uid != 0 && (own >= FS_WATCH_NS_MAX_PER_USER || users >= FS_WATCH_NS_MAX_USERS))) {
		if (asprintf(ret_error,
			     "umbrellad follows the mounts of %u mount namespaces at most (%u "
			     "per user, %u for all users but root): it frees up as restricted "
			     "processes exit",
			     FS_WATCH_NS_MAX, FS_WATCH_NS_MAX_PER_USER, FS_WATCH_NS_MAX_USERS) < 0)
			*ret_error = NULL;
		return -ENOSPC;
	}
	grown = reallocarray(w->ns, w->ns_count + 1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	w->ns = grown;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	*ns = (struct fs_watch_ns){ .watch = w,
				    .ns_dev = ns_st.st_dev,
				    .ns_ino = ns_st.st_ino,
				    .root_dev = root_st.st_dev,
				    .root_ino = root_st.st_ino,
				    .uid = uid,
				    .refs = 1 };
	if (uid != 0) {
		for (size_t i = 0; i < w->ns_count && !ns->user; i++)
			if (w->ns[i]->uid == uid)
				ns->user = w->ns[i]->user;
		if (!ns->user) {
			ns->user = calloc(1, sizeof(*ns->user));
			if (!ns->user) {
				free(ns);
				return -ENOMEM;
			}
		}
		ns->user->refs++;
	}
	ns->mountinfo_fd = openat(proc_fd, "mountinfo", O_RDONLY | O_CLOEXEC);
	ns->root_fd = openat(proc_fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ns->mountinfo_fd < 0 || ns->root_fd < 0 || fstat(ns->root_fd, &st) < 0)
		goto fail_errno;
	if (st.st_dev != root_st.st_dev || st.st_ino != root_st.st_ino) {
		r = -EAGAIN; /* the caller changed its root meanwhile */
		goto fail;
	}
	r = mount_guard_open(&ns->guard, proc_fd, peer, ns->mountinfo_fd);
	if (r < 0)
		goto fail;
	ns->guard.proc_fd = -1; /* not kept: the open mountinfo holds the namespace */
	if (w->event) {
		r = ns_attach(w, ns);
		if (r < 0)
			goto fail;
	}
	w->ns[w->ns_count++] = ns;
	*ret = ns;
	return 0;

fail_errno:
	r = -errno;
fail:
	if (ns)
		ns_free(ns);
	if (asprintf(ret_error, "cannot follow the mounts of the caller's mount namespace: %s",
		     strerror(-r)) < 0)
		*ret_error = NULL;
	return r;
}

void fs_watch_ns_put(struct fs_watch *w, struct fs_watch_ns *ns)
{
	if (--ns->refs > 0)
		return;
	for (size_t i = 0; i < w->ns_count; i++) {
		if (w->ns[i] != ns)
			continue;
		w->ns[i] = w->ns[--w->ns_count];
		break;
	}
	ns_free(ns);
}

int fs_watch_add_dir(struct fs_watch *w, struct fs_watch_ns *ns, uint32_t layer, const char *path,
		     uint32_t access)
{
	struct fs_watch_dir *grown;
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	grown = reallocarray(w->dirs, w->dir_count + 1, sizeof(*grown));
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	w->dirs = grown;
	w->dirs[w->dir_count++] =
		(struct fs_watch_dir){ .layer = layer, .access = access, .path = copy, .ns = ns };
	ns->refs++;
	return 0;
}

void fs_watch_forget(struct fs_watch *w, uint32_t layer)
{
	size_t kept = 0;

	for (size_t i = 0; i < w->dir_count; i++) {
		struct fs_watch_dir *d = &w->dirs[i];

		if (d->layer != layer) {
			w->dirs[kept++] = *d;
			continue;
		}
		free(d->path);
		fs_watch_ns_put(w, d->ns);
	}
	w->dir_count = kept;
}

/*
 * Opens the root of mount @id, whose mount point is @point in @ns, as the caller saw it
 * (its root, no symbolic link), looking names up only where @ns's guard lets it: the
 * mount itself, not one mounted over it since. Return: the O_PATH descriptor and its
 * inode number in *@ret_ino, or -errno (-ESTALE: another mount is there now;
 * -EREMOTEIO: refused by the guard, mount-guard.h).
 */
static int mount_root_open(const struct fs_watch_ns *ns, const char *point, int id,
			   uint64_t *ret_ino)
{
	uint64_t v[2];
	int fd, r;

	fd = mount_guard_openat(&ns->guard, ns->root_fd, point);
	if (fd < 0)
		return fd;
	r = fdinfo_read(fd, 2, (const char *const[]){ "mnt_id", "ino" }, v);
	if (r == 0 && v[0] != (uint64_t)id)
		r = -ESTALE;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_ino = v[1];
	return fd;
}

/* Whether @ns has a followed directory on @point or above it. */
static bool point_followed(const struct fs_watch *w, const struct fs_watch_ns *ns,
			   const char *point)
{
	for (size_t i = 0; i < w->dir_count; i++)
		if (w->dirs[i].ns == ns && (!strcmp(point, w->dirs[i].path) ||
					    fs_mount_point_below(point, w->dirs[i].path)))
			return true;
	return false;
}

/* The rules of @ns's followed directories on @point and above it, on the root of mount
 * @id (on @point, super block @dev). Return: 0, or -MOUNT_BUDGET_ERRNO when the pass is
 * past its budget (mount-guard.h). */
static int follow_mount(struct fs_watch *w, struct fs_watch_ns *ns, int id, uint32_t dev,
			const char *point)
{
	uint64_t ino;
	int fd, r;

	fd = mount_root_open(ns, point, id, &ino);
	if (fd == -EREMOTEIO && !ns->guard_logged) {
		log_error("the mount on %s, below a restricted directory, is not restricted: "
			  "the way to it is through an overlay or FUSE mount made in a user "
			  "namespace, whose FUSE server could stall umbrellad",
			  point);
		ns->guard_logged = true;
	}
	if (fd == -MOUNT_BUDGET_ERRNO)
		return fd;
	if (fd < 0)
		return 0; /* unmounted or covered since: the next pass sees what is there */
	for (size_t i = 0; i < w->dir_count; i++) {
		struct fs_watch_dir *d = &w->dirs[i];
		char *error = NULL;

		if (d->ns != ns ||
		    (strcmp(point, d->path) && !fs_mount_point_below(point, d->path)))
			continue;
		r = layers_add_root_rule(w->layers, d->layer, dev, ino, d->access, &error);
		if (r > 0)
			log_info("layer %u: the mount on %s (below its rule on %s) is restricted "
				 "too",
				 d->layer, point, d->path);
		else if (r < 0 && r != -ENOENT && !d->refused_logged) {
			log_error("layer %u: the mount on %s, below its rule on %s, is not "
				  "restricted (a bind mount or clone of it is not covered): %s",
				  d->layer, point, d->path, error ? error : strerror(-r));
			d->refused_logged = true;
		}
		free(error);
	}
	close(fd);
	return 0;
}

/* One read of @ns's mountinfo per pass: the guard's, which its checks of the pass use
 * too (mount_guard_read()). */
int fs_watch_scan(struct fs_watch *w, struct fs_watch_ns *ns)
{
	const struct mount_entry *mounts = NULL;
	size_t count = 0;
	int r;

	r = mount_guard_read(&ns->guard, &mounts, &count);
	for (size_t i = 0; r == 0 && i < count; i++)
		if (point_followed(w, ns, mounts[i].point))
			r = follow_mount(w, ns, mounts[i].id, mounts[i].dev, mounts[i].point);
	/* A user's namespace with more or deeper mounts than a pass may walk: the mounts
	 * past it stay uncovered, as for a limit (once per namespace in the log). */
	if (r == -MOUNT_BUDGET_ERRNO) {
		if (!ns->budget_logged)
			log_error("a followed mount namespace (uid %u) has more or deeper mounts "
				  "than a pass may walk (%u steps): the mounts past them, below "
				  "restricted directories, are not restricted",
				  ns->uid, MOUNT_BUDGET_STEPS);
		ns->budget_logged = true;
		return r;
	}
	if (r < 0)
		return log_error_errno(r, "cannot read a followed mountinfo: %m");
	return 0;
}

int fs_watch_attach(struct fs_watch *w, sd_event *e)
{
	int r;

	w->event = e;
	r = event_add_timer_off(e, &w->rescan, 1, PRIORITY_WORK, on_rescan_due, w);
	if (r < 0)
		return log_error_errno(r, "cannot schedule the passes over followed mounts: %m");
	for (size_t i = 0; i < w->ns_count; i++) {
		if (w->ns[i]->source)
			continue;
		r = ns_attach(w, w->ns[i]);
		if (r < 0)
			return log_error_errno(r, "cannot follow the mounts of a namespace: %m");
	}
	return 0;
}

void fs_watch_close(struct fs_watch *w)
{
	for (size_t i = 0; i < w->dir_count; i++)
		free(w->dirs[i].path);
	for (size_t i = 0; i < w->ns_count; i++)
		ns_free(w->ns[i]);
	sd_event_source_disable_unref(w->rescan);
	free(w->dirs);
	free(w->ns);
	*w = (struct fs_watch){};
}
