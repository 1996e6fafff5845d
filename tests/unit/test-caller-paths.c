// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: umb_path_canonical() (libumbrella/caller-paths.c) on paths that exist, a new
 * name in an existing directory, and a path below a directory that does not exist yet,
 * which is refused with a message that says why and what to create. */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <umbrella/caller-paths.h>

#include "tap.h"

int main(void)
{
	char tmpl[] = "/tmp/umb-caller-paths-XXXXXX", path[PATH_MAX], canon[PATH_MAX];
	char *dir = mkdtemp(tmpl), *error = NULL, *want = NULL;
	int r;

	if (!TAP_OK(dir && realpath(dir, path), "a scratch directory"))
		return tap_finish();
	dir = strdup(path);

	r = umb_path_canonical(dir, canon, &error);
	TAP_OK(r == 0 && !strcmp(canon, dir) && !error, "an existing directory: itself");

	snprintf(path, sizeof(path), "%s/token", dir);
	r = umb_path_canonical(path, canon, &error);
	TAP_OK(r == 0 && !strcmp(canon, path) && !error,
	       "a new name in an existing directory: the directory and the name");

	/* The parent is missing: no inode to key the rule on. */
	snprintf(path, sizeof(path), "%s/app/token", dir);
	r = umb_path_canonical(path, canon, &error);
	if (asprintf(&want,
		     "fs:%s: the directory %s/app does not exist: a rule needs an existing file or "
		     "directory, or a new name in an existing directory (create %s/app first)",
		     path, dir, dir) < 0)
		want = NULL;
	TAP_EQ(r, -ENOENT, "a path whose directory does not exist: -ENOENT");
	if (!TAP_OK(error && want && !strcmp(error, want),
		    "its message says why and what to create"))
		TAP_DIAG("got '%s'", error ? error : "(null)");
	free(error);
	free(want);
	error = NULL;

	/* Several levels missing: the one to create first is named. */
	snprintf(path, sizeof(path), "%s/.config/app/token", dir);
	r = umb_path_canonical(path, canon, &error);
	if (asprintf(&want,
		     "fs:%s: the directory %s/.config/app does not exist (nor does %s/.config): a "
		     "rule needs an existing file or directory, or a new name in an existing "
		     "directory (create %s/.config first)",
		     path, dir, dir, dir) < 0)
		want = NULL;
	TAP_EQ(r, -ENOENT, "a path two directories below what exists: -ENOENT");
	if (!TAP_OK(error && want && !strcmp(error, want), "its message names the first to create"))
		TAP_DIAG("got '%s'", error ? error : "(null)");
	free(error);
	free(want);
	error = NULL;

	/* Once the directories exist, the same path is a new name in a directory. */
	snprintf(path, sizeof(path), "%s/.config", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/app", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/app/token", dir);
	r = umb_path_canonical(path, canon, &error);
	TAP_OK(r == 0 && !strcmp(canon, path) && !error, "after mkdir -p: accepted");

	rmdir(path);
	snprintf(path, sizeof(path), "%s/.config/app", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.config", dir);
	rmdir(path);
	rmdir(dir);
	free(dir);
	return tap_finish();
}
