// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - a process's uids, as its /proc/PID/status tells them (proc-status.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"
#include "proc-status.h"

int proc_status_uids(int dir, uid_t ret_uids[4])
{
	_cleanup_free_ char *status = NULL;
	unsigned int uid[4];
	const char *line;
	size_t size = 0;
	int r;

	r = read_full_file_at(dir, "status", 0, 64 << 10, &status, &size);
	if (r < 0)
		return r;
	line = strstr(status, "\nUid:");
	if (!line || sscanf(line + 5, "%u %u %u %u", &uid[0], &uid[1], &uid[2], &uid[3]) != 4)
		return -EBADMSG;
	for (int i = 0; i < 4; i++)
		ret_uids[i] = uid[i];
	return 0;
}
