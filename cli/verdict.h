/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli verdict - the exec verdict cache of signed binaries */
#ifndef UMBRELLA_CLI_VERDICT_H
#define UMBRELLA_CLI_VERDICT_H

/* umbrella-cli verdict {list | flush | help}; @argv[0] is "verdict". Returns the exit code. */
int cli_verdict(int argc, char **argv);

#endif /* UMBRELLA_CLI_VERDICT_H */
