// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the mount a descriptor is on (fd-mount.h).
 *
 * A mountinfo line (proc(5)): ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS
 * [OPTIONAL-FIELDS...] - FSTYPE SOURCE SUPER-OPTIONS. A mount id names one live mount,
 * and the descriptor holds it: any mountinfo that lists the id tells the truth about
 * it, even one of a process that reused @peer's pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/kdev.h>

#include "fd-mount.h"
#include "fdinfo.h"
#include "mountinfo.h"

/* Parses @line into @m if it is mount @id's: 1, 0 if not, -EINVAL if malformed. */
static int parse_line(char *line, int id, struct fd_mount *m)
{
	unsigned int major, minor;
	char *sep, *fstype, *save = NULL;
	int line_id, parent;

	if (sscanf(line, "%d %d %u:%u", &line_id, &parent, &major, &minor) != 4 || line_id != id)
		return 0;
	m->id = id;
	m->dev = major << UMB_KDEV_MINOR_BITS | minor;
	sep = strstr(line, " - ");
	if (!sep)
		return -EINVAL;
	line[strcspn(line, "\n")] = '\0';
	fstype = strtok_r(sep + 3, " ", &save);
	if (!fstype)
		return -EINVAL;
	fstype[strcspn(fstype, ".")] = '\0'; /* "fuse.sshfs": "fuse" */
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	mountinfo_unescape(m->fstype);
	return 1;
}

static int mountinfo_find(const char *path, int id, struct fd_mount *m)
{
	char *line = NULL;
	size_t size = 0;
	int r = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &size, f) > 0) {
		int found = parse_line(line, id, m);

		if (found != 0) {
			r = found < 0 ? found : 0;
			break;
		}
	}
	free(line);
	fclose(f);
	return r;
}

int fd_mount_read(int fd, int peer, struct fd_mount *ret)
{
	char path[64];
	uint64_t id;
	int r;

	*ret = (struct fd_mount){};
	r = fdinfo_read(fd, 1, (const char *const[]){ "mnt_id" }, &id);
	if (r < 0)
		return r;
	r = mountinfo_find("/proc/self/mountinfo", (int)id, ret);
	if (r != -ENOENT || peer <= 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", peer);
	return mountinfo_find(path, (int)id, ret);
}

int fd_is_dir(int fd)
{
	char path[64];
	int d;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	d = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d >= 0) {
		close(d);
		return 1;
	}
	return errno == ENOTDIR ? 0 : -errno;
}
