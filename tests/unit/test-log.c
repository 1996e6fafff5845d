// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test: common/log.c under the journal (JOURNAL_STREAM naming stderr). A message
 * that quotes a caller's text with a newline and a "<0>" must stay one line with the
 * priority we chose: the journal reads each line's "<N>" as that line's priority, so a
 * raw newline would forge a message (at emergency priority, broadcast to terminals).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "tap.h"

/* log_vprintf() as libbpf's print callback calls it. */
static void vprint(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprintf(priority, fmt, ap);
	va_end(ap);
}

/* The text written to @f since offset 0. */
static char *contents(FILE *f)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

int main(void)
{
	FILE *f = tmpfile();
	char stream[64];
	struct stat st;
	int saved;

	if (!f || fstat(fileno(f), &st) < 0)
		return 1;
	saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	snprintf(stream, sizeof(stream), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", stream, 1);

	log_notice("pid 1: bad item '%s'", "fork\n<0>umbrellad: forged\x1b[2J");
	log_info("a final newline, %s\n", "the line's end");
	vprint(LOG_WARNING, "libbpf: %s\n", "line one\nline two");
	dup2(saved, STDERR_FILENO);

	const char *out = contents(f);
	const char *want = "<5>test-log: pid 1: bad item 'fork\\n<0>umbrellad: forged\\x1b[2J'\n"
			   "<6>test-log: a final newline, the line's end\n"
			   "<4>libbpf: line one\n<4>line two\n";

	TAP_OK(strcmp(out, want) == 0,
	       "a quoted newline and escape stay in one line; "
	       "each of libbpf's lines gets the priority (got \"%s\")",
	       tap_show(out));
	return tap_finish();
}
