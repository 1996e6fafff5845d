// SPDX-License-Identifier: GPL-2.0-only
/*
 * mounts-bench PID DIR... - how long umbrellad's walk of the mounts below fs rules takes
 * (tests/bench/mounts-bench.sh): one request's rules on each DIR, in process PID's mount
 * namespace, as layer-install.c walks them (daemon/fs-mounts.c, with its tables and
 * budget, daemon/mount-guard.h), without the BPF maps. Prints the mount roots reached,
 * the result and the time on CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs-mounts.h"
#include "mount-guard.h"
#include "time-util.h"

static struct mount_guard guard;

/* What install_mount_root() reads for each root: its key. */
static int reached(int fd, void *arg)
{
	struct mount_entry m;
	uint64_t ino;

	(*(unsigned int *)arg)++;
	return mount_guard_mount(&guard, fd, 0, &m, &ino);
}

int main(int argc, char **argv)
{
	unsigned int roots = 0;
	uint64_t start;
	int peer, r;

	if (argc < 3) {
		fprintf(stderr, "usage: mounts-bench PID DIR...\n");
		return 2;
	}
	peer = atoi(argv[1]);
	start = now_usec();
	r = mount_guard_open(&guard, -1, peer, -1);
	for (int i = 2; r == 0 && i < argc; i++) {
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/root%s", peer, argv[i]);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		r = fs_mounts_below(&guard, fd, argv[i], reached, &roots);
		close(fd);
	}
	printf("%d rules, %u mount roots: %s, %.3f s\n", argc - 2, roots,
	       r == -MOUNT_BUDGET_ERRNO ? "past the budget" :
	       r < 0			? strerror(-r) :
					  "ok",
	       (double)(now_usec() - start) / 1e6);
	mount_guard_close(&guard);
	return r < 0 && r != -MOUNT_BUDGET_ERRNO;
}
