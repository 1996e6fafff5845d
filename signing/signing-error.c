// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* signing (internal) - the library's error messages (signing-error.h) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "signing-error.h"

int signing_error(char **ret_error, int err, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (ret_error) {
		free(*ret_error);
		*ret_error = s;
	} else {
		free(s);
	}
	return err;
}
