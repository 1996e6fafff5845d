// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the programs without which "unsigned = deny" locks a machine up
 * (essentials.h).
 *
 * Checked as the exec gate would check them, with the same reader and verifier: a file
 * the gate would refuse or find unsigned is listed, and so is one that cannot be read
 * (it could not be shown to run). What the list does not see: a signed file on a file
 * system the gate does not watch (a miss, refused under deny as well), and scripts
 * those programs run; it is the floor, not a proof that the machine stays usable.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-dynamic.h"
#include "essentials.h"
#include "macro.h"
#include "signed-elf.h"
#include "time-util.h"

/* Reading one file gives up after this long (as the gate's GATE_DEADLINE_USEC). */
#define ESSENTIAL_DEADLINE_USEC (10 * USEC_PER_SEC)

/* The fixed part of the list (besides root's shell, umbrellad and the loader): a shell,
 * the tool that reloads umbrellad, and what a login on a console or over ssh runs. */
static const char *const fixed[] = {
	"/bin/sh",
	"/bin/systemctl",
	"/usr/lib/systemd/systemd-executor", /* systemd 255+: the exec of every service */
	"/sbin/agetty",
	"/bin/login",
	"/sbin/sulogin", /* the emergency and rescue shells */
	"/usr/sbin/sshd",
};

void essentials_free(char **paths)
{
	if (!paths)
		return;
	for (char **p = paths; *p; p++)
		free(*p);
	free(paths);
}

/* The ELF interpreter of @path (malloc'd), or NULL. */
static char *interp_of(const char *path)
{
	struct elf_dynamic d = {};
	char *interp = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (elf_dynamic_read(fd, &d) == 0 && d.interp)
		interp = strdup(d.interp);
	elf_dynamic_release(&d);
	close(fd);
	return interp;
}

int essentials_default(char ***ret)
{
	size_t n = 0, max = ARRAY_SIZE(fixed) + 3; /* root's shell, umbrellad, ld.so */
	char **paths = calloc(max + 1, sizeof(*paths));
	struct passwd *pw = getpwuid(0);
	char self[PATH_MAX];
	ssize_t len;

	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!(paths[n++] = strdup(fixed[i])))
			goto oom;
	if (pw && pw->pw_shell && *pw->pw_shell && !(paths[n++] = strdup(pw->pw_shell)))
		goto oom;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		static const char deleted[] = " (deleted)";
		size_t dlen = sizeof(deleted) - 1;

		self[len] = '\0';
		/* Replaced on disk since it started (an upgrade): the file that starts next
		 * is the one at the name, without the kernel's mark of the old one. */
		if ((size_t)len > dlen && !strcmp(self + len - dlen, deleted))
			self[len - dlen] = '\0';
		if (!(paths[n++] = strdup(self)))
			goto oom;
		/* The loader of umbrellad is that of every dynamic program here. */
		paths[n] = interp_of("/proc/self/exe");
		if (paths[n])
			n++;
	}
	*ret = paths;
	return 0;
oom:
	essentials_free(paths);
	return -ENOMEM;
}

/* Appends "@path: @why" to the lines in *@text. Return: 0 or -ENOMEM. */
static int add_line(char **text, const char *path, const char *real, const char *why)
{
	char *more;
	bool other = real && strcmp(real, path) != 0;

	if (asprintf(&more, "%s%s  %s%s%s%s: %s", *text ? *text : "", *text ? "\n" : "", path,
		     other ? " (" : "", other ? real : "", other ? ")" : "", why) < 0)
		return -ENOMEM;
	free(*text);
	*text = more;
	return 0;
}

/* Why the file @fd does not run under deny, in @buf, or NULL when it is validly signed. */
static const char *check_file(const struct keyring *k, int fd, char *buf, size_t size)
{
	struct signed_elf e = {};
	const char *reason = NULL;
	char *error = NULL;
	int r;

	r = signed_elf_read(fd, now_usec() + ESSENTIAL_DEADLINE_USEC, &e, &error);
	if (r < 0)
		snprintf(buf, size, "%s: %s", r == -EBADMSG ? "malformed" : "cannot be read",
			 error ? error : strerror(-r));
	else if (keyring_verify(k, &e, &reason) != UMB_VERDICT_SIGNED)
		snprintf(buf, size, "%s", reason ? reason : "not signed");
	else
		buf[0] = '\0';
	free(error);
	signed_elf_release(&e);
	return buf[0] ? buf : NULL;
}

int essentials_unsigned(const struct keyring *k, char *const *paths, char **ret_text)
{
	struct stat seen[32];
	size_t n_seen = 0;
	char *text = NULL;
	int count = 0;

	for (char *const *p = paths; *p; p++) {
		char why[256], real[PATH_MAX];
		const char *reason;
		struct stat st;
		bool dup = false;
		int fd;

		fd = open(*p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0) {
			snprintf(why, sizeof(why), "cannot be read: %s", strerror(errno));
			reason = why;
			real[0] = '\0';
		} else {
			if (fstat(fd, &st) == 0) {
				for (size_t i = 0; i < n_seen; i++)
					dup |= seen[i].st_dev == st.st_dev &&
					       seen[i].st_ino == st.st_ino;
				if (!dup && n_seen < ARRAY_SIZE(seen))
					seen[n_seen++] = st;
			}
			if (dup) {
				close(fd);
				continue;
			}
			if (!realpath(*p, real))
				real[0] = '\0';
			reason = check_file(k, fd, why, sizeof(why));
			close(fd);
		}
		if (!reason)
			continue;
		count++;
		if (add_line(&text, *p, real[0] ? real : NULL, reason) < 0) {
			free(text);
			return -ENOMEM;
		}
	}
	*ret_text = text;
	return count;
}

int essentials_deny_check(const struct config *c, const char *conf_name, const char *keyring_dir,
			  char **ret_text)
{
	struct keyring *k = NULL;
	char **paths = NULL, *list = NULL, *error = NULL;
	int n, r;

	*ret_text = NULL;
	if (!c->unsigned_deny)
		return 0;
	r = keyring_load(keyring_dir, &k, &error);
	free(error);
	if (r < 0)
		return r;
	r = essentials_default(&paths);
	n = r < 0 ? r : essentials_unsigned(k, paths, &list);
	essentials_free(paths);
	keyring_free(k);
	if (n <= 0)
		return n;
	if (c->unsigned_deny_force)
		r = asprintf(ret_text,
			     "%s: unsigned_deny_force = yes: 'unsigned = deny' in force although "
			     "%d essential program%s not validly signed by a key of %s (every "
			     "exec of %s is refused):\n%s",
			     conf_name, n, n == 1 ? " is" : "s are", keyring_dir,
			     n == 1 ? "it" : "them", list);
	else
		r = asprintf(ret_text,
			     "%s: 'unsigned = deny' refused: it would lock this machine up, "
			     "%d essential program%s not validly signed by a key of %s (sign "
			     "%s with a key of the ring, or set 'unsigned_deny_force = yes'):\n%s",
			     conf_name, n, n == 1 ? " is" : "s are", keyring_dir,
			     n == 1 ? "it" : "them", list);
	free(list);
	if (r < 0) {
		*ret_text = NULL;
		return -ENOMEM;
	}
	return c->unsigned_deny_force ? 1 : -EPERM;
}
