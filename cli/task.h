/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli task - the processes that carry layers */
#ifndef UMBRELLA_CLI_TASK_H
#define UMBRELLA_CLI_TASK_H

/* umbrella-cli task {list | show PID | help}; @argv[0] is "task". Returns the exit code. */
int cli_task(int argc, char **argv);

#endif /* UMBRELLA_CLI_TASK_H */
