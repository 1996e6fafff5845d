/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli run - a command under a new layer */
#ifndef UMBRELLA_CLI_RUN_H
#define UMBRELLA_CLI_RUN_H

/* The run command: argv[0] is "run". Return: CMD's exit status, or 125-127. */
int cli_run(int argc, char *argv[]);

#endif /* UMBRELLA_CLI_RUN_H */
