// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - the operators' tool, in bpftool's OBJECT COMMAND grammar.
 *
 * This file holds the grammar (global options, the table of objects, dispatched by
 * command.c as every object's table of commands is) and the commands that need no BPF:
 * version, help. Messages go through cli_error(), which also answers {"error": ...}
 * on stdout under --json, as bpftool does.
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
#include "command.h"
#include "events.h"
#include "key.h"
#include "keyring.h"
#include "layer.h"
#include "metrics.h"
#include "printable.h"
#include "run.h"
#include "status.h"
#include "task.h"
#include "verdict.h"

#define PIN_DIR_DEFAULT "/sys/fs/bpf/umbrella"

bool arg_json;
bool arg_pretty;
const char *arg_pin_dir = PIN_DIR_DEFAULT;
const char *arg_keyring;

static void vmessage(bool error, const char *fmt, va_list ap)
{
	static bool json_error_printed;
	char *text = NULL, *shown;

	/* A message quotes what others wrote (a file name from a tree, a policy's text, the
	 * reason a signed file was refused): shown as printable.h makes it, so that none
	 * drives the terminal. */
	if (vasprintf(&text, fmt, ap) < 0) {
		fputs("umbrella-cli: out of memory\n", stderr);
		return;
	}
	/* With --json, the first error is on stdout only, as bpftool gives it, so that a
	 * script reading stdout sees why there is no answer; once: one object. */
	if (error && arg_json && !json_error_printed) {
		json_writer_t *jw = jsonw_new(stdout);

		json_error_printed = true;
		/* jsonw_string() escapes: the text must not break or forge the JSON. */
		if (jw) {
			jsonw_pretty(jw, arg_pretty);
			jsonw_start_object(jw);
			jsonw_string_field(jw, "error", text);
			jsonw_end_object(jw);
			jsonw_destroy(&jw);
			free(text);
			return;
		}
	}
	shown = cli_printable_dup(text);
	fprintf(stderr, "umbrella-cli: %s\n", shown ? shown : "out of memory");
	free(shown);
	free(text);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(true, fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(false, fmt, ap);
	va_end(ap);
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

static const char usage_text[] =
	"Usage: umbrella-cli [OPTIONS] OBJECT COMMAND\n"
	"       umbrella-cli [OPTIONS] status\n"
	"       umbrella-cli [OPTIONS] task {list | show PID | help}\n"
	"       umbrella-cli [OPTIONS] layer {list | show ID | help}\n"
	"       umbrella-cli [OPTIONS] verdict {list | flush | help}\n"
	"       umbrella-cli [OPTIONS] events [--follow] [-n N | --since TIME]\n"
	"                                     [--pid PID] [--layer ID]\n"
	"       umbrella-cli metrics [-o FILE]\n"
	"       umbrella-cli [OPTIONS] binary {sign | verify | inspect | help} ...\n"
	"       umbrella-cli [OPTIONS] key {generate | list | add | remove | revoke |\n"
	"                                   unrevoke | help} ...\n"
	"       umbrella-cli run {-r ITEM... | --profile NAME | --empty-layer}\n"
	"                        [--no-fork] [--die-with-parent] [--] CMD [ARG]...\n"
	"       umbrella-cli version\n"
	"       umbrella-cli help\n"
	"\n"
	"OPTIONS: -j, --json       JSON output; an error is {\"error\": \"...\"} on stdout\n"
	"         -p, --pretty     indented JSON output (implies --json)\n"
	"         --pin-dir DIR    umbrellad's pin directory, by default\n"
	"                          " PIN_DIR_DEFAULT "\n"
	"         --keyring DIR    the key ring, by default $UMBRELLA_KEYRING, else\n"
	"                          " KEYRING_DIR_DEFAULT "\n"
	"         -h, --help       help (also after any object or command)\n"
	"They may come before the object or after its command (not after run's CMD).\n"
	"Objects and commands may be abbreviated to any prefix that names only one:\n"
	"\"umbrella-cli ta li\" is \"umbrella-cli task list\".\n"
	"\n"
	"status, task, layer and verdict list read the BPF maps umbrellad pinned\n"
	"(as root), so they work while umbrellad is down. \"task\" alone is\n"
	"\"task list\", \"layer\" alone \"layer list\", \"verdict\" alone\n"
	"\"verdict list\", \"key\" alone \"key list\". A process is shown by its main thread.\n"
	"\n"
	"ITEM is a restriction in the text form (fs:PATH[:MODES], net, net:FAMILY,\n"
	"signal, fork, exec, exec-unsigned, ptrace, mount, module, setid, keys, cap:NAME);\n"
	"-r takes one item or a comma-separated list and may be repeated.\n"
	"\n"
	"Exit status:\n"
	"  0    success (status: umbrellad runs and programs are attached)\n"
	"  1    an error\n"
	"  2    a wrong command line (unknown or ambiguous command, option or argument)\n"
	"  3    status: umbrellad is not running, or no program is attached;\n"
	"       verdict flush: umbrellad cannot be reached\n"
	"  4    task show, layer show: no such process or layer; key remove, revoke,\n"
	"       unrevoke: no such key\n"
	"  5    binary verify: the file has no signature\n"
	"  6    binary verify: umbrellad refuses the file (bad signature, unknown or\n"
	"       revoked key, malformed)\n"
	"  run: the command's exit status; 125 when run failed, 126 when the\n"
	"       command could not be executed, 127 when it was not found\n";

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help(usage_text);
}

static int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "help") || cmd_wants_help(argc, argv)))
		return cli_help("Usage: umbrella-cli [-j|-p] version\n");
	if (argc > 1) {
		cli_error("version %s: unexpected argument (try 'umbrella-cli help')", argv[1]);
		return EXIT_USAGE;
	}
	if (arg_json) {
		json_writer_t *jw = cli_json_new();

		if (!jw)
			return EXIT_ERROR;
		jsonw_start_object(jw);
		jsonw_string_field(jw, "version", UMBRELLA_VERSION);
		jsonw_uint_field(jw, "abi_version", UMB_ABI_VERSION);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		printf("umbrella-cli %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
	}
	return EXIT_OK;
}

static int cmd_events(int argc, char **argv)
{
	/* events.c knows --help; "events help" is the same here, and null under --json. */
	if (argc > 1 && (!strcmp(argv[1], "help") || cmd_wants_help(argc, argv))) {
		char *help_argv[] = { argv[0], (char *)"--help", NULL };

		return arg_json ? cli_help("") : cli_events(2, help_argv, false);
	}
	return cli_events(argc, argv, arg_json);
}

/* The objects: argv[0] is the object's name. */
static const struct cmd objects[] = { { "status", cli_status },	  { "task", cli_task },
				      { "layer", cli_layer },	  { "events", cmd_events },
				      { "metrics", cli_metrics }, { "binary", cli_binary },
				      { "key", cli_key },	  { "verdict", cli_verdict },
				      { "run", cli_run },	  { "version", cmd_version },
				      { "help", cmd_help },	  {} };

/* The global options with a value, as getopt_long() and strip_global_options() see them. */
enum { OPT_PIN_DIR = 0x100, OPT_KEYRING, OPT_VERSION };

static const struct option global_options[] = { { "json", no_argument, NULL, 'j' },
						{ "pretty", no_argument, NULL, 'p' },
						{ "pin-dir", required_argument, NULL, OPT_PIN_DIR },
						{ "keyring", required_argument, NULL, OPT_KEYRING },
						{ "help", no_argument, NULL, 'h' },
						{ "version", no_argument, NULL, OPT_VERSION },
						{} };

/* Sets a global option from @c. Return: false for a character that is none. */
bool cli_global_option(int c, const char *value)
{
	switch (c) {
	case 'p':
		arg_pretty = true;
		arg_json = true; /* --pretty implies --json, as in bpftool */
		return true;
	case 'j':
		arg_json = true;
		return true;
	case OPT_PIN_DIR:
		arg_pin_dir = value;
		return true;
	case OPT_KEYRING:
		arg_keyring = value;
		return true;
	default:
		return false;
	}
}

/*
 * Takes the global options out of a command's arguments, so that they may come after
 * the command too ("task show 1 --json", "key list --keyring DIR"), as bpftool allows.
 * Stops at "--". Return: 0, or -EINVAL for an option without its value (printed).
 */
static int strip_global_options(int *argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		const struct option *o = NULL;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "-p")) {
			cli_global_option(a[1], NULL);
			continue;
		}
		for (const struct option *g = global_options; a[0] == '-' && a[1] == '-' && g->name;
		     g++)
			if (g->val != 'h' && g->val != OPT_VERSION &&
			    strlen(g->name) == (size_t)((eq ? eq : a + strlen(a)) - a - 2) &&
			    !strncmp(a + 2, g->name, strlen(g->name)))
				o = g;
		if (!o) {
			argv[out++] = argv[i];
			continue;
		}
		if (o->has_arg == no_argument) {
			cli_global_option(o->val, NULL);
		} else if (eq) {
			cli_global_option(o->val, eq + 1);
		} else if (i + 1 < *argc) {
			cli_global_option(o->val, argv[++i]);
		} else {
			cli_error("%s: missing argument", a);
			return -EINVAL;
		}
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

int main(int argc, char *argv[])
{
	const struct cmd *object;
	int c;

	/* "+": stop at the object, whose own options follow it. */
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+:jphV", global_options, NULL)) >= 0) {
		if (c == 'h')
			return cmd_help(0, NULL);
		if (c == OPT_VERSION || c == 'V')
			return cmd_version(1, argv);
		if (!cli_global_option(c, optarg)) {
			cli_error("%s: %s (try 'umbrella-cli help')", argv[optind - 1],
				  c == ':' ? "missing argument" : "unknown option");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		if (arg_json)
			cli_error("missing OBJECT (try 'umbrella-cli help')");
		else
			fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;

	object = cmd_find(objects, "", argv[0]);
	if (!object)
		return EXIT_USAGE;
	/* run's options and CMD's arguments are its own: only those before "run" count. */
	if (object->fn != cli_run && strip_global_options(&argc, argv) < 0)
		return EXIT_USAGE;
	return object->fn(argc, argv);
}
