/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli binary - sign, verify and inspect signed binaries */
#ifndef UMBRELLA_CLI_BINARY_H
#define UMBRELLA_CLI_BINARY_H

/* umbrella-cli binary {sign | verify | inspect | help}; @argv[0] is "binary".
 * Returns the exit code: verify gives EXIT_UNSIGNED or EXIT_REFUSED for a file that is
 * not validly signed. */
int cli_binary(int argc, char **argv);

#endif /* UMBRELLA_CLI_BINARY_H */
