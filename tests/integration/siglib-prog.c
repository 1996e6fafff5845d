// SPDX-License-Identifier: GPL-2.0-only
/*
 * A dynamically linked program for test-signed-libs.sh: its own library (siglib-lib.c)
 * found through DT_RUNPATH $ORIGIN, its ELF interpreter at a fixed path the test copies
 * ld.so to (meson.build). "siglib-prog" calls the library; "siglib-prog dlopen PATH"
 * also loads PATH with dlopen() and says what happened; "siglib-prog preload PATH"
 * execs itself with LD_PRELOAD=PATH (set here: under exec-unsigned, env is no program
 * the task may run). "siglib-prog wait FIFO" prints what the library's siglib_value()
 * returns, waits for a line on FIFO and prints it again: whether a write to the library
 * file meanwhile reached its mapped code.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void siglib_hello(void);
int siglib_value(void);

static int wait_and_call(const char *fifo)
{
	FILE *f;

	printf("value %x\n", (unsigned int)siglib_value());
	fflush(stdout);
	f = fopen(fifo, "r");
	if (!f) {
		perror(fifo);
		return 5;
	}
	(void)fgetc(f);
	fclose(f);
	printf("value %x\n", (unsigned int)siglib_value());
	return 0;
}

int main(int argc, char **argv)
{
	void *h;

	if (argc == 3 && !strcmp(argv[1], "preload")) {
		setenv("LD_PRELOAD", argv[2], 1);
		execv(argv[0], (char *[]){ argv[0], NULL });
		perror("execv");
		return 4;
	}
	if (argc == 3 && !strcmp(argv[1], "wait"))
		return wait_and_call(argv[2]);
	siglib_hello();
	if (argc == 3 && !strcmp(argv[1], "dlopen")) {
		h = dlopen(argv[2], RTLD_NOW);
		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 3;
		}
		puts("dlopen: loaded");
	}
	return 0;
}
