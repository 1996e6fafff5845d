/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal) - replacing a file atomically by new contents that keep what the
 * old file carried: mode, owner, extended attributes (file capabilities, ACLs, labels)
 */
#ifndef UMBRELLA_SIGNING_FILE_REPLACE_H
#define UMBRELLA_SIGNING_FILE_REPLACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * file_replace() - write @len bytes of @p to a new file in @path's directory and rename
 * it over @path, with @st's mode (and owner, when allowed) and every extended attribute
 * of @src_fd (the open old file)
 * A file carrying security.evm is refused (-ENOTSUP) before anything is written: no
 * changed copy can keep it.
 * Return: 0, or -errno with *@ret_error set; @path is then left as it was.
 */
int file_replace(const char *path, int src_fd, const struct stat *st, const uint8_t *p, size_t len,
		 char **ret_error);

#endif /* UMBRELLA_SIGNING_FILE_REPLACE_H */
