// SPDX-License-Identifier: GPL-2.0-only
/* The own library of siglib-prog (test-signed-libs.sh): signed in the test. */
#include <stdio.h>

void siglib_hello(void);
int siglib_value(void);

void siglib_hello(void)
{
	puts("hello from the library");
}

/* Its code holds the constant as an immediate (b8 de c0 17 5a: mov $0x5a17c0de, %eax),
 * which test-signed-overlay-libs.sh changes in the file while the code is mapped. */
int siglib_value(void)
{
	return 0x5a17c0de;
}
