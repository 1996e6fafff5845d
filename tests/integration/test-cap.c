// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: the capability restrictions and the scope between restricted tasks, in parts,
 * each in a file of its own: cap-exec.c, cap-fork.c, cap-ptrace.c, cap-signal.c,
 * cap-net.c (the "net" restrictions), cap-arm-reuse.c (an arm bound to its thread's start
 * time), cap-verdict.c (the verdicts of signed binaries), cap-scope.c (the scope every
 * layer has) and cap-system.c (their comments say what each checks). They were nine
 * programs; they are one so that the BPF object is loaded, and verified, once: a load
 * costs 20 to 45 s under TCG (docs/performance.md), eight of them for nothing. The parts
 * share nothing but the object: each makes its own layers and target processes, and
 * undoes what it changes for everyone (cap-verdict.c clears the flags and the verdict
 * epoch it set in umb_ctl; cap-scope.c unmounts what it mounted). cap-system.c runs last,
 * as it moves the whole program into a mount namespace of its own; cap-net.c's last check
 * runs after the object is destroyed.
 */
#include <string.h>

#include "cap-test.h"

#include "cap-exec.c"
#include "cap-fork.c"
#include "cap-ptrace.c"
#include "cap-signal.c"
#include "cap-net.c"
#include "cap-arm-reuse.c"
#include "cap-verdict.c"
#include "cap-scope.c"
#include "cap-system.c"

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel;

	/* cap-fork.c's probe_fork_after_exec() runs this program again, restricted. */
	if (argc == 2 && strcmp(argv[1], "--probe-fork") == 0)
		return probe_fork(NULL);
	/* And cap-net.c's probe_socket_after_exec(). */
	if (argc == 2 && strcmp(argv[1], "--probe-socket") == 0)
		return probe_socket_inet(NULL);

	skel = test_load();
	if (!skel)
		return tap_finish();
	cap_exec(skel);
	cap_fork(skel);
	cap_ptrace(skel);
	cap_signal(skel);
	cap_net(skel);
	cap_arm_reuse(skel);
	cap_verdict(skel);
	cap_scope(skel);
	cap_system(skel);
	umbrella_bpf__destroy(skel);
	cap_net_detached();
	return tap_finish();
}
