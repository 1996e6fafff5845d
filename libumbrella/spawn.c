// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella - umb_spawn(): a program started as a restricted child, as posix_spawn(3)
 * starts one, with a pidfd of it for the caller.
 *
 * umb_rfork_flags() makes the child with the layer pending for its exec (the kernel
 * puts the layer on the child at its creation, the child checks it carries it before
 * anything else runs, and the kernel refuses an exec that could not take the layer).
 * The child waits until the caller holds a pidfd of it, then only execs; if that
 * fails, it writes the exec's errno on a pipe that the exec would have closed
 * (O_CLOEXEC) and exits: the caller gets that error, the child reaped. So the caller either holds a pidfd of the program running restricted,
 * or has an error and no child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#include "lib-errno.h"
#include "rfork-internal.h"

extern char **environ;

static int spawn(int *ret_pidfd, pid_t *ret_pid, const char *path, char *const argv[],
		 char *const envp[], const struct umb_restrictions *r, unsigned int flags)
{
	int pipefd[2], go[2], err = 0, pidfd, status;
	ssize_t n;
	pid_t pid;
	char c;

	if (!ret_pidfd || !path || !argv || !r || (flags & ~(unsigned int)UMB_RFORK_PERMISSIVE))
		return -EINVAL;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return -err;
	}
	pid = umb_rfork_flags(r, flags | UMB_RFORK_ON_EXEC);
	if (pid == 0) {
		close(pipefd[0]);
		close(go[1]);
		/* Not before the caller holds a pidfd of us: exited, we could be reaped (by
		 * SIGCHLD ignored, by another thread's wait) and our pid reused before it
		 * opens one. No go (the caller failed or died): nothing runs. */
		while ((n = read(go[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(127);
		execve(path, argv, envp ? envp : environ);
		err = errno;
		(void)!write(pipefd[1], &err, sizeof(err));
		_exit(127);
	}
	close(pipefd[1]);
	close(go[0]);
	if (pid < 0) {
		close(pipefd[0]);
		close(go[1]);
		return pid;
	}
	/* The child waits for our go: its pid cannot be reused yet. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		err = errno;
	else if (write(go[1], "g", 1) != 1)
		err = errno ?: EIO;
	close(go[1]); /* without the go: the child exits, no exec */
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(err) && err == 0)
		err = EIO; /* cannot be: an exec that failed sets errno */
	else if (n != sizeof(err) && n != 0 && !err)
		err = EIO;
	if (err) {
		/* Without the go it exits by itself; with it, it may be running. */
		if (n != sizeof(err) && pidfd >= 0)
			(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		if (pidfd >= 0)
			close(pidfd);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return -err;
	}
	*ret_pidfd = pidfd;
	if (ret_pid)
		*ret_pid = pid;
	return 0;
}

int umb_spawn(int *ret_pidfd, pid_t *ret_pid, const char *path, char *const argv[],
	      char *const envp[], const struct umb_restrictions *r, unsigned int flags)
{
	return umb_errno(spawn(ret_pidfd, ret_pid, path, argv, envp, r, flags));
}
