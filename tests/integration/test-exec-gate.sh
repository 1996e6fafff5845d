#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrellad's exec gate (TAP): what umbrellad does, rather than the BPF side.
# umbrellad runs from a copy on tmpfs (a file system the gate caches, so that it trusts
# its own executable) with --keyring on a temporary directory; binaries under test are
# copies on tmpfs, and every check asserts the errno of an actual exec (exec-probe):
#   - unsigned = allow: an unsigned binary and a script run, a signed one runs, a
#     tampered one is refused with EPERM and a "refused binary" record, one signed by
#     a key not in the ring runs as unsigned;
#   - the key ring: a key added to the directory is picked up without a signal (inotify),
#     also when the directory itself is made after umbrellad started,
#     a stray file is logged and not trusted while the valid key is, a bad revocation
#     list leaves no key trusted;
#   - verdict list (also with umbrellad down), verdict flush (root only);
#   - invalidation: after chmod, or a byte changed through a shared mapping (which
#     fanotify does not see as a write), the next exec is verified again;
#   - the gate answers, without hanging, a file over 1 GiB (unsigned: allowed; with a
#     signature section: refused), a truncated ELF file, an empty one and an exec-only
#     one;
#   - unsigned = deny through a reload: unsigned refused, signed allowed; umbrellad
#     killed and started again while deny is in force;
#   - a signed shared library is not run as a program where unsigned code may not run:
#     a signed copy of ld.so running an unsigned program, and a signed libc.so.6, are
#     refused under deny and for a task with exec-unsigned (run under allow).
# Under deny nothing unsigned runs, the tools of this script included: that part uses
# shell builtins and signed copies only, and always ends with "unsigned = allow" again.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-gate-test
export UMBRELLA_SOCKET=/run/umbrella-gate-test/umbrellad.sock
tmp=$(mktemp -d) # tmpfs in the VM
ring=$tmp/keys bin=$tmp/bin conf=$tmp/umbrella.conf
umbrellad=$bin/umbrellad
daemon=
mkdir -p "$ring" "$bin"
export UMBRELLA_KEYRING=$ring
. "$source_root/tests/helpers/builtins.sh"
builtins_init "$tmp"
cleanup() {
	# Never leave deny in force: nothing unsigned would run any more in this VM.
	[ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null && set_unsigned allow
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# probe PATH [ARG]...: exec PATH through the signed exec-probe; $out, $rc. A refused
# exec prints "exec PATH: ENAME" and exits 111.
probe() { out=$("$bin/probe" "$@" 2>&1); rc=$?; }
exec_failed() { [ "$rc" = 111 ] && [[ "$out" == "exec $1: $2" ]]; }
# flip FILE OFFSET: invert the byte at OFFSET in place.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}
# verdict_of PATH: the state "verdict list --json" gives PATH ("" for none), in $state.
verdict_of() {
	state=$("$cli" --pin-dir "$pin" -j verdict list | python3 -c '
import json, sys
for v in json.load(sys.stdin):
    if v["path"] == sys.argv[1]:
        print(v["state"], "in_force=%s" % v["in_force"])' "$1")
}

# --- set-up: a key in the ring, one outside it, binaries on tmpfs ---
cp "$build/daemon/umbrellad" "$umbrellad"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
out=$({ "$cli" key generate gate --dir "$tmp" && "$cli" key add "$tmp/gate.pub" &&
	"$cli" key generate stranger --dir "$tmp"; } 2>&1)
check $? "key generate and key add: one key in the ring, one outside it"

cp "$build/tests/integration/exec-probe" "$bin/probe"
cp /bin/true "$bin/unsigned"
cp /bin/true "$bin/signed"
cp /bin/true "$bin/tampered"
cp /bin/true "$bin/stranger"
# Shared libraries (ET_DYN with a soname): binary sign signs them without restrictions.
ldso=$bin/ld-linux-x86-64.so.2 libc=$bin/libc.so.6
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$ldso"
cp /lib/x86_64-linux-gnu/libc.so.6 "$libc"
out=$({ "$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/probe" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/signed" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$bin/tampered" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$ldso" &&
	"$cli" binary sign --key "$tmp/gate.key" --no-policy "$libc" &&
	"$cli" binary sign --key "$tmp/stranger.key" --no-policy "$bin/stranger"; } 2>&1)
rc=$?
size=$(stat -c %s "$bin/tampered")
flip "$bin/tampered" $((size / 2))
[ "$rc" = 0 ]
check $? "binary sign: copies signed on tmpfs (one flipped after signing)"

printf '#!/bin/sh\necho script ran\n' >"$bin/script"
truncate -s $(((1 << 30) + 1)) "$bin/huge"
cp "$bin/signed" "$bin/huge-signed"
truncate -s $(((1 << 30) + 1)) "$bin/huge-signed"
head -c 64 /bin/true >"$bin/truncated-elf"
: >"$bin/empty"
cp /bin/true "$bin/exec-only"
chmod 755 "$bin"/*
chmod 111 "$bin/exec-only"
printf 'unsigned = allow\n' >"$conf"

log=$tmp/d1.log
start_daemon "$log" --pin-dir "$pin" --keyring "$ring" --config "$conf"
rc=$?
out=$(cat "$log")
[ "$rc" = 0 ] && [[ "$out" == *"exec gate: key ring $ring"* ]]
check $? "umbrellad starts with --keyring and its exec gate"
[[ "$out" != *"is not trusted"* && "$out" != *"not on a file system"* ]]
check $? "umbrellad on tmpfs trusts its own executable"

# --- unsigned = allow ---
probe "$bin/unsigned"
[ "$rc" = 0 ]
check $? "allow: an unsigned binary on tmpfs runs (exit $rc)"
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "allow: a signed binary runs (exit $rc)"
probe "$bin/tampered"
exec_failed "$bin/tampered" EPERM
check $? "allow: a signed binary with a byte flipped is refused with EPERM"
out=$(cat "$log")
[[ "$out" == *"refused binary: pid="*"path=$bin/tampered key="*"verdict=refused reason="* ]]
check $? "umbrellad logs the refusal with the path, key and reason"
probe "$bin/tampered"
exec_failed "$bin/tampered" EPERM
check $? "allow: the refusal holds at the next exec (cached)"
probe "$bin/stranger"
verdict_of "$bin/stranger"
[ "$rc" = 0 ] && [ "$state" = "unsigned in_force=True" ]
check $? "allow: a binary signed by a key not in the ring runs as unsigned (exit $rc, $state)"
out=$("$bin/script" 2>&1)
[ "$out" = "script ran" ]
check $? "allow: a script on tmpfs runs"

verdict_of "$bin/signed"; s1=$state
verdict_of "$bin/unsigned"; s2=$state
verdict_of "$bin/tampered"; s3=$state
out="signed: $s1; unsigned: $s2; tampered: $s3"
[ "$s1" = "signed in_force=True" ] && [ "$s2" = "unsigned in_force=True" ] &&
	[ "$s3" = "refused in_force=True" ]
check $? "verdict list --json shows the three verdicts, in force"
out=$("$cli" --pin-dir "$pin" verdict list 2>&1)
[[ "$out" == *"signed   yes"*"$bin/signed (valid signature)"* ]]
check $? "verdict list shows the path, state and reason"

# --- the gate never hangs on odd files ---
probe "$bin/huge"
exec_failed "$bin/huge" ENOEXEC
check $? "a file over 1 GiB without a signature section is decided at once: the kernel's ENOEXEC"
probe "$bin/huge-signed"
exec_failed "$bin/huge-signed" EPERM
check $? "a signed binary grown over 1 GiB is refused at once with EPERM"
verdict_of "$bin/huge-signed"
[ "$state" = "refused in_force=True" ] &&
	grep -q "path=$bin/huge-signed .*verdict=refused reason=a signature section in a file larger than 1 GiB" "$log"
check $? "... cached as refused, and logged ($state)"
probe "$bin/truncated-elf"
exec_failed "$bin/truncated-elf" EPERM
check $? "a truncated ELF file is refused with EPERM"
probe "$bin/empty"
exec_failed "$bin/empty" ENOEXEC
check $? "an empty file reaches the kernel's ENOEXEC (the gate allowed it)"
probe "$bin/exec-only"
[ "$rc" = 0 ]
check $? "an exec-only (mode 111) unsigned binary runs: read through the event's fd"
kill -0 "$daemon"
check $? "umbrellad is still running"

# --- the key ring ---
# next_load: the count of "loaded" lines the next reload of the ring makes, in $loads.
next_load() {
	count "$log" "key ring $ring loaded"
	loads=$((count + 1))
}
# A file written into the ring may be read as it is written (IN_CREATE): each check
# waits for the message of the complete file, which the last reload gives.
cp "$tmp/stranger.pub" "$ring/" # not a valid ring file: not named after its id
wait_count "$log" "key ring: $ring/stranger.pub: the Ed25519 public key" 1 &&
	wait_count "$log" "key ring $ring loaded: 1 key, 1 file rejected" 1
rc=$?
out=$(tail -n 5 "$log")
[ "$rc" = 0 ]
check $? "a stray file in the key ring: reloaded, the file logged as rejected"
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "... a binary signed by the valid key in it still runs"
probe "$bin/stranger"
verdict_of "$bin/stranger"
[ "$state" = "unsigned in_force=True" ]
check $? "... and the stray file's key is not trusted: its binary is unsigned ($state)"
# Before, a ring with a bad file was not taken at all: a revocation made while a stray
# file was there never took effect. (Probed through the unsigned exec-probe, since the
# signed one is refused too; the list may be read half written: until it is refused.)
"$cli" key revoke "$(cd "$ring" && ls ./*.pem | sed 's|^\./||; s|\.pem$||')" >/dev/null
for _ in {1..100}; do
	out=$("$build/tests/integration/exec-probe" "$bin/signed" 2>&1)
	rc=$?
	exec_failed "$bin/signed" EPERM && break
	nap
done
exec_failed "$bin/signed" EPERM
check $? "a key revoked while a stray file is in the ring: the revocation takes effect (EPERM)"
next_load
rm "$ring/stranger.pub" "$ring/revoked"
wait_count "$log" "key ring $ring loaded" "$loads"
# A revocation list with a bad line: which key it meant is unknown, so none is trusted.
printf 'not-a-key-id\n' >"$ring/revoked"
wait_count "$log" "key ring: $ring/revoked:1: not a key id" 1 &&
	wait_count "$log" "key ring $ring loaded: no key trusted" 1
rc=$?
out=$(tail -n 5 "$log")
[ "$rc" = 0 ]
check $? "a bad line in the revocation list: logged, no key trusted"
# (through the unsigned exec-probe: the signed one is refused too)
out=$("$build/tests/integration/exec-probe" "$bin/signed" 2>&1)
rc=$?
exec_failed "$bin/signed" EPERM
check $? "... and no key is trusted: the signed binary is refused (EPERM)"
next_load
rm "$ring/revoked"
wait_count "$log" "key ring $ring loaded" "$loads"
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "the list removed: the signed binary runs again"
next_load
out=$("$cli" key add "$tmp/stranger.pub" 2>&1)
# Each reload starts a new epoch: the refused binary is verified again at its next exec.
# (An unknown signer's binary runs as unsigned: the verdict says when the key counts.)
for _ in {1..100}; do
	probe "$bin/stranger"
	verdict_of "$bin/stranger"
	[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ] && break
	nap
done
[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ] &&
	wait_count "$log" "key ring $ring loaded" "$loads"
check $? "key add into the watched directory: without a signal, the binary signed by the new key runs as signed (exit $rc, $state)"

# A ring directory that appears after umbrellad started (a fresh install: key add makes
# it) is watched from the directory above it. Probed through the unsigned exec-probe:
# with no ring, the signed one is refused too.
next_load
rm -r "$ring"
wait_count "$log" "key ring $ring loaded: 0 keys" 1
out=$("$build/tests/integration/exec-probe" "$bin/stranger" 2>&1)
rc=$?
verdict_of "$bin/stranger"
[ "$rc" = 0 ] && [ "$state" = "unsigned in_force=True" ]
check $? "the ring directory removed: the binary signed by its key runs as unsigned (exit $rc, $state)"
next_load
out=$("$cli" key add "$tmp/stranger.pub" 2>&1) && [ -d "$ring" ]
check $? "key add makes the missing ring directory"
for _ in {1..100}; do
	out=$("$build/tests/integration/exec-probe" "$bin/stranger" 2>&1)
	rc=$?
	verdict_of "$bin/stranger"
	[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ] && break
	nap
done
[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ] &&
	wait_count "$log" "key ring $ring loaded" "$loads"
check $? "a ring made after umbrellad started: without a signal, its key is in force (exit $rc, $state)"
next_load
"$cli" key add "$tmp/gate.pub" >/dev/null && wait_count "$log" "key ring $ring loaded" "$loads"
check $? "the ring's first key added back"

# --- flush ---
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$cli" verdict flush 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ "$out" == *"only root may flush the verdicts"* ]]
check $? "verdict flush is refused for a user other than root (exit $rc)"
out=$("$cli" --pin-dir "$pin" verdict flush 2>&1)
check $? "verdict flush as root"
verdict_of "$bin/signed"
[ -z "$state" ]
check $? "after a flush verdict list has no entry for the signed binary ($state)"
probe "$bin/signed"
verdict_of "$bin/signed"
[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ]
check $? "its next exec verifies it again ($state)"
probe "$bin/tampered"
exec_failed "$bin/tampered" EPERM
check $? "the tampered binary is still refused after the flush"

# --- invalidation: the kernel drops a verdict, umbrellad its ignore mark ---
# gone PATH: wait until verdict list has no entry for PATH (umbrellad processed the
# kernel's invalidation record), at most 10 s.
gone() {
	for _ in {1..100}; do
		verdict_of "$1"
		[ -z "$state" ] && return 0
		nap
	done
	return 1
}
cp "$bin/signed" "$bin/changed"
probe "$bin/changed"
verdict_of "$bin/changed"
[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ]
check $? "a signed copy runs and is listed ($state)"
chmod 755 "$bin/changed"
gone "$bin/changed"
check $? "chmod: the verdict is dropped and leaves the list"
probe "$bin/changed"
verdict_of "$bin/changed"
[ "$rc" = 0 ] && [ "$state" = "signed in_force=True" ]
check $? "... and the next exec goes through the gate again ($state)"
# A change through a shared mapping: no write(2), so fanotify does not clear the ignore
# mark by itself; umbrellad must drop it, or the exec would skip the gate (a miss,
# which unsigned = allow lets run).
python3 -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
m[len(m) // 2] ^= 0xff
m.flush()
m.close()
os.close(fd)' "$bin/changed"
gone "$bin/changed"
check $? "a byte changed through mmap: the verdict is dropped"
probe "$bin/changed"
exec_failed "$bin/changed" EPERM
check $? "... and the changed binary is refused with EPERM"

# --- a signed library as a program: only where unsigned code may run ---
probe "$ldso" "$bin/unsigned"
[ "$rc" = 0 ]
check $? "allow: the signed ld.so runs an unsigned program (exit $rc: $out)"
probe "$libc"
[ "$rc" = 0 ] && [[ "$out" == *"GNU C Library"* ]]
check $? "allow: the signed libc.so.6 runs as a program (exit $rc)"
out=$("$cli" run -r exec-unsigned -- "$bin/probe" "$ldso" "$bin/unsigned" 2>&1)
rc=$?
[ "$rc" = 111 ] && [[ "$out" == "exec $ldso: EPERM"* && "$out" == *"(verdict:library"* ]]
check $? "exec-unsigned: the signed ld.so is refused as a program, the record says why"

# --- unsigned = deny (builtins and signed binaries only from here to allow) ---
set_unsigned deny
check $? "a reload applies unsigned = deny"
probe "$bin/unsigned"
exec_failed "$bin/unsigned" EPERM
check $? "deny: an unsigned binary on tmpfs is refused with EPERM"
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "deny: a signed binary runs (exit $rc)"
out=$("$bin/unsigned" 2>&1)
rc=$?
[ "$rc" = 126 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "deny: the shell cannot run the unsigned binary either (exit $rc)"
# Run as a program, ld.so would map the unsigned program itself, and no exec checks it.
probe "$ldso" "$bin/unsigned"
exec_failed "$ldso" EPERM
check $? "deny: the signed ld.so running an unsigned program is refused with EPERM"
probe "$ldso" "$bin/signed"
exec_failed "$ldso" EPERM
check $? "deny: the signed ld.so is refused as a program whatever it is given"
probe "$libc"
exec_failed "$libc" EPERM
check $? "deny: the signed libc.so.6 is refused as a program"

# umbrellad killed under deny: the pinned mode holds, and its own binary starts again.
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
probe "$bin/unsigned"
exec_failed "$bin/unsigned" EPERM
check $? "deny, umbrellad killed: an unsigned binary is still refused"
probe "$bin/signed"
[ "$rc" = 0 ]
check $? "deny, umbrellad killed: the signed binary's cached verdict lets it run"
log=$tmp/d2.log
: >"$log"
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" --keyring "$ring" \
	--config "$conf" 2>"$log" &
daemon=$!
wait_count "$log" "programs attached, listening" 1
rc=$?
if [ "$rc" != 0 ]; then # check cannot show $out under deny (it runs tail and sed)
	kill -0 "$daemon" 2>/dev/null || { wait "$daemon"; echo "# umbrellad exited: $?"; }
	while IFS= read -r line; do echo "# log: $line"; done <"$log"
fi
check "$rc" "deny, umbrellad killed: umbrellad starts again from its own (trusted) binary"
probe "$bin/unsigned"
exec_failed "$bin/unsigned" EPERM
check $? "deny, umbrellad restarted: an unsigned binary is refused"

set_unsigned allow
check $? "a reload applies unsigned = allow again"
probe "$bin/unsigned"
[ "$rc" = 0 ]
check $? "allow again: the unsigned binary runs (exit $rc)"

# --- umbrellad down: the list still reads the pins ---
kill "$daemon"
wait "$daemon" 2>/dev/null
daemon=
out=$("$cli" --pin-dir "$pin" verdict list 2>&1)
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"unsigned yes"*"$bin/unsigned (no signature)"* ]]
check $? "verdict list works while umbrellad is down (exit $rc)"
out=$("$cli" verdict flush 2>&1)
rc=$?
[ "$rc" = 3 ] && [[ "$out" == *"cannot reach umbrellad"* ]]
check $? "verdict flush without umbrellad fails with exit 3"

tap_done
