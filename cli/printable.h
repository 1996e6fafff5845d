/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - text that others control (command names, paths, restriction texts),
 * made safe to print on a terminal */
#ifndef UMBRELLA_CLI_PRINTABLE_H
#define UMBRELLA_CLI_PRINTABLE_H

#include <stddef.h>

/*
 * cli_printable() - @s as it may be shown on a terminal, in @buf of @size bytes
 *
 * Any task names itself (comm), and any user names the files and restriction texts that
 * end up in layer descriptions and denial records: printed raw, an escape sequence in
 * one would drive root's terminal. Control characters (C0, DEL, and the C1 range
 * U+0080..U+009F), bytes that are not valid UTF-8, and a backslash before an 'x'
 * are written as \xNN, so that every "\x" shown is an escape; valid UTF-8 text (a
 * lone backslash included) stays as it is. Truncated to fit, never in the middle of an
 * escape. JSON output needs none of this: the writer escapes control characters.
 * Returns @buf.
 */
const char *cli_printable(const char *s, char *buf, size_t size);

/* cli_printable() of the whole of @s, in a buffer to free(); NULL when out of memory. */
char *cli_printable_dup(const char *s);

/* The size of a buffer that holds any string of @n bytes made printable. */
#define CLI_PRINTABLE_SIZE(n) (4 * (n) + 1)

#endif /* UMBRELLA_CLI_PRINTABLE_H */
