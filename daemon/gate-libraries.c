// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the library closure of a signed program (gate-libraries.h, issue 15).
 *
 * Resolved as ld.so resolves it, in the exec'ing process's root (/proc/PID/root, every
 * path opened as with RESOLVE_IN_ROOT, so that an absolute symbolic link or ".." stays
 * inside it, and through no user's overlay or FUSE mount: mount_guard_open_in_root()):
 * PT_INTERP; then each DT_NEEDED name breadth first, searched in the
 * DT_RPATH of the object and its loaders (when the object has no DT_RUNPATH), its
 * DT_RUNPATH, /etc/ld.so.cache and the default directories. $ORIGIN is the directory
 * where an object was found; the program's own is known when the path umbrellad sees
 * for it leads to it in the process's root (program_path()). LD_LIBRARY_PATH and LD_PRELOAD are not read:
 * what they name is verified only if something else made it so, and else is refused at
 * mmap.
 *
 * Nothing here makes anything run that would not: a verdict is the truth about the
 * inode it is written to (the BPF hooks kill it with any change), so resolving a name
 * to another file than ld.so will only costs that file a verification, and ld.so's file
 * then has no verdict and is refused. Since verdicts are per inode, a symbolic link
 * swapped after the verification leads ld.so to an inode without one.
 *
 * The work is bounded per exec (GATE_LIBS_MAX files, GATE_LIBS_BYTES_MAX bytes hashed,
 * GATE_LIBS_DEADLINE_USEC; the caller's mounts, which the caller shapes, are read once
 * per exec, within the mount guard's budget: over_budget()) and done before the exec is
 * answered, in the gate's event loop:
 * cached verdicts make later execs cost a lookup per library.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>

#include "elf-dynamic.h"
#include "journal-writer.h"
#include "gate-libraries.h"
#include "gate-mounts.h"
#include "gate-verify.h"
#include "keyring.h"
#include "ldso-cache.h"
#include "log.h"
#include "mount-guard.h"
#include "signed-elf.h"
#include "time-util.h"

/* How long one exec's closure may take to read. */
#define GATE_LIBS_DEADLINE_USEC (2 * 1000000ULL)
#define LD_SO_CACHE		"/etc/ld.so.cache"

/* Where ld.so looks last (its system directories, with the multiarch ones). */
static const char *const default_dirs[] = {
#if defined(__x86_64__)
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
	"/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
#endif
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
};

/* An object whose DT_NEEDED remain to be resolved. */
struct object {
	struct elf_dynamic dyn;
	char *origin; /* its directory in the process's root, or NULL: unknown */
	char *rpath;  /* the DT_RPATH directories of it and its loaders, ':'-separated */
};

struct closure {
	struct gate_libraries *libs;
	const struct gate_libraries_env *env;
	int root; /* the exec'ing process's root directory */
	/* No look-up in a user's overlay or FUSE mount there (issue 13): its server could
	 * stall the gate, and with it every exec and rfork. */
	struct mount_guard guard;
	bool guard_said;
	/* Past the guard's budget (MOUNT_BUDGET_STEPS, MOUNT_BUDGET_USEC) for reading the
	 * caller's mounts: said, and nothing more is looked up or verified. */
	bool over_budget;
	pid_t pid;
	const char *program;
	uint16_t machine; /* the program's e_machine: ld.so skips a library of another */
	struct object queue[GATE_LIBS_MAX];
	size_t head, tail;
	char *names[GATE_LIBS_MAX]; /* the DT_NEEDED names already looked up */
	size_t n_names;
	struct stat seen[GATE_LIBS_MAX]; /* the files already verified (st_dev, st_ino) */
	size_t n_seen;
	uint64_t bytes; /* of signed libraries hashed */
	uint64_t deadline;
	bool limit_said;
	char *cache; /* /etc/ld.so.cache, read at the first name it is needed for */
	size_t cache_len;
	bool cache_read;
};

/*
 * An O_PATH descriptor of @path in the process's root, found through no mount whose
 * look-ups may wait on a user's FUSE server (mount_guard_open_in_root()): what ld.so
 * finds there gets no verdict, and is refused when mapped. Said once per exec.
 */
/*
 * The caller's mounts cost more than one exec may spend reading them: its mountinfo is
 * the caller's to grow (thousands of mounts, long mount points), and the gate's thread
 * serves every exec. Nothing more of this closure is verified, so what the program maps
 * is refused: that caller's exec fails, nobody else's waits. Said once per exec. The
 * namespace is remembered for GATE_LIBS_OVER_BUDGET_USEC: the closures of its next execs
 * are refused without reading its mounts again.
 */
static void over_budget(struct closure *c, const char *path)
{
	if (!c->over_budget)
		log_warning("libraries of %s (pid %d) not verified (at %s): its mount namespace "
			    "is past umbrellad's budget for one exec (%u steps: mountinfo lines "
			    "read, names looked up; or %llu s): what the program maps is refused, "
			    "and for %llu s what any program there maps",
			    c->program, (int)c->pid, path, MOUNT_BUDGET_STEPS,
			    MOUNT_BUDGET_USEC / USEC_PER_SEC,
			    GATE_LIBS_OVER_BUDGET_USEC / USEC_PER_SEC);
	c->over_budget = true;
}

static int open_path_in_root(struct closure *c, const char *path)
{
	int fd;

	if (c->over_budget)
		return -MOUNT_BUDGET_ERRNO;
	fd = mount_guard_open_in_root(&c->guard, c->root, path);
	if (fd == -MOUNT_BUDGET_ERRNO)
		over_budget(c, path);

	if (fd == -EREMOTEIO && !c->guard_said) {
		log_notice("libraries of %s (pid %d) not looked up at %s (nor further on such a "
			   "way): it is through an overlay or FUSE mount made in a user "
			   "namespace, whose FUSE server could stall umbrellad: what the program "
			   "maps from there is refused",
			   c->program, (int)c->pid, path);
		c->guard_said = true;
	}
	return fd;
}

/*
 * Opens @path in the process's root for reading, only if it is a regular file: a FIFO
 * would block the gate, and a device's open may do something. O_PATH first, then a
 * re-open of that very inode.
 */
static int open_in_root(struct closure *c, const char *path)
{
	char proc[64];
	struct stat st;
	int pfd, fd;

	pfd = open_path_in_root(c, path);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -EACCES;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	fd = fd < 0 ? -errno : fd;
	close(pfd);
	return fd;
}

/* An O_PATH descriptor of @path in the process's root (a directory: see watch_dir()). */
static int open_dir_in_root(struct closure *c, const char *path)
{
	return open_path_in_root(c, path);
}

static void remember(struct gate_libraries *libs, uint32_t kdev, uint64_t ino)
{
	struct gate_lib_inode *grown;

	for (size_t i = 0; i < libs->n; i++)
		if (libs->v[i].kdev == kdev && libs->v[i].ino == ino)
			return;
	if (libs->n >= GATE_LIBS_KNOWN_MAX) {
		libs->overflow = true;
		return;
	}
	grown = realloc(libs->v, (libs->n + 1) * sizeof(*grown));
	if (!grown) {
		libs->overflow = true;
		return;
	}
	libs->v = grown;
	libs->v[libs->n++] = (struct gate_lib_inode){ .kdev = kdev, .ino = ino };
}

/* Watches the directory of @path (in the process's root) for libraries that change
 * names: see struct gate_libraries. */
static void watch_dir(struct closure *c, const char *path)
{
	struct gate_libraries *libs = c->libs;
	char *dir = NULL, proc[64];
	int dfd, wd;

	if (libs->inotify_fd < 0)
		return;
	if (libs->watches >= GATE_LIBS_WATCHES_MAX) {
		if (!libs->watch_warned)
			log_warning("more than %d library directories: a library replaced by "
				    "rename in others stays refused until its program changes or "
				    "the verdicts are flushed (said once)",
				    GATE_LIBS_WATCHES_MAX);
		libs->watch_warned = true;
		return;
	}
	dir = strdup(path);
	if (!dir || !strrchr(dir, '/')) {
		free(dir);
		return;
	}
	*strrchr(dir, '/') = '\0';
	dfd = open_dir_in_root(c, dir[0] ? dir : "/");
	free(dir);
	if (dfd < 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
	/* The same directory again gets the same watch; a new one a higher number. */
	wd = inotify_add_watch(libs->inotify_fd, proc,
			       IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR);
	if (wd > libs->max_wd) {
		libs->max_wd = wd;
		libs->watches++;
	}
	close(dfd);
}

/* Whether verdicts of @fd's file may be cached: a file system the gate marks. */
static bool cacheable(const struct closure *c, int fd, uint32_t kdev)
{
	const struct gate_mount *m;
	int id = gate_mount_id(fd);

	m = id < 0 ? NULL : gate_mounts_find(c->env->mounts, id);
	/* Not among our mounts (another namespace's): its file system, if we see it. */
	for (size_t i = 0; !m && i < c->env->mounts->n; i++)
		if (c->env->mounts->v[i].kdev == kdev)
			m = &c->env->mounts->v[i];
	return m && m->cacheable;
}

static void not_verified(const struct closure *c, const char *path, const char *why)
{
	log_info("library %s of %s (pid %d) not verified: %s: mapping it is refused", path,
		 c->program, (int)c->pid, why);
}

/*
 * Writes the verdict of the library @fd (@path), unless a valid one is there.
 * Return: true when it has a SIGNED verdict now (its own libraries are worth resolving).
 */
static bool verify_library(struct closure *c, int fd, const char *path, const struct stat *st)
{
	const struct gate_libraries_env *env = c->env;
	struct umb_verdict v = { .state = UMB_VERDICT_PENDING, .epoch = env->epoch };
	const char *reason = NULL;
	struct signed_elf e = {};
	struct mount_entry m;
	char *error = NULL;
	uint32_t kdev;
	uint64_t ino;
	bool unknown;
	int r, state;

	if (c->over_budget)
		return false;
	/* Its mount from the mounts the closure read once, within the guard's budget (not
	 * umb_kernel_inode(), which reads a whole mountinfo each time, with no bound). */
	r = mount_guard_mount(&c->guard, fd, (int)c->pid, &m, &ino);
	if (r == -MOUNT_BUDGET_ERRNO) {
		over_budget(c, path);
		return false;
	}
	if (r < 0) {
		kdev = umb_kdev(st->st_dev);
		ino = st->st_ino;
	} else {
		kdev = m.dev;
	}
	if (!cacheable(c, fd, kdev)) {
		not_verified(c, path, "not on a file system where verdicts are cached");
		return false;
	}
	if (env->busy && env->busy(env->arg, st->st_dev, st->st_ino))
		return false; /* being read for an exec of it: that job writes its verdict */
	if (bpf_map_lookup_elem(env->verdicts, &fd, &v) == 0 && v.epoch == env->epoch &&
	    (v.state == UMB_VERDICT_SIGNED || v.state == UMB_VERDICT_UNSIGNED ||
	     v.state == UMB_VERDICT_REFUSED)) {
		remember(c->libs, kdev, ino);
		return v.state == UMB_VERDICT_SIGNED; /* cached: the usual case */
	}
	if ((uint64_t)st->st_size > GATE_LIBS_BYTES_MAX - c->bytes || now_usec() > c->deadline) {
		if (!c->limit_said)
			not_verified(c, path, "the closure is larger than one exec may verify");
		c->limit_said = true;
		return false;
	}
	v = (struct umb_verdict){ .state = UMB_VERDICT_PENDING, .epoch = env->epoch };
	if (bpf_map_update_elem(env->verdicts, &fd, &v, BPF_ANY) < 0)
		return false;
	/* A writer open before PENDING: see job_begin() in exec-gate.c. */
	if (fcntl(fd, F_SETLEASE, F_RDLCK) < 0) {
		r = -errno;
		goto uncached;
	}
	(void)fcntl(fd, F_SETLEASE, F_UNLCK);
	r = signed_elf_read(fd, c->deadline, &e, &error);
	c->bytes += (uint64_t)st->st_size;
	state = gate_verdict_of_read(env->keyring, &e, r, error, &reason);
	if (state < 0)
		goto uncached;
	/* A key the ring does not know: unsigned, as the exec gate decides
	 * (gate-verify.c), never refused; a library of a signed program only if unsigned
	 * ones may be mapped there. */
	unknown = state == UMB_VERDICT_REFUSED && r >= 0 &&
		  keyring_signer_unknown(env->keyring, &e);
	if (unknown)
		state = UMB_VERDICT_UNSIGNED;
	if ((state == UMB_VERDICT_SIGNED || unknown) && e.has_policy) {
		/* Its restrictions are pushed when it is exec'd, and a task may map it only
		 * with them (exec_unsigned_map()): that verdict is the exec's to write. */
		r = -EPERM;
		error = strdup("it carries restrictions: it is verified when it is executed");
		goto uncached;
	}
	v = (struct umb_verdict){ .state = (__u32)state, .epoch = env->epoch };
	if (unknown)
		v.flags = UMB_VERDICT_F_UNKNOWN_SIGNER;
	/* A library's verdict is also the one of its exec: it must say "library". */
	if (state == UMB_VERDICT_SIGNED && (r = gate_verdict_flags(fd, &v.flags)) < 0)
		goto uncached;
	if (bpf_map_update_elem(env->verdicts, &fd, &v, BPF_EXIST) < 0) {
		r = -errno;
		if (r == -ENOENT)
			error = strdup("it changed while it was read");
		goto uncached;
	}
	remember(c->libs, kdev, ino);
	if (state == UMB_VERDICT_REFUSED) {
		char key[KEY_ID_HEX_LEN + 1] = "-", why[320];

		if (e.has_signature)
			key_id_to_hex(e.signature.key_id, key);
		snprintf(why, sizeof(why), "a library of %s: %s", c->program, reason);
		journal_write_refused_binary(path, (unsigned int)c->pid, why, key, "refused");
	}
	signed_elf_release(&e);
	free(error);
	return state == UMB_VERDICT_SIGNED;

uncached:
	(void)bpf_map_delete_elem(env->verdicts, &fd);
	not_verified(c, path, error ? error : r == -EAGAIN ? "open for writing" : strerror(-r));
	signed_elf_release(&e);
	free(error);
	return false;
}

/* Appends the directories of @list (':'-separated; $ORIGIN is @origin) to *@out. */
static void add_dirs(char **out, const char *list, const char *origin)
{
	char *copy, *save = NULL;

	if (!list)
		return;
	copy = strdup(list);
	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		const char *rest = NULL;
		char *joined = NULL;

		if (!strncmp(d, "$ORIGIN", 7))
			rest = d + 7;
		else if (!strncmp(d, "${ORIGIN}", 9))
			rest = d + 9;
		if (rest && !origin)
			continue;
		if (strchr(rest ? rest : d, '$') || (!rest && d[0] != '/'))
			continue; /* $LIB, $PLATFORM, or relative to the working directory */
		if (asprintf(&joined, "%s%s%s%s", *out ? *out : "", *out ? ":" : "",
			     rest ? origin : "", rest ? rest : d) < 0)
			break;
		free(*out);
		*out = joined;
	}
	free(copy);
}

/* /etc/ld.so.cache of the process's root. */
static void cache_read(struct closure *c)
{
	struct stat st;
	int fd;

	c->cache_read = true;
	fd = open_in_root(c, LD_SO_CACHE);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= LDSO_CACHE_MAX) {
		c->cache = malloc((size_t)st.st_size);
		if (c->cache && pread(fd, c->cache, (size_t)st.st_size, 0) == st.st_size &&
		    ldso_cache_valid(c->cache, (size_t)st.st_size)) {
			c->cache_len = (size_t)st.st_size;
		} else {
			free(c->cache);
			c->cache = NULL;
		}
	}
	close(fd);
}

struct found {
	int fd;
	struct stat st;
	char path[PATH_MAX];
};

/* Opens @path if it is an ELF file of the program's machine (what ld.so would take). */
static bool try_path(struct closure *c, const char *path, struct found *f)
{
	struct elf_dynamic d;
	int fd;

	/* A DT_RUNPATH of many directories costs an open each: within the deadline. */
	if (strlen(path) >= sizeof(f->path) || now_usec() > c->deadline)
		return false;
	fd = open_in_root(c, path);
	if (fd < 0)
		return false;
	if (elf_dynamic_read(fd, &d) < 0 || d.machine != c->machine || fstat(fd, &f->st) < 0) {
		elf_dynamic_release(&d);
		close(fd);
		return false;
	}
	elf_dynamic_release(&d);
	f->fd = fd;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return true;
}

static bool try_dirs(struct closure *c, const char *dirs, const char *name, struct found *f)
{
	char *copy = dirs ? strdup(dirs) : NULL, *save = NULL, path[PATH_MAX];
	bool ok = false;

	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !ok;
	     d = strtok_r(NULL, ":", &save)) {
		size_t len = strlen(d);

		/* "$ORIGIN/" is common: name the file as ld.so does, with one slash. */
		while (len > 1 && d[len - 1] == '/')
			d[--len] = '\0';
		if (snprintf(path, sizeof(path), "%s%s%s", d, len > 1 ? "/" : "", name) <
		    (int)sizeof(path))
			ok = try_path(c, path, f);
	}
	free(copy);
	return ok;
}

static bool try_cache(struct closure *c, const char *name, struct found *f)
{
	const char *path;
	uint64_t iter = 0;

	if (!c->cache_read)
		cache_read(c);
	while (ldso_cache_next(c->cache, c->cache_len, name, &iter, &path))
		if (try_path(c, path, f))
			return true;
	return false;
}

/* Finds @name, needed by @o, as ld.so would. */
static bool lookup(struct closure *c, const struct object *o, const char *name, struct found *f)
{
	char *runpath = NULL;
	bool ok = false;

	if (strchr(name, '/'))
		return name[0] == '/' && try_path(c, name, f);
	if (!o->dyn.runpath)
		ok = try_dirs(c, o->rpath, name, f);
	if (!ok && o->dyn.runpath) {
		add_dirs(&runpath, o->dyn.runpath, o->origin);
		ok = try_dirs(c, runpath, name, f);
		free(runpath);
	}
	if (!ok)
		ok = try_cache(c, name, f);
	for (size_t i = 0; !ok && i < sizeof(default_dirs) / sizeof(*default_dirs); i++)
		ok = try_dirs(c, default_dirs[i], name, f);
	return ok;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return NULL;
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* Queues @dyn (taken) to resolve its DT_NEEDED, found at @path, loaded by @parent. */
static void enqueue(struct closure *c, struct elf_dynamic *dyn, const char *path,
		    const struct object *parent)
{
	struct object *o;

	if (!dyn->n_needed || c->tail >= GATE_LIBS_MAX) {
		elf_dynamic_release(dyn);
		return;
	}
	o = &c->queue[c->tail++];
	*o = (struct object){ .dyn = *dyn, .origin = path ? dir_of(path) : NULL };
	*dyn = (struct elf_dynamic){};
	/* DT_RPATH counts for the object's own names and those of what it loads. */
	if (!o->dyn.runpath)
		add_dirs(&o->rpath, o->dyn.rpath, o->origin);
	if (parent && parent->rpath)
		add_dirs(&o->rpath, parent->rpath, NULL);
}

/* Whether @st's file was verified already in this closure; else notes it. */
static bool seen(struct closure *c, const struct stat *st)
{
	for (size_t i = 0; i < c->n_seen; i++)
		if (c->seen[i].st_dev == st->st_dev && c->seen[i].st_ino == st->st_ino)
			return true;
	if (c->n_seen < GATE_LIBS_MAX)
		c->seen[c->n_seen++] = *st;
	return false;
}

/* Whether @name was looked up already (ld.so loads a name once); else notes it. */
static bool name_done(struct closure *c, const char *name)
{
	for (size_t i = 0; i < c->n_names; i++)
		if (!strcmp(c->names[i], name))
			return true;
	/* Out of memory: the name is looked up again, which costs time, not a verdict. */
	if (c->n_names < GATE_LIBS_MAX && (c->names[c->n_names] = strdup(name)))
		c->n_names++;
	return false;
}

/* Verifies the file @path of the process's root and, if signed, queues its libraries. */
static void add_file(struct closure *c, struct found *f, const struct object *parent)
{
	struct elf_dynamic dyn;

	if (c->n_seen >= GATE_LIBS_MAX || seen(c, &f->st)) {
		close(f->fd);
		return;
	}
	watch_dir(c, f->path);
	if (verify_library(c, f->fd, f->path, &f->st) && elf_dynamic_read(f->fd, &dyn) == 0) {
		/* ld.so takes an object it has loaded for any later DT_NEEDED of its soname:
		 * libc's "ld-linux-x86-64.so.2" is the interpreter, wherever PT_INTERP put
		 * it, and is not looked for in the library path. */
		if (dyn.soname)
			(void)name_done(c, dyn.soname);
		enqueue(c, &dyn, f->path, parent);
	}
	close(f->fd);
}

/* Whether the process @pid has umbrellad's root and mount namespace: then the path of
 * the program as umbrellad sees it is the process's, and its $ORIGIN is known. */
static bool same_view(pid_t pid)
{
	struct stat a, b, na, nb;
	char p[64], q[64];

	snprintf(p, sizeof(p), "/proc/%d/root", (int)pid);
	snprintf(q, sizeof(q), "/proc/%d/ns/mnt", (int)pid);
	return stat(p, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino && stat(q, &na) == 0 && stat("/proc/self/ns/mnt", &nb) == 0 &&
	       na.st_ino == nb.st_ino && na.st_dev == nb.st_dev;
}

/*
 * The program's path in the process's root, whose directory is its $ORIGIN, or NULL.
 * umbrellad has a mount namespace of its own under its unit (PrivateTmp=...): the path
 * of @fd (@path) is then the program's path from its namespace's root, which is the
 * process's own root unless it is chrooted. Taken when it leads to @fd's inode in the
 * process's root; a wrong origin would only cost a library its verdict (see above).
 */
static const char *program_path(struct closure *c, int fd, const char *path)
{
	struct stat a, b;
	int pfd;

	if (same_view(c->pid))
		return path;
	if (path[0] != '/' || fstat(fd, &a) < 0)
		return NULL;
	pfd = open_path_in_root(c, path);
	if (pfd < 0)
		return NULL;
	if (fstat(pfd, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		path = NULL;
	close(pfd);
	return path;
}

/* Drops the remembered namespace @i. */
static void over_budget_drop(struct gate_libraries *libs, size_t i)
{
	if (!libs->over_budget[i].until_usec)
		return;
	close(libs->over_budget[i].fd);
	libs->over_budget[i].until_usec = 0;
}

/* The mount namespace of @pid, opened (-1 if gone), and its inode in *@ret_ino. */
static int mount_ns_open(pid_t pid, uint64_t *ret_ino)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) < 0) {
		close(fd);
		fd = -1;
	}
	*ret_ino = fd >= 0 ? (uint64_t)st.st_ino : 0;
	return fd;
}

/* Whether the mount namespace @ino went past the budget lately. */
static bool over_budget_recalled(struct gate_libraries *libs, uint64_t ino)
{
	uint64_t now = now_usec();

	for (size_t i = 0; i < GATE_LIBS_OVER_BUDGET_NS; i++) {
		if (libs->over_budget[i].until_usec && libs->over_budget[i].until_usec < now)
			over_budget_drop(libs, i);
		if (libs->over_budget[i].until_usec && libs->over_budget[i].ino == ino)
			return true;
	}
	return false;
}

/* Remembers the mount namespace @ns_fd (taken) of inode @ino as past the budget. */
static void over_budget_remember(struct gate_libraries *libs, int ns_fd, uint64_t ino)
{
	size_t i = libs->over_budget_next++ % GATE_LIBS_OVER_BUDGET_NS;

	over_budget_drop(libs, i);
	libs->over_budget[i].fd = ns_fd;
	libs->over_budget[i].ino = ino;
	libs->over_budget[i].until_usec = now_usec() + GATE_LIBS_OVER_BUDGET_USEC;
}

bool gate_libraries_verify(struct gate_libraries *libs, const struct gate_libraries_env *env,
			   int fd, pid_t pid, const char *path)
{
	struct closure *c = calloc(1, sizeof(*c));
	struct elf_dynamic dyn;
	struct stat st;
	char root[64];
	struct found f;
	uint64_t ns_ino;
	bool complete;
	int r, ns_fd;

	if (!c)
		return true;
	if (elf_dynamic_read(fd, &dyn) < 0 || (!dyn.interp && !dyn.n_needed)) {
		elf_dynamic_release(&dyn); /* static: nothing to map but itself */
		free(c);
		return true;
	}
	*c = (struct closure){ .libs = libs,
			       .env = env,
			       .pid = pid,
			       .program = path,
			       .machine = dyn.machine,
			       .deadline = now_usec() + GATE_LIBS_DEADLINE_USEC };
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	c->root = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root < 0) {
		log_notice_errno(errno, "libraries of %s (pid %d) not verified: %s: %m", path,
				 (int)pid, root);
		elf_dynamic_release(&dyn);
		free(c);
		return true;
	}
	ns_fd = mount_ns_open(pid, &ns_ino);
	if (ns_fd >= 0 && over_budget_recalled(libs, ns_ino)) {
		/* Not logged each time: said when it went past (over_budget()). */
		close(ns_fd);
		close(c->root);
		elf_dynamic_release(&dyn);
		free(c);
		return false;
	}
	r = mount_guard_open(&c->guard, -1, pid, -1);
	if (r < 0) { /* fail closed: no library of it gets a verdict */
		log_notice_errno(r,
				 "libraries of %s (pid %d) not verified: its mount namespace: %m",
				 path, (int)pid);
		if (ns_fd >= 0)
			close(ns_fd);
		close(c->root);
		elf_dynamic_release(&dyn);
		free(c);
		return true;
	}
	if (fstat(fd, &st) == 0)
		(void)seen(c, &st);
	/* The interpreter: the kernel maps it, with the task's state (the program's layer
	 * pushed). Its own exec event finds this verdict. */
	if (dyn.interp && dyn.interp[0] == '/' && try_path(c, dyn.interp, &f))
		add_file(c, &f, NULL);
	enqueue(c, &dyn, program_path(c, fd, path), NULL);
	while (c->head < c->tail && !c->over_budget) {
		struct object *o = &c->queue[c->head++];

		for (size_t i = 0; i < o->dyn.n_needed && c->n_seen < GATE_LIBS_MAX; i++) {
			if (name_done(c, o->dyn.needed[i]))
				continue;
			if (lookup(c, o, o->dyn.needed[i], &f))
				add_file(c, &f, o);
		}
		if (c->n_seen >= GATE_LIBS_MAX && !c->limit_said) {
			not_verified(c, "(the rest)", "more libraries than one exec may verify");
			c->limit_said = true;
		}
	}
	for (size_t i = 0; i < c->tail; i++) {
		elf_dynamic_release(&c->queue[i].dyn);
		free(c->queue[i].origin);
		free(c->queue[i].rpath);
	}
	for (size_t i = 0; i < c->n_names; i++)
		free(c->names[i]);
	free(c->cache);
	mount_guard_close(&c->guard);
	close(c->root);
	complete = !c->over_budget;
	if (!complete && ns_fd >= 0)
		over_budget_remember(libs, ns_fd, ns_ino);
	else if (ns_fd >= 0)
		close(ns_fd);
	free(c);
	return complete;
}

bool gate_libraries_forget(struct gate_libraries *libs, uint32_t kdev, uint64_t ino)
{
	for (size_t i = 0; i < libs->n; i++) {
		if (libs->v[i].kdev == kdev && libs->v[i].ino == ino) {
			libs->v[i] = libs->v[--libs->n];
			return true;
		}
	}
	return libs->overflow;
}

void gate_libraries_clear(struct gate_libraries *libs)
{
	free(libs->v);
	libs->v = NULL;
	libs->n = 0;
	libs->overflow = false;
}

int gate_libraries_init(struct gate_libraries *libs)
{
	*libs = (struct gate_libraries){};
	libs->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return libs->inotify_fd < 0 ? -errno : 0;
}

bool gate_libraries_read(struct gate_libraries *libs)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;

	while ((n = read(libs->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_IGNORED && libs->watches > 0)
				libs->watches--; /* the directory went */
			else
				changed = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return changed;
}

void gate_libraries_release(struct gate_libraries *libs)
{
	for (size_t i = 0; i < GATE_LIBS_OVER_BUDGET_NS; i++)
		over_budget_drop(libs, i);
	gate_libraries_clear(libs);
	if (libs->inotify_fd >= 0)
		close(libs->inotify_fd);
	libs->inotify_fd = -1;
}
