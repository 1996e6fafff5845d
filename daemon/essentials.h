/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the programs without which "unsigned = deny" locks a machine up */
#ifndef UMBRELLA_ESSENTIALS_H
#define UMBRELLA_ESSENTIALS_H

#include <stddef.h>

#include "config.h"
#include "keyring.h"

/*
 * Under "unsigned = deny" every exec of a file that is not validly signed is refused,
 * also root's: on a machine where these are not signed, nobody can log in, and no shell
 * is left to set "unsigned = allow" again. The list (umbrella.conf(5)): /bin/sh, root's
 * login shell (getpwuid(0)), systemctl, umbrellad's own executable (/proc/self/exe), the
 * dynamic loader (its PT_INTERP), systemd-executor, agetty, login, sulogin and sshd.
 * A file that does not exist is skipped.
 */

/* The list above, NULL-terminated, in *@ret (free with essentials_free()).
 * Return: 0 or -ENOMEM. */
int essentials_default(char ***ret);
void essentials_free(char **paths);

/*
 * essentials_unsigned() - which of @paths the key ring @k does not validly sign
 * @paths: NULL-terminated; each opened (symbolic links followed) and read as the exec
 *	gate reads a file (signed_elf_read(), keyring_verify()); missing ones skipped, one
 *	file reached by two paths checked once
 * @ret_text: set to a malloc'd "PATH: REASON" line per such file, joined by '\n' (no
 *	newline at the end), or NULL when there is none
 * Return: how many files are not validly signed (also those that cannot be read), or
 * -ENOMEM.
 */
int essentials_unsigned(const struct keyring *k, char *const *paths, char **ret_text);

/*
 * essentials_deny_check() - whether the configuration @c (read from @conf_name) may be
 * applied with the key ring in @keyring_dir: "unsigned = deny" is refused while any
 * essential program is not validly signed, unless "unsigned_deny_force = yes"
 * @ret_text: for a non-zero return, a malloc'd message (lines joined by '\n'): what is
 *	wrong, then one line per such program (NULL if out of memory)
 * Return: 0 (nothing to say: "unsigned = allow", or every essential is signed); 1 when
 * forced (a warning to log); -EPERM when refused; -ENOMEM.
 */
int essentials_deny_check(const struct config *c, const char *conf_name, const char *keyring_dir,
			  char **ret_text);

#endif /* UMBRELLA_ESSENTIALS_H */
