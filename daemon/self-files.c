// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - marks Umbrella's own files in umb_protected, for
 * bpf/lib/protect-files.bpf.h: a root that carries a layer must not write the
 * configuration, the key ring or the unit that the next umbrellad (or this one, for the
 * key ring) reads, nor replace umbrellad's binary.
 *
 * Each path is walked from "/" one name at a time (O_PATH | O_NOFOLLOW), so that what is
 * marked is what systemd and umbrellad would reach: every directory on the way gets
 * UMB_PROTECT_ANCESTOR (not renamed, removed or mounted over), the object its flags both
 * by inode and by name in its directory (the name survives an editor's or an upgrade's
 * rename by unrestricted root). The first name that does not exist is marked by name
 * (a directory missing there would be a place to put a drop-in: the whole tree it could
 * hold). A symbolic link on the way (/lib -> usr/lib) is marked itself, and the path is
 * walked again through its target.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>

#include "layer-install.h"
#include "log.h"
#include "self-files.h"

#ifndef UMBRELLAD_PATH
#define UMBRELLAD_PATH "/usr/sbin/umbrellad"
#endif
#ifndef UMBRELLA_UNIT_DIR
#define UMBRELLA_UNIT_DIR "/lib/systemd/system"
#endif

/* systemd's unit search path for the system manager (systemd.unit(5)), and where
 * umbrellad's unit was installed. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system.control", "/run/systemd/system.control",
	"/run/systemd/transient",      "/run/systemd/generator.early",
	"/etc/systemd/system",	       "/etc/systemd/system.attached",
	"/run/systemd/system",	       "/run/systemd/system.attached",
	"/run/systemd/generator",      "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system",     "/run/systemd/generator.late",
	"/lib/systemd/system",	       UMBRELLA_UNIT_DIR,
};

/* What of the unit each of them may hold: the unit (or a link masking it), its drop-ins,
 * the drop-ins of every service, and the link that starts it at boot. */
static const struct {
	const char *name;
	uint32_t flags;
} unit_names[] = {
	{ "umbrellad.service", UMB_PROTECT_OBJECT },
	{ "umbrellad.service.d", UMB_PROTECT_TREE },
	{ "service.d", UMB_PROTECT_TREE },
	{ "sysinit.target.wants/umbrellad.service", UMB_PROTECT_OBJECT },
};

/* Entries of umb_protected, built in memory first. */
struct entries {
	struct umb_protect_key *keys;
	uint32_t *flags;
	size_t n, cap;
};

static int entries_add(struct entries *s, uint32_t dev, uint64_t ino, uint64_t hash, uint32_t flags)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->keys[i].dev == dev && s->keys[i].ino == ino &&
		    s->keys[i].name_hash == hash) {
			s->flags[i] |= flags;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		void *k = realloc(s->keys, cap * sizeof(*s->keys));

		if (!k)
			return -ENOMEM;
		s->keys = k;
		k = realloc(s->flags, cap * sizeof(*s->flags));
		if (!k)
			return -ENOMEM;
		s->flags = k;
		s->cap = cap;
	}
	s->keys[s->n] = (struct umb_protect_key){ .dev = dev, .ino = ino, .name_hash = hash };
	s->flags[s->n++] = flags;
	return 0;
}

static bool entries_has(const struct entries *s, const struct umb_protect_key *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!memcmp(&s->keys[i], key, sizeof(*key)))
			return true;
	return false;
}

/* The kernel's name of the inode @fd refers to (as the BPF side keys it). */
static int fd_inode(int fd, uint32_t *dev, uint64_t *ino)
{
	return umb_kernel_inode(fd, 0, dev, ino);
}

/*
 * Marks @path (absolute) with @flags, and the directories on the way (see the top).
 * @depth bounds the walks again through symbolic links. Return: 0 or -errno.
 */
static int protect_path(struct entries *s, const char *path, uint32_t flags, int depth)
{
	char buf[PATH_MAX], *save = NULL, *name, *next;
	uint32_t dir_dev, dev;
	uint64_t dir_ino, ino;
	int dir, fd, r;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, path);
	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	r = fd_inode(dir, &dir_dev, &dir_ino);
	if (r < 0)
		goto out;
	r = entries_add(s, dir_dev, dir_ino, 0, UMB_PROTECT_ANCESTOR);
	for (name = strtok_r(buf, "/", &save); name && r >= 0; name = next) {
		uint64_t hash = layer_name_hash(name, strlen(name));
		bool last;
		struct stat st;

		next = strtok_r(NULL, "/", &save);
		last = !next;
		r = entries_add(s, dir_dev, dir_ino, 0, UMB_PROTECT_NAMES);
		if (r < 0)
			break;
		fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			if (r == -ENOENT) /* a name to keep free: all that could be made there */
				r = entries_add(s, dir_dev, dir_ino, hash,
						last ? flags : UMB_PROTECT_TREE);
			else if (r == -ENOTDIR)
				r = 0; /* a file where a directory would be: nothing is read there */
			break;
		}
		r = fd_inode(fd, &dev, &ino);
		if (r >= 0 && fstatat(fd, "", &st, AT_EMPTY_PATH) < 0)
			r = -errno;
		if (r >= 0) /* its file system: see UMB_PROTECT_FS_INO */
			r = entries_add(s, dev, UMB_PROTECT_FS_INO, 0, UMB_PROTECT_OBJECT);
		if (r >= 0)
			r = entries_add(s, dev, ino, 0, last ? flags : UMB_PROTECT_ANCESTOR);
		if (r >= 0)
			r = entries_add(s, dir_dev, dir_ino, hash,
					last ? flags : UMB_PROTECT_ANCESTOR);
		close(dir);
		dir = fd;
		dir_dev = dev;
		dir_ino = ino;
		if (r >= 0 && !last && S_ISLNK(st.st_mode)) {
			/* The rest of the path, through the link's target (a dangling link
			 * leads nowhere that is read). */
			char link[PATH_MAX], target[PATH_MAX], *real;
			size_t used = (size_t)(name - buf) + strlen(name);
			int n;

			memcpy(link, path, used);
			link[used] = '\0';
			real = realpath(link, NULL);
			if (!real)
				break;
			n = snprintf(target, sizeof(target), "%s%s", real, path + used);
			free(real);
			if (n < 0 || (size_t)n >= sizeof(target))
				r = -ENAMETOOLONG;
			else if (depth > 0)
				r = protect_path(s, target, flags, depth - 1);
			else
				r = -ELOOP;
			break;
		}
	}
out:
	close(dir);
	if (r < 0)
		log_error_errno(r, "cannot protect %s: %m", path);
	return r;
}

/* @path as an absolute path in @buf (a relative --config or --keyring is read from the
 * working directory). */
static const char *absolute(const char *path, char buf[PATH_MAX])
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return path;
	if (!getcwd(cwd, sizeof(cwd)) || snprintf(buf, PATH_MAX, "%s/%s", cwd, path) >= PATH_MAX)
		return NULL;
	return buf;
}

/* The files themselves, in @s. */
static int collect(struct entries *s, const char *config, const char *keyring)
{
	char path[PATH_MAX], exe[PATH_MAX];
	const char *p;
	ssize_t n;
	int r;

	r = protect_path(s, "/etc/umbrella", UMB_PROTECT_TREE, 8);
	p = absolute(keyring, path);
	if (r >= 0)
		r = p ? protect_path(s, p, UMB_PROTECT_TREE, 8) : -ENAMETOOLONG;
	p = absolute(config, path);
	if (r >= 0)
		r = p ? protect_path(s, p, UMB_PROTECT_OBJECT, 8) : -ENAMETOOLONG;
	if (r >= 0)
		r = protect_path(s, UMBRELLAD_PATH, UMB_PROTECT_OBJECT, 8);
	/* The binary that runs, where it differs (a prefix other than the unit's). */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r >= 0 && n > 0 && exe[0] == '/') {
		exe[n] = '\0';
		if (!strstr(exe, " (deleted)"))
			r = protect_path(s, exe, UMB_PROTECT_OBJECT, 8);
	}
	for (size_t i = 0; r >= 0 && i < sizeof(unit_dirs) / sizeof(unit_dirs[0]); i++)
		for (size_t j = 0; r >= 0 && j < sizeof(unit_names) / sizeof(unit_names[0]); j++) {
			if (snprintf(path, sizeof(path), "%s/%s", unit_dirs[i],
				     unit_names[j].name) >= (int)sizeof(path))
				return -ENAMETOOLONG;
			r = protect_path(s, path, unit_names[j].flags, 8);
		}
	return r;
}

int self_files_protect(int map_fd, const char *config, const char *keyring)
{
	struct umb_protect_key key, next, *prev = NULL;
	struct entries s = {};
	size_t stale = 0;
	int r;

	r = collect(&s, config, keyring);
	for (size_t i = 0; r >= 0 && i < s.n; i++)
		if (bpf_map_update_elem(map_fd, &s.keys[i], &s.flags[i], BPF_ANY) < 0) {
			r = -errno;
			log_error_errno(r, "cannot mark Umbrella's files in umb_protected: %m");
		}
	/* Then what a previous umbrellad marked and this one does not. */
	while (r >= 0 && bpf_map_get_next_key(map_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (entries_has(&s, &key))
			continue;
		if (bpf_map_delete_elem(map_fd, &key) < 0 && errno != ENOENT) {
			r = -errno;
			log_error_errno(r, "cannot update umb_protected: %m");
			break;
		}
		stale++;
		prev = NULL; /* the deleted key cannot lead on: start over */
	}
	if (r >= 0)
		log_info("protected Umbrella's files from restricted tasks (%zu entries, %zu "
			 "stale removed)",
			 s.n, stale);
	free(s.keys);
	free(s.flags);
	return r;
}
