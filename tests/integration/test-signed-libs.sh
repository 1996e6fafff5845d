#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a dynamically linked signed program under exec-unsigned (issue 15,
# item 1). siglib-prog needs its own library libumbsiglib.so and libc through
# DT_RUNPATH $ORIGIN, and its ELF interpreter is a copy of ld.so: all four are copied
# to $dir (tmpfs, where verdicts are cached) and signed there with "binary sign --tree".
# umbrellad verifies the program's library closure at its exec; under
# "run -r exec-unsigned":
#   - it runs (and without exec-unsigned too: the controls);
#   - an unsigned library by LD_PRELOAD or dlopen(): its mapping fails with EPERM, its
#     code never runs, and umbrellad's log names it;
#   - one byte of its own library changed after the verification (a changed copy put in
#     its place: mapped under exec-unsigned, it is pinned), the mapping fails with EPERM, the log names the library (the denial, and the gate's refusal of the
#     library when the program's next exec verifies its closure again).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-siglibs-test
export UMBRELLA_SOCKET=/run/umbrella-siglibs-test/umbrellad.sock
tmp=$(mktemp -d)
dir=/tmp/umbrella-siglibs # siglib-prog's PT_INTERP names it (meson.build)
prog=$dir/siglib-prog
preload=$tmp/libsiglibpreload.so # unsigned, outside the signed tree
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp" "$dir"
}
trap cleanup EXIT

if [ ! -x "$build/tests/integration/siglib-prog" ]; then
	echo "ok 1 - # SKIP siglib-prog is built on x86-64 only"
	exit 0
fi

# run [-u] CMD...: CMD (under "umbrella-cli run -r exec-unsigned" with -u) into $out, $rc.
run() {
	if [ "$1" = -u ]; then
		shift
		out=$("$cli" run -r exec-unsigned -- "$@" 2>&1 </dev/null)
	else
		out=$("$@" 2>&1 </dev/null)
	fi
	rc=$?
}
# Whether umbrellad's log names $1 in a line with $2 (waits up to 3 s: a ring buffer).
logged() {
	for _ in $(seq 30); do
		grep -F "$2" "$tmp/d.log" | grep -qF "$1" && return 0
		sleep 0.1
	done
	return 1
}
# check_log RESULT DESCRIPTION: check, with umbrellad's log in the output on failure.
check_log() {
	[ "$1" = 0 ] || out+=$'\n'"$(tail -n 8 "$tmp/d.log")"
	check "$@"
}
# flip FILE OFFSET: invert the byte at OFFSET in place.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

rm -rf "$dir"
mkdir -p "$dir"
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$dir/ld-linux-x86-64.so.2"
cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$dir/libc.so.6"
cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" "$dir/"
cp "$build/tests/integration/libsiglibpreload.so" "$preload"
echo "not a program" >"$dir/README"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null

"$cli" key generate vendor --dir "$tmp" >/dev/null 2>"$tmp/err" &&
	mkdir "$tmp/keys" && UMBRELLA_KEYRING=$tmp/keys "$cli" key add "$tmp/vendor.pub" \
	>/dev/null 2>>"$tmp/err"
rc=$?
out=$(cat "$tmp/err")
[ "$rc" = 0 ]
check $? "a vendor key, trusted in a key ring"

out=$("$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$dir" 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q "^4 signed, 1 skipped, 0 failed$" <<<"$out" &&
	grep -q "^$dir/libumbsiglib.so: signed .*(a shared library: no restrictions)$" <<<"$out" &&
	grep -q "^$dir/libc.so.6: signed .*(a shared library: no restrictions)$" <<<"$out" &&
	grep -q "^$dir/README: skipped (not an ELF file)$" <<<"$out"
check $? "binary sign --tree signs the program, its library, libc and ld.so, and skips the rest"

out=$("$cli" binary sign --key "$tmp/vendor.key" -r net "$dir/libumbsiglib.so" 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "a shared library carries no restrictions" <<<"$out"
check $? "binary sign -r of a shared library is refused"

start_daemon "$tmp/d.log" --pin-dir "$pin" --keyring "$tmp/keys"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: the signed dynamic program runs with its signed libraries"
# libc needs "ld-linux-x86-64.so.2": ld.so is the interpreter already loaded from $dir,
# not a file for the gate to look up in /lib (it did, and logged it as not verified).
out=$(grep 'ld-linux' "$tmp/d.log")
[ -z "$out" ]
check $? "the interpreter satisfies libc's DT_NEEDED of its soname: nothing else is looked up"

run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: and again (cached verdicts)"

run "$prog" preload "$preload"
[ "$rc" = 0 ] && grep -q "unsigned library code ran" <<<"$out"
check $? "LD_PRELOAD of an unsigned library runs its code without exec-unsigned (control)"

run -u "$prog" preload "$preload"
! grep -q "unsigned library code ran" <<<"$out" && grep -q "hello from the library" <<<"$out" &&
	logged libsiglibpreload.so "hook=mmap_file"
check_log $? "exec-unsigned: LD_PRELOAD of an unsigned library: its mapping is refused and logged"

run "$prog" dlopen "$preload"
[ "$rc" = 0 ] && grep -q "^dlopen: loaded$" <<<"$out"
check $? "dlopen() of an unsigned library works without exec-unsigned (control)"

run -u "$prog" dlopen "$preload"
[ "$rc" = 3 ] && grep -q "^dlopen: .*libsiglibpreload.so" <<<"$out" &&
	! grep -q "unsigned library code ran" <<<"$out" && logged libsiglibpreload.so "hook=mmap_file"
check $? "exec-unsigned: dlopen() of an unsigned library: its mapping is refused"

cp "$dir/libumbsiglib.so" "$tmp/libcopy.so"
run -u "$prog" dlopen "$tmp/libcopy.so"
[ "$rc" = 3 ] && grep -q "^dlopen: .*libcopy.so" <<<"$out" && logged "object=$tmp/libcopy.so" "hook=mmap_file"
check $? "exec-unsigned: dlopen() of a signed copy that no closure verified fails with EPERM (its record names the whole path)"

cp "$dir/libumbsiglib.so" "$tmp/libgood.so"
# One byte of .comment (the code still loads) of the verified library, changed in a
# copy put in its place by rename: the library was mapped under exec-unsigned, so it
# refuses a write in place (pinned: test-signed-overlay-libs).
s=($(readelf -S -W "$dir/libumbsiglib.so" | awk '$2 == ".comment" { print $5, $6 }'))
cp "$dir/libumbsiglib.so" "$dir/.libumbsiglib.so.new"
[ ${#s[@]} = 2 ] && flip "$dir/.libumbsiglib.so.new" $((16#${s[0]} + 16#${s[1]} / 2)) &&
	mv "$dir/.libumbsiglib.so.new" "$dir/libumbsiglib.so"
run "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "one byte of the library changed: the program runs without exec-unsigned (control)"

run -u "$prog"
[ "$rc" = 127 ] && grep -q "libumbsiglib.so" <<<"$out" &&
	logged libumbsiglib.so "hook=mmap_file" &&
	logged "path=$dir/libumbsiglib.so" "refused binary:"
check_log $? "exec-unsigned: one byte of the library changed after verification: EPERM, logged"

run -u "$prog"
[ "$rc" = 127 ]
check $? "exec-unsigned: and the next exec too"

# The library's name swapped to an unsigned file (a symbolic link to it).
ln -sf "$preload" "$dir/libumbsiglib.so"
run -u "$prog"
[ "$rc" = 127 ] && ! grep -q "unsigned library code ran" <<<"$out"
check $? "exec-unsigned: the library's name a symbolic link to an unsigned library: refused"

# Replaced by rename with a good copy (a new inode), as a package manager installs: the
# gate sees the directory change and verifies the closure at the next exec (an exec
# before it has seen the change fails closed: retried for 3 s).
cp "$tmp/libgood.so" "$dir/.libumbsiglib.so.new" && mv "$dir/.libumbsiglib.so.new" "$dir/libumbsiglib.so"
for _ in $(seq 30); do
	run -u "$prog"
	[ "$rc" = 0 ] && break
	sleep 0.1
done
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: the library replaced by rename with a signed one: the program runs"

tap_done
