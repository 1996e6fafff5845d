// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's key ring: read at start, read again when inotify sees its
 * directory change (or on SIGHUP), each time with a new verdict epoch.
 */
#include <errno.h>
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

/* Watches the key ring directory, if it exists (a missing one is an empty ring). */
void keyring_watch(struct exec_gate *g)
{
	if (g->inotify_fd < 0)
		return;
	if (inotify_add_watch(g->inotify_fd, g->keyring_dir,
			      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
				      IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0 &&
	    errno != ENOENT)
		log_warning_errno(errno, "cannot watch the key ring %s: %m", g->keyring_dir);
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

			changed = true;
			rewatch |= ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF);
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
