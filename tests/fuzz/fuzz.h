/* SPDX-License-Identifier: GPL-2.0-only */
/* The fuzz targets' helpers (tests/fuzz): an input as a file, and checks that stop the run */
#ifndef UMBRELLA_FUZZ_H
#define UMBRELLA_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * FUZZ_CHECK() - a property of the code under test; when it does not hold, the input is
 * a finding like a crash: say which, and abort (libFuzzer keeps the input).
 * stdout: the targets run with -close_fd_mask=2 (umbrellad's log lines on stderr would
 * slow them down), and sanitizer reports go to libFuzzer's own copy of stderr.
 */
#define FUZZ_CHECK(cond, ...)                                                                  \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			printf("FUZZ_CHECK failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                                   \
			printf("\n");                                                          \
			fflush(stdout);                                                        \
			abort();                                                               \
		}                                                                              \
	} while (0)

/* The setup of a target failed: not a finding, but no run either. */
#define FUZZ_SETUP(cond)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			printf("fuzz setup failed at %s:%d: %s (%m)\n", __FILE__, __LINE__, \
			       #cond);                                                      \
			exit(2);                                                            \
		}                                                                           \
	} while (0)

/* A memfd (a regular file, as umbrellad's readers want) that fuzz_file_set() fills. */
static inline int fuzz_file_new(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	FUZZ_SETUP(fd >= 0);
	return fd;
}

/* Makes @fd hold exactly @size bytes of @data. */
static inline void fuzz_file_set(int fd, const uint8_t *data, size_t size)
{
	size_t off = 0;

	FUZZ_SETUP(ftruncate(fd, 0) == 0);
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		FUZZ_SETUP(n > 0);
		off += (size_t)n;
	}
}

/* The lowest free descriptor number: what a leaked descriptor would change. */
static inline int fuzz_lowest_free_fd(void)
{
	int fd = open("/", O_PATH | O_CLOEXEC);

	FUZZ_SETUP(fd >= 0);
	close(fd);
	return fd;
}

#endif /* UMBRELLA_FUZZ_H */
