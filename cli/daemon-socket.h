/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - umbrellad's socket, for the commands that talk to it */
#ifndef UMBRELLA_CLI_DAEMON_SOCKET_H
#define UMBRELLA_CLI_DAEMON_SOCKET_H

/*
 * cli_daemon_connect() - connect to umbrellad ($UMBRELLA_SOCKET, or UMB_SOCKET_PATH)
 * @ret_path: set to the socket's path, for messages
 *
 * Anyone may connect (the socket is world-writable), so a successful connect also tells
 * a user who cannot read the pinned state that umbrellad runs.
 * Return: the connected descriptor (SOCK_SEQPACKET, close-on-exec), or -errno.
 */
int cli_daemon_connect(const char **ret_path);

#endif /* UMBRELLA_CLI_DAEMON_SOCKET_H */
