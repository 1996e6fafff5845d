/* SPDX-License-Identifier: GPL-2.0-only */
/* Umbrella tests - TAP output: one "ok N - what" or "not ok N - what" line per check */
#ifndef UMBRELLA_TESTS_TAP_H
#define UMBRELLA_TESTS_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h" /* ARRAY_SIZE */

static unsigned tap_count, tap_failed;

__attribute__((format(printf, 4, 5))) static inline bool tap_result(bool ok, const char *file,
								    int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!ok)
		tap_failed++;
	printf("%sok %u - ", ok ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		printf("# failed at %s:%d\n", file, line);
	fflush(stdout);
	return ok;
}

/* TAP_OK(cond, "what is checked", ...): one check. */
#define TAP_OK(cond, ...) tap_result(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* TAP_EQ(actual, expected, "what"): integers, printing both on failure. */
#define TAP_EQ(actual, expected, ...)                                             \
	({                                                                        \
		long long _a = (actual), _e = (expected);                         \
		bool _ok = tap_result(_a == _e, __FILE__, __LINE__, __VA_ARGS__); \
		if (!_ok)                                                         \
			printf("# %s is %lld, expected %lld\n", #actual, _a, _e); \
		_ok;                                                              \
	})

/* TAP_SKIP("why", ...): a check that cannot run here, as the line "ok N - # SKIP why".
 * Never a silent return: tests/run counts skips apart and fails on one that
 * tests/skips-allowed does not name. */
__attribute__((format(printf, 1, 2))) static inline void TAP_SKIP(const char *fmt, ...)
{
	va_list ap;

	printf("ok %u - # SKIP ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Prints a diagnostic line that TAP consumers show but do not count. */
#define TAP_DIAG(...)                \
	do {                         \
		printf("# ");        \
		printf(__VA_ARGS__); \
		printf("\n");        \
	} while (0)

/* @s with tabs, newlines and carriage returns written as \t, \n and \r, so that a TAP
 * line stays one line. Rotates over a few buffers so that one message may show several
 * strings. */
static inline const char *tap_show(const char *s)
{
	static char bufs[4][512];
	static unsigned next;
	char *b = bufs[next++ % 4];
	size_t n = 0;

	for (; s && *s && n < sizeof(bufs[0]) - 3; s++) {
		if (*s == '\n' || *s == '\t' || *s == '\r') {
			b[n++] = '\\';
			b[n++] = *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r';
		} else {
			b[n++] = *s;
		}
	}
	b[n] = '\0';
	return b;
}

/* Prints the plan and returns the exit status of the test program. */
static inline int tap_finish(void)
{
	printf("1..%u\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* UMBRELLA_TESTS_TAP_H */
