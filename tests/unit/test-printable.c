// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: umbrella-cli's cli_printable(), which stands between text others control
 * (command names, paths) and root's terminal. */
#include "../../cli/printable.h"
#include "tap.h"

static void check(const char *in, const char *expected, size_t size, const char *what)
{
	char buf[256] = "";

	cli_printable(in, buf, size);
	TAP_OK(strcmp(buf, expected) == 0, "%s: \"%s\"", what, tap_show(buf));
}

int main(void)
{
	check("plain name", "plain name", 256, "ASCII stays");
	check("caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93", 256, "valid UTF-8 stays");
	check("\x1b]0;pwned\x07\x1b[2J", "\\x1b]0;pwned\\x07\\x1b[2J", 256,
	      "escape sequences are written as \\xNN");
	check("a\\x1b", "a\\x5cx1b", 256, "a backslash is escaped (no forged escape)");
	check("as \"\\:\" a\\", "as \"\\:\" a\\", 256,
	      "a backslash that begins no \\x stays (the parser's hint \"\\:\")");
	check("\xc2\x9b"
	      "31m",
	      "\\xc2\\x9b31m", 256, "a C1 control in UTF-8 (CSI) is escaped");
	check("\x9b"
	      "31m",
	      "\\x9b31m", 256, "a raw C1 byte is escaped");
	check("\xc0\xaf \xed\xa0\x80", "\\xc0\\xaf \\xed\\xa0\\x80", 256,
	      "overlong forms and surrogates are escaped");
	check("\xe2\x9c", "\\xe2\\x9c", 256, "a truncated sequence is escaped");
	check("a\xe2\x80\xae"
	      "b",
	      "a\\xe2\\x80\\xaeb", 256, "a bidirectional override (U+202E) is escaped");
	check("\xe2\x81\xa6x\xe2\x80\x8b\xe2\x80\xa8",
	      "\\xe2\\x81\\xa6x\\xe2\\x80\\x8b\\xe2\\x80\\xa8", 256,
	      "an isolate (U+2066), a zero-width space and a line separator are escaped");
	check("\xe2\x80\x94 \xe2\x82\xac", "\xe2\x80\x94 \xe2\x82\xac", 256,
	      "text around them (an em dash, the euro sign) stays as it is");
	check("abc\x1b", "abc", 7, "truncation never cuts an escape");
	check("abcdef", "abcde", 6, "truncation fits the buffer");
	return tap_finish();
}
