// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - what the kernel tells of a descriptor in /proc/self/fdinfo (fdinfo.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdinfo.h"
#include "macro.h"

int fdinfo_read(int fd, size_t n, const char *const fields[], uint64_t ret_values[])
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[256];
	uint64_t found = 0;

	if (n > 64)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(fields[i]);
			const char *v = line + len + 1;
			char *end;

			if (strncmp(line, fields[i], len) || line[len] != ':')
				continue;
			v += strspn(v, " \t");
			errno = 0;
			ret_values[i] = *v == '-' ? (uint64_t)strtoll(v, &end, 10) :
						    strtoull(v, &end, 10);
			if (end != v && !errno && (*end == '\n' || !*end))
				found |= 1ULL << i;
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!(found & 1ULL << i))
			return -EOPNOTSUPP;
	return 0;
}
