// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - whether the umbrellad that umb_ctl names is still there (daemon-pid.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon-pid.h"
#include "fileio.h"
#include "macro.h"
#include "proc-status.h"

/* Whether the process of the /proc directory @dir (AT_FDCWD: of /proc/PID, @path) is
 * named "umbrellad". */
static bool comm_is_umbrellad(int dir, const char *path)
{
	_cleanup_close_ int fd = -EBADF;
	char comm[32] = "";
	ssize_t n;

	fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	return n > 0 && !strcmp(comm, "umbrellad\n");
}

/* Whether the real, effective, saved and file system uids of the process of the /proc
 * directory @dir are all 0. */
static bool uids_are_root(int dir)
{
	uid_t uid[4];

	return proc_status_uids(dir, uid) == 0 && !uid[0] && !uid[1] && !uid[2] && !uid[3];
}

bool daemon_pid_is_umbrellad(uint32_t pid)
{
	char path[64];

	if (!pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	return comm_is_umbrellad(AT_FDCWD, path);
}

int daemon_pid_open(uint32_t pid)
{
	_cleanup_close_ int dir = -EBADF;
	char path[64];
	struct stat st;

	if (!pid)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%u", pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(dir, &st) < 0)
		return -errno;
	/* A user's process may call itself umbrellad; it cannot make itself root's. The
	 * owner of its files alone does not say so: those of a process that is not
	 * dumpable are root's. */
	if (st.st_uid != 0 || !uids_are_root(dir) || !comm_is_umbrellad(dir, "comm"))
		return -ESRCH;
	return TAKE_FD(dir);
}
