// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - the operators' tool, in bpftool's OBJECT COMMAND grammar.
 *
 * This file holds the grammar (global options, the command table) and the commands
 * that need no BPF: version, help.
 * Each object's commands have their own file: status.c, task.c, layer.c, verdict.c and
 * metrics.c read the pinned maps, not umbrellad, so they work while umbrellad is down;
 * events.c reads the journal; key.c (the key ring) and binary.c (sign, verify, inspect)
 * work on files and need neither; run.c starts a command under a new layer.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/umbrella.h>

#include "binary.h"
#include "cli.h"
#include "events.h"
#include "key.h"
#include "layer.h"
#include "metrics.h"
#include "run.h"
#include "status.h"
#include "task.h"
#include "verdict.h"

#define PIN_DIR_DEFAULT "/sys/fs/bpf/umbrella"

bool arg_json;
bool arg_pretty;
const char *arg_pin_dir = PIN_DIR_DEFAULT;

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("umbrella-cli: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

json_writer_t *cli_json_new(void)
{
	json_writer_t *jw = jsonw_new(stdout);

	if (!jw) {
		cli_error("%s", strerror(ENOMEM));
		return NULL;
	}
	jsonw_pretty(jw, arg_pretty);
	return jw;
}

static int usage(FILE *out)
{
	fprintf(out, "Usage: umbrella-cli [OPTIONS] OBJECT COMMAND\n"
		     "       umbrella-cli [OPTIONS] status\n"
		     "       umbrella-cli [OPTIONS] task {list | show PID | help}\n"
		     "       umbrella-cli [OPTIONS] layer {list | show ID | help}\n"
		     "       umbrella-cli [OPTIONS] verdict {list | flush | help}\n"
		     "       umbrella-cli [OPTIONS] events [--follow] [-n N | --since TIME]\n"
		     "                                     [--pid PID] [--layer ID]\n"
		     "       umbrella-cli metrics [-o FILE]\n"
		     "       umbrella-cli [OPTIONS] binary {sign | verify | inspect | help} ...\n"
		     "       umbrella-cli [OPTIONS] key {generate | list | add | remove | revoke | help}\n"
		     "       umbrella-cli run [-r ITEM]... [--profile NAME] [--no-fork]\n"
		     "                        [--die-with-parent] [--] CMD [ARG]...\n"
		     "       umbrella-cli version\n"
		     "       umbrella-cli help\n"
		     "\n"
		     "OPTIONS: -j, --json     JSON output\n"
		     "         -p, --pretty   indented JSON output (implies --json)\n"
		     "         --pin-dir DIR  umbrellad's pin directory, by default\n"
		     "                        " PIN_DIR_DEFAULT "\n"
		     "\n"
		     "status, task, layer and verdict list read the BPF maps umbrellad pinned\n"
		     "(as root), so they work while umbrellad is down. \"task\" alone is\n"
		     "\"task list\", \"layer\" alone \"layer list\", \"verdict\" alone\n"
		     "\"verdict list\". A process is shown by its main thread.\n"
		     "\n"
		     "ITEM is a restriction in the text form (fs:PATH[:MODES], net, net:FAMILY,\n"
		     "signal, fork, exec, exec-unsigned, ptrace, mount, module, setid, cap:NAME);\n"
		     "-r takes one item or a comma-separated list and may be repeated.\n"
		     "\n"
		     "Exit status:\n"
		     "  0    success (status: umbrellad runs and programs are attached)\n"
		     "  1    an error\n"
		     "  2    a wrong command line (unknown command, option or argument)\n"
		     "  3    status: umbrellad is not running, or no program is attached;\n"
		     "       verdict flush: umbrellad cannot be reached\n"
		     "  4    task show, layer show: no such process or layer; key remove: no such key\n"
		     "  5    binary verify: the file has no signature\n"
		     "  6    binary verify: umbrellad refuses the file (bad signature, unknown or\n"
		     "       revoked key, malformed)\n"
		     "  run: the command's exit status; 125 when run failed, 126 when the\n"
		     "       command could not be executed, 127 when it was not found\n");
	return out == stdout ? EXIT_OK : EXIT_USAGE;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return usage(stderr);
	printf("umbrella-cli %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
	return EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
	(void)argv;
	return usage(argc > 1 ? stderr : stdout);
}

static int cmd_events(int argc, char **argv)
{
	return cli_events(argc, argv, arg_json);
}

/* The objects and commands: argv[0] is the command's name. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	bool raw_args; /* no global options after the name: they belong to the command */
} commands[] = {
	{ "status", cli_status, false },
	{ "task", cli_task, false },
	{ "layer", cli_layer, false },
	{ "events", cmd_events, false },
	{ "metrics", cli_metrics, false },
	{ "binary", cli_binary, false },
	{ "key", cli_key, false },
	{ "verdict", cli_verdict, false },
	{ "run", cli_run, true },
	{ "version", cmd_version, false },
	{ "help", cmd_help, false },
};

/* Sets a global option from @c. Return: false for a character that is none. */
static bool global_option(int c, const char *value)
{
	switch (c) {
	case 'p':
		arg_pretty = true;
		arg_json = true; /* --pretty implies --json, as in bpftool */
		return true;
	case 'j':
		arg_json = true;
		return true;
	case 'P':
		arg_pin_dir = value;
		return true;
	default:
		return false;
	}
}

/*
 * Takes -j, -p, --json, --pretty out of a command's arguments, so that they may come
 * after the command too ("task show 1 --json"), as bpftool allows. Stops at "--".
 */
static void strip_global_options(int *argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json"))
			global_option('j', NULL);
		else if (!strcmp(a, "-p") || !strcmp(a, "--pretty"))
			global_option('p', NULL);
		else
			argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "pin-dir", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c;

	/* "+": stop at the object, whose own options follow it. */
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+:jph", options, NULL)) >= 0) {
		if (c == 'h')
			return usage(stdout);
		if (c == 'V')
			return cmd_version(1, argv);
		if (!global_option(c, optarg)) {
			cli_error("%s: %s (try 'umbrella-cli help')", argv[optind - 1],
				  c == ':' ? "missing argument" : "unknown option");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage(stderr);
	argc -= optind;
	argv += optind;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name))
			continue;
		if (!commands[i].raw_args)
			strip_global_options(&argc, argv);
		return commands[i].run(argc, argv);
	}
	cli_error("%s: unknown command (try 'umbrella-cli help')", argv[0]);
	return EXIT_USAGE;
}
