#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): tests/helpers/kernel-report, which tells tests/run whether a kernel
# report in a VM's console is one the emulator has caused before (boot once more) or
# not (fail): fed the output tests/vm/run prints for a report, the known emulator
# signatures, the same with one of Umbrella's programs in the stack, and others.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
report=$source_root/tests/helpers/kernel-report

# vm_output LINE...: what tests/vm/run prints for a console with LINE... from the first
# report on (timestamps as the kernel prints them).
vm_output() {
	echo "umbrella-suite: running test-fs-basic"
	echo "---- the 6.1.0-50-amd64 console from its first report (line 812) ----"
	printf '[  301.234567] %s\n' "$@"
	echo "---- last lines of the 6.1.0-50-amd64 console ----"
	echo "[  301.300000] ---[ end Kernel panic - not syncing: Fatal exception ]---"
	echo "----"
	echo "tests/vm/run: the 6.1.0-50-amd64 kernel reported a problem: $1"
}
# expect STATUS WORDS DESCRIPTION LINE...: kernel-report of vm_output LINE... exits with
# STATUS and says WORDS.
expect() {
	local status=$1 words=$2 what=$3 rc
	shift 3
	out=$(vm_output "$@" | "$report")
	rc=$?
	[ "$rc" = "$status" ] && [[ "$out" == *"$words"* ]]
	check $? "$what: exit $rc, \"$out\""
}

int3=("Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
	"CPU: 1 UID: 0 PID: 4242 Comm: cat Not tainted 6.12.95+deb12-amd64 #1"
	"RIP: 0010:bpf_lsm_inode_getattr+0x5/0x10"
	"Call Trace:" " <IRQ>" " security_inode_getattr+0x40/0x80" " vfs_statx+0x9a/0x170"
	"Kernel panic - not syncing: Fatal exception in interrupt")
vmap=("BUG: unable to handle page fault for address: ffffc90000a3f000"
	"#PF: supervisor read access in kernel mode" "Oops: 0000 [#1] PREEMPT SMP NOPTI"
	"RIP: 0010:alloc_vmap_area+0x3c1/0x870" "EFLAGS: 00010297"
	"Call Trace:" " <IRQ>" " __get_vm_area_node+0x8f/0x140" " __vmalloc_node_range+0x8e/0x260"
	"Kernel panic - not syncing: Fatal exception in interrupt")
prog=" bpf_prog_6deef7357e7b4530_umb_file_open+0x2a/0x70"

expect 0 "emulator: a stale int3" "a stale int3 at a BPF LSM hook: the emulator's" "${int3[@]}"
expect 0 "emulator: a fault in alloc_vmap_area()" \
	"a fault in alloc_vmap_area() in interrupt: the emulator's" "${vmap[@]}"
expect 1 "an Umbrella program: umb_file_open" \
	"the same fault with umb_file_open in the stack: Umbrella's" "${vmap[@]:0:8}" "$prog" \
	"${vmap[@]:8}"
expect 1 "an Umbrella program: umb_file_open" \
	"the stale int3 with umb_file_open in the stack: Umbrella's" "${int3[@]:0:5}" "$prog" \
	"${int3[@]:5}"
expect 1 "an Umbrella program: umb_unix_stream" \
	"a program's name as the kernel cuts it (15 characters): Umbrella's" \
	"general protection fault, probably for non-canonical address 0xdead000000000100" \
	"RIP: 0010:bpf_prog_0123456789abcdef_umb_unix_stream+0x1c/0x90" \
	"Kernel panic - not syncing: Fatal exception"
expect 2 "unknown: " "alloc_vmap_area() outside an interrupt: not the emulator's" \
	"BUG: unable to handle page fault for address: ffffc90000a3f000" \
	"RIP: 0010:alloc_vmap_area+0x3c1/0x870" "Call Trace:" " vmalloc+0x4b/0x60"
expect 2 "unknown: " "an int3 elsewhere than a BPF call site: not the emulator's" \
	"int3: 0000 [#1] PREEMPT SMP NOPTI" "RIP: 0010:do_sys_openat2+0x1/0x90"
expect 2 "unknown: " "a warning of the kernel's: not the emulator's" \
	"WARNING: CPU: 0 PID: 77 at kernel/bpf/verifier.c:12345 check_helper_call+0x1/0x2" \
	"RIP: 0010:check_helper_call+0x1/0x2"
out=$(echo "tests/vm/run: timeout: the VM did not finish within 60s" | "$report")
[ $? = 2 ]
check $? "an output without a report: unknown (\"$out\")"
tap_done
