// SPDX-License-Identifier: GPL-2.0-only
/* umbrella-cli - text that others control, made safe to print (printable.h) */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printable.h"

/* Whether code point @cp changes how the text around it is shown rather than showing
 * itself: the bidirectional controls (U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069), which would reorder the fields of a line on a bidi terminal, the
 * zero-width ones (U+200B..U+200D, U+2060, U+FEFF), and the line and paragraph
 * separators (U+2028, U+2029). */
static bool is_format_char(uint32_t cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

/* The length of the valid UTF-8 sequence at @s that is neither a control character (C1
 * included) nor a format character (is_format_char()), or 0. Overlong forms, surrogates
 * and code points above U+10FFFF are not valid. */
static size_t utf8_printable_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0; /* C0, DEL, a continuation byte, or never valid */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f) || is_format_char(cp))
		return 0;
	return len;
}

const char *cli_printable(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t out = 0;

	if (!size)
		return buf;
	while (*p) {
		/* A backslash is escaped where it would begin a forged "\xNN": a lone one
		 * (a restriction's "\:") reads as typed. */
		size_t len = *p == '\\' && p[1] == 'x' ? 0 : utf8_printable_len(p);

		if (len == 0) {
			if (out + 4 >= size)
				break;
			snprintf(buf + out, 5, "\\x%02x", *p);
			out += 4;
			p++;
			continue;
		}
		if (out + len >= size)
			break;
		for (size_t i = 0; i < len; i++)
			buf[out++] = (char)*p++;
	}
	buf[out] = '\0';
	return buf;
}

char *cli_printable_dup(const char *s)
{
	size_t size = CLI_PRINTABLE_SIZE(strlen(s));
	char *buf = malloc(size);

	return buf ? (char *)cli_printable(s, buf, size) : NULL;
}
