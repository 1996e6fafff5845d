/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli status - is Umbrella enforcing, and is umbrellad up */
#ifndef UMBRELLA_CLI_STATUS_H
#define UMBRELLA_CLI_STATUS_H

#include <stdbool.h>

#include <linux/types.h>

/* umbrella-cli status; @argv[0] is "status". Returns EXIT_OK only when umbrellad runs
 * and programs are attached, EXIT_NOT_RUNNING when either is not so. */
int cli_status(int argc, char **argv);

#endif /* UMBRELLA_CLI_STATUS_H */
