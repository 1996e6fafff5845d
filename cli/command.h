/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - the command tables: OBJECT COMMAND dispatch, as bpftool does it */
#ifndef UMBRELLA_CLI_COMMAND_H
#define UMBRELLA_CLI_COMMAND_H

#include <stdbool.h>

/* One entry of a command table: @fn gets the arguments from the command's own name on
 * (argv[0] is @name). A table ends with a NULL @name. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* Whether @prefix is a non-empty prefix of @s ("ta" of "task"). */
bool is_prefix(const char *prefix, const char *s);

/*
 * cmd_find() - the entry of @cmds that @word names: the one it spells, else the only
 * one it abbreviates. NULL when none or several do: the error is printed, naming
 * @object ("" for the objects themselves) and, for an ambiguous word, the candidates.
 */
const struct cmd *cmd_find(const struct cmd *cmds, const char *object, const char *word);

/*
 * cmd_select() - run the command of @cmds that argv[0] names (or abbreviates)
 *
 * With no argument, @cmds[0] runs ("task" is "task list"). "help", "--help" and "-h" in
 * the command's place, or "--help"/"-h" anywhere among its arguments before a "--", run
 * @help instead: every object and command has help. Return: the command's exit code,
 * EXIT_USAGE for an unknown or ambiguous command (printed).
 */
int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv,
	       int (*help)(int argc, char **argv));

/* Whether the command line @argv asks for help: "--help" or "-h" before any "--". */
bool cmd_wants_help(int argc, char **argv);

/* Prints @text as a command's help: on stdout; with --json, "null" as bpftool does
 * (help is for people). Return: EXIT_OK. */
int cli_help(const char *text);

#endif /* UMBRELLA_CLI_COMMAND_H */
