// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: userns_account_uid() (daemon/userns-owner.c) charges a process in a user
 * namespace a user made to that user, however deep, and one in a namespace root made
 * (a container's) to its own uid, never to root. Needs root (it makes the namespaces
 * as nobody and as root) and user namespaces. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "userns-owner.h"

#define NOBODY 65534
#define SUBUID 100005 /* what SO_PEERCRED would say of a process in such a namespace */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A user namespace of the caller's, its uid and gid mapped to 0 there: the kernel
 * makes a nested one only for a caller whose ids are mapped in its own. */
static int enter_userns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER) < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (write_file("/proc/self/uid_map", map) < 0 ||
	    write_file("/proc/self/setgroups", "deny") < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", gid);
	return write_file("/proc/self/gid_map", map);
}

/*
 * A child as @uid that makes @depth nested user namespaces and waits; its user
 * namespace, opened, into *@ret_ns. Returns the child's pid, or -1.
 */
static pid_t namespaces_of(uid_t uid, int depth, int *ret_ns)
{
	int ready[2];
	char path[64], c;
	pid_t pid;

	if (pipe(ready) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		/* Dumpable again after the change of uid: else its /proc files stay root's,
		 * and it could not write its own maps. */
		if (uid && (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0 ||
			    prctl(PR_SET_DUMPABLE, 1) < 0))
			_exit(1);
		for (int i = 0; i < depth; i++)
			if (enter_userns() < 0)
				_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	*ret_ns = -1;
	if (pid > 0 && read(ready[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		*ret_ns = open(path, O_RDONLY | O_CLOEXEC);
	}
	close(ready[0]);
	return pid;
}

/* userns_account_uid() of a process with SUBUID in the namespaces @uid makes, @depth
 * deep: the uid it returned, or -errno. */
static long charged(uid_t uid, int depth)
{
	int ns, r;
	uid_t got = (uid_t)-1;
	pid_t pid = namespaces_of(uid, depth, &ns);

	if (pid < 0)
		return -ECHILD;
	r = ns >= 0 ? userns_account_uid(ns, SUBUID, &got) : -ECHILD;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (ns >= 0)
		close(ns);
	return r < 0 ? r : (long)got;
}

int main(void)
{
	uid_t got = 0;
	int fd;

	if (geteuid() != 0 || unshare(0) < 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	TAP_EQ(charged(0, 0), SUBUID, "in umbrellad's own user namespace: its own uid");
	TAP_EQ(charged(NOBODY, 1), NOBODY, "in a user namespace nobody made: nobody");
	TAP_EQ(charged(NOBODY, 5), NOBODY, "five namespaces deep below nobody's: nobody");
	TAP_EQ(charged(0, 1), SUBUID,
	       "in a namespace root made (a container's): its own uid, not root");
	TAP_EQ(charged(0, 3), SUBUID, "below it, even one that made more: its own uid");

	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	TAP_OK(fd >= 0 && userns_account_uid(fd, SUBUID, &got) < 0,
	       "a namespace that is not a user namespace: an error, no uid");
	if (fd >= 0)
		close(fd);
	return tap_finish();
}
