// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - the operators' tool, in bpftool's OBJECT COMMAND grammar.
 *
 * So far it knows only "version" and "help"; the commands of DESIGN.md section 5
 * (run, status, task, layer, verdict, events, key, binary) come with the issues that
 * build what they inspect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/bpf-abi.h>

/* Exit codes, documented in umbrella-cli(8). */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1, /* the command failed */
	EXIT_USAGE = 2, /* the command line is wrong */
};

static int cmd_version(void)
{
	printf("umbrella-cli %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
	return EXIT_OK;
}

static int cmd_help(FILE *out)
{
	fprintf(out, "Usage: umbrella-cli OBJECT COMMAND\n"
		     "       umbrella-cli version\n"
		     "       umbrella-cli help\n");
	return out == stdout ? EXIT_OK : EXIT_USAGE;
}

int main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "version") == 0)
		return cmd_version();
	if (argc == 2 && (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0))
		return cmd_help(stdout);
	if (argc >= 2)
		fprintf(stderr, "umbrella-cli: unknown command '%s'\n", argv[1]);
	return cmd_help(stderr);
}
