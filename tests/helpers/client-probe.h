/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella VM tests - what the C tests that call libumbrella against a real umbrellad
 * (test-rfork, test-rfork-timeout, test-avail, test-peer-*) share: a restriction list
 * parsed, a child's exit status, and the probe of a restriction they all use (a
 * socket(AF_INET), which "net" denies). Header-only.
 */
#ifndef UMBRELLA_TESTS_CLIENT_PROBE_H
#define UMBRELLA_TESTS_CLIENT_PROBE_H

#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

/* @list ("net,fs:/etc") parsed into new restrictions, or NULL. */
static inline struct umb_restrictions *restrictions(const char *list)
{
	struct umb_restrictions *r = umb_restrictions__new();

	if (r && umb_restrictions__parse(r, list, NULL) < 0) {
		umb_restrictions__free(r);
		return NULL;
	}
	return r;
}

/* 0 if this task may create an AF_INET socket, else the errno ("net" gives EACCES). */
static inline int socket_errno(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Waits for @pid and returns its exit status, or -1 (no such child, or a signal). */
static inline int wait_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* UMBRELLA_TESTS_CLIENT_PROBE_H */
