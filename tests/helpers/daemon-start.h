/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests - starting the build tree's umbrellad on a socket of the test's own,
 * for the C tests that talk to it through libumbrella or raw requests. Header-only.
 */
#ifndef UMBRELLA_TESTS_DAEMON_START_H
#define UMBRELLA_TESTS_DAEMON_START_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* The umbrellad of the build tree that holds the test program @argv0
 * (BUILD/tests/integration/NAME -> BUILD/daemon/umbrellad), in @buf. */
static inline void test_umbrellad_path(const char *argv0, char *buf, size_t size)
{
	const char *slash = strrchr(argv0, '/');
	int dir = slash ? (int)(slash + 1 - argv0) : 0;

	snprintf(buf, size, "%.*s../../daemon/umbrellad", dir, argv0);
}

/*
 * test_start_umbrellad() - start @umbrellad listening on @socket, with the further
 * arguments @args (NULL-terminated, at most 8; may be NULL), its messages in @log
 * (they would interleave with the TAP output)
 *
 * Waits until it listens, up to 180 s: on a TCG host loaded by other VMs, a start that
 * had not listened after the 60 s these tests gave it was seen on 6.12.
 * Return: its pid, or -1 (it exited, or never listened: its log is shown as TAP
 * comments and it is stopped).
 */
static inline pid_t test_start_umbrellad(const char *umbrellad, const char *socket, const char *log,
					 const char *const *args)
{
	const char *argv[12] = { "umbrellad", "--socket", socket };
	struct stat st;
	char line[512];
	size_t n = 3;
	pid_t pid;
	FILE *f;

	for (; args && *args && n < 11; args++)
		argv[n++] = *args;
	pid = fork();
	if (pid == 0) {
		if (!freopen(log, "w", stderr))
			_exit(126);
		execv(umbrellad, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	for (int i = 0; i < 1800 && stat(socket, &st) < 0; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break; /* it exited */
		usleep(100 * 1000);
	}
	if (stat(socket, &st) == 0)
		return pid;
	f = fopen(log, "re");
	while (f && fgets(line, sizeof(line), f))
		TAP_DIAG("umbrellad: %.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
	kill(pid, SIGTERM);
	return -1;
}

#endif /* UMBRELLA_TESTS_DAEMON_START_H */
