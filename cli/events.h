/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli events - the denials umbrellad logged to the journal */
#ifndef UMBRELLA_CLI_EVENTS_H
#define UMBRELLA_CLI_EVENTS_H

#include <stdbool.h>

/*
 * umbrella-cli events [--follow] [-n N]: prints the last N denials (newest last), and
 * with --follow the ones logged after. @argv[0] is "events". With @json, one array of
 * objects, or with --follow one object per line. Returns the exit code.
 */
int cli_events(int argc, char **argv, bool json);

#endif /* UMBRELLA_CLI_EVENTS_H */
