// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate trusts umbrellad's own executable: its verdict is written
 * SIGNED with each new epoch, even unsigned, so that under "unsigned = deny" umbrellad
 * can start again while none runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate-internal.h"
#include "log.h"

/* Writes a verdict for umbrellad's own executable (see exec_gate_new()). */
void gate_trust_self(struct exec_gate *g)
{
	struct gate_job *j = calloc(1, sizeof(*j));
	bool ended;

	if (!j)
		return;
	j->trust_self = true;
	j->pid = (__u32)getpid();
	j->fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (j->fd < 0) {
		log_warning_errno(errno, "cannot open its own executable: %m");
		free(j);
		return;
	}
	gate_fd_path(j->fd, j->path, sizeof(j->path));
	ended = gate_job_locate(g, j);
	if (ended || !j->markable) {
		/* Where no verdict is cached, none can be trusted either. Said once. */
		if (!g->self_warned)
			log_notice(
				"%s is not on a file system the exec gate caches: under "
				"'unsigned = deny' it cannot start again while umbrellad is down",
				j->path);
		g->self_warned = true;
	} else {
		(void)gate_job_run(g, j, 0);
		if (!j->o.cached || j->o.verdict.state != UMB_VERDICT_SIGNED)
			log_warning(
				"its own executable %s is not trusted (%s): under "
				"'unsigned = deny' it cannot start again while umbrellad is down",
				j->path, j->o.reason);
	}
	signed_elf_release(&j->e);
	close(j->fd);
	free(j);
}
