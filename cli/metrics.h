/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli metrics - Umbrella's figures in the Prometheus text format */
#ifndef UMBRELLA_CLI_METRICS_H
#define UMBRELLA_CLI_METRICS_H

/* umbrella-cli metrics; @argv[0] is "metrics". */
int cli_metrics(int argc, char **argv);

#endif /* UMBRELLA_CLI_METRICS_H */
