#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrellad's pinned state outlives it (TAP). A restricted process keeps trying
# to read /etc/hostname the whole time, one line per try in a log: across a kill -9 of
# umbrellad, the time without it, a restart that adopts the pinned state, a normal stop
# and a start refused for a foreign ABI version, every try must be denied. Then
# --reset-pins lifts it all.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-test
export UMBRELLA_SOCKET=/run/umbrella-pin-test/umbrellad.sock
tmp=$(mktemp -d)
daemon= loop=
cleanup() {
	[ -n "$loop" ] && kill "$loop" 2>/dev/null
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Layer ids the daemon whose log is $1 handed out, one a line.
layer_ids() { sed -n 's/.*: layer \([0-9]*\) armed.*/\1/p' "$1"; }
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null

start_daemon "$tmp/d1.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d1.log")
[ "$rc" = 0 ] && grep -q "pinned new state in $pin" "$tmp/d1.log" && [ -e "$pin/umb_meta" ] &&
	[ -e "$pin/umb_layers" ] && [ -n "$(ls "$pin/links")" ]
check $? "umbrellad --pin-dir pins its maps and program links in $pin"

# The restricted process: one line per try to read /etc/hostname.
start_loop
all_denied_since 1
check $? "a process started with run -r fs:/etc is denied /etc/hostname"

"$cli" run -r fs:/tmp -- true
"$cli" run -r fs:/tmp -- true
first_ids=$(layer_ids "$tmp/d1.log")
out=$first_ids
[ "$(printf '%s\n' "$first_ids" | wc -l)" = 3 ]
check $? "the first umbrellad handed out three layers"

out=$(timeout 60 "$umbrellad" --socket "$tmp/second.sock" --pin-dir "$pin" 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ "$out" == *"another umbrellad is using it"* ]]
check $? "a second umbrellad on the same pin directory is refused (exit $rc)"

since=$(($(loop_lines) + 1))
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
all_denied_since "$since"
check $? "after kill -9 of umbrellad the process is still denied"

out=$("$cli" run -r fs:/etc -- true 2>&1)
rc=$?
[ "$rc" != 0 ] && [[ "$out" == *"cannot reach umbrellad"* ]]
check $? "without umbrellad, a new run fails closed (exit $rc)"

start_daemon "$tmp/d3.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d3.log")
[ "$rc" = 0 ] && grep -q "adopted the pinned state in $pin" "$tmp/d3.log" &&
	grep -qE 'kept [1-9][0-9]* and replaced 0 program links' "$tmp/d3.log"
check $? "a restarted umbrellad adopts the pinned state and keeps the links of the same programs"

out=$(ctl_daemon_tgid 2>&1)
[ "$out" = "$daemon" ]
check $? "umb_ctl.daemon_tgid is the new umbrellad's pid ($daemon)"

since=$(($(loop_lines) + 1))
all_denied_since "$since"
check $? "the restriction made before the restart still holds"

out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
[[ "$out" == *"Permission denied"* ]]
check $? "a new run -r fs:/etc is denied through the adopted maps"
out=$("$cli" run -r fs:/tmp -- cat /etc/hostname 2>&1)
[ "$out" = "$(cat /etc/hostname)" ]
check $? "a new run -r fs:/tmp still reads /etc/hostname"

second_ids=$(layer_ids "$tmp/d3.log")
max_first=$(printf '%s\n' "$first_ids" | sort -n | tail -n1)
min_second=$(printf '%s\n' "$second_ids" | sort -n | head -n1)
out="first: $(echo $first_ids) second: $(echo $second_ids)"
[ -n "$min_second" ] && [ "$min_second" -gt "$max_first" ]
check $? "the restarted umbrellad hands out new ids, never those of freed layers ($out)"

since=$(($(loop_lines) + 1))
kill "$daemon"
wait "$daemon"
rc=$?
daemon=
out=$(tail -n 3 "$tmp/d3.log")
[ "$rc" = 0 ] && grep -q "stay attached through the links pinned in $pin" "$tmp/d3.log" &&
	all_denied_since "$since"
check $? "after a normal stop the restriction still holds"
out=$(ctl_daemon_tgid 2>&1)
[ "$out" = 0 ]
check $? "a stopped umbrellad leaves umb_ctl.daemon_tgid at 0"

# An umbrellad upgraded over the links of an older one, whose programs had other names
# (umb_exec_check, umb_task_alloc_fork and umb_task_exit became umb_bprm_creds_for_exec,
# umb_task_alloc and umb_sched_process_exit): the links of our programs, renamed to
# those names, stand for them. The new umbrellad attaches its programs first, then
# removes the links it does not know: every hook stays attached, and ends with one
# program of ours.
mv "$pin/links/umb_bprm_creds_for_exec" "$pin/links/umb_exec_check" &&
	mv "$pin/links/umb_task_alloc" "$pin/links/umb_task_alloc_fork" &&
	mv "$pin/links/umb_sched_process_exit" "$pin/links/umb_task_exit"
check $? "the links renamed to the old programs' names"
since=$(($(loop_lines) + 1))
start_daemon "$tmp/d3b.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d3b.log")
[ "$rc" = 0 ] && grep -q "removed the stale link 'umb_exec_check'" "$tmp/d3b.log" &&
	grep -q "removed the stale link 'umb_task_alloc_fork'" "$tmp/d3b.log" &&
	grep -q "removed the stale link 'umb_task_exit'" "$tmp/d3b.log"
check $? "an upgraded umbrellad removes the links of programs it does not know"
out=$(ls "$pin/links")
[ -e "$pin/links/umb_bprm_creds_for_exec" ] && [ -e "$pin/links/umb_task_alloc" ] &&
	[ -e "$pin/links/umb_sched_process_exit" ] && [ ! -e "$pin/links/umb_exec_check" ] &&
	[ ! -e "$pin/links/umb_task_alloc_fork" ] && [ ! -e "$pin/links/umb_task_exit" ]
check $? "... and pins its own programs' links under their names"
hooks=$("$cli" -j --pin-dir "$pin" status | python3 -c '
import json, sys
print(" ".join(json.load(sys.stdin)["programs"]["hooks"]))')
out="hooks: $hooks"
once=0
for hook in bprm_creds_for_exec task_alloc sched_process_exit; do
	[ "$(tr ' ' '\n' <<<"$hooks" | grep -cx "$hook")" = 1 ] && once=$((once + 1))
done
[ "$once" = 3 ] && ! tr ' ' '\n' <<<"$hooks" | grep -qx 'exec_check\|task_alloc_fork\|task_exit'
check $? "status lists each of those hooks once, and none of the old names"
all_denied_since "$since"
check $? "the restriction held all along"
out=$("$cli" run -r exec -- sh -c 'exec cat /etc/hostname' 2>&1)
rc=$?
out2=$("$cli" run -r fork -- sh -c 'cat /etc/hostname >/dev/null && echo forked' 2>&1)
out3=$("$cli" run -r fs:/tmp -- sh -c 'cat /etc/hostname >/dev/null && echo forked' 2>&1)
out="$out / $out2 / $out3"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* || "$out" == *"not permitted"* ]] &&
	[[ "$out2" != *forked* ]] && [[ "$out3" == *forked* ]]
check $? "the new programs enforce exec and fork (a layer without them forks)"
since=$(($(loop_lines) + 1))
kill "$daemon"
wait "$daemon"
daemon=

# An older daemon's state: fake ABI version 1 in umb_meta.
# The rest of the value as it is (its size is the ABI's).
meta_rest=$(bpftool -j map lookup pinned "$pin/umb_meta" key 0 0 0 0 |
	python3 -c 'import json,sys; print(" ".join(str(int(b,16)) for b in json.load(sys.stdin)["value"][4:]))')
bpftool map update pinned "$pin/umb_meta" key 0 0 0 0 value 1 0 0 0 $meta_rest
since=$(($(loop_lines) + 1))
start_daemon "$tmp/d4.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d4.log")
[ "$rc" != 0 ] && grep -q "'$pin' holds BPF state pinned by an umbrellad of ABI version 1; this umbrellad has ABI version [0-9]*: refusing to mix them" "$tmp/d4.log" &&
	grep -q "umbrellad --reset-pins --pin-dir $pin" "$tmp/d4.log"
check $? "pinned state of another ABI version is refused, naming the directory, both versions and the way out"
daemon=
all_denied_since "$since"
check $? "the old programs keep enforcing after the refusal"

out=$("$umbrellad" --reset-pins --pin-dir "$pin" 2>&1)
[ $? = 0 ] && [ ! -e "$pin" ]
check $? "umbrellad --reset-pins removes the pin directory"
# The last reference to a link may be put from a deferred work item: allow a moment.
for _ in $(seq 100); do
	tail -n 1 "$tmp/loop.log" | grep -q '^allowed$' && break
	sleep 0.1
done
since=$(($(loop_lines) + 1))
sleep 1
out=$(tail -n +"$since" "$tmp/loop.log")
[ -n "$out" ] && ! printf '%s\n' "$out" | grep -qv '^allowed$'
check $? "with the pins removed the programs are detached and the process reads /etc/hostname"

tap_done
