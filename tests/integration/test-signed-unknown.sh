#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): signing never makes a program less runnable than not signing it (issue
# 29, item 3). A binary signed by a key the ring does not know runs, under "unsigned =
# allow", as an unsigned file does, with the restrictions it carries; it gets nothing
# an unsigned file would not. Every check runs the binary and asserts what the exec or
# an open in it did, with a control beside it:
#   - allow: signed-cat signed by an unknown key runs and cannot open /etc/passwd (its
#     embedded fs:/etc/passwd; an unsigned copy can); umbrellad logs it, verdict list
#     and binary verify say "unknown signer", its layer is not a vendor's;
#   - its layer counts as a user's choice: under it a user's set-user-ID exec is refused
#     (a known signer's layer: the exec runs);
#   - changed after the exec, its verdict is no longer in force; it runs again with its
#     restriction; a known key's binary with a byte flipped stays refused;
#   - exec-unsigned, and "unsigned = deny" (a reload): it is refused (126), a known
#     signer's binary runs;
#   - a file owner's ninth policy of unknown signers is refused (such layers are held
#     for good: at most 8 per owner), root's tenth runs;
#   - key add of its key: at the next exec it is signed, with a layer of its own.
# Under deny nothing unsigned runs: that part uses shell builtins and signed copies, and
# always ends with "unsigned = allow" again.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
# $tmp: tmpfs in the VM, where verdicts are cached
vm_test /run/umbrella-signed-unknown/umbrellad.sock /sys/fs/bpf/umbrella-signed-unknown
ring=$tmp/keys bin=$tmp/bin conf=$tmp/umbrella.conf log=$tmp/d1.log
mkdir -p "$ring" "$bin"
chmod 755 "$tmp" "$bin" # a user runs some of them
export UMBRELLA_KEYRING=$ring
. "$source_root/tests/helpers/builtins.sh"
builtins_init "$tmp"
cleanup_first() {
	# Never leave deny in force: nothing unsigned would run any more in this VM.
	[ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null && set_unsigned allow
}
trap vm_cleanup EXIT

# probe PATH [ARG]...: exec PATH through the unsigned exec-probe; $out, $rc. A refused
# exec prints "exec PATH: ENAME" and exits 111.
probe() { out=$("$bin/exec-probe" "$@" 2>&1); rc=$?; }
exec_failed() { [ "$rc" = 111 ] && [[ "$out" == *"exec $1: $2"* ]]; }
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
as_user() { out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$@" 2>&1); rc=$?; }
# flip_in FILE SECTION AT: invert the byte AT of SECTION in place (a write).
flip_in() {
	local s b
	s=($(readelf -S -W "$1" | awk -v name="$2" '{
		for (i = 1; i < NF; i++) if ($i == name) { print $(i + 3); exit }
	}'))
	[ ${#s[@]} = 1 ] || return 1
	s=$((16#${s[0]} + $3))
	b=$(od -An -tu1 -j "$s" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0xff)))" | dd of="$1" bs=1 seek="$s" count=1 conv=notrunc status=none
}
# verdict PATH: "STATE in_force=X unknown_signer=Y layer=N" from verdict list --json.
verdict() {
	"$cli" --pin-dir "$pin" -j verdict list | python3 -c '
import json, sys
for v in json.load(sys.stdin):
    if v["path"] == sys.argv[1]:
        print(v["state"], "in_force=%s" % v["in_force"],
              "unknown_signer=%s" % v["unknown_signer"], "layer=%d" % v["layer"])' "$1"
}

# --- set-up: one key in the ring, one outside it; the binaries on tmpfs ---
cp "$build/tests/integration/signed-cat" "$bin/unknown"
cp "$build/tests/integration/signed-cat" "$bin/plain"
cp "$build/tests/integration/signed-cat" "$bin/known"
cp "$build/tests/integration/signed-cat" "$bin/tampered"
cp "$build/tests/integration/exec-probe" "$bin/exec-probe"
cp "$build/tests/integration/exec-probe" "$bin/probe-known"
cp "$build/tests/integration/exec-probe" "$bin/probe-unknown"
install -m 4755 -o root /usr/bin/id "$bin/id-suid"
out=$({ "$cli" key generate vendor --dir "$tmp" && "$cli" key add "$tmp/vendor.pub" &&
	"$cli" key generate stranger --dir "$tmp" &&
	"$cli" binary sign --key "$tmp/vendor.key" "$bin/known" &&
	"$cli" binary sign --key "$tmp/vendor.key" "$bin/tampered" &&
	"$cli" binary sign --key "$tmp/vendor.key" -r ptrace "$bin/probe-known" &&
	"$cli" binary sign --key "$tmp/stranger.key" "$bin/unknown" &&
	"$cli" binary sign --key "$tmp/stranger.key" -r ptrace "$bin/probe-unknown"; } 2>&1)
rc=$?
out+=$(flip_in "$bin/tampered" .text 100 2>&1)
[ "$rc" = 0 ] && [ $? = 0 ]
check $? "a key in the ring, one outside it; copies signed by each on tmpfs, one flipped"
chmod 755 "$bin"/*
chmod 4755 "$bin/id-suid"
printf 'unsigned = allow\n' >"$conf"
check_start "$log" "umbrellad starts (unsigned = allow)" --pin-dir "$pin" --keyring "$ring" \
	--config "$conf"

# --- unsigned = allow: it runs, with its restriction ---
probe "$bin/plain" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && opened /etc/passwd ok && opened /etc/hostname ok
check $? "control: the unsigned copy runs and opens /etc/passwd"
probe "$bin/unknown" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "signed by an unknown key: runs, and cannot open /etc/passwd (its embedded restriction)"
probe "$bin/unknown" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "... the second exec (the cached verdict) has the restriction too"
out=$(verdict "$bin/unknown")
[[ "$out" == "unsigned in_force=True unknown_signer=True layer="[1-9]* ]]
check $? "verdict list --json: unsigned, in force, unknown signer, with a layer ($out)"
unknown_layer=${out##*layer=}
out=$("$cli" --pin-dir "$pin" verdict list 2>&1)
[[ "$out" == *"$bin/unknown (unknown signer: run as unsigned with its restrictions)"* ]]
check $? "verdict list names the file: unknown signer, run as unsigned with its restrictions"
out=$("$cli" --pin-dir "$pin" layer show "$unknown_layer" 2>&1)
[[ "$out" == *"origin:       unknown-signer"* && "$out" == *"$bin/unknown"* ]]
check $? "layer show: its layer's origin is unknown-signer, not a vendor's"
grep -q "exec gate: $bin/unknown is signed by key .*, which the key ring does not know: it counts as an unsigned file, with its restrictions" "$log"
rc=$?
out=$(tail -n 5 "$log")
[ "$rc" = 0 ]
check $? "umbrellad logs the file and that its signer is unknown"
out=$("$cli" binary verify "$bin/unknown" 2>&1)
rc=$?
[ "$rc" = 5 ] && [[ "$out" == *"which the key ring does not know: unknown signer"*"runs as unsigned with its restrictions"* ]]
check $? "binary verify agrees: exit 5, unknown signer, runs as unsigned (exit $rc)"

# --- it gets nothing a user's own layer would not: the scope holds ---
as_user "$bin/probe-known" "$bin/id-suid" -u
[ "$rc" = 0 ] && [ "$out" = 0 ]
check $? "control: under a known signer's layer a user's set-user-ID exec runs (euid '$out')"
as_user "$bin/probe-unknown" "$bin/id-suid" -u
exec_failed "$bin/id-suid" EPERM
check $? "under an unknown signer's layer it is refused, as under a user's own (exit $rc)"

# --- changed, it is verified again; a known key's broken signature stays refused ---
flip_in "$bin/unknown" .text 100
out=$(verdict "$bin/unknown")
[[ "$out" != *"in_force=True"* ]]
check $? "a byte of its code changed: the verdict is no longer in force ($out)"
probe "$bin/unknown" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "... verified again at its next exec: runs with its restriction"
flip_in "$bin/unknown" .text 100 # back: the copy key add finds below
probe "$bin/tampered" /etc/hostname
exec_failed "$bin/tampered" EPERM
check $? "a known key's binary with a byte flipped is refused (EPERM)"
probe "$bin/known" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "control: the same binary intact runs, signed, with its restriction"

# --- exec-unsigned: refused ---
out=$("$cli" run -r exec-unsigned -- "$bin/probe-known" "$bin/unknown" /etc/hostname 2>&1)
rc=$?
exec_failed "$bin/unknown" EPERM
check $? "a task with exec-unsigned cannot exec it (EPERM)"
out=$("$cli" run -r exec-unsigned -- "$bin/probe-known" "$bin/known" /etc/hostname 2>&1)
rc=$?
[ "$rc" = 0 ] && opened /etc/hostname ok
check $? "control: ... while it runs the known signer's binary"

# --- few such layers per owner: any user can make one per policy, held for good ---
out=$({ for i in 1 2 3 4 5 6 7 8 9 10; do
	: >"$tmp/p$i" && cp "$bin/plain" "$bin/u$i" &&
		"$cli" binary sign --key "$tmp/stranger.key" -r "fs:$tmp/p$i" "$bin/u$i" || exit 1
done; } 2>&1)
rc=$?
chown 65534 "$bin"/u[1-9] && chmod 755 "$bin"/u*
[ "$rc" = 0 ]
check $? "ten copies signed by the unknown key, each with a policy of its own; nine a user's"
rc_all=0
for i in 1 2 3 4 5 6 7 8; do
	probe "$bin/u$i" "$tmp/p$i" /etc/hostname
	{ [ "$rc" = 0 ] && denied "$tmp/p$i" && opened /etc/hostname ok; } || rc_all=1
done
[ "$rc_all" = 0 ]
check $? "a user's eight such programs run, each with its restriction ($out)"
probe "$bin/u9" "$tmp/p9" /etc/hostname
exec_failed "$bin/u9" EPERM && grep -q "this owner's policies of keys the key ring does not know are in force (8" "$log"
check $? "the user's ninth policy is refused, the log says why (exit $rc)"
probe "$bin/u10" "$tmp/p10" /etc/hostname
[ "$rc" = 0 ] && denied "$tmp/p10" && opened /etc/hostname ok
check $? "control: root's copy with a policy of its own runs with its restriction"
probe "$bin/u1" "$tmp/p1" /etc/hostname
[ "$rc" = 0 ] && denied "$tmp/p1"
check $? "control: the user's first program still runs with its restriction"

# --- unsigned = deny: refused (builtins and signed files only until allow again) ---
set_unsigned deny
check $? "unsigned = deny (a reload)"
"$bin/unknown" /etc/hostname >"$tmp/deny.out" 2>&1
rc_unknown=$?
"$bin/known" /etc/hostname >"$tmp/deny-known.out" 2>&1
rc_known=$?
set_unsigned allow
rc=$?
out="unknown: exit $rc_unknown; known: exit $rc_known; $(cat "$tmp/deny.out")"
[ "$rc_unknown" = 126 ]
check $? "deny: the unknown signer's binary is refused (exit 126)"
out="$out; $(cat "$tmp/deny-known.out")"
[ "$rc_known" = 0 ] && grep -qxF "/etc/hostname: ok" "$tmp/deny-known.out"
check $? "control: deny: the known signer's binary runs"
[ "$rc" = 0 ]
check $? "unsigned = allow again"

# --- its key added: at the next exec it is signed ---
count "$log" "key ring $ring loaded"
loads=$((count + 1))
out=$("$cli" key add "$tmp/stranger.pub" 2>&1)
check $? "key add of the unknown key"
for _ in {1..100}; do
	probe "$bin/unknown" /etc/passwd /etc/hostname
	state=$(verdict "$bin/unknown")
	[[ "$state" == "signed in_force=True"* ]] && break
	nap
done
out+=$'\n'"$state"
[ "$rc" = 0 ] && denied /etc/passwd && [[ "$state" == "signed in_force=True unknown_signer=False layer="[1-9]* ]] &&
	wait_count "$log" "key ring $ring loaded" "$loads"
check $? "at its next exec it runs as signed, with its restriction ($state)"
[ "${state##*layer=}" != "$unknown_layer" ]
check $? "... with a vendor's layer, not the one made for the unknown signer (${state##*layer=}, $unknown_layer)"

tap_done
