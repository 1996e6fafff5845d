/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - its messages on stderr: plain lines on a terminal (or a test's log file),
 * with the journal's priority prefix ("<3>", sd-daemon(3)) only when stderr is the
 * journal's stream.
 */
#ifndef UMBRELLA_LOG_H
#define UMBRELLA_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h> /* LOG_ERR, LOG_WARNING, LOG_INFO... */

/* Whether stderr is the stream systemd connected to the journal (JOURNAL_STREAM). */
bool log_stderr_is_journal(void);

/* "umbrellad: " and @fmt (which ends with its newline) at @priority. */
__attribute__((format(printf, 2, 3))) void log_msg(int priority, const char *fmt, ...);

/* @fmt as it is (another library's message) at @priority. */
void log_vprintf(int priority, const char *fmt, va_list ap);

#endif /* UMBRELLA_LOG_H */
