#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrella-cli's inspection commands (status, task, layer), end to end (TAP).
# They read the pinned maps, so each is checked with umbrellad up and again after a
# kill -9 of it; a command run under restrictions gives them a layer to find.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
pin=/sys/fs/bpf/umbrella-cli-test
export UMBRELLA_SOCKET=/run/umbrella-cli-test/umbrellad.sock
tmp=$(mktemp -d)
rc= daemon= runner=
cleanup() {
	[ -n "$runner" ] && pkill -P "$runner" sleep 2>/dev/null
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

cli() { out=$("$build/cli/umbrella-cli" --pin-dir "$pin" "$@" 2>"$tmp/err"); rc=$?; }
# The error of the last cli call: exactly one line starting "umbrella-cli: ".
one_line_error() {
	out=$(cat "$tmp/err")
	[ "$(wc -l <"$tmp/err")" = 1 ] && [[ "$out" == "umbrella-cli: "* ]]
}
json_ok() { printf '%s\n' "$out" | python3 -m json.tool >/dev/null; }
# Evaluates the Python expression $1 on the JSON output (as j); true when it holds.
json_is() { printf '%s\n' "$out" | python3 -c "import json, sys; j = json.load(sys.stdin); sys.exit(0 if ($1) else 1)"; }

# A key ring of its own: status must show umbrellad's, not the CLI's default.
mkdir "$tmp/ring"
start_daemon "$tmp/daemon.log" --pin-dir "$pin" --keyring "$tmp/ring"
rc=$?
out=$(cat "$tmp/daemon.log")
[ "$rc" = 0 ]
check $? "umbrellad starts and listens"

# The ABI version this tree builds (not a copy of it that a bump would leave behind).
abi=$(sed -n 's/^#define UMB_ABI_VERSION \([0-9]*\)$/\1/p' "$source_root/include/umbrella/bpf-abi.h")
cli status --verbose
[ "$rc" = 0 ] && [[ "$out" == *"umbrellad: running (pid $daemon)"* ]] &&
	[[ "$out" == *"programs: "*" attached"*"file_open"* ]] && [[ "$out" == *"ABI version $abi"* ]]
check $? "status --verbose with umbrellad up: running, programs and their hooks, exit 0 (exit $rc)"
cli status
[ "$rc" = 0 ] && [[ "$out" == *"programs: "[0-9]*" attached (status --verbose names their hooks)"* ]] &&
	[[ "$out" != *file_open* ]]
check $? "status without --verbose counts the programs, names no hook"

cli status --json
[ "$rc" = 0 ] && json_ok && json_is "j['umbrellad']['running'] and j['umbrellad']['pid'] == $daemon and j['programs']['attached'] > 10 and 'file_open' in j['programs']['hooks'] and j['abi_version'] == $abi"
check $? "status --json parses and says the same"

# What status says of the configuration: the mode, unsigned, the verdict epoch, the
# versions and the key ring (umbrellad's, whatever the CLI's --keyring says); the hooks
# wrapped to 80 columns.
cli --keyring "$tmp/not-umbrellads" status --verbose
[ "$rc" = 0 ] && [[ "$out" == *"mode: enforcing; unsigned = allow (unsigned programs run, except in tasks restricted with exec-unsigned)"*"verdict epoch "[0-9]* ]] &&
	[[ "$out" == *"umbrella-cli "*", ABI $abi)"* ]] && [[ "$out" == *"key ring: $tmp/ring: 0 keys"* ]] &&
	[ -z "$(printf '%s\n' "$out" | grep '^  ' | awk 'length > 80')" ] &&
	[ "$(printf '%s\n' "$out" | grep -c '^  ')" -gt 1 ]
check $? "status: mode, unsigned, epoch, versions, key ring; hooks on lines of 80 columns"
cli st -j --keyring "$tmp/not-umbrellads"
[ "$rc" = 0 ] && json_ok && json_is "j['mode'] == 'enforcing' and j['unsigned'] == 'allow' and j['verdict_epoch'] >= 0 and j['version'] and j['keyring']['dir'] == '$tmp/ring' and j['keyring']['of'] == 'umbrellad'"
check $? "'st -j' (status, abbreviated) gives the same in JSON"

# A user who may not read the pins is told what umbrellad's socket says, not "nothing
# pinned" (the pin directory is root's).
as_nobody() {
	out=$(setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$build/cli/umbrella-cli" --pin-dir "$pin" "$@" 2>&1)
	rc=$?
}
as_nobody status
[ "$rc" = 0 ] && [[ "$out" == *"umbrellad: running (its socket answers)"* ]] &&
	[[ "$out" == *"the details need root"* ]] && [[ "$out" != *"nothing pinned"* ]]
check $? "status as a user who cannot read the pins: umbrellad runs, exit 0 (exit $rc)"
as_nobody status --json
[ "$rc" = 0 ] && json_ok && json_is "j['umbrellad']['running'] and j['pinned'] is None"
check $? "... and --json says the same"
for cmd in "task list" "layer list" "layer show 1" metrics; do
	# shellcheck disable=SC2086 # the command's words
	as_nobody $cmd
	[ "$rc" != 0 ] && [[ "$out" == *"the details need root"* ]] &&
		[[ "$out" != *"nothing pinned"* ]]
	check $? "$cmd as that user: the details need root, not \"nothing pinned\" (exit $rc)"
done

"$build/cli/umbrella-cli" run -r fs:/etc -r net -- sleep 600 &
runner=$!
sleep_pid=
for _ in $(seq 100); do
	sleep_pid=$(pgrep -P "$runner" -x sleep) && [ -n "$sleep_pid" ] && break
	sleep 0.1
done
sleep 0.3 # the layer is pushed at sleep's exec
out="runner $runner, sleep $sleep_pid"
[ -n "$sleep_pid" ]
check $? "run -r fs:/etc -r net -- sleep 600 starts"

cli task show "$sleep_pid" --json
[ "$rc" = 0 ] && json_ok &&
	json_is "j['pid'] == $sleep_pid and j['restricted'] and len(j['layers']) == 1 and j['layers'][0]['restrictions'] == ['fs:/etc', 'net'] and j['layers'][0]['origin'] == 'rfork' and j['layers'][0]['creator']['pid'] == $runner and j['layers'][0]['creator']['comm'] == 'umbrella-cli'"
check $? "task show PID --json: its layer, fs:/etc and net, made by rfork from umbrella-cli"
layer=$(printf '%s\n' "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["layers"][0]["id"])' 2>/dev/null)

cli layer show "$layer"
[ "$rc" = 0 ] && [[ "$out" == *"layer $layer"* ]] && [[ "$out" == *"fs:/etc"* ]] &&
	[[ "$out" == *"net"* ]] && [[ "$out" == *"creator:"*"pid $runner (umbrella-cli)"* ]] &&
	[[ "$out" == *"exe:"*"umbrella-cli"* ]] && [[ "$out" == *"origin:"*"rfork"* ]]
check $? "layer show $layer prints fs:/etc, net and the creator"

cli -p layer show "$layer"
[ "$rc" = 0 ] && json_ok && json_is "j['id'] == $layer and j['described'] and j['created_ns'] > 0 and not j['truncated']"
check $? "layer show -p (pretty JSON) parses"

cli task list
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -Eq "^$sleep_pid +sleep +$layer\$"
check $? "task list shows the sleep with its layer"

cli -j task list
[ "$rc" = 0 ] && json_ok && json_is "any(t['pid'] == $sleep_pid and t['layers'] == [$layer] for t in j) and all(t['pid'] != $$ for t in j)"
check $? "task list --json parses, lists the sleep and not unrestricted processes"

cli layer list
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -Eq "^$layer +rfork +$runner \(umbrella-cli\) .* fs:/etc,net\$"
check $? "layer list shows the layer with its provenance"

cli layer list --json
[ "$rc" = 0 ] && json_ok && json_is "any(l['id'] == $layer for l in j)"
check $? "layer list --json parses"

# A task names itself: an escape sequence in its name reaches root's terminal escaped.
"$build/cli/umbrella-cli" run -r net -- \
	sh -c 'printf "\033[2Jevil" >/proc/$$/comm; while :; do sleep 1; done' &
evil_runner=$!
evil=
for _ in $(seq 100); do
	evil=$(pgrep -P "$evil_runner") && [[ "$(cat "/proc/$evil/comm")" == *evil ]] && break
	sleep 0.1
done
cli task list
[ "$rc" = 0 ] && [[ "$out" != *$'\033'* ]] && [[ "$out" == *'\x1b[2Jevil'* ]]
check $? "task list writes a name's escape sequence as \\x1b, not raw"
cli task show "$evil"
[ "$rc" = 0 ] && [[ "$out" != *$'\033'* ]] && [[ "$out" == *'(\x1b[2Jevil)'* ]]
check $? "task show writes it escaped too"
kill "$evil" 2>/dev/null
wait "$evil_runner" 2>/dev/null

cli task show $$
[ "$rc" = 0 ] && [[ "$out" == "pid $$ ("*"): unrestricted" ]]
check $? "task show of an unrestricted process says so (exit $rc)"

kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=

cli status
[ "$rc" = 3 ] &&
	[[ "$out" == *"umbrellad: not running (restrictions still enforced by the pinned programs"* ]] &&
	[[ "$out" == *"programs: "*" attached"* ]]
check $? "after kill -9: status says not running, still enforced, exit 3 (exit $rc)"

cli status -j
[ "$rc" = 3 ] && json_ok && json_is "not j['umbrellad']['running'] and j['programs']['attached'] > 10"
check $? "after kill -9: status --json parses (exit $rc)"

as_nobody status
[ "$rc" = 3 ] && [[ "$out" == *"umbrellad: not answering on its socket"* ]]
check $? "after kill -9, as a user who cannot read the pins: not answering, exit 3 (exit $rc)"

cli task show "$sleep_pid"
[ "$rc" = 0 ] && [[ "$out" == *"layer $layer"* ]] && [[ "$out" == *"fs:/etc"* ]]
check $? "after kill -9: task show still works"

cli task list
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -Eq "^$sleep_pid +sleep +$layer\$"
check $? "after kill -9: task list still works"

cli layer list
[ "$rc" = 0 ] && [[ "$out" == *"fs:/etc,net"* ]]
check $? "after kill -9: layer list still works"

cli task show 999999
[ "$rc" = 4 ] && one_line_error && [[ "$out" == *"task 999999: no such process"* ]]
check $? "task show of an unknown PID: one line, exit 4 (exit $rc)"

cli layer show 4000000000
[ "$rc" = 4 ] && one_line_error && [[ "$out" == *"layer 4000000000: no such layer"* ]]
check $? "layer show of an unknown layer: one line, exit 4 (exit $rc)"

cli frobnicate
[ "$rc" = 2 ] && one_line_error && [[ "$out" == *"frobnicate: unknown command"* ]]
check $? "an unknown command: one line, exit 2 (exit $rc)"

cli task frobnicate
[ "$rc" = 2 ] && one_line_error
check $? "an unknown task command: one line, exit 2 (exit $rc)"

cli layer show abc
[ "$rc" = 2 ] && one_line_error
check $? "a malformed layer id: one line, exit 2 (exit $rc)"

out=$("$build/cli/umbrella-cli" --pin-dir /sys/fs/bpf/nothing-here status 2>&1)
rc=$?
[ "$rc" = 3 ] && [[ "$out" == *"nothing pinned"* ]]
check $? "status with nothing pinned: exit 3 (exit $rc)"

out=$("$build/cli/umbrella-cli" --pin-dir /sys/fs/bpf/nothing-here task list 2>&1)
rc=$?
[ "$rc" = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ "$out" == *"nothing pinned"* ]]
check $? "task list with nothing pinned: one line, exit 1 (exit $rc)"

tap_done
