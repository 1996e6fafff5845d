// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the file system restrictions ("fs:PATH", "fs:PATH:MODES") as the BPF programs
 * enforce them, in four parts, each in a file of its own: fs-basic.c (plain paths, the
 * modes, the audit record), fs-exec.c (running and mapping restricted files), fs-ops.c
 * (the operations on names and metadata, the walk's depth) and fs-routes.c (the other
 * ways to a file: mounts, links, openat2, chroot, io_uring, sockets, handles). They were
 * four programs; they are one so that the BPF object is loaded, and verified, once: a
 * load costs 20 to 45 s under TCG (docs/performance.md). The parts share nothing but the
 * object: each mounts a scratch tmpfs of its own and makes its own layers, and takes
 * down what it mounted before the next starts; the changes they make in a child (a
 * chroot, a new mount namespace) end with the child.
 */
#include "test-fs-util.h"

#include "fs-basic.c"
#include "fs-exec.c"
#include "fs-ops.c"
#include "fs-routes.c"

int main(void)
{
	struct umbrella_bpf *skel = test_load();

	if (!skel)
		return tap_finish();
	fs_basic(skel);
	fs_exec(skel);
	fs_ops(skel);
	fs_routes(skel);
	umbrella_bpf__destroy(skel);
	return tap_finish();
}
