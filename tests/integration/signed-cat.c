// SPDX-License-Identifier: GPL-2.0-only
/*
 * signed-cat - the signed binary of test-signed-binary: it carries the execute
 * restriction "fs:/etc/passwd" (the macro of <umbrella/umbrella.h>), and for each FILE
 * on its command line tries open(2) and prints "FILE: ok" or "FILE: ENAME" (the errno).
 * Static: under exec-unsigned, mapping an unsigned ld.so or libc is refused.
 * Exit status 0 once it has run (what it found is in the output).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

UMBRELLA_EXEC_RESTRICTIONS("fs:/etc/passwd");

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			printf("%s: %s\n", argv[i], strerrorname_np(errno) ?: "errno?");
			continue;
		}
		printf("%s: ok\n", argv[i]);
		close(fd);
	}
	return 0;
}
