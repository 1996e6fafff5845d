// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Umbrella - messages on stderr (log.h).
 *
 * Under systemd stderr is a stream to the journal, which reads a "<N>" at the start of a
 * line as its priority; anywhere else that prefix is noise in front of the message. The
 * JOURNAL_STREAM variable names the stream systemd set up ("DEVICE:INODE",
 * systemd.exec(5)); stderr is still that stream only if its device and inode match
 * (a child that inherited the variable, or stderr redirected since, is not).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* -1 until known. */
static int stderr_is_journal = -1;

bool log_stderr_is_journal(void)
{
	if (stderr_is_journal < 0) {
		const char *e = getenv("JOURNAL_STREAM");
		unsigned long long dev, ino;
		struct stat st;

		stderr_is_journal = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
				    fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev &&
				    st.st_ino == ino;
	}
	return stderr_is_journal;
}

void log_vprintf(int priority, const char *fmt, va_list ap)
{
	if (log_stderr_is_journal())
		fprintf(stderr, "<%d>", priority);
	vfprintf(stderr, fmt, ap);
}

/* The prefix of a line: the priority for the journal, and who says it. */
static void log_prefix(int priority)
{
	if (log_stderr_is_journal())
		fprintf(stderr, "<%d>", priority);
	fputs(program_invocation_short_name, stderr);
	fputs(": ", stderr);
}

void log_msg(int priority, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	/* One line per call: the prefix and the message in one locked sequence. */
	flockfile(stderr);
	log_prefix(priority);
	va_start(ap, fmt);
	errno = saved; /* for a %m in @fmt */
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	funlockfile(stderr);
	errno = saved;
}

int log_internal(int priority, int error, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (error < 0)
		error = -error;
	flockfile(stderr);
	log_prefix(priority);
	va_start(ap, fmt);
	errno = error ? error : saved; /* what %m in @fmt names */
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	errno = saved;
	return -error;
}
