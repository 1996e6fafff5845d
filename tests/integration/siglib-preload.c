// SPDX-License-Identifier: GPL-2.0-only
/* An unsigned library for test-signed-libs.sh (LD_PRELOAD, dlopen): if its code ever
 * runs, it says so. */
#include <stdio.h>

__attribute__((constructor)) static void announce(void)
{
	puts("unsigned library code ran");
	fflush(stdout);
}
