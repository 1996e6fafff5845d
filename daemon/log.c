// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - its messages on stderr (log.h).
 *
 * Under systemd stderr is a stream to the journal, which reads a "<N>" at the start of a
 * line as its priority; anywhere else that prefix is noise in front of the message. The
 * JOURNAL_STREAM variable names the stream systemd set up ("DEVICE:INODE",
 * systemd.exec(5)); stderr is still that stream only if its device and inode match
 * (a child that inherited the variable, or stderr redirected since, is not).
 */
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

void log_msg(int priority, const char *fmt, ...)
{
	va_list ap;

	/* One line per call: the prefix and the message in one buffered write. */
	flockfile(stderr);
	if (log_stderr_is_journal())
		fprintf(stderr, "<%d>", priority);
	fputs("umbrellad: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	funlockfile(stderr);
}
