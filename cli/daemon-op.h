/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - one request to umbrellad, one reply (daemon-op.c) */
#ifndef UMBRELLA_CLI_DAEMON_OP_H
#define UMBRELLA_CLI_DAEMON_OP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * cli_daemon_op() - sends umbrellad the request @op of the caller's thread and reads its
 * one-message reply into @buf (@size bytes, the last kept for a NUL after the reply)
 * @what: the command, at the start of every message said
 *
 * Return: the reply's length (a struct umb_reply with error 0, then its payload), or
 * -EXIT_NOT_RUNNING (umbrellad cannot be reached) or -EXIT_ERROR (no reply, or the error
 * umbrellad replied), said on stderr.
 */
ssize_t cli_daemon_op(uint32_t op, const char *what, char *buf, size_t size);

#endif /* UMBRELLA_CLI_DAEMON_OP_H */
