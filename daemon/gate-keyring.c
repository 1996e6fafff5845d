// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's key ring: read at start, read again when inotify sees its
 * directory change (or on SIGHUP), each time with a new verdict epoch.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "event-priority.h"
#include "gate-internal.h"
#include "log.h"
#include "macro.h"

#define RING_EVENTS                                                                         \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* What makes a missing directory appear below the one watched in its stead. */
#define ANCESTOR_EVENTS (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Replaces the watch *@wd by @new_wd (-1: none), dropping the old one if it differs. */
static void replace_watch(struct exec_gate *g, int *wd, int new_wd)
{
	if (*wd >= 0 && *wd != new_wd)
		(void)inotify_rm_watch(g->inotify_fd, *wd);
	*wd = new_wd;
}

/*
 * Watches the nearest existing directory above the missing key ring @dir for the name
 * of the next one down. Return: 1 when that name exists by now (made between the two
 * looks: watch again), 0 when watched, -errno.
 */
static int watch_ancestor(struct exec_gate *g, const char *dir)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(path) || dir[0] != '/')
		return -EINVAL;
	memcpy(path, dir, len + 1);
	for (char *slash; (slash = strrchr(path, '/'));) {
		int wd;

		snprintf(g->ring_ancestor_child, sizeof(g->ring_ancestor_child), "%s", slash + 1);
		slash[slash == path] = '\0'; /* "/a" -> "/" */
		wd = inotify_add_watch(g->inotify_fd, path, ANCESTOR_EVENTS);
		if (wd >= 0) {
			replace_watch(g, &g->ring_ancestor_wd, wd);
			/* The name may have appeared before the watch did. */
			memcpy(path, dir, len + 1);
			path[slash - path + strlen(g->ring_ancestor_child) + 1] = '\0';
			return access(path, F_OK) == 0;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		if (slash == path)
			break;
	}
	return -ENOENT;
}

/*
 * Watches the key ring directory; while it does not exist, the nearest directory above
 * it, so that a ring made after umbrellad started ("key add" on a fresh /etc) is read
 * at once, as a key added to an existing ring is.
 */
void keyring_watch(struct exec_gate *g)
{
	if (g->inotify_fd < 0)
		return;
	/* A few rounds: each one that finds a directory made meanwhile looks again. */
	for (int round = 0; round < 8; round++) {
		int wd = inotify_add_watch(g->inotify_fd, g->keyring_dir, RING_EVENTS), r;

		replace_watch(g, &g->ring_wd, wd);
		if (wd >= 0) {
			replace_watch(g, &g->ring_ancestor_wd, -1);
			return;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			log_warning_errno(errno, "cannot watch the key ring %s: %m",
					  g->keyring_dir);
			return;
		}
		r = watch_ancestor(g, g->keyring_dir);
		if (r == 0)
			return;
		if (r < 0) {
			log_warning_errno(r, "cannot watch for the key ring %s to appear: %m",
					  g->keyring_dir);
			return;
		}
	}
}

/*
 * Reads the key ring into @ret, logging each file it rejects at error level: a stray
 * file is not a reason to stop gating, but nobody may miss that it is not trusted.
 * A failure is logged once, with @failed_suffix after it. Return: 0 or -ENOMEM.
 */
int keyring_read(const char *dir, const char *failed_suffix, struct keyring **ret)
{
	struct keyring *k = NULL;
	char *error = NULL;
	size_t rejected;
	int r;

	r = keyring_load(dir, &k, &error);
	if (r < 0) {
		log_error_errno(r, "%s%s", error ?: strerror(-r), failed_suffix);
		free(error);
		return r;
	}
	rejected = keyring_rejected_count(k);
	for (size_t i = 0; i < rejected; i++)
		log_error("key ring: %s", keyring_rejected(k, i));
	if (!keyring_revocations_known(k))
		log_full_errno(LOG_CRIT, 0,
			       "key ring %s: its revocation list is not known: every signed "
			       "binary is refused until it is fixed",
			       dir);
	*ret = k;
	return 0;
}

/* What the key ring @k trusts, for the line that says it is in force, in @buf. */
const char *keyring_summary(const struct keyring *k, char *buf, size_t size)
{
	size_t n = keyring_count(k), rejected = keyring_rejected_count(k);

	if (!keyring_revocations_known(k))
		snprintf(buf, size, "no key trusted (the revocation list is not known)");
	else
		snprintf(buf, size, "%zu key%s, %zu file%s rejected", n, n == 1 ? "" : "s",
			 rejected, rejected == 1 ? "" : "s");
	return buf;
}

size_t exec_gate_keyring_rejected(const struct exec_gate *g)
{
	return atomic_load(&g->keyring_rejected);
}

/* The key ring directory changed: read it again. */
static int on_keyring_changed(_unused_ sd_event_source *s, _unused_ int fd,
			      _unused_ uint32_t revents, void *userdata)
{
	struct exec_gate *g = userdata;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false, rewatch = false;
	ssize_t n;

	while ((n = read(g->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_Q_OVERFLOW) {
				/* Events were lost (wd -1): whatever they said, read it all. */
				changed = rewatch = true;
			} else if (ev->wd == g->ring_wd) {
				changed = true;
				rewatch |= ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF);
			} else if (ev->wd == g->ring_ancestor_wd) {
				/* Above the missing ring: only the name on the way to it counts
				 * (anything else made in /etc must not start a new epoch). */
				bool ours = ev->len && !strcmp(ev->name, g->ring_ancestor_child);

				rewatch |= ours || (ev->mask &
						    (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF));
				changed |= ours;
			}
			/* Else a watch replaced since (its IN_IGNORED): nothing to do. */
			p += sizeof(*ev) + ev->len;
		}
	}
	if (rewatch)
		keyring_watch(g);
	if (changed)
		(void)gate_reload_keyring(g);
	return 0;
}

int gate_keyring_attach(struct exec_gate *g, sd_event *e)
{
	int r;

	if (g->inotify_fd < 0)
		return 0; /* said by exec_gate_new(): SIGHUP reads it again */
	r = event_add_io(e, &g->keyring_source, g->inotify_fd, EPOLLIN, PRIORITY_GATE_WATCH,
			 on_keyring_changed, g);
	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch the key ring %s: %m",
				       g->keyring_dir);
	return 0;
}
