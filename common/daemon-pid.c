// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - whether the umbrellad that umb_ctl names is still there (daemon-pid.h). */
#include <stdio.h>
#include <string.h>

#include "daemon-pid.h"
#include "macro.h"

bool daemon_pid_is_umbrellad(uint32_t pid)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], comm[32] = "";

	if (!pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, sizeof(comm), f))
		return false;
	return !strcmp(comm, "umbrellad\n");
}
