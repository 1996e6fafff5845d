// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * untrusted-worker - the way libumbrella is meant to be used: a program hands work on
 * untrusted input to a child it starts with rfork(), and the child can neither reach
 * the network, nor read /etc, nor run other programs, whatever the input makes it do.
 *
 * Build against the installed library:
 *   cc untrusted-worker.c $(pkg-config --cflags --libs libumbrella) -o untrusted-worker
 * Run as any user while umbrellad is up:
 *   ./untrusted-worker
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

/* What the worker is denied: one layer, in the text form of the restrictions. */
#define WORKER_RESTRICTIONS "net,exec,fs:/etc"

/* The child: what a compromised parser would try. Exits 0 only if all is denied. */
static int worker(void)
{
	int denied = 0, fd;

	fd = open("/etc/hostname", O_RDONLY);
	printf("worker: open /etc/hostname: %s\n", fd < 0 ? strerror(errno) : "allowed");
	denied += fd < 0;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	printf("worker: socket(AF_INET): %s\n", fd < 0 ? strerror(errno) : "allowed");
	denied += fd < 0;
	execl("/bin/true", "true", (char *)NULL);
	printf("worker: exec /bin/true: %s\n", strerror(errno));
	denied++;
	fflush(stdout);
	return denied == 3 ? 0 : 1;
}

int main(void)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	int status;
	pid_t pid;

	if (!r || umb_restrictions__parse(r, WORKER_RESTRICTIONS, &error) < 0) {
		fprintf(stderr, "untrusted-worker: %s: %s\n", WORKER_RESTRICTIONS,
			error ? error : strerror(ENOMEM));
		free(error);
		umb_restrictions__free(r);
		return 1;
	}
	fflush(stdout); /* nothing buffered is written twice */
	pid = rfork(r);
	if (pid < 0) {
		/* Fail closed: no child ran without its restrictions. */
		const char *why = umb_last_error(); /* umbrellad's words, if it answered */

		fprintf(stderr, "untrusted-worker: rfork: %s\n", why ? why : strerror(errno));
		umb_restrictions__free(r);
		return 1;
	}
	if (pid == 0)
		_exit(worker());
	umb_restrictions__free(r);
	if (waitpid(pid, &status, 0) < 0) {
		perror("untrusted-worker: waitpid");
		return 1;
	}
	printf("untrusted-worker: the worker was %s\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "contained" : "NOT contained");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
