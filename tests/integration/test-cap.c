// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the capability restrictions and the scope between restricted tasks, in five
 * parts, each in a file of its own: cap-exec.c, cap-fork.c, cap-ptrace.c, cap-signal.c
 * and cap-system.c (their comments say what each checks). They were five programs;
 * they are one so that the BPF object is loaded, and verified, once: a load costs 20 to
 * 45 s under TCG (docs/performance.md), four of them for nothing. The parts share
 * nothing but the object: each makes its own layers and target processes. cap-system.c
 * runs last, as it moves the whole program into a mount namespace of its own.
 */
#include <string.h>

#include "cap-test.h"

#include "cap-exec.c"
#include "cap-fork.c"
#include "cap-ptrace.c"
#include "cap-signal.c"
#include "cap-system.c"

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel;

	/* cap-fork.c's probe_fork_after_exec() runs this program again, restricted. */
	if (argc == 2 && strcmp(argv[1], "--probe-fork") == 0)
		return probe_fork(NULL);

	skel = test_load();
	if (!skel)
		return tap_finish();
	cap_exec(skel);
	cap_fork(skel);
	cap_ptrace(skel);
	cap_signal(skel);
	cap_system(skel);
	umbrella_bpf__destroy(skel);
	return tap_finish();
}
