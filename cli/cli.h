/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - what every command shares: exit codes, global options, messages */
#ifndef UMBRELLA_CLI_H
#define UMBRELLA_CLI_H

#include <stdbool.h>

#include "json-writer.h"
#include "macro.h" /* ARRAY_SIZE, _cleanup_ */

/* Exit codes, listed by "umbrella-cli help". "run" exits with the command's status (run.c). */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,	      /* the command failed */
	EXIT_USAGE = 2,	      /* the command line is wrong */
	EXIT_NOT_RUNNING = 3, /* status: umbrellad is not running or no program is attached;
			      * verdict flush: umbrellad cannot be reached */
	EXIT_NOT_FOUND = 4,   /* task show, layer show: no such process or layer;
			       * key remove, unrevoke: no such key */
	EXIT_UNSIGNED = 5,    /* binary verify: the file has no signature, or one by a key
			       * the ring does not know: umbrellad treats it as unsigned */
	EXIT_REFUSED = 6,     /* binary verify: a signature that does not verify, a revoked
			       * key, or a malformed file: umbrellad refuses it */
};

extern bool arg_json;		/* -j, --json: JSON on stdout */
extern bool arg_pretty;		/* -p, --pretty: indented JSON (implies --json) */
extern const char *arg_pin_dir; /* --pin-dir DIR: where umbrellad pins (for tests) */
extern const char *arg_keyring; /* --keyring DIR: the key ring, NULL for the default */

/* Sets the global option of getopt character @c (-j, -p, --pin-dir, --keyring) to
 * @value. Return: false for a character that is none (umbrella-cli.c). */
bool cli_global_option(int c, const char *value);

/* Prints "umbrella-cli: MESSAGE" on stderr: every error is one such line. With --json,
 * the first error is also {"error": "MESSAGE"} on stdout. */
void __attribute__((format(printf, 1, 2))) cli_error(const char *fmt, ...);

/* The same line for what does not fail the command (a key file the ring rejects while
 * listing the others): on stderr only, never in the JSON answer. */
void __attribute__((format(printf, 1, 2))) cli_warn(const char *fmt, ...);

/* A JSON writer on stdout, indented with --pretty. NULL after printing the error. */
json_writer_t *cli_json_new(void);

#endif /* UMBRELLA_CLI_H */
