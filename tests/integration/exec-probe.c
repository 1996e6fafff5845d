// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec-probe - how test-signed-binary observes exec and mmap errnos (static, unsigned):
 *
 *   exec-probe PATH [ARG]...   execv(PATH); on failure prints "exec PATH: ENAME", exit 111
 *   exec-probe --mmap FILE     mmap(PROT_READ | PROT_EXEC) of FILE's first page; prints
 *                              "mmap FILE: ok" or "mmap FILE: ENAME"
 *   exec-probe --flip-exec OFFSET FILE [ARG]...
 *                              inverts the byte at OFFSET of FILE through a shared
 *                              writable mapping (no write(2)), unmaps and closes it, and
 *                              at once execs FILE as above: modify after verify with no
 *                              time for umbrellad to see the change first
 *   exec-probe --serve         for each line of stdin (words separated by spaces): fork,
 *                              the child runs "exec-probe WORDS...", the parent prints
 *                              "done STATUS" when it has ended. A process that keeps the
 *                              layers it started with (umbrella-cli run -r ... -- exec-probe
 *                              --serve) while umbrellad is stopped and started.
 *
 * Static: under exec-unsigned, mapping an unsigned ld.so or libc is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORDS 32

static const char *errname(int e)
{
	return strerrorname_np(e) ?: "errno?";
}

static int probe_exec(char **argv)
{
	execv(argv[0], argv);
	printf("exec %s: %s\n", argv[0], errname(errno));
	fflush(stdout);
	return 111;
}

static int probe_mmap(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0) {
		printf("mmap %s: open: %s\n", path, errname(errno));
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		printf("mmap %s: %s\n", path, errname(errno));
	else
		printf("mmap %s: ok\n", path);
	close(fd);
	return 0;
}

static int serve(void)
{
	char line[4096];

	while (fgets(line, sizeof(line), stdin)) {
		char *words[MAX_WORDS + 1], *save = NULL, *w;
		int n = 0, status = 0;
		pid_t pid;

		for (w = strtok_r(line, " \n", &save); w && n < MAX_WORDS;
		     w = strtok_r(NULL, " \n", &save))
			words[n++] = w;
		words[n] = NULL;
		if (n == 0)
			continue;
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(strcmp(words[0], "--mmap") ? probe_exec(words) :
							   probe_mmap(words[1]));
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			printf("done fork: %s\n", errname(errno));
		else
			printf("done %d\n",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		fflush(stdout);
	}
	return 0;
}

static int flip_exec(long offset, char **argv)
{
	int fd = open(argv[0], O_RDWR | O_CLOEXEC);
	unsigned char *p;

	if (fd < 0) {
		printf("flip %s: %s\n", argv[0], errname(errno));
		return 1;
	}
	p = mmap(NULL, (size_t)offset + 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("flip %s: mmap: %s\n", argv[0], errname(errno));
		return 1;
	}
	p[offset] ^= 0xff;
	munmap(p, (size_t)offset + 1);
	close(fd);
	return probe_exec(argv);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--serve"))
		return serve();
	if (argc == 3 && !strcmp(argv[1], "--mmap"))
		return probe_mmap(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "--flip-exec"))
		return flip_exec(atol(argv[2]), argv + 3);
	if (argc >= 2 && argv[1][0] != '-')
		return probe_exec(argv + 1);
	fprintf(stderr, "usage: exec-probe PATH [ARG]... | --mmap FILE | --flip-exec OFFSET PATH "
			"[ARG]... | --serve\n");
	return 2;
}
