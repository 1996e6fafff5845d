#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): the signed dynamic program of
# test-signed-libs (siglib-prog, its own library, libc and ld.so, signed) under
# umbrellad.service, whose sandbox (PrivateTmp=, ProtectSystem=strict, ...) gives it a
# mount namespace of its own: the gate resolves the program's libraries in the exec'ing
# process's root. Under "run -r exec-unsigned" the program runs, and once one byte of
# its own library has changed it is refused (TAP).
# The files live on /run, a tmpfs that umbrellad sees as we do (its /tmp is private, and
# in this VM /tmp is on the overlay root, where verdicts are not cached): the directory
# siglib-prog's PT_INTERP names, /tmp/umbrella-siglibs, is a symbolic link to it.
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-siglibs
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
link=/tmp/umbrella-siglibs # siglib-prog's PT_INTERP names it (meson.build)
dir=/run/umbrella-siglibs
prog=$dir/siglib-prog
cleanup() {
	systemctl stop umbrellad.service 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "$tmp" "$dir" "$link" /etc/umbrella/keys
}
trap cleanup EXIT

need_siglib_prog

run() { # [-u] CMD...: CMD (under "run -r exec-unsigned" with -u) into $out, $rc
	if [ "$1" = -u ]; then
		shift
		out=$("$cli" run -r exec-unsigned -- "$@" 2>&1 </dev/null)
	else
		out=$("$@" 2>&1 </dev/null)
	fi
	rc=$?
}
# This boot's messages of umbrellad.service containing $1 and $2 (waits up to 5 s).
logged() {
	local end=$((SECONDS + 5))
	while [ "$SECONDS" -lt "$end" ]; do
		journalctl --sync 2>/dev/null
		journal | grep -F "$1" | grep -qF "$2" && return 0
		sleep 0.2
	done
	return 1
}
# check_j RESULT DESCRIPTION: check, with the journal's tail in the output on failure.
check_j() {
	[ "$1" = 0 ] || out+=$'\n'"$(journal | tail -n 15)"
	check "$@"
}
flip() { # FILE OFFSET: invert the byte at OFFSET in place
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

rm -rf "$dir" "$link"
mkdir -p "$dir" && ln -s "$dir" "$link"
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$dir/ld-linux-x86-64.so.2"
cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$dir/libc.so.6"
cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" "$dir/"
"$cli" key generate vendor --dir "$tmp" >/dev/null 2>"$tmp/err" &&
	mkdir -p /etc/umbrella/keys &&
	UMBRELLA_KEYRING=/etc/umbrella/keys "$cli" key add "$tmp/vendor.pub" >/dev/null 2>>"$tmp/err" &&
	"$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$dir" >"$tmp/sign" 2>&1
rc=$?
out=$(cat "$tmp/err" "$tmp/sign")
[ "$rc" = 0 ] && grep -q "^4 signed, 0 skipped, 0 failed$" "$tmp/sign"
check $? "the program, its library, libc and ld.so signed; the key in /etc/umbrella/keys"

unit_setup
timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(journal | tail -n 20)
[ "$rc" = 0 ]
check $? "umbrellad.service is active"
out="umbrellad's mount namespace: $(readlink "/proc/$(prop MainPID)/ns/mnt"), ours: $(readlink /proc/self/ns/mnt)"
[ "$(readlink "/proc/$(prop MainPID)/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]
check $? "the unit's sandbox gives umbrellad a mount namespace of its own"

run "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check_j $? "the signed dynamic program runs (control)"

run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check_j $? "exec-unsigned: it runs, every library verified by the service"

# One byte of .comment (the code still loads) of the verified library, changed in a
# copy put in its place by rename: the library was mapped under exec-unsigned, so it
# refuses a write in place (pinned: test-signed-overlay-libs).
s=($(readelf -S -W "$dir/libumbsiglib.so" | awk '$2 == ".comment" { print $5, $6 }'))
cp "$dir/libumbsiglib.so" "$dir/.libumbsiglib.so.new"
[ ${#s[@]} = 2 ] && flip "$dir/.libumbsiglib.so.new" $((16#${s[0]} + 16#${s[1]} / 2)) &&
	mv "$dir/.libumbsiglib.so.new" "$dir/libumbsiglib.so"
run "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check_j $? "one byte of the library changed: it runs without exec-unsigned (control)"

run -u "$prog"
[ "$rc" = 127 ] && grep -q "libumbsiglib.so" <<<"$out" && logged libumbsiglib.so "hook=mmap_file"
[ "$rc" = 127 ] || out+=$'\n'"$(journal | tail -n 12)"
check_j $? "exec-unsigned: the changed library is refused at mmap, in the journal"

tap_done
