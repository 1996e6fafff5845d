/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - following the mounts made below restricted directories after the layer */
#ifndef UMBRELLA_FS_WATCH_H
#define UMBRELLA_FS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "mount-guard.h"

struct layers;

/* Mount namespaces followed at most, in all and per uid other than root (each holds two
 * descriptors and the namespace itself). */
#define FS_WATCH_NS_MAX		 4096
#define FS_WATCH_NS_MAX_PER_USER 256
/* All users other than root together, so that root's layers always find room (as
 * layers.c keeps 1/4 of the maps for root). */
#define FS_WATCH_NS_MAX_USERS	 (FS_WATCH_NS_MAX / 4 * 3)

/* A namespace whose mounts change in a loop is read again at most once per this long:
 * the changes meanwhile are read together, by the pass after the last of them. */
#define FS_WATCH_RESCAN_GAP_USEC  50000ULL
/* The time of the loop that the passes of one uid's namespaces (root's aside) may take,
 * per second on average, and at once: past it, that uid's next pass waits until the
 * time spent is paid back at this rate. */
#define FS_WATCH_USER_BUDGET_USEC 50000ULL

/* A mount namespace, as one caller saw it: its mountinfo and the root its paths start
 * from. Shared by the layers whose callers saw the same (deduplicated). */
struct fs_watch_ns {
	struct fs_watch *watch;
	int mountinfo_fd;	 /* /proc/PID/mountinfo: holds the namespace; POLLPRI on change */
	int root_fd;		 /* O_PATH: the caller's root, where mountinfo's paths start */
	uint64_t ns_dev, ns_ino; /* the namespace's nsfs inode, with the root: its identity */
	uint64_t root_dev, root_ino;
	uint32_t uid;		  /* charged to (the uid of the first layer that needed it) */
	struct mount_guard guard; /* where names may be looked up (on mountinfo_fd) */
	bool guard_logged;	  /* a mount refused by the guard was logged: once */
	bool budget_logged;	  /* a pass past its budget (mount-guard.h) was logged: once */
	unsigned int refs;	  /* directories (struct fs_watch_dir) and layers being made */
	sd_event_source *source;
	struct fs_watch_user *user; /* the time uid's passes took; NULL for root */
	uint64_t pending_since;	    /* a change not read yet, since then (now_usec()); 0: none */
	uint64_t scanned_at;	    /* when the last pass started */
};

/* The time one uid's passes took, paid back at FS_WATCH_USER_BUDGET_USEC a second;
 * shared by the uid's namespaces. */
struct fs_watch_user {
	unsigned int refs;  /* namespaces */
	uint64_t debt_usec; /* time owed; up to FS_WATCH_USER_BUDGET_USEC is allowed */
	uint64_t at_usec;   /* when debt_usec was last brought up to date */
};

/* A directory a live layer restricts, in the namespace where the layer was made. */
struct fs_watch_dir {
	uint32_t layer;
	uint32_t access;
	char *path; /* canonical, as the layer's caller saw it */
	struct fs_watch_ns *ns;
	bool refused_logged; /* a rule refused (a limit) was logged: once per directory */
};

struct fs_watch {
	struct layers *layers; /* where the rules go (layers_add_root_rule()) */
	sd_event *event;       /* NULL until fs_watch_attach() */
	struct fs_watch_ns **ns;
	size_t ns_count;
	struct fs_watch_dir *dirs;
	size_t dir_count;
	sd_event_source *rescan; /* the next pass due: one pass a turn of the loop */
};

/*
 * fs_watch_ns_get() - a reference on the watched mount namespace of a caller, as it sees
 * it, watched from now on; for a layer of @uid that is being made
 * @proc_fd: the caller's /proc/PID directory (peer.h), or -1: /proc/@peer, or umbrellad's
 *           own when @peer is 0
 *
 * Return: 0, -ENOSPC with *@ret_error (malloc'd) when too many namespaces are
 * watched, or -errno (with *@ret_error).
 */
int fs_watch_ns_get(struct fs_watch *w, int proc_fd, int peer, uint32_t uid,
		    struct fs_watch_ns **ret, char **ret_error);

/* Drops a reference fs_watch_ns_get() took: the last one stops the watch. */
void fs_watch_ns_put(struct fs_watch *w, struct fs_watch_ns *ns);

/* Follows the mounts below @path (canonical, as @ns sees it) for layer @layer, which
 * restricts it with @access. Return: 0 or -ENOMEM. */
int fs_watch_add_dir(struct fs_watch *w, struct fs_watch_ns *ns, uint32_t layer, const char *path,
		     uint32_t access);

/* Stops following the directories of layer @layer (it is being freed). */
void fs_watch_forget(struct fs_watch *w, uint32_t layer);

/*
 * fs_watch_scan() - puts the rule of each followed directory of @ns on the root of every
 * mount @ns has on it or below it (what is there already is left as it is). Called for
 * a change of @ns's mounts, once its turn comes (FS_WATCH_RESCAN_GAP_USEC,
 * FS_WATCH_USER_BUDGET_USEC). Return: 0 or -errno (logged).
 */
int fs_watch_scan(struct fs_watch *w, struct fs_watch_ns *ns);

/* Watches the namespaces from @e (at PRIORITY_WORK: any user can change the mounts of a
 * namespace of its own), those there are and those to come. Return: 0 or -errno. */
int fs_watch_attach(struct fs_watch *w, sd_event *e);

/* Stops every watch (umbrellad stops; the rules stay with their layers). */
void fs_watch_close(struct fs_watch *w);

#endif /* UMBRELLA_FS_WATCH_H */
