/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - what a running umbrellad was told on its command line, read back from
 * /proc/PID/cmdline: which key ring directory it trusts (umbrella-cli status shows that
 * one, not the one the CLI itself would read by default).
 *
 * The command line is what umbrellad's getopt_long() parsed (it is never rewritten), so
 * the same rules apply here: "--keyring DIR" and "--keyring=DIR", any unambiguous
 * prefix of an option's name, the last one wins, "--" ends the options, and an option
 * that takes a value ("--config --keyring") takes the next argument whatever it is.
 */
#ifndef UMBRELLA_COMMON_DAEMON_ARGS_H
#define UMBRELLA_COMMON_DAEMON_ARGS_H

#include <stddef.h>
#include <stdint.h>

/*
 * daemon_args_keyring() - the --keyring of the command line @args (@len bytes: the
 * arguments, each NUL-terminated, as /proc/PID/cmdline holds them; the first is the
 * program)
 * Return: a pointer into @args, or NULL when it gives none (umbrellad's default).
 */
const char *daemon_args_keyring(const char *args, size_t len);

/*
 * daemon_keyring_dir() - the key ring directory of the umbrellad @pid: its --keyring,
 * made absolute with its working directory when relative (if that can be read), or
 * @def_dir. Both are read of the one process (daemon_pid_open()): a user's process that
 * took @pid, or calls itself umbrellad, cannot name the ring shown.
 * Return: 0 with *@ret malloc'd, or -errno (-ESRCH: @pid is not root's umbrellad; its
 * command line unreadable: hidepid=, gone).
 */
int daemon_keyring_dir(uint32_t pid, const char *def_dir, char **ret);

#endif /* UMBRELLA_COMMON_DAEMON_ARGS_H */
