/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - Umbrella's own files, kept from every task that carries a layer */
#ifndef UMBRELLA_SELF_FILES_H
#define UMBRELLA_SELF_FILES_H

/*
 * self_files_protect() - marks in umb_protected (@map_fd) Umbrella's own files: the
 * configuration file @config, the key ring @keyring, /etc/umbrella (profiles),
 * umbrellad's binary, and its systemd unit and drop-ins in every directory of systemd's
 * unit search path (names that do not exist yet included), with every directory above
 * them; then removes the entries a previous umbrellad left that name none of them any
 * more (new entries first: the protection never lapses). bpf/lib/protect-files.bpf.h
 * enforces them.
 *
 * Return: 0, or -errno (logged): the caller must not run unprotected.
 */
int self_files_protect(int map_fd, const char *config, const char *keyring);

#endif /* UMBRELLA_SELF_FILES_H */
