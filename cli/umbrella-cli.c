// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - the operators' tool, in bpftool's OBJECT COMMAND grammar.
 *
 * So far: "run" (a command under restrictions, through rfork()), "version" and "help".
 * The inspection commands of DESIGN.md section 5 (status, task, layer, verdict, events,
 * key, binary) come with the issues that build what they inspect.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

/* Exit codes, documented in umbrella-cli(8). "run" exits with the command's status. */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,	  /* the command failed */
	EXIT_USAGE = 2,	  /* the command line is wrong */
	EXIT_NO_EXEC = 127, /* run: CMD could not be started (as the shell does) */
};

static int usage(FILE *out)
{
	fprintf(out, "Usage: umbrella-cli run [-r ITEM]... -- CMD [ARG]...\n"
		     "       umbrella-cli version\n"
		     "       umbrella-cli help\n"
		     "\n"
		     "ITEM is a restriction in the text form (fs:PATH[:MODES], net, net:FAMILY,\n"
		     "signal, fork, exec, exec-unsigned, ptrace, mount, module, setid, cap:NAME);\n"
		     "-r takes one item or a comma-separated list and may be repeated.\n");
	return out == stdout ? EXIT_OK : EXIT_USAGE;
}

static int cmd_version(void)
{
	printf("umbrella-cli %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
	return EXIT_OK;
}

/*
 * run: CMD starts through rfork() with the restrictions taking effect at its exec, so
 * CMD itself starts ("run -r exec -- sh -c /bin/true" runs sh and denies sh's exec).
 */
static int cmd_run(int argc, char *argv[])
{
	struct umb_restrictions *r = umb_restrictions__new();
	int c, status, ret = EXIT_ERROR;
	pid_t pid;

	if (!r) {
		fprintf(stderr, "umbrella-cli: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	optind = 1;
	while ((c = getopt(argc, argv, "+r:h")) >= 0) {
		char *error = NULL;

		switch (c) {
		case 'r':
			if (umb_restrictions__parse(r, optarg, &error) < 0) {
				fprintf(stderr, "umbrella-cli: %s\n", error ? error : optarg);
				free(error);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'h':
			ret = usage(stdout);
			goto out;
		default:
			ret = usage(stderr);
			goto out;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "umbrella-cli: run: no command given\n");
		ret = usage(stderr);
		goto out;
	}

	pid = umb_rfork(r, UMB_RFORK_ON_EXEC);
	if (pid < 0) {
		fprintf(stderr, "umbrella-cli: %s\n",
			umb_last_error() ? umb_last_error() : strerror(errno));
		goto out;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "umbrella-cli: %s: %s\n", argv[optind], strerror(errno));
		_exit(EXIT_NO_EXEC);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "umbrella-cli: waitpid: %s\n", strerror(errno));
		goto out;
	}
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	umb_restrictions__free(r);
	return ret;
}

int main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (argc == 2 && strcmp(argv[1], "version") == 0)
		return cmd_version();
	if (argc == 2 && (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0))
		return usage(stdout);
	if (argc >= 2)
		fprintf(stderr, "umbrella-cli: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
