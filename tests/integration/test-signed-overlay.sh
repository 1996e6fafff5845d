#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): signed binaries on overlayfs (containers; issue 15, item 3).
# An overlayfs file's verdict is that of the file underneath it (bpf/lib/backing.bpf.h):
# BPF notes that file when the exec opens it, the gate verifies it there (Linux 6.12 sends
# its exec open to fanotify) and the verdict follows every change made to it, also from
# outside the overlay. The overlay has its lower and upper layers on two tmpfs (both
# cached), and a second lower on ext4 on a loop device (not cached). Every check runs the
# binary and asserts the errno of the actual exec or the restriction it runs with
# (signed-cat's signed policy denies /etc/passwd), with a control beside it:
#   - 6.12: a signed binary through the overlay runs with its restriction, verified at
#     its first exec and again from its cached verdict; 6.1 sends no event for the file
#     underneath: there the first exec is refused (fail closed);
#   - both: a binary whose file underneath was verified directly (exec'd from the layer)
#     runs through the overlay with its restriction;
#   - both: the file underneath it no longer opens for write (ETXTBSY: it is pinned,
#     lib/backing.bpf.h); a signed copy never run through the overlay, changed in the
#     lower layer from outside, is refused through the overlay; an unchanged signed copy
#     beside it still runs;
#   - both: an unsigned binary through the overlay follows the mode (allow: it runs);
#   - exec-unsigned (a signed exec-probe restricted by it): 6.12 maps the signed binary
#     through the overlay by the verdict underneath (mmap_backing_file) and it runs with
#     its restriction; 6.1 has no such hook: the mapping is refused and the new program
#     killed; the unsigned binary is refused (EPERM) on both;
#   - both: a signed binary from the lower on the loop device (no verdict is cached
#     there) is refused, and umbrellad's log names it (restriction=verdict:unverified);
#     an unsigned one from there runs;
#   - 6.12: a signed binary copied in through the overlay (on the upper layer) runs
#     with its restriction.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-signed-overlay
export UMBRELLA_SOCKET=/run/umbrella-signed-overlay/umbrellad.sock
tmp=$(mktemp -d)
ring=$tmp/keys
bin=$tmp/bin
lower=$tmp/lower # a tmpfs of its own
upper=$tmp/upper # another: upperdir and workdir
loop=$tmp/loop	 # ext4 on a loop device
ovl=$tmp/ovl
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	umount "$ovl" "$loop" "$upper" "$lower" 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$ring" "$bin" "$lower" "$upper" "$loop" "$ovl"
export UMBRELLA_KEYRING=$ring
new_kernel=0
[ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge 6012 ] && new_kernel=1

# probe PATH [ARG]...: exec PATH through exec-probe (static, unsigned) into $out, $rc.
probe() { out=$("$bin/exec-probe" "$@" 2>&1); rc=$?; }
exec_failed() { [ "$rc" = 111 ] && [[ "$out" == "exec $1: $2" ]]; }
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
logged() { # LOG TEXT...: whether LOG has a line with every TEXT (waits up to 3 s)
	local log=$1 line
	shift
	for _ in $(seq 30); do
		while IFS= read -r line; do
			local all=1 t
			for t in "$@"; do [[ "$line" == *"$t"* ]] || all=0; done
			[ "$all" = 1 ] && return 0
		done <"$log"
		sleep 0.1
	done
	return 1
}
# runs_restricted PATH: PATH runs, /etc/passwd denied by its policy, /etc/hostname read.
runs_restricted() {
	probe "$1" /etc/passwd /etc/hostname
	[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
}
# runs_free PATH: PATH runs, unrestricted.
runs_free() {
	probe "$1" /etc/passwd
	[ "$rc" = 0 ] && opened /etc/passwd ok
}

# --- set-up: a key, the layers, umbrellad ---

cp "$build/tests/integration/signed-cat" "$build/tests/integration/exec-probe" "$bin/"
cp "$bin/signed-cat" "$bin/plain"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
out=$({ "$cli" key generate ovl --dir "$tmp" >/dev/null &&
	"$cli" key add "$tmp/ovl.pub" >/dev/null &&
	"$cli" binary sign --key "$tmp/ovl.key" "$bin/signed-cat" >/dev/null; } 2>&1)
check $? "a key in the ring, signed-cat signed with it"

out=$({ mount -t tmpfs lower "$lower" && mount -t tmpfs upper "$upper" &&
	mkdir "$upper/data" "$upper/work" &&
	for f in first direct changed unchanged; do cp "$bin/signed-cat" "$lower/$f"; done &&
	cp "$bin/plain" "$lower/plain" &&
	truncate -s 32M "$tmp/ext4.img" && mkfs.ext4 -q -F "$tmp/ext4.img" &&
	mount -o loop "$tmp/ext4.img" "$loop" &&
	cp "$bin/signed-cat" "$loop/on-loop" && cp "$bin/plain" "$loop/plain-on-loop" &&
	load_module overlay &&
	mount -t overlay overlay \
		-o "lowerdir=$lower:$loop,upperdir=$upper/data,workdir=$upper/work" "$ovl"; } 2>&1)
check $? "overlayfs: lower on a tmpfs and on ext4 (a loop device), upper on another tmpfs"

start_daemon "$tmp/d.log" --pin-dir "$pin" --keyring "$ring"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

# --- the first exec of a signed binary through the overlay ---

if [ "$new_kernel" = 1 ]; then
	runs_restricted "$ovl/first"
	check $? "6.12: a signed binary through the overlay runs with its restriction (first exec)"
	runs_restricted "$ovl/first"
	check $? "6.12: and again, from the verdict cached on the file underneath"
else
	probe "$ovl/first" /etc/passwd
	exec_failed "$ovl/first" EPERM
	check $? "6.1: no event for the file underneath: the first exec through the overlay is refused (EPERM)"
	runs_restricted "$lower/first"
	check $? "6.1: the same file exec'd from its layer runs with its restriction (positive control)"
fi

# --- a file underneath verified directly, then changed from outside the overlay ---

runs_restricted "$lower/direct" && runs_restricted "$lower/changed" &&
	runs_restricted "$lower/unchanged"
check $? "three signed copies exec'd from the lower layer itself: verified, restricted"

runs_restricted "$ovl/direct"
check $? "through the overlay, a binary verified underneath runs with its restriction"

# flip FILE: changes one byte of FILE in place (python3's error on stderr).
flip() {
	python3 - "$1" 2>&1 <<-'EOS'
	import os, sys
	fd = os.open(sys.argv[1], os.O_RDWR)
	off = os.fstat(fd).st_size // 2
	b = os.pread(fd, 1, off)
	os.pwrite(fd, bytes([b[0] ^ 0xff]), off)
	os.close(fd)
	EOS
}

out=$(flip "$lower/direct")
[[ "$out" == *"[Errno 26]"* ]]
check $? "the file underneath a binary that ran through the overlay does not open for write (ETXTBSY)"

runs_restricted "$ovl/direct"
check $? "and it still runs through the overlay with its restriction"

out=$(flip "$lower/changed")
check $? "one byte changed in the lower layer's file (never run through the overlay), from outside"

probe "$ovl/changed" /etc/passwd
exec_failed "$ovl/changed" EPERM
check $? "through the overlay, the changed binary is refused (EPERM)"

probe "$ovl/changed" /etc/passwd
exec_failed "$ovl/changed" EPERM
check $? "and refused again (verified again: its signature no longer verifies)"

runs_restricted "$ovl/unchanged"
check $? "through the overlay, the unchanged copy beside it still runs with its restriction"

# --- unsigned files follow the mode ---

runs_free "$ovl/plain"
check $? "through the overlay, an unsigned binary runs (a miss or UNSIGNED under allow)"

# --- exec-unsigned: the mappings of overlayfs files ---

# eu PATH [ARG]...: exec PATH from a process restricted by exec-unsigned, into $out, $rc.
eu() { out=$("$cli" run -r exec-unsigned -- "$bin/exec-probe-signed" "$@" 2>&1); rc=$?; }

cp "$bin/exec-probe" "$bin/exec-probe-signed"
out=$("$cli" binary sign --no-policy --key "$tmp/ovl.key" "$bin/exec-probe-signed" 2>&1)
check $? "exec-probe signed, to exec from under exec-unsigned"

if [ "$new_kernel" = 1 ]; then
	eu "$ovl/direct" /etc/passwd /etc/hostname
	[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
	check $? "6.12, exec-unsigned: the signed binary through the overlay runs, mapped by the verdict underneath"
else
	eu "$ovl/direct" /etc/passwd /etc/hostname
	[ "$rc" != 0 ] && ! opened /etc/hostname ok
	check $? "6.1, exec-unsigned: no hook for the mapping underneath: the binary is killed as it maps (fail closed)"
fi

eu "$ovl/plain" /etc/passwd
# The output has run's own line about the denial too.
[ "$rc" = 111 ] && printf '%s\n' "$out" | grep -qxF "exec $ovl/plain: EPERM"
check $? "exec-unsigned: the unsigned binary through the overlay is refused (EPERM)"

# --- a layer whose verdicts are not cached ---

probe "$ovl/on-loop" /etc/passwd
exec_failed "$ovl/on-loop" EPERM
check $? "a signed binary from the lower on a loop device (not cached) is refused (EPERM)"

logged "$tmp/d.log" "restriction=verdict:unverified" "object=$ovl/on-loop"
rc=$?
out=$(tail -n 5 "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad's log names the refused file (restriction=verdict:unverified)"

runs_free "$ovl/plain-on-loop"
check $? "an unsigned binary from the lower on a loop device runs (positive control)"

# --- copied in through the overlay: on the upper layer ---

if [ "$new_kernel" = 1 ]; then
	out=$(cp "$bin/signed-cat" "$ovl/copied" 2>&1) && [ -f "$upper/data/copied" ]
	check $? "6.12: a signed binary copied in through the overlay lands on the upper layer"
	runs_restricted "$ovl/copied"
	check $? "6.12: it runs with its restriction, verified on the upper layer"
else
	skip "6.12 only: a signed binary copied in through the overlay (6.1 sends no event for the file underneath)"
fi

tap_done
