// SPDX-License-Identifier: GPL-2.0-only
/* The own library of siglib-prog (test-signed-libs.sh): signed in the test. */
#include <stdio.h>

void siglib_hello(void);

void siglib_hello(void)
{
	puts("hello from the library");
}
