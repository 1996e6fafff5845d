// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - is the BPF LSM active on this kernel? */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lsm-probe.h"

#define LSM_LIST "/sys/kernel/security/lsm"

int lsm_probe_bpf_active(void)
{
	char list[512], *lsm, *save = NULL;
	ssize_t n;
	int fd;

	fd = open(LSM_LIST, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno; /* -ENOENT means "bpf not listed" */
	n = read(fd, list, sizeof(list) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	list[n] = '\0';

	for (lsm = strtok_r(list, ",\n", &save); lsm; lsm = strtok_r(NULL, ",\n", &save)) {
		if (strcmp(lsm, "bpf") == 0)
			return 0;
	}
	return -ENOENT;
}

const char *lsm_probe_hint(int r)
{
	static char hint[128];

	if (r == -ENOENT)
		return "the BPF LSM is not active: boot with lsm= set to the list in " LSM_LIST
		       " followed by ',bpf' (keep every LSM listed there) on a "
		       "kernel with CONFIG_BPF_LSM=y";
	if (r == -ENODEV)
		return "cannot read " LSM_LIST ": it does not exist, is securityfs mounted? "
		       "(mount -t securityfs securityfs /sys/kernel/security)";
	/* Anything else (EACCES from a sandbox, EIO) is said as it is. */
	snprintf(hint, sizeof(hint), "cannot read " LSM_LIST ": %s", strerror(-r));
	return hint;
}
