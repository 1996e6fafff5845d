/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - walking a caller's paths through no mount whose FUSE server a user runs */
#ifndef UMBRELLA_MOUNT_GUARD_H
#define UMBRELLA_MOUNT_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The mount namespace of a caller, where umbrellad will not look a name up in, nor ask
 * for permission to search, a directory whose look-ups may wait on a user's FUSE server
 * (mount-guard.c). Inactive (checks nothing) for a namespace of umbrellad's own user
 * namespace, whose mounts only root makes.
 */
struct mount_guard {
	bool active;
	int proc_fd;	    /* the caller's /proc/PID (not owned), or -1 */
	char mountinfo[64]; /* or its mountinfo: /proc/PID/mountinfo */
	int mountinfo_fd;   /* or its open file (fs-watch.c), -1 */
	/* The mounts of that namespace and of umbrellad's, read once and again only for a
	 * mount id they do not list (mount-guard.c; fs-watch.c's passes walk them too);
	 * owned, freed by mount_guard_close(). */
	struct mount_guard_tables *tables;
};

/*
 * mount_guard_open() - the guard of the mount namespace of process @peer
 * @proc_fd: @peer's /proc/PID directory (peer.h), or -1: /proc/@peer
 * @mountinfo_fd: an open mountinfo of that namespace to read instead of /proc/@peer's
 *                (its offset is moved), or -1
 *
 * Neither @proc_fd nor @peer > 0: umbrellad's own namespace (inactive). Starts the
 * request's budget (MOUNT_BUDGET_STEPS). Closed with mount_guard_close(). Return: 0 or
 * -errno.
 */
int mount_guard_open(struct mount_guard *g, int proc_fd, int peer, int mountinfo_fd);

/* One mount of a namespace, as its mountinfo listed it. */
struct mount_entry {
	int id;
	uint32_t dev;
	bool reach;	 /* overlay or FUSE: its look-ups may reach a FUSE server */
	char fstype[16]; /* "proc", "overlay", ... (a subtype cut: "fuse"; longer cut) */
	char *point;	 /* its mount point, unescaped; NULL in umbrellad's own table */
};

/*
 * The work that one request (a guard from mount_guard_open(), until mount_guard_close())
 * or one pass of fs-watch.c (from mount_guard_read()) may do in a caller's namespace,
 * which the caller shapes: each mountinfo line read (and each 256 bytes of it: its mount
 * point is kept, so this bounds the memory too), each name looked up on the way to a
 * mount point or a path, each directory climbed by ".." is a step. A user makes
 * thousands of mounts below a deep chain of directories in a namespace of its own, and
 * one request with a rule on each level made umbrellad look every mount point up from
 * every rule, name by name: minutes of its main thread, for everyone. Past the budget the
 * request fails with MOUNT_BUDGET_ERRNO, for that caller only.
 *
 * The value: a desktop's ~100 mounts at a depth of 5 below a rule on "/" cost ~600
 * steps per rule, a container's 500 mounts at a depth of 8 ~4,500; a request carries at
 * most 126 fs rules and rarely more than a few on directories with mounts below them.
 * 65536 leaves 14 such container rules in one request; a step is a few system calls
 * (an openat2() and a read of the descriptor's fdinfo: ~10 us measured on a busy host,
 * so the whole budget is under a second of umbrellad's loop). MOUNT_BUDGET_USEC is a safety net for a request whose steps
 * are slow (an overloaded or emulated machine): below the client's 10 s, so that a
 * request queued behind it is still answered. A pass has no time bound (it would leave
 * mounts uncovered at random); its time is rationed per uid (fs-watch.h).
 */
#define MOUNT_BUDGET_STEPS (1U << 16)
#define MOUNT_BUDGET_USEC  (4 * 1000000ULL)
/* The error of a request past its budget (layers.c tells it to the caller as E2BIG):
 * one that none of the calls on the way returns. */
#define MOUNT_BUDGET_ERRNO EOVERFLOW

/*
 * mount_guard_step() - counts @n steps of the request's or pass's budget. Return: 0, or
 * -MOUNT_BUDGET_ERRNO once past it (mount_guard_budget_text() says which bound). A
 * guard without tables (not opened) counts nothing.
 */
int mount_guard_step(const struct mount_guard *g, unsigned int n);

/* The message for a request past its budget, at fs item @path (malloc'd, or NULL). */
char *mount_guard_budget_text(const struct mount_guard *g, const char *path);

/*
 * mount_guard_mounts() - the caller's mounts as the request first read them (read now if
 * not yet), sorted by id, with their mount points: the one read of mountinfo that every
 * rule of the request uses. Unchanged until mount_guard_read() or mount_guard_close().
 * Return: 0 or -errno (-MOUNT_BUDGET_ERRNO: too many lines).
 */
int mount_guard_mounts(const struct mount_guard *g, const struct mount_entry **ret,
		       size_t *ret_count);

/*
 * mount_guard_mount() - the mount descriptor @fd is on, from the tables (read again for
 * a mount id they do not list, as the checks do), in the caller's namespace or
 * umbrellad's: what umb_kernel_inode() and fd_mount_read() read a whole mountinfo for
 * at each call. Without tables, those (@peer: the caller, or 0).
 * @ret_ino: if not NULL, its inode number (fdinfo's ino)
 *
 * Return: 0, -ENOENT when neither namespace lists it (a detached mount), or -errno.
 */
int mount_guard_mount(const struct mount_guard *g, int fd, int peer, struct mount_entry *ret,
		      uint64_t *ret_ino);

/*
 * mount_guard_read() - reads the namespace's mounts anew, for a pass over them
 * (fs-watch.c): the one read that both the pass and the guard's checks of that pass use
 * (what the guard read before is dropped, umbrellad's own mounts too). Works on an
 * inactive guard (it still checks nothing). Starts the pass's budget of
 * MOUNT_BUDGET_STEPS (no time bound).
 *
 * Return: 0 and the mounts, sorted by id, with their mount points, in *@ret and
 * *@ret_count: the guard's, unchanged until the next mount_guard_read() or
 * mount_guard_close() (a check that does not find a mount id reads again elsewhere);
 * or -errno.
 */
int mount_guard_read(struct mount_guard *g, const struct mount_entry **ret, size_t *ret_count);

/* mount_guard_close() - frees what mount_guard_open() allocated. */
void mount_guard_close(struct mount_guard *g);

/*
 * mount_guard_check() - whether umbrellad may look a name up in the directory @fd
 * holds (or open its "." or ".."). Return: 0; -EREMOTEIO when its mount is an overlay
 * or a FUSE mount made in the caller's user namespace (a look-up there may wait on a
 * FUSE server that never answers); -ESTALE when neither the namespace nor umbrellad's
 * own lists its mount; or another -errno.
 */
int mount_guard_check(const struct mount_guard *g, int fd);

/*
 * mount_guard_openat() - opens @path (relative, canonical) below the directory @dir_fd
 * ("": @dir_fd itself) as O_PATH, one name at a time, through no symbolic link and not out of @dir_fd,
 * checking each directory it looks a name up in first (mount_guard_check()).
 *
 * Each name is a step of the budget (MOUNT_BUDGET_STEPS).
 *
 * Return: the descriptor, or -errno: -EREMOTEIO as mount_guard_check(), -ENOENT,
 * -EXDEV or -ELOOP as openat2() with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS tells them,
 * -MOUNT_BUDGET_ERRNO past the budget.
 */
int mount_guard_openat(const struct mount_guard *g, int dir_fd, const char *path);

/*
 * mount_guard_open_in_root() - opens @path in the directory tree @root as openat2() with
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS does (symbolic links followed, ".." and
 * absolute links kept inside @root), as O_PATH. When the guard is active, one name at a
 * time instead, checking the mount of the root and of each directory, link and file
 * the walk finds before it looks in or at it (mount_guard_check()).
 *
 * Return: the descriptor, or -errno: -EREMOTEIO as mount_guard_check(), -ELOOP past 40
 * symbolic links, -ENAMETOOLONG past 64 directories deep, -MOUNT_BUDGET_ERRNO past the
 * budget (each name a step, when the guard is active), or as openat2() tells.
 */
int mount_guard_open_in_root(const struct mount_guard *g, int root, const char *path);

/* The error text for a refused directory, for a rule on @path. */
#define MOUNT_GUARD_WHY                                                                    \
	"its path or a mount below it is looked up through an overlay or FUSE mount made " \
	"in a user namespace, whose FUSE server could stall umbrellad"

#endif
