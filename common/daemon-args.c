// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - what a running umbrellad was told on its command line (daemon-args.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon-args.h"
#include "daemon-options.h"
#include "daemon-pid.h"
#include "fileio.h"
#include "macro.h"

/* The option that "--@name" (@len bytes, before any '=') names, as getopt_long() picks
 * it: an exact name, else the one option it is a prefix of; NULL if none or ambiguous. */
static const struct option *find_option(const char *name, size_t len)
{
	const struct option *found = NULL;

	for (const struct option *o = daemon_long_options; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (o->name[len] == '\0')
			return o;
		if (found)
			return NULL;
		found = o;
	}
	return found;
}

const char *daemon_args_keyring(const char *args, size_t len)
{
	const char *end = args + len, *keyring = NULL, *p;

	if (!len || args[len - 1] != '\0')
		return NULL;	     /* not a whole command line */
	p = args + strlen(args) + 1; /* past the program */
	while (p < end) {
		const char *arg = p, *eq;
		const struct option *o;
		size_t name_len;

		p += strlen(p) + 1;
		if (!strcmp(arg, "--"))
			break;
		if (strncmp(arg, "--", 2) != 0 || !arg[2])
			continue; /* short options take no value; umbrellad refuses operands */
		eq = strchr(arg + 2, '=');
		name_len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		o = find_option(arg + 2, name_len);
		if (!o || o->has_arg != required_argument)
			continue;
		if (!eq) {
			if (p >= end)
				break;
			eq = p - 1; /* the value: the next argument */
			p += strlen(p) + 1;
		}
		if (o->val == DAEMON_ARG_KEYRING)
			keyring = eq + 1;
	}
	return keyring;
}

int daemon_keyring_dir(uint32_t pid, const char *def_dir, char **ret)
{
	_cleanup_free_ char *args = NULL;
	_cleanup_close_ int proc = -EBADF;
	char cwd[PATH_MAX];
	const char *dir;
	size_t size = 0;
	ssize_t n;
	int r;

	proc = daemon_pid_open(pid);
	if (proc < 0)
		return proc;
	r = read_full_file_at(proc, "cmdline", 0, 1 << 20, &args, &size);
	if (r < 0)
		return r;
	dir = daemon_args_keyring(args, size) ?: def_dir;
	if (dir[0] != '/') {
		n = readlinkat(proc, "cwd", cwd, sizeof(cwd) - 1);
		if (n > 0) {
			cwd[n] = '\0';
			return asprintf(ret, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", dir) < 0 ?
				       -ENOMEM :
				       0;
		}
	}
	*ret = strdup(dir);
	return *ret ? 0 : -ENOMEM;
}
