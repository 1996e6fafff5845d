#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: the exec gate under one user's load, and where it must not cache (TAP).
# umbrellad runs from a copy on tmpfs with --keyring on a temporary directory, under
# "unsigned = allow"; "nobody" (uid 65534) owns the files meant to load the gate.
#   - headers first: an unsigned binary of 1000 MiB, and one over 1 GiB, run at once
#     (the gate decides without reading the body);
#   - one user's load: while nobody execs three 1000 MiB sparse files that carry a
#     signature section (each must be hashed, up to the 10 s deadline), root's first
#     exec of a signed binary and an rfork (umbrella-cli run) are served within 10 s
#     (the gate was one thread: 30 s and more), and nobody's files are refused;
#   - invalidation per file: nobody opening an exec'd file of their own for writing
#     drops that file's ignore mark only: with umbrellad stopped (SIGSTOP), root's cached
#     binary still runs, nobody's file waits at the gate (the control);
#   - a loop device: an ext4 image mounted through a loop device gets no cached verdict
#     (its backing file changes without any ext4 write): a signed binary there is
#     refused, under allow too (it carries the signature mark, include/umbrella/
#     signed-elf-format.h, and has no verdict); changed through the image file after its first
#     exec, it is refused under exec-unsigned.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-gate-load-test
export UMBRELLA_SOCKET=/run/umbrella-gate-load-test/umbrellad.sock
tmp=$(mktemp -d) # tmpfs in the VM
chmod 755 "$tmp"
ring=$tmp/keys bin=$tmp/bin conf=$tmp/umbrella.conf nb=$tmp/nobody mnt=$tmp/mnt
umbrellad=$bin/umbrellad
daemon= mounted=
mkdir -p "$ring" "$bin" "$nb" "$mnt"
chown 65534:65534 "$nb"
export UMBRELLA_KEYRING=$ring
. "$source_root/tests/helpers/builtins.sh"
builtins_init "$tmp"
as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
cleanup() {
	[ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	[ -n "$mounted" ] && umount "$mnt"
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

probe() { out=$("$bin/probe" "$@" 2>&1); rc=$?; }
exec_failed() { [ "$rc" = 111 ] && [[ "$out" == "exec $1: $2" ]]; }
# timed CMD...: runs CMD, its exit code in $rc, its output in $out, seconds in $secs.
timed() {
	local t0=$EPOCHREALTIME
	out=$("$@" 2>&1)
	rc=$?
	secs=$(python3 -c "print(round($EPOCHREALTIME - $t0, 2))")
}
faster() { python3 -c "import sys; sys.exit(not $1 < $2)"; } # SECS LIMIT
verdict_of() {
	state=$("$cli" --pin-dir "$pin" -j verdict list | python3 -c '
import json, sys
for v in json.load(sys.stdin):
    if v["path"] == sys.argv[1]:
        print(v["state"], "in_force=%s" % v["in_force"])' "$1")
}
gone() { # PATH: until verdict list has no entry for PATH, at most 10 s
	for _ in {1..100}; do
		verdict_of "$1"
		[ -z "$state" ] && return 0
		nap
	done
	return 1
}

# --- set-up ---
cp "$build/daemon/umbrellad" "$umbrellad"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
busybox=$(command -v busybox)
cp "$build/tests/integration/exec-probe" "$bin/probe"
cp /bin/true "$bin/signed"
cp /bin/true "$bin/fresh"
cp "$busybox" "$bin/busybox"
out=$({ "$cli" key generate gate --dir "$tmp" && "$cli" key add "$tmp/gate.pub" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/probe" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/signed" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/fresh" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/busybox"; } 2>&1)
check $? "a key in the ring; the probe, two copies of true and a static busybox signed"
cp /bin/true "$bin/big1000"
truncate -s 1000M "$bin/big1000"
cp /bin/true "$bin/big1100"
truncate -s 1100M "$bin/big1100"
out=$(as_nobody sh -c "for i in 1 2 3; do cp '$bin/signed' '$nb/huge'\$i &&
	truncate -s 1000M '$nb/huge'\$i || exit 1; done; cp /bin/true '$nb/mine'" 2>&1)
check $? "nobody's files: three signed copies of true extended to 1000 MiB (sparse), one unsigned"
chmod 755 "$bin"/*
printf 'unsigned = allow\n' >"$conf"
log=$tmp/d.log
start_daemon "$log" --pin-dir "$pin" --keyring "$ring" --config "$conf"
check $? "umbrellad starts with its exec gate"

# --- headers first ---
timed "$bin/probe" "$bin/big1000"
[ "$rc" = 0 ] && faster "$secs" 5
check $? "an unsigned binary of 1000 MiB runs within 5 s ($secs s, exit $rc)"
timed "$bin/probe" "$bin/big1100"
[ "$rc" = 0 ] && faster "$secs" 5
check $? "an unsigned binary over 1 GiB runs under unsigned = allow ($secs s, exit $rc)"
verdict_of "$bin/big1100"
[ "$state" = "unsigned in_force=True" ]
check $? "... its verdict is cached: unsigned ($state)"

# --- one user's load does not hold up the others ---
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "root's signed binary runs (cached from now on)"
loaders=()
for i in 1 2 3; do
	as_nobody "$bin/probe" "$nb/huge$i" >"$tmp/huge$i.out" 2>&1 &
	loaders+=($!)
done
nap 1 # their execs reach the gate
# Root's three at once, each timed: the first exec of a signed binary, an rfork, a
# request on the socket.
timed_bg() { # NAME CMD...
	local name=$1
	shift
	timed "$@"
	echo "$rc $secs" >"$tmp/time.$name"
}
timed_bg fresh "$bin/probe" "$bin/fresh" &
p1=$!
timed_bg rfork "$cli" run -r net -- "$bin/probe" "$bin/signed" &
p2=$!
timed_bg flush "$cli" --pin-dir "$pin" verdict flush &
p3=$!
wait "$p1" "$p2" "$p3"
read -r rc secs <"$tmp/time.fresh"
[ "$rc" = 0 ] && faster "$secs" 10
check $? "meanwhile root's first exec of a signed binary is verified within 10 s ($secs s, exit $rc)"
read -r rc secs <"$tmp/time.rfork"
[ "$rc" = 0 ] && faster "$secs" 10
check $? "meanwhile an rfork (umbrella-cli run) is served within 10 s ($secs s, exit $rc)"
read -r rc secs <"$tmp/time.flush"
[ "$rc" = 0 ] && faster "$secs" 10
check $? "meanwhile the socket answers a verdict flush within 10 s ($secs s, exit $rc)"
for _ in {1..900}; do # nobody's three, one after the other: 30 s and a margin
	running=0
	for p in "${loaders[@]}"; do kill -0 "$p" 2>/dev/null && running=1; done
	[ "$running" = 0 ] && break
	nap
done
out=$(cat "$tmp"/huge?.out)
[ "$running" = 0 ] && [ "$(grep -c "exec $nb/huge[123]: EPERM" <<<"$out")" = 3 ]
check $? "nobody's three large signed files are refused with EPERM"
grep -q "path=$nb/huge1 .*reason=" "$log"
check $? "... and logged"

# --- an invalidation costs one file its ignore mark, not every file ---
probe "$bin/signed"
probe "$bin/fresh"
out=$(as_nobody "$bin/probe" "$nb/mine" 2>&1)
verdict_of "$nb/mine"
[ "$state" = "unsigned in_force=True" ]
check $? "nobody's own unsigned file runs and is cached ($state)"
as_nobody sh -c ": >>'$nb/mine'"
gone "$nb/mine"
check $? "nobody opens it for writing: its verdict is dropped"
verdict_of "$bin/fresh"
[ "$state" = "signed in_force=True" ]
check $? "root's signed binary keeps its verdict ($state)"
kill -STOP "$daemon"
"$bin/probe" "$bin/fresh" >"$tmp/fresh.out" 2>&1 &
root_pid=$!
as_nobody "$bin/probe" "$nb/mine" >"$tmp/mine.out" 2>&1 &
mine_pid=$!
for _ in {1..50}; do
	kill -0 "$root_pid" 2>/dev/null || break
	nap
done
root_done=1 mine_waits=0
kill -0 "$root_pid" 2>/dev/null && root_done=0
kill -0 "$mine_pid" 2>/dev/null && mine_waits=1
kill -CONT "$daemon"
wait "$root_pid"
root_rc=$?
wait "$mine_pid"
mine_rc=$?
out="root: done=$root_done exit=$root_rc; nobody: waited=$mine_waits exit=$mine_rc"
[ "$root_done" = 1 ] && [ "$root_rc" = 0 ]
check $? "umbrellad stopped: root's cached binary runs without the gate ($out)"
[ "$mine_waits" = 1 ] && [ "$mine_rc" = 0 ]
check $? "... while nobody's invalidated file waits for the gate, and runs once it is back ($out)"

# --- a loop device: no cached verdict ---
out=$({ truncate -s 32M "$tmp/ext4.img" && mkfs.ext4 -q -F "$tmp/ext4.img" &&
	mount -o loop "$tmp/ext4.img" "$mnt" && cp -p "$bin/busybox" "$mnt/busybox" && sync; } 2>&1)
rc=$?
[ "$rc" = 0 ] && mounted=1
check "$rc" "an ext4 image mounted through a loop device, a signed busybox on it"
"$cli" run -r exec-unsigned -- "$bin/probe" "$bin/busybox" true >/dev/null 2>&1
rc=$?
[ "$rc" = 0 ]
check $? "exec-unsigned: the signed busybox on tmpfs runs (the control; exit $rc)"
probe "$mnt/busybox" true
verdict_of "$mnt/busybox"
exec_failed "$mnt/busybox" EPERM && [ -z "$state" ]
check $? "allow: the one on the loop device, without a cached verdict, is refused: it carries the signature mark (exit $rc, '$state')"
# Flip a byte of its section headers (not loaded: it still runs) through the image file.
out=$(python3 -c '
import sys
img, f = sys.argv[1], sys.argv[2]
tail = open(f, "rb").read()[-256:]
with open(img, "r+b") as i:
    data = i.read()
    at = data.find(tail)
    assert at >= 0 and data.find(tail, at + 1) < 0, "not found once"
    i.seek(at + 200)
    i.write(bytes([data[at + 200] ^ 0xff]))
print("flipped at", at + 200)' "$tmp/ext4.img" "$mnt/busybox" 2>&1)
rc=$?
echo 3 >/proc/sys/vm/drop_caches
cmp -s "$bin/busybox" "$mnt/busybox"
cmp_rc=$?
[ "$rc" = 0 ] && [ "$cmp_rc" = 1 ]
check $? "a byte changed through the image file shows in the file on ext4 ($out)"
out=$("$cli" run -r exec-unsigned -- "$bin/probe" "$mnt/busybox" true 2>&1)
rc=$?
exec_failed "$mnt/busybox" EPERM
check $? "exec-unsigned: the changed binary on the loop device is refused with EPERM (exit $rc)"
umount "$mnt" && mounted=
kill -0 "$daemon"
check $? "umbrellad is still running"

kill "$daemon"
wait "$daemon" 2>/dev/null
daemon=
tap_done
