/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests - giving a new process the pid of one that has exited (root, in the
 * initial pid namespace: /proc/sys/kernel/ns_last_pid), as a pid allocator that wrapped
 * around would. Header-only.
 */
#ifndef UMBRELLA_TESTS_PID_REUSE_H
#define UMBRELLA_TESTS_PID_REUSE_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * fork_as() - fork a child whose pid is @want (free: its process was reaped)
 *
 * Returns like fork(): 0 in the child, its pid (@want) in the parent, or -1 when the
 * pid could not be had (another fork took it each time).
 */
static inline pid_t fork_as(pid_t want)
{
	for (int attempt = 0; attempt < 20; attempt++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "we");
		int status;
		pid_t pid;

		if (!f || fprintf(f, "%d", want - 1) < 0 || fclose(f) != 0)
			return -1;
		pid = fork();
		if (pid == 0 && getpid() != want)
			_exit(0);
		if (pid == 0 || pid == want || pid < 0)
			return pid < 0 ? -1 : pid;
		(void)waitpid(pid, &status, 0);
	}
	return -1;
}

#endif /* UMBRELLA_TESTS_PID_REUSE_H */
