// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Umbrella - messages on stderr (log.h).
 *
 * Under systemd stderr is a stream to the journal, which reads a "<N>" at the start of a
 * line as its priority; anywhere else that prefix is noise in front of the message. The
 * JOURNAL_STREAM variable names the stream systemd set up ("DEVICE:INODE",
 * systemd.exec(5)); stderr is still that stream only if its device and inode match
 * (a child that inherited the variable, or stderr redirected since, is not).
 *
 * A message quotes what others wrote (a restriction a caller sent, a path): a newline
 * in it would start a line of its own, which the journal would read as another message
 * with whatever "<N>" priority the writer chose. So a message is formatted whole and
 * written as one line, with its control characters escaped (log_line()).
 */
#include <errno.h>
#include <stdarg.h>
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

/* The start of a line: the priority for the journal (the one place that writes it), and
 * with @name who says it. */
static void line_start(int priority, bool name)
{
	if (log_stderr_is_journal())
		fprintf(stderr, "<%d>", priority);
	if (name) {
		fputs(program_invocation_short_name, stderr);
		fputs(": ", stderr);
	}
}

/*
 * Writes @fmt, @ap as one line after line_start() (@lines: as lines, each with the
 * journal's priority and without the program's name, for libbpf's own multi-line text,
 * which quotes nobody): one final newline of the text is the line's end, any other
 * control character is written as "\n", "\t" or "\xHH". errno is what %m names.
 */
static void log_line(int priority, bool lines, const char *fmt, va_list ap)
{
	char *text = NULL;
	int n = vasprintf(&text, fmt, ap);

	flockfile(stderr);
	line_start(priority, !lines);
	if (n < 0) {
		fputs("(a message was lost: out of memory)", stderr);
		n = 0;
	}
	if (n > 0 && text[n - 1] == '\n')
		n--;
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' && lines) {
			fputc('\n', stderr);
			line_start(priority, false);
		} else if (c == '\n') {
			fputs("\\n", stderr);
		} else if (c == '\t') {
			fputs("\\t", stderr);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(stderr, "\\x%02x", c);
		} else {
			fputc(c, stderr);
		}
	}
	fputc('\n', stderr);
	funlockfile(stderr);
	free(text);
}

void log_vprintf(int priority, const char *fmt, va_list ap)
{
	log_line(priority, true, fmt, ap);
}

int log_internal(int priority, int error, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (error < 0)
		error = -error;
	va_start(ap, fmt);
	errno = error ? error : saved; /* what %m in @fmt names */
	log_line(priority, false, fmt, ap);
	va_end(ap);
	errno = saved;
	return -error;
}
