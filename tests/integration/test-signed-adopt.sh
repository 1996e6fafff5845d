#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a restarted umbrellad gives a signed policy the layer an earlier one
# made (issue 14: the exec gate's policy cache, the pinned map umb_policies). Two copies
# of signed-cat are signed: one with its own short policy, one with a policy whose text
# is longer than a layer's description holds (UMB_DESC_TEXT_MAX), which a cache rebuilt
# from the descriptions could not find again. Each runs, umbrellad is stopped and
# started on the same pins, each runs again: the same layer id, no new layer of a signed
# binary, and the restriction still denies an actual open beside one it allows.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-adopt-test
export UMBRELLA_SOCKET=/run/umbrella-adopt-test/umbrellad.sock
tmp=$(mktemp -d)	# /tmp: tmpfs in the VM, where verdicts are cached
ring=$tmp/keys
bin=$tmp/bin
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$ring" "$bin" "$tmp/f"
export UMBRELLA_KEYRING=$ring

# probe PATH [FILE]...: exec PATH through exec-probe (unsigned) into $out, $rc.
probe() { out=$("$bin/exec-probe" "$@" 2>&1); rc=$?; }
# Whether $out has the line "FILE: WHAT" (signed-cat's report of an open).
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
# layer_of FILE: the layer of FILE's verdict in force (umbrella-cli verdict list), or none.
layer_of() {
	"$cli" -j --pin-dir "$pin" verdict list | python3 -c '
import json, sys
v = [str(r["layer"]) for r in json.load(sys.stdin) if r["path"] == sys.argv[1] and r["in_force"]]
print(v[-1] if v else "none")' "$1"
}
# signed_layers: the live layers of signed binaries, "ID:truncated" each, sorted.
signed_layers() {
	"$cli" -j --pin-dir "$pin" layer list | python3 -c '
import json, sys
print(" ".join(sorted("%d:%s" % (l["id"], str(l["truncated"]).lower())
		      for l in json.load(sys.stdin) if l["origin"] == "signed-binary")))'
}

cp "$build/tests/integration/signed-cat" "$bin/short"
cp "$build/tests/integration/signed-cat" "$bin/long"
cp "$build/tests/integration/exec-probe" "$bin/"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null

# The long policy: 30 files with long names, each an fs item (some 2900 bytes of text).
items=()
for i in $(seq -w 30); do
	f=$tmp/f/a-file-whose-name-is-long-enough-to-fill-the-description-$i
	: >"$f"
	items+=(-r "fs:$f")
done
deny=$tmp/f/a-file-whose-name-is-long-enough-to-fill-the-description-01
free=$tmp/f/free
: >"$free"

keyid=$("$cli" key generate adopt --dir "$tmp" 2>"$tmp/err") &&
	"$cli" key add "$tmp/adopt.pub" >/dev/null 2>>"$tmp/err" &&
	"$cli" binary sign --key "$tmp/adopt.key" "$bin/short" >/dev/null 2>>"$tmp/err" &&
	"$cli" binary sign --key "$tmp/adopt.key" "${items[@]}" "$bin/long" >/dev/null 2>>"$tmp/err"
rc=$?
out=$(cat "$tmp/err")
check $rc "a key in the ring ($keyid), two copies of signed-cat signed with it"

start_daemon "$tmp/d1.log" --pin-dir "$pin" --keyring "$ring"
rc=$?
out=$(cat "$tmp/d1.log")
check $rc "umbrellad starts"

probe "$bin/short" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "the short policy: /etc/passwd is denied, /etc/hostname opens"
short=$(layer_of "$bin/short")

probe "$bin/long" "$deny" "$free"
[ "$rc" = 0 ] && denied "$deny" && opened "$free" ok
check $? "the long policy: one of its 30 files is denied, another file opens"
long=$(layer_of "$bin/long")

before=$(signed_layers)
out="short $short, long $long; signed layers: $before"
[ "$short" != none ] && [ "$long" != none ] && [ "$short" != "$long" ] &&
	[[ " $before " == *" $short:false "* ]] && [[ " $before " == *" $long:true "* ]]
check $? "each has a layer of its own; the long one's description is truncated ($out)"

kill "$daemon"
wait "$daemon" 2>/dev/null
daemon=
start_daemon "$tmp/d2.log" --pin-dir "$pin" --keyring "$ring"
rc=$?
out=$(cat "$tmp/d2.log")
[ "$rc" = 0 ] && grep -q "adopted the pinned state in $pin" "$tmp/d2.log"
check $? "umbrellad stopped and started again: it adopts the pinned state"

# A new epoch: each binary is verified again, and its policy looked up.
probe "$bin/short" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "restarted: the short policy still denies /etc/passwd, /etc/hostname opens"
out="before $short, now $(layer_of "$bin/short")"
[ "$(layer_of "$bin/short")" = "$short" ]
check $? "restarted: the short policy's verdict names the same layer ($out)"

probe "$bin/long" "$deny" "$free"
[ "$rc" = 0 ] && denied "$deny" && opened "$free" ok
check $? "restarted: the long policy still denies its file, another file opens"
out="before $long, now $(layer_of "$bin/long")"
[ "$(layer_of "$bin/long")" = "$long" ]
check $? "restarted: the long policy's verdict names the same layer ($out)"

after=$(signed_layers)
out="before: $before; after: $after"
[ "$after" = "$before" ]
check $? "restarted: no new layer of a signed binary ($out)"

tap_done
