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

/* The edit distance of @a and @b (insertions, deletions, substitutions and swaps of
 * neighbours), capped at 3: only "close" matters. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[33][33];

	if (la > 32 || lb > 32)
		return 3;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t best = i == 0 ? j :
				      j == 0 ? i :
					       d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (i && j && d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (i && j && d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb] < 3 ? d[la][lb] : 3;
}

/* The entry of @cmds a mistyped @word most likely meant (at most two edits), or NULL. */
static const struct cmd *closest(const struct cmd *cmds, const char *word)
{
	const struct cmd *best = NULL;
	size_t best_d = 3;

	for (const struct cmd *c = cmds; c->name; c++) {
		size_t d = distance(word, c->name);

		/* A one-letter word is two edits from every short command: no guess. */
		if (d < best_d && d < strlen(word)) {
			best = c;
			best_d = d;
		}
	}
	return best;
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
	else if ((found = closest(cmds, word)))
		cli_error("%s%s%s: unknown command; did you mean '%s'? (try 'umbrella-cli "
			  "%s%shelp')",
			  object, *object ? " " : "", word, found->name, object,
			  *object ? " " : "");
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
