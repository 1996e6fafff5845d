/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - umbrellad's long options, once: its getopt_long() parses its command line
 * with them (daemon/umbrellad.c), and daemon-args.c reads a running umbrellad's
 * command line back by the same table, so the two cannot drift apart. Header-only.
 */
#ifndef UMBRELLA_COMMON_DAEMON_OPTIONS_H
#define UMBRELLA_COMMON_DAEMON_OPTIONS_H

#include <getopt.h>

enum {
	DAEMON_ARG_SOCKET = 0x100,
	DAEMON_ARG_PIN_DIR,
	DAEMON_ARG_RESET_PINS,
	DAEMON_ARG_LOG_RATE_LIMIT,
	DAEMON_ARG_CONFIG,
	DAEMON_ARG_KEYRING,
	DAEMON_ARG_CHECK_CONFIG,
};

static const struct option daemon_long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "socket", required_argument, NULL, DAEMON_ARG_SOCKET },
	{ "pin-dir", required_argument, NULL, DAEMON_ARG_PIN_DIR },
	{ "reset-pins", no_argument, NULL, DAEMON_ARG_RESET_PINS },
	{ "config", required_argument, NULL, DAEMON_ARG_CONFIG },
	{ "keyring", required_argument, NULL, DAEMON_ARG_KEYRING },
	{ "check-config", no_argument, NULL, DAEMON_ARG_CHECK_CONFIG },
	/* Not in --help: for tests; wins over umbrella.conf's log_rate_limit. */
	{ "log-rate-limit", required_argument, NULL, DAEMON_ARG_LOG_RATE_LIMIT },
	{},
};

#endif /* UMBRELLA_COMMON_DAEMON_OPTIONS_H */
