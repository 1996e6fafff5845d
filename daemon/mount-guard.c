// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - walking a caller's paths through no mount whose FUSE server a user runs
 * (mount-guard.h, issue 13).
 *
 * A look-up that waits on a FUSE server that never answers stalls the thread that made
 * it: umbrellad's main loop, and with it every rfork, until the watchdog restarts it
 * (the exec gate, on a thread of its own, guards its look-ups of a signed program's
 * libraries the same way: gate-libraries.c). A FUSE mount of another user namespace
 * refuses umbrellad without asking its server (fuse_allow_current_process()), but an
 * overlay made in that namespace over it asks the layers with its mounter's credentials:
 * any user can do that with "unshare -Urm". Where umbrellad looks names up in a caller's
 * namespace (the mounts below a restricted directory, fs-mounts.c and fs-watch.c) or
 * asks for permission to search a directory (the climb by ".." above a rule,
 * layer-install.c), it checks the directory's mount first: in a mount namespace owned by
 * another user namespace than umbrellad's, an overlay or a FUSE mount is refused unless
 * its super block is mounted in umbrellad's own namespace too (the system's root
 * overlay, which a user's namespace inherits, made by root). A user's namespace cannot
 * get a mount into a namespace of umbrellad's user namespace, nor propagate one there.
 *
 * The check is by the mount of a descriptor umbrellad holds (fdinfo's mnt_id), before
 * each look-up: a mount made over the path after mountinfo was read is caught, not
 * raced. What is not checked: mounts of namespaces of umbrellad's user namespace (only
 * root makes them, and a user's FUSE mount there that root can enter needs allow_other,
 * which fuse.conf gives users only with user_allow_other).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <umbrella/kdev.h>

#include "fd-mount.h"
#include "fdinfo.h"
#include "mount-guard.h"
#include "mountinfo.h"
#include "time-util.h"

/* Whether @peer's mount namespace is owned by another user namespace than ours: 1, 0 or
 * -errno. */
static int ns_foreign(int proc_fd, int peer)
{
	struct stat ours, theirs;
	char path[64];
	int ns, user, r = 0;

	if (proc_fd >= 0) {
		ns = openat(proc_fd, "ns/mnt", O_RDONLY | O_CLOEXEC);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", peer);
		ns = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (ns < 0)
		return -errno;
	user = ioctl(ns, NS_GET_USERNS);
	if (user < 0)
		r = -errno;
	else if (fstat(user, &theirs) < 0 || stat("/proc/self/ns/user", &ours) < 0)
		r = -errno;
	else
		r = theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino;
	if (user >= 0)
		close(user);
	close(ns);
	return r;
}

/*
 * The mounts of a namespace, as mountinfo lists them when read. A check looks its mount
 * id up here: reading the whole mountinfo for each directory would let a user with many
 * mounts, long mount points and deep paths below a rule (all cheap in its own
 * namespace) hold umbrellad's loop for minutes per request. A mount id not listed is
 * read again, at most MOUNT_GUARD_READS times per request or pass: a mount made since
 * the read; a namespace that keeps changing faster than that is refused (-ESTALE).
 */
#define MOUNT_GUARD_READS 16

struct mount_table {
	struct mount_entry *v;
	size_t n, cap;
	bool read;
};

/*
 * The caller's namespace has two tables: @first, its first read of the request or pass,
 * which stays as it is until the next pass (fs-watch.c walks it: mount_guard_read()),
 * and @again, what it read since for a mount id @first does not list (the newest).
 */
struct mount_guard_tables {
	struct mount_table first, again, ours;
	unsigned int reads;
	unsigned int steps;   /* of MOUNT_BUDGET_STEPS */
	uint64_t deadline;    /* now_usec() past which a request fails; 0: none (a pass) */
	const char *exceeded; /* which bound, once past one */
};

/* Starts a budget: a request's (with its deadline) or a pass's. */
static void budget_start(struct mount_guard_tables *tt, bool request)
{
	tt->steps = 0;
	tt->exceeded = NULL;
	tt->deadline = request ? now_usec() + MOUNT_BUDGET_USEC : 0;
}

int mount_guard_step(const struct mount_guard *g, unsigned int n)
{
	struct mount_guard_tables *tt = g ? g->tables : NULL;

	if (!tt)
		return 0;
	if (tt->exceeded)
		return -MOUNT_BUDGET_ERRNO;
	/* The clock is read once in 256 steps: a step is a few system calls. */
	if (tt->deadline && (tt->steps ^ (tt->steps + n)) >= 256 && now_usec() > tt->deadline)
		tt->exceeded = "time";
	tt->steps += n;
	if (tt->steps > MOUNT_BUDGET_STEPS)
		tt->exceeded = "steps";
	return tt->exceeded ? -MOUNT_BUDGET_ERRNO : 0;
}

char *mount_guard_budget_text(const struct mount_guard *g, const char *path)
{
	bool time = g && g->tables && g->tables->exceeded && !strcmp(g->tables->exceeded, "time");
	char *text = NULL;
	int r;

	if (time)
		r = asprintf(&text,
			     "past umbrellad's budget for one request (%llu s of work in the "
			     "caller's mounts): too many or too deep mounts below fs:%s",
			     MOUNT_BUDGET_USEC / USEC_PER_SEC, path);
	else
		r = asprintf(&text,
			     "past umbrellad's budget for one request (%u steps: mounts read, "
			     "names looked up): too many or too deep mounts below fs:%s",
			     MOUNT_BUDGET_STEPS, path);
	return r < 0 ? NULL : text;
}

/* The caller's mountinfo, from its open file (the same namespace and root, read from the
 * start), its /proc/PID, or its path: a descriptor, and whether it is ours to close. */
static int open_mountinfo(const struct mount_guard *g, bool *ret_own)
{
	int fd;

	*ret_own = true;
	if (g->mountinfo_fd >= 0) {
		if (lseek(g->mountinfo_fd, 0, SEEK_SET) < 0)
			return -errno;
		*ret_own = false;
		return g->mountinfo_fd;
	}
	if (g->proc_fd >= 0)
		fd = openat(g->proc_fd, "mountinfo", O_RDONLY | O_CLOEXEC);
	else
		fd = open(g->mountinfo, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int compare_id(const void *a, const void *b)
{
	const struct mount_entry *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Empties @t (its mount points freed); it keeps its array. */
static void table_clear(struct mount_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].point);
	t->n = 0;
	t->read = false;
}

struct table_read {
	const struct mount_guard *g;
	struct mount_table *t;
	bool keep_points;
	size_t bytes; /* read, not yet counted as steps (less than 256) */
};

/* Counted as each read comes, before it is parsed: a step a line, and one more per 256
 * bytes (the mount points are kept, and their length is the caller's to choose too). */
static int table_read_bytes(const char *buf, size_t n, void *userdata)
{
	struct table_read *tr = userdata;
	size_t steps = 0;

	for (const char *p = buf; (p = memchr(p, '\n', n - (size_t)(p - buf))); p++)
		steps++;
	tr->bytes += n;
	steps += tr->bytes / 256;
	tr->bytes %= 256;
	return mount_guard_step(tr->g, (unsigned int)(steps < UINT_MAX ? steps : UINT_MAX));
}

/* A mount: its id, s_dev, whether its file system type is one whose look-ups may reach
 * a FUSE server (overlay, fuse, fuse.SUBTYPE, fuseblk) and, if the points are kept, its
 * mount point (malloc'd). */
static int table_read_entry(const struct mountinfo_entry *m, void *userdata)
{
	struct table_read *tr = userdata;
	struct mount_table *t = tr->t;
	struct mount_entry e, *grown;

	e = (struct mount_entry){
		.id = m->id,
		.dev = m->kdev,
		.reach = !strcmp(m->fstype, "overlay") || !strncmp(m->fstype, "fuse", 4),
	};
	/* "fuse.sshfs": "fuse" */
	snprintf(e.fstype, sizeof(e.fstype), "%.*s", (int)strcspn(m->fstype, "."), m->fstype);
	if (tr->keep_points) {
		e.point = strdup(m->target);
		if (!e.point)
			return -ENOMEM;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;

		grown = reallocarray(t->v, cap, sizeof(*t->v));
		if (!grown) {
			free(e.point);
			return -ENOMEM;
		}
		t->v = grown;
		t->cap = cap;
	}
	t->v[t->n++] = e;
	return 0;
}

/* Reads the mountinfo @fd (closed if @own; a negative one is an -errno) into @t,
 * replacing what it held, with the mount points if @keep_points, each line and each 256
 * bytes a step of @g's budget. 0 or -errno. */
static int table_read(const struct mount_guard *g, struct mount_table *t, int fd, bool own,
		      bool keep_points)
{
	static const struct mountinfo_ops ops = { .entry = table_read_entry,
						  .bytes = table_read_bytes };
	struct table_read tr = { .g = g, .t = t, .keep_points = keep_points };
	int r;

	if (fd < 0)
		return fd;
	table_clear(t);
	r = mountinfo_read_fd(fd, &ops, &tr);
	if (own)
		close(fd);
	if (r == 0 && t->n)
		qsort(t->v, t->n, sizeof(*t->v), compare_id);
	t->read = r == 0;
	return r;
}

/* Reads @g's caller's mountinfo into @t, with the mount points. */
static int table_read_caller(const struct mount_guard *g, struct mount_table *t)
{
	bool own;
	int fd = open_mountinfo(g, &own);

	return table_read(g, t, fd, own, true);
}

/* Reads umbrellad's own mountinfo into @t, without the mount points. */
static int table_read_ours(const struct mount_guard *g, struct mount_table *t)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	return table_read(g, t, fd < 0 ? -errno : fd, true, false);
}

/* By id: a request may look up one mount id per name of every path below a rule. */
static const struct mount_entry *table_find_id(const struct mount_table *t, int id)
{
	struct mount_entry key = { .id = id };

	return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), compare_id) : NULL;
}

/* Whether @t lists a mount of super block @dev that may reach a FUSE server. */
static bool table_has_reaching_dev(const struct mount_table *t, uint32_t dev)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dev == dev && t->v[i].reach)
			return true;
	return false;
}

/* Mount @id in umbrellad's namespace (@ours) or the caller's, read first or again if it
 * is not listed: the entry, NULL when it is not there, or ERR in *@ret. */
static const struct mount_entry *lookup(const struct mount_guard *g, bool ours, int id, int *ret)
{
	struct mount_guard_tables *tt = g->tables;
	struct mount_table *t = ours ? &tt->ours : tt->again.read ? &tt->again : &tt->first;
	const struct mount_entry *e = t->read ? table_find_id(t, id) : NULL;

	*ret = 0;
	if (e)
		return e;
	if (tt->reads >= MOUNT_GUARD_READS) {
		*ret = -ESTALE;
		return NULL;
	}
	tt->reads++;
	if (!ours) /* @first, once read, stays: a pass may be walking it */
		t = tt->first.read ? &tt->again : &tt->first;
	*ret = ours ? table_read_ours(g, t) : table_read_caller(g, t);
	return *ret < 0 ? NULL : table_find_id(t, id);
}

int mount_guard_open(struct mount_guard *g, int proc_fd, int peer, int mountinfo_fd)
{
	int r;

	*g = (struct mount_guard){ .proc_fd = proc_fd, .mountinfo_fd = mountinfo_fd };
	if (proc_fd >= 0 || peer > 0) {
		r = ns_foreign(proc_fd, peer);
		if (r < 0)
			return r;
		g->active = r;
		snprintf(g->mountinfo, sizeof(g->mountinfo), "/proc/%d/mountinfo", peer);
	} else {
		snprintf(g->mountinfo, sizeof(g->mountinfo), "/proc/self/mountinfo");
	}
	/* Inactive too: the tables are the request's one read of its mounts. */
	g->tables = calloc(1, sizeof(*g->tables));
	if (!g->tables)
		return -ENOMEM;
	budget_start(g->tables, true);
	return 0;
}

int mount_guard_read(struct mount_guard *g, const struct mount_entry **ret, size_t *ret_count)
{
	struct mount_guard_tables *tt = g->tables;
	int r;

	/* An inactive guard checks nothing, but a pass needs the mounts all the same. */
	if (!tt) {
		tt = g->tables = calloc(1, sizeof(*g->tables));
		if (!tt)
			return -ENOMEM;
	}
	table_clear(&tt->again);
	table_clear(&tt->ours); /* umbrellad's mounts may have changed too */
	tt->reads = 1;
	budget_start(tt, false);
	r = table_read_caller(g, &tt->first);
	if (r < 0)
		return r;
	*ret = tt->first.v;
	*ret_count = tt->first.n;
	return 0;
}

void mount_guard_close(struct mount_guard *g)
{
	struct mount_guard_tables *tt = g->tables;

	if (tt) {
		table_clear(&tt->first);
		table_clear(&tt->again);
		table_clear(&tt->ours);
		free(tt->first.v);
		free(tt->again.v);
		free(tt->ours.v);
		free(tt);
		g->tables = NULL;
	}
	g->active = false;
}

int mount_guard_mounts(const struct mount_guard *g, const struct mount_entry **ret,
		       size_t *ret_count)
{
	struct mount_guard_tables *tt = g->tables;
	int r;

	if (!tt)
		return -EINVAL; /* not opened: cannot happen */
	if (!tt->first.read) {
		tt->reads++;
		r = table_read_caller(g, &tt->first);
		if (r < 0)
			return r;
	}
	*ret = tt->first.v;
	*ret_count = tt->first.n;
	return 0;
}

int mount_guard_mount(const struct mount_guard *g, int fd, int peer, struct mount_entry *ret,
		      uint64_t *ret_ino)
{
	struct mount_guard_tables *tt = g ? g->tables : NULL;
	const struct mount_table *t;
	const struct mount_entry *e = NULL;
	uint64_t v[2];
	int r;

	if (!tt) {
		struct fd_mount m;

		r = fd_mount_read(fd, peer, &m);
		if (r == 0 && ret_ino)
			r = umb_kernel_inode(fd, peer, &(uint32_t){ 0 }, ret_ino);
		if (r < 0)
			return r;
		*ret = (struct mount_entry){ .id = m.id, .dev = m.dev };
		snprintf(ret->fstype, sizeof(ret->fstype), "%.*s", (int)sizeof(ret->fstype) - 1,
			 m.fstype);
		return 0;
	}
	r = fdinfo_read(fd, ret_ino ? 2 : 1, (const char *const[]){ "mnt_id", "ino" }, v);
	if (r < 0)
		return r;
	/* What is read already, before reading again: either namespace may list it. */
	t = tt->again.read ? &tt->again : &tt->first;
	if (t->read)
		e = table_find_id(t, (int)v[0]);
	if (!e && tt->ours.read)
		e = table_find_id(&tt->ours, (int)v[0]);
	if (!e)
		e = lookup(g, false, (int)v[0], &r);
	if (!e && r == 0)
		e = lookup(g, true, (int)v[0], &r);
	if (r < 0)
		return r;
	if (!e)
		return -ENOENT;
	*ret = *e;
	ret->point = NULL; /* the table's: not the caller's to keep */
	if (ret_ino)
		*ret_ino = v[1];
	return 0;
}

/* Read after the descriptor was opened, which holds its mount: a mount id names one
 * live mount, and a live super block's s_dev is its own. */
int mount_guard_check(const struct mount_guard *g, int fd)
{
	const struct mount_entry *e;
	uint64_t id;
	int r;

	if (!g || !g->active)
		return 0;
	r = fdinfo_read(fd, 1, (const char *const[]){ "mnt_id" }, &id);
	if (r < 0)
		return r;
	e = lookup(g, false, (int)id, &r);
	if (r < 0)
		return r;
	if (!e) { /* umbrellad's own namespace: root's mounts */
		e = lookup(g, true, (int)id, &r);
		return r < 0 ? r : e ? 0 : -ESTALE;
	}
	if (!e->reach)
		return 0;
	/* The same super block as a mount of umbrellad's namespace: root made it. */
	if (!g->tables->ours.read) {
		r = table_read_ours(g, &g->tables->ours);
		if (r < 0)
			return r;
	}
	return table_has_reaching_dev(&g->tables->ours, e->dev) ? 0 : -EREMOTEIO;
}

int mount_guard_openat(const struct mount_guard *g, int dir_fd, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	char names[PATH_MAX], *name, *save = NULL;
	int cur = dir_fd, fd = -EINVAL;

	if (snprintf(names, sizeof(names), "%s", path) >= (int)sizeof(names))
		return -ENAMETOOLONG;
	if (!strtok_r(names, "/", &save)) { /* @dir_fd itself */
		int r = mount_guard_check(g, dir_fd);

		if (r < 0)
			return r;
		fd = (int)syscall(SYS_openat2, dir_fd, ".", &how, sizeof(how));
		return fd < 0 ? -errno : fd;
	}
	snprintf(names, sizeof(names), "%s", path);
	save = NULL;
	for (name = strtok_r(names, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		int r = mount_guard_step(g, 1);

		if (r == 0)
			r = mount_guard_check(g, cur);

		if (r < 0) {
			fd = r;
			break;
		}
		fd = (int)syscall(SYS_openat2, cur, name, &how, sizeof(how));
		if (fd < 0)
			fd = -errno;
		if (cur != dir_fd)
			close(cur);
		cur = fd;
		if (fd < 0)
			break;
	}
	if (fd < 0 && cur >= 0 && cur != dir_fd)
		close(cur);
	return fd;
}

/* How deep a path may lead below the root, and how many symbolic links it may follow
 * (the kernel's MAXSYMLINKS): a library's path is never near either. */
#define IN_ROOT_DEPTH_MAX 64
#define IN_ROOT_LINKS_MAX 40

/* The next name of *@rest into @name (advancing *@rest): false at the end. */
static bool next_name(const char **rest, char name[NAME_MAX + 1], int *ret)
{
	const char *p = *rest, *end;

	while (*p == '/')
		p++;
	if (!*p)
		return false;
	end = strchrnul(p, '/');
	if (end - p > NAME_MAX) {
		*ret = -ENAMETOOLONG;
		return false;
	}
	memcpy(name, p, (size_t)(end - p));
	name[end - p] = '\0';
	*rest = end;
	return true;
}

/* Reads the symbolic link @fd (closed) and puts its target before @rest into @out.
 * Return: whether the target is absolute, or -errno. */
static int link_before(int fd, const char *rest, char out[PATH_MAX])
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(fd, "", target, sizeof(target));

	close(fd);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	if ((size_t)n >= sizeof(target) ||
	    snprintf(out, PATH_MAX, "%.*s%s", (int)n, target, rest) >= PATH_MAX)
		return -ENAMETOOLONG;
	return target[0] == '/';
}

/* The walk of mount_guard_open_in_root(): @dirs[0] is the root (not owned), @dirs[1..]
 * the directories below it on the way, each checked (owned, closed here). ".." goes
 * back to the directory the walk came from: the kernel's parent but for a directory
 * renamed meanwhile, and never above the root. */
static int walk_in_root(const struct mount_guard *g, int *dirs, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	char buf[2][PATH_MAX], name[NAME_MAX + 1];
	const char *rest = path;
	unsigned int links = 0, cur = 0;
	size_t depth = 0;
	int fd = -1, r;
	struct stat st;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	r = mount_guard_check(g, dirs[0]);
	while (r == 0 && next_name(&rest, name, &r)) {
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (depth > 0)
				close(dirs[depth--]);
			continue;
		}
		r = mount_guard_step(g, 1);
		if (r < 0)
			break;
		fd = (int)syscall(SYS_openat2, dirs[depth], name, &how, sizeof(how));
		if (fd < 0) {
			r = -errno;
			break;
		}
		/* Before its fstat: a FUSE server is asked for attributes too. */
		r = mount_guard_check(g, fd);
		if (r == 0 && fstat(fd, &st) < 0)
			r = -errno;
		if (r == 0 && S_ISLNK(st.st_mode)) {
			if (++links > IN_ROOT_LINKS_MAX) {
				r = -ELOOP;
				break; /* fd closed below */
			}
			r = link_before(fd, rest, buf[cur ^ 1]);
			fd = -1;
			if (r < 0)
				break;
			cur ^= 1;
			rest = buf[cur];
			while (r == 1 && depth > 0) /* absolute: from the root */
				close(dirs[depth--]);
			r = 0;
			continue;
		}
		if (r == 0 && !rest[strspn(rest, "/")])
			break; /* the last name: @fd is the file */
		if (r == 0 && !S_ISDIR(st.st_mode))
			r = -ENOTDIR;
		if (r == 0 && depth + 1 >= IN_ROOT_DEPTH_MAX)
			r = -ENAMETOOLONG;
		if (r < 0)
			break;
		dirs[++depth] = fd;
		fd = -1;
	}
	if (r < 0 && fd >= 0)
		close(fd);
	/* A path that ends with "..", ".", or at a link to a directory: where it led. */
	if (r == 0 && fd < 0) {
		fd = (int)syscall(SYS_openat2, dirs[depth], ".", &how, sizeof(how));
		r = fd < 0 ? -errno : 0;
	}
	while (depth > 0)
		close(dirs[depth--]);
	return r < 0 ? r : fd;
}

int mount_guard_open_in_root(const struct mount_guard *g, int root, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int dirs[IN_ROOT_DEPTH_MAX] = { root }, fd;

	if (!g || !g->active) { /* the kernel's walk: no mount of a user's on the way */
		fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
		return fd < 0 ? -errno : fd;
	}
	return walk_in_root(g, dirs, path);
}
