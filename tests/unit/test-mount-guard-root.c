// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: mount_guard_open_in_root() (daemon/mount-guard.c) walks a path one name at
 * a time as openat2() with RESOLVE_IN_ROOT does: symbolic links followed, relative and
 * absolute, ".." and absolute links kept inside the root, loops refused. The guard is
 * that of a child in a user and mount namespace of its own, so that the walk, not the
 * kernel's, runs; the kernel's answer (the inactive guard) is the reference. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mount-guard.h"
#include "tap.h"

static int root;

/* Whether @path leads to the same inode (or error) in the walk and in the kernel's. */
static int same(const struct mount_guard *g, const char *path, const char *want)
{
	struct stat a, b;
	int fa = mount_guard_open_in_root(g, root, path);
	int fb = mount_guard_open_in_root(NULL, root, path), wb = -1, r;

	if (want)
		wb = openat(root, want, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fa < 0 || fb < 0)
		r = fa == fb && !want ? 0 : -1;
	else
		r = fstat(fa, &a) == 0 && fstat(fb, &b) == 0 && a.st_ino == b.st_ino &&
				    a.st_dev == b.st_dev && wb >= 0 && fstat(wb, &b) == 0 &&
				    a.st_ino == b.st_ino ?
			    0 :
			    -1;
	if (r < 0)
		TAP_DIAG("%s: walk %d, kernel %d", path, fa, fb);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	if (wb >= 0)
		close(wb);
	return r;
}

int main(void)
{
	char tmpl[] = "/tmp/umb-guard-root-XXXXXX";
	struct mount_guard g;
	char *dir = mkdtemp(tmpl);
	int ok, pipefd[2], st;
	pid_t child;
	char c, path[PATH_MAX];

	if (pipe(pipefd) < 0 || (child = fork()) < 0)
		return 1;
	if (child == 0) { /* tells whether it could, then waits to be killed */
		c = unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 'y' : 'n';
		(void)!write(pipefd[1], &c, 1);
		pause();
		_exit(0);
	}
	if (read(pipefd[0], &c, 1) != 1 || c != 'y') {
		printf("1..0 # SKIP no user namespace here\n");
		kill(child, SIGKILL);
		return 0;
	}
	if (!TAP_OK(mount_guard_open(&g, -1, child, -1) == 0 && g.active,
		    "the guard of a user namespace of its own is active"))
		return tap_finish();
	ok = dir && chdir(dir) == 0 && mkdir("lib", 0755) == 0 && mkdir("lib/x", 0755) == 0 &&
	     close(open("lib/x/libc.so", O_CREAT | O_WRONLY, 0644)) == 0 &&
	     symlink("x/libc.so", "lib/rel") == 0 && symlink("/lib/x/libc.so", "lib/abs") == 0 &&
	     symlink("../../../../lib/x/libc.so", "lib/x/up") == 0 &&
	     symlink("lib", "lib64") == 0 && symlink("loop", "loop") == 0 &&
	     symlink("/", "lib/x/top") == 0 &&
	     snprintf(path, sizeof(path), "/proc/%d/root%s", (int)child, dir) > 0 &&
	     (root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0; /* its mounts */
	if (!TAP_OK(ok, "a scratch tree with symbolic links"))
		return tap_finish();
	TAP_OK(same(&g, "/lib/x/libc.so", "lib/x/libc.so") == 0, "a plain path");
	TAP_OK(same(&g, "/lib/rel", "lib/x/libc.so") == 0, "a relative link");
	TAP_OK(same(&g, "/lib/abs", "lib/x/libc.so") == 0, "an absolute link: in the root");
	TAP_OK(same(&g, "/lib64/x/up", "lib/x/libc.so") == 0,
	       "a link through a link to a directory, \"..\" past the root stays in it");
	TAP_OK(same(&g, "/lib/x/../x/./libc.so", "lib/x/libc.so") == 0, "\"..\" and \".\"");
	TAP_OK(same(&g, "/lib/x/top/lib64/x", "lib/x") == 0, "a link to \"/\", then on");
	TAP_OK(same(&g, "/../..", ".") == 0, "\"..\" of the root: the root");
	TAP_EQ(mount_guard_open_in_root(&g, root, "/loop"), -ELOOP, "a loop: -ELOOP");
	TAP_EQ(mount_guard_open_in_root(&g, root, "/lib/x/libc.so/y"), -ENOTDIR,
	       "a file as a directory: -ENOTDIR");
	TAP_EQ(mount_guard_open_in_root(&g, root, "/lib/none"), -ENOENT, "missing: -ENOENT");
	mount_guard_close(&g);
	for (const char *const *f =
		     (const char *const[]){ "lib/x/libc.so", "lib/x/up", "lib/x/top", "lib/rel",
					    "lib/abs", "lib64", "loop", NULL };
	     *f; f++)
		unlink(*f);
	rmdir("lib/x");
	rmdir("lib");
	rmdir(dir);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	return tap_finish();
}
