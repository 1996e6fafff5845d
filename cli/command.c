// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - the command tables.
 *
 * Every object (task, layer, key, ...) and every command of an object is an entry of a
 * table of struct cmd, selected by cmd_select() as bpftool's cmd_select() does, with
 * two differences: a word that abbreviates several entries is an error naming them
 * (bpftool takes the first), and "--help" anywhere before "--" is help, so that
 * "umbrella-cli key list --help" never does what it was asked to explain.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "command.h"

bool is_prefix(const char *prefix, const char *s)
{
	return *prefix && strncmp(prefix, s, strlen(prefix)) == 0;
}

const struct cmd *cmd_find(const struct cmd *cmds, const char *object, const char *word)
{
	const struct cmd *found = NULL;
	char candidates[256] = "";
	size_t matches = 0;

	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(word, c->name))
			return c; /* spelt out: never ambiguous ("verdict" is no prefix) */
		if (!is_prefix(word, c->name))
			continue;
		found = c;
		matches++;
		snprintf(candidates + strlen(candidates), sizeof(candidates) - strlen(candidates),
			 "%s%s", matches > 1 ? ", " : "", c->name);
	}
	if (matches == 1)
		return found;
	if (matches)
		cli_error("%s%s%s: ambiguous: %s (try 'umbrella-cli %s%shelp')", object,
			  *object ? " " : "", word, candidates, object, *object ? " " : "");
	else
		cli_error("%s%s%s: unknown command (try 'umbrella-cli %s%shelp')", object,
			  *object ? " " : "", word, object, *object ? " " : "");
	return NULL;
}

bool cmd_wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv,
	       int (*help)(int argc, char **argv))
{
	char *default_argv[] = { (char *)cmds[0].name, NULL };
	const struct cmd *c;

	if (argc < 1)
		return cmds[0].fn(1, default_argv);
	if (!strcmp(argv[0], "help") || cmd_wants_help(argc, argv))
		return help(argc, argv);
	c = cmd_find(cmds, object, argv[0]);
	return c ? c->fn(argc, argv) : EXIT_USAGE;
}

int cli_help(const char *text)
{
	if (arg_json)
		puts("null");
	else
		fputs(text, stdout);
	return EXIT_OK;
}
