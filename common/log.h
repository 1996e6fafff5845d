/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - messages on stderr: plain lines on a terminal (or a test's log file), with
 * the journal's priority prefix ("<3>", sd-daemon(3)) only when stderr is the journal's
 * stream. Each message is "PROGRAM: TEXT" on one line.
 *
 * The error paths are one line each, in the style of systemd's log.h:
 *	if (r < 0)
 *		return log_error_errno(r, "Failed to open '%s': %m", path);
 * logs the message with %m standing for strerror(-r), and returns -abs(r). The
 * log_*() functions take a format without its newline (one final newline is dropped).
 */
#ifndef UMBRELLA_COMMON_LOG_H
#define UMBRELLA_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h> /* LOG_ERR, LOG_WARNING, LOG_INFO... */

/* Whether stderr is the stream systemd connected to the journal (JOURNAL_STREAM). */
bool log_stderr_is_journal(void);

/* @fmt as it is (another library's message, with its own newline) at @priority. */
void log_vprintf(int priority, const char *fmt, va_list ap);

/*
 * "PROGRAM: " and @fmt, and a newline, at @priority, with errno set to abs(@error) for
 * @fmt's %m when @error is not 0. Return: -abs(@error) (0 when @error is 0). errno is
 * as it was before the call.
 */
__attribute__((format(printf, 3, 4))) int log_internal(int priority, int error, const char *fmt,
						       ...);

#define log_full_errno(priority, error, ...) log_internal((priority), (error), __VA_ARGS__)
#define log_error_errno(error, ...)	     log_internal(LOG_ERR, (error), __VA_ARGS__)
#define log_warning_errno(error, ...)	     log_internal(LOG_WARNING, (error), __VA_ARGS__)
#define log_notice_errno(error, ...)	     log_internal(LOG_NOTICE, (error), __VA_ARGS__)
#define log_info_errno(error, ...)	     log_internal(LOG_INFO, (error), __VA_ARGS__)

#define log_error(...)	 ((void)log_internal(LOG_ERR, 0, __VA_ARGS__))
#define log_warning(...) ((void)log_internal(LOG_WARNING, 0, __VA_ARGS__))
#define log_notice(...)	 ((void)log_internal(LOG_NOTICE, 0, __VA_ARGS__))
#define log_info(...)	 ((void)log_internal(LOG_INFO, 0, __VA_ARGS__))

#endif /* UMBRELLA_COMMON_LOG_H */
