// SPDX-License-Identifier: GPL-2.0-only
/* umbrella-cli - which fs item of a list covers a path (fs-rule.h) */
#include <stdio.h>
#include <string.h>

#include "fs-rule.h"

bool fs_rule_covers(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(dir, path, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

const char *fs_rule_text(const struct umb_item *it, char *buf, size_t size)
{
	if (it->fs_access == UMB_FS_ALL)
		snprintf(buf, size, "fs:%s", it->path);
	else
		snprintf(buf, size, "fs:%s:%s%s%s", it->path,
			 it->fs_access & UMB_FS_READ ? "r" : "",
			 it->fs_access & UMB_FS_WRITE ? "w" : "",
			 it->fs_access & UMB_FS_EXEC ? "x" : "");
	return buf;
}
