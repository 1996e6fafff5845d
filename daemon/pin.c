// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the pinned BPF state that outlives the daemon.
 *
 * Everything that enforces lives in the pin directory: the maps (layers, rules, task
 * storage, ring buffer, ...) and one link per attached program. While no umbrellad
 * runs, the kernel keeps the programs attached through the pinned links and the
 * restrictions in the pinned maps, so killing the daemon (even with SIGKILL) loses
 * nothing. A new umbrellad checks umb_meta first, then loads its programs on the pinned
 * maps, attaches them, and only then swaps its links in for the old ones: at every
 * moment at least one set of programs is attached.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>
#include <umbrella/kdev.h>

#include "daemon-pid.h"
#include "log.h"
#include "pin.h"
#include "state.h"

#define LINKS_DIR  "links"
#define META_NAME  "umb_meta"
#define CTL_NAME   "umb_ctl"
/* bpffs refuses names with a dot; no program name has a dash. */
#define NEW_PREFIX "new-"

static void log_recovery(const char *dir)
{
	log_error("To replace it, which drops every restriction in force, stop umbrellad "
		  "and run 'umbrellad --reset-pins --pin-dir %s' (or remove the directory), "
		  "then start umbrellad again.",
		  dir);
}

/* A directory stream on a copy of @fd (the caller keeps @fd). NULL with errno set. */
static DIR *opendir_dup(int fd)
{
	int dfd = dup(fd);
	DIR *d;

	if (dfd < 0)
		return NULL;
	d = fdopendir(dfd);
	if (!d) {
		int saved = errno;

		close(dfd);
		errno = saved;
	}
	return d;
}

/* Is the directory @fd empty (but for "." and "..")? Return: 1, 0, or -errno. */
static int dir_is_empty(int fd)
{
	struct dirent *de;
	int r = 1;
	DIR *d;

	d = opendir_dup(fd);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			r = 0;
			break;
		}
	}
	closedir(d);
	return r;
}

/* umb_ctl.daemon_tgid of the state pinned in @dir (read-only, as anyone may), or 0. */
static __u32 pinned_daemon(const char *dir)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_RDONLY);
	struct umb_ctl ctl = {};
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/" CTL_NAME, dir) >= (int)sizeof(path))
		return 0;
	fd = bpf_obj_get_opts(path, &opts);
	if (fd < 0)
		return 0;
	if (state_ctl_read(fd, &ctl) < 0)
		ctl.daemon_tgid = 0;
	close(fd);
	return ctl.daemon_tgid;
}

/*
 * Waits until no other umbrellad is registered in the state pinned in @dir (we hold the
 * directory's lock: any registered one has exited). The BPF side clears the
 * registration when the last of the process is freed, an RCU grace period after it
 * was reaped; one that is not reaped yet (a zombie) keeps its objects protected.
 * A registration left by an umbrellad whose programs never attached has nobody to
 * clear it, and protects nothing: it is ignored once its process is gone.
 * Return: 0, or -EBUSY (logged) when an umbrellad is still registered.
 */
static int wait_daemon_gone(const char *dir)
{
	__u32 pid = 0;

	for (int i = 0; i < 50; i++) {
		pid = pinned_daemon(dir);
		if (!pid || pid == (__u32)getpid())
			return 0;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH && i >= 10)
			return 0;
		if (kill((pid_t)pid, 0) == 0 && !daemon_pid_is_umbrellad(pid))
			return 0; /* the pid was reused since */
		usleep(100 * 1000);
	}
	log_error("another umbrellad (pid %u) holds the objects pinned in '%s' "
		  "(it has exited but was not reaped yet?)",
		  pid, dir);
	return -EBUSY;
}

int pin_identify(const struct pin *p, struct umb_ctl *ctl)
{
	uint64_t ino;
	uint32_t dev;
	int r;

	/* The kernel's dev_t of the super block (MKDEV), as the hooks read it. */
	r = umb_kernel_inode(p->dir_fd, 0, &dev, &ino);
	if (r < 0)
		return r;
	ctl->pin_dev = dev;
	ctl->pin_ino = ino;
	return 0;
}

/* Creates umb_meta for this ABI and pins it: the first thing in a new pin directory. */
static int meta_create(struct pin *p, const char *path)
{
	int fd;

	fd = state_meta_create(META_NAME, &p->meta);
	if (fd < 0)
		return fd;
	if (bpf_obj_pin(fd, path) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	p->meta_fd = fd;
	return 0;
}

/* Reads the pinned umb_meta @fd and checks its ABI version. Return: 0, -EPROTO or -errno. */
static int meta_check(struct pin *p, int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	__u32 *value;
	int r;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return log_error_errno(errno, "Failed to read what '%s/" META_NAME "' is: %m",
				       p->dir);
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != sizeof(__u32) ||
	    info.value_size < sizeof(__u32) || info.value_size > 4096 || info.max_entries < 1) {
		log_error("'%s/" META_NAME "' is not a map umbrellad made "
			  "(type %u, value size %u): refusing to use '%s'.",
			  p->dir, info.type, info.value_size, p->dir);
		log_recovery(p->dir);
		return -EPROTO;
	}
	value = calloc(1, info.value_size);
	if (!value)
		return log_error_errno(ENOMEM, "Failed to read '%s/" META_NAME "': %m", p->dir);
	if (bpf_map_lookup_elem(fd, &zero, value) < 0) {
		r = log_error_errno(errno, "Failed to read '%s/" META_NAME "': %m", p->dir);
		free(value);
		return r;
	}
	if (value[0] != UMB_ABI_VERSION || info.value_size != sizeof(p->meta)) {
		log_error("'%s' holds BPF state pinned by an umbrellad of ABI "
			  "version %u; this umbrellad has ABI version %d: refusing to mix them. "
			  "The programs pinned there keep enforcing the restrictions in force.",
			  p->dir, value[0], UMB_ABI_VERSION);
		log_recovery(p->dir);
		free(value);
		return -EPROTO;
	}
	memcpy(&p->meta, value, sizeof(p->meta));
	free(value);
	p->meta_fd = fd;
	p->adopted = true;
	return 0;
}

int pin_open(const char *dir, struct pin *p)
{
	char path[PATH_MAX];
	struct statfs sfs;
	int fd, r;

	*p = (struct pin){ .dir = dir, .dir_fd = -1, .meta_fd = -1 };
	if (snprintf(path, sizeof(path), "%s/" META_NAME, dir) >= (int)sizeof(path))
		return log_error_errno(ENAMETOOLONG, "Pin directory '%s': %m", dir);

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return log_error_errno(
			errno, "Failed to create pin directory '%s': %m%s", dir,
			errno == ENOENT ?
				" (is a bpf file system mounted? mount -t bpf bpf /sys/fs/bpf)" :
				"");
	p->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dir_fd < 0)
		return log_error_errno(errno, "Failed to open pin directory '%s': %m", dir);
	if (fstatfs(p->dir_fd, &sfs) < 0) {
		r = log_error_errno(errno, "Failed to read the file system of '%s': %m", dir);
		pin_close(p);
		return r;
	}
	if (sfs.f_type != BPF_FS_MAGIC) {
		log_error("Pin directory '%s' is not on a bpf file system "
			  "(mount -t bpf bpf /sys/fs/bpf).",
			  dir);
		pin_close(p);
		return -EXDEV;
	}
	if (flock(p->dir_fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (r == -EBUSY)
			log_error("Failed to lock pin directory '%s': another "
				  "umbrellad is using it (pid %u holds its maps and links)",
				  dir, pinned_daemon(dir));
		else
			log_error_errno(r, "Failed to lock pin directory '%s': %m", dir);
		pin_close(p);
		return r;
	}
	r = wait_daemon_gone(dir);
	if (r < 0) {
		pin_close(p);
		return r;
	}

	fd = bpf_obj_get(path);
	if (fd >= 0) {
		r = meta_check(p, fd);
		if (r < 0)
			close(fd);
	} else if (errno != ENOENT) {
		r = log_error_errno(errno, "Failed to open '%s': %m", path);
	} else {
		r = dir_is_empty(p->dir_fd);
		if (r < 0) {
			log_error_errno(r, "Failed to read pin directory '%s': %m", dir);
		} else if (r == 0) {
			log_error("'%s' holds objects but no " META_NAME ": not "
				  "state pinned by an umbrellad of ABI version %d or later, "
				  "refusing to mix it with ours.",
				  dir, UMB_ABI_VERSION);
			log_recovery(dir);
			r = -EPROTO;
		} else if (r > 0) {
			r = meta_create(p, path);
			if (r < 0)
				log_error_errno(r, "Failed to create '%s': %m", path);
		}
	}
	if (r < 0) {
		pin_close(p);
		return r;
	}
	return 0;
}

int pin_maps(struct pin *p, const struct bpf_object_skeleton *s)
{
	char path[PATH_MAX];
	struct bpf_map *map;

	bpf_object__for_each_map(map, *s->obj) {
		/* .rodata, .bss: each load has its own, nothing in them must persist. */
		if (bpf_map__is_internal(map))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", p->dir, bpf_map__name(map)) >=
		    (int)sizeof(path))
			return -ENAMETOOLONG;
		int r = bpf_map__set_pin_path(map, path);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Does a program of @s named @name have a link? */
static bool has_link(const struct bpf_object_skeleton *s, const char *name)
{
	for (int i = 0; i < s->prog_cnt; i++) {
		const struct bpf_prog_skeleton *ps =
			(const void *)((const char *)s->progs + (size_t)i * s->prog_skel_sz);

		if (*ps->link && !strcmp(bpf_program__name(*ps->prog), name))
			return true;
	}
	return false;
}

/* Removes the pinned links of programs @s does not have, and leftover temporaries. */
static int remove_stale_links(const struct bpf_object_skeleton *s, int links_fd)
{
	struct dirent *de;
	int r = 0;
	DIR *d;

	d = opendir_dup(links_fd);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (has_link(s, de->d_name))
			continue;
		if (unlinkat(links_fd, de->d_name, 0) < 0 && errno != ENOENT)
			r = -errno;
		else
			log_info("removed the stale link '%s'", de->d_name);
	}
	closedir(d);
	return r;
}

/* The tag of program @fd: a hash of its instructions, map references left out. */
static int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

/* The link pinned at @path if its program is @prog's code (same name, same tag). */
static struct bpf_link *same_pinned_link(const char *path, const struct bpf_program *prog)
{
	__u8 ours[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct bpf_link *link;
	int prog_fd, r;

	if (access(path, F_OK) < 0)
		return NULL;
	link = bpf_link__open(path);
	if (!link)
		return NULL;
	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) < 0)
		goto differs;
	prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog_fd < 0)
		goto differs;
	r = prog_tag(prog_fd, theirs);
	close(prog_fd);
	if (r < 0 || prog_tag(bpf_program__fd(prog), ours) < 0 ||
	    memcmp(ours, theirs, BPF_TAG_SIZE) != 0)
		goto differs;
	return link;

differs:
	bpf_link__destroy(link); /* closes our fd; the pinned link stays */
	return NULL;
}

int pin_attach(struct pin *p, const struct bpf_object_skeleton *s)
{
	char path[PATH_MAX];

	p->kept = 0;
	for (int i = 0; i < s->prog_cnt; i++) {
		const struct bpf_prog_skeleton *ps =
			(const void *)((const char *)s->progs + (size_t)i * s->prog_skel_sz);
		struct bpf_program *prog = *ps->prog;
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		if (snprintf(path, sizeof(path), "%s/" LINKS_DIR "/%s", p->dir,
			     bpf_program__name(prog)) >= (int)sizeof(path))
			return log_error_errno(ENAMETOOLONG, "Failed to attach %s: %m",
					       bpf_program__name(prog));
		link = same_pinned_link(path, prog);
		if (link) {
			p->kept++;
		} else {
			link = bpf_program__attach(prog);
			if (!link)
				return log_error_errno(errno, "Failed to attach %s: %m",
						       bpf_program__name(prog));
		}
		*ps->link = link;
	}
	return 0;
}

int pin_links(struct pin *p, const struct bpf_object_skeleton *s)
{
	char path[PATH_MAX], tmp[PATH_MAX + sizeof(NEW_PREFIX)];
	int links_fd, replaced = 0, r = 0;

	if (mkdirat(p->dir_fd, LINKS_DIR, 0700) < 0 && errno != EEXIST)
		return log_error_errno(errno, "Failed to create '%s/" LINKS_DIR "': %m", p->dir);
	links_fd = openat(p->dir_fd, LINKS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (links_fd < 0)
		return log_error_errno(errno, "Failed to open '%s/" LINKS_DIR "': %m", p->dir);

	for (int i = 0; i < s->prog_cnt && r == 0; i++) {
		const struct bpf_prog_skeleton *ps =
			(const void *)((const char *)s->progs + (size_t)i * s->prog_skel_sz);
		const char *name = bpf_program__name(*ps->prog);
		struct stat st;
		bool existed;

		/* No link, or a pinned one kept by pin_attach(). */
		if (!*ps->link || bpf_link__pin_path(*ps->link))
			continue;
		if (snprintf(path, sizeof(path), "%s/" LINKS_DIR "/%s", p->dir, name) >=
		    (int)sizeof(path)) {
			r = log_error_errno(ENAMETOOLONG, "Failed to pin the link of %s: %m", name);
			break;
		}
		snprintf(tmp, sizeof(tmp), "%s/" LINKS_DIR "/" NEW_PREFIX "%s", p->dir, name);
		(void)unlink(tmp);
		existed = fstatat(links_fd, name, &st, 0) == 0;
		/* rename() over the old link: the old program stays attached until the new
		 * one's link is in its place. */
		if (bpf_obj_pin(bpf_link__fd(*ps->link), tmp) < 0 || rename(tmp, path) < 0) {
			r = log_error_errno(errno, "Failed to pin link '%s': %m", path);
			(void)unlink(tmp);
			break;
		}
		replaced += existed;
	}
	if (r == 0) {
		r = remove_stale_links(s, links_fd);
		if (r < 0)
			log_error_errno(r,
					"Failed to remove a stale link in '%s/" LINKS_DIR "': %m",
					p->dir);
	}
	close(links_fd);
	return r < 0 ? r : replaced;
}

void pin_close(struct pin *p)
{
	if (p->meta_fd >= 0)
		close(p->meta_fd);
	if (p->dir_fd >= 0)
		close(p->dir_fd); /* and the lock with it */
	p->meta_fd = p->dir_fd = -1;
}

/* Unlinks every entry of the directory @fd; subdirectories get the same first. */
static int remove_contents(int fd)
{
	struct dirent *de;
	int r = 0;
	DIR *d;

	d = opendir_dup(fd);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* umb_meta goes last, with the directory: until then the layout is known. */
		if (!strcmp(de->d_name, META_NAME))
			continue;
		if (de->d_type == DT_DIR) {
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (sub < 0) {
				r = -errno;
				continue;
			}
			if (remove_contents(sub) < 0)
				r = -errno;
			close(sub);
			if (unlinkat(fd, de->d_name, AT_REMOVEDIR) < 0 && r == 0)
				r = -errno;
		} else if (unlinkat(fd, de->d_name, 0) < 0 && errno != ENOENT) {
			r = -errno;
		}
	}
	closedir(d);
	if (r == 0 && unlinkat(fd, META_NAME, 0) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

int pin_reset(const char *dir)
{
	int fd, r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			log_info("nothing pinned in '%s'", dir);
			return 0;
		}
		return log_error_errno(errno, "Failed to open '%s': %m", dir);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (r == -EBUSY)
			log_error("Failed to lock '%s': an umbrellad (pid %u) is "
				  "using it; stop it first",
				  dir, pinned_daemon(dir));
		else
			log_error_errno(r, "Failed to lock '%s': %m", dir);
		close(fd);
		return r;
	}
	r = wait_daemon_gone(dir);
	if (r < 0) {
		close(fd);
		return r;
	}
	r = remove_contents(fd);
	close(fd);
	if (r == 0 && rmdir(dir) < 0)
		r = -errno;
	if (r < 0)
		return log_error_errno(r, "Failed to remove '%s': %m", dir);
	log_notice("removed '%s': its programs are detached, its restrictions "
		   "gone",
		   dir);
	return 0;
}
