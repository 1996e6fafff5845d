#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): umbrellad.service logs each
# denial to the journal once, with its MESSAGE_ID and UMBRELLA_* fields
# (include/umbrella/journal.h); umbrella-cli events shows them, --json and --follow too;
# a burst of denials is cut to the rate limit's BURST entries plus one entry that counts
# the rest; a stray file in the key ring does not keep the unit from starting, and is
# logged at priority error (the prefix umbrellad writes to the journal's stream) and
# named in the unit's status (TAP).
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-journal
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40 # on a failure, 40 lines of $out (journal excerpts)
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
follow= follow_json=
id_of() { sed -n "s/^#define $1[[:space:]]*\"\([0-9a-f]\{32\}\)\".*$/\1/p" "$journal_h"; }

cleanup() {
	[ -n "$follow" ] && kill "$follow" 2>/dev/null
	[ -n "$follow_json" ] && kill "$follow_json" 2>/dev/null
	systemctl stop umbrellad.service 2>/dev/null
	wait 2>/dev/null
	rm -rf "$unit.d" /etc/umbrella/keys
	systemctl daemon-reload
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Where the journal ends now: the last entry's monotonic timestamp. Not a cursor:
# journalctl --after-cursor with matches skips the first matching entry when the cursor's
# own entry does not match (systemd 252).
cursor() { journalctl -q -n 1 -o json | jq -r .__MONOTONIC_TIMESTAMP; }
after() { jq -c --arg t "$1" 'select((.__MONOTONIC_TIMESTAMP | tonumber) > ($t | tonumber))'; }
# The entries of MESSAGE_ID $2 (and matches $3...) logged after $1, one JSON object a line.
# --sync first: what umbrellad sent is all written (journald lags on a busy TCG VM).
entries() {
	journalctl --sync 2>/dev/null
	journalctl -q --no-pager -b -o json "MESSAGE_ID=$2" "${@:3}" | after "$1"
}
# The messages of umbrellad.service after $1, whatever their kind.
unit_messages() {
	journalctl --sync 2>/dev/null
	journalctl -q --no-pager -b -u umbrellad.service -o json | after "$1" | jq -r .MESSAGE
}
# Makes one denial of /etc/hostname by a cat whose pid it prints.
deny_cat() {
	"$cli" run -r fs:/etc -- sh -c 'echo $$ >"$1"; exec cat /etc/hostname' sh "$tmp/pid" \
		>/dev/null 2>&1
	cat "$tmp/pid"
}
# Waits until $1 (a command) prints something, for at most 15 s.
wait_for() {
	local end=$((SECONDS + 15))
	while [ "$SECONDS" -lt "$end" ]; do
		out=$("$@")
		[ -n "$out" ] && return 0
		sleep 0.2
	done
	return 1
}

# The ids, from the header both umbrellad and umbrella-cli take them from.
journal_h=$(jq -r .directories.source "$build/meson-info/meson-info.json")/include/umbrella/journal.h
denied=$(id_of UMB_MESSAGE_DENIED)
suppressed=$(id_of UMB_MESSAGE_SUPPRESSED)
dropped=$(id_of UMB_MESSAGE_DROPPED)
[ -n "$denied" ] && [ -n "$suppressed" ] && [ -n "$dropped" ] || { echo "not ok 1 - no MESSAGE_IDs in $journal_h"; exit 1; }

unit_setup
mkdir -p /etc/umbrella/keys
echo "the vendor's key is in vendor.pub" >/etc/umbrella/keys/notes.txt
timeout 300 systemctl start umbrellad.service
wait_active
check $? "umbrellad.service is active, with a stray file in its key ring"
out=$(prop StatusText)
[[ "$out" == *"(key ring: 1 file rejected, not trusted: see the journal)" ]]
check $? "the unit's status names the rejected file: $out"
journalctl --sync 2>/dev/null
out=$(journalctl -q --no-pager -b -u umbrellad.service -o json |
	jq -r 'select(.MESSAGE | startswith("umbrellad: key ring: /etc/umbrella/keys/notes.txt: ")) | .PRIORITY')
[ "$out" = 3 ]
check $? "the journal has the rejected file at priority 3, error, its prefix taken as the priority ($out)"

start=$(cursor)
pid=$(deny_cat)
wait_for entries "$start" "$denied" "UMBRELLA_PID=$pid" "UMBRELLA_OBJECT=/etc/hostname"
entry=$out
out=$(printf '%s\n' "$entry" | jq -c '{PRIORITY, UMBRELLA_PID, UMBRELLA_TID, UMBRELLA_COMM,
	UMBRELLA_HOOK, UMBRELLA_RESTRICTION, UMBRELLA_LAYER, UMBRELLA_OBJECT, UMBRELLA_INODE,
	_SYSTEMD_UNIT, MESSAGE}')
printf '%s\n' "$entry" | jq -e --arg pid "$pid" '.PRIORITY == "5" and .UMBRELLA_PID == $pid and
	.UMBRELLA_TID == $pid and .UMBRELLA_COMM == "cat" and .UMBRELLA_HOOK == "file_open" and
	.UMBRELLA_RESTRICTION == "fs:r" and (.UMBRELLA_LAYER | test("^[1-9][0-9]*$")) and
	.UMBRELLA_OBJECT == "/etc/hostname" and (.UMBRELLA_INODE | test("^[0-9]+:[0-9]+/[0-9]+$")) and
	._SYSTEMD_UNIT == "umbrellad.service"' >/dev/null
check $? "cat's denial of /etc/hostname is in the journal with MESSAGE_ID=$denied and its fields"
[ "$(printf '%s\n' "$entry" | wc -l)" = 1 ]
check $? "... once"
# Under systemd stderr is the journal: the stderr line would be a second entry.
out=$(unit_messages "$start" | grep "pid=$pid ")
[ "$(printf '%s\n' "$out" | grep -c 'denied:')" = "$(entries "$start" "$denied" "UMBRELLA_PID=$pid" | wc -l)" ]
check $? "umbrellad does not also log the denial on stderr"

out=$("$cli" events 2>&1)
printf '%s\n' "$out" | grep -qE "^[0-9-]+ [0-9:]+ pid=$pid comm=cat hook=file_open restriction=fs:r layer=[0-9]+ object=/etc/hostname$"
check $? "umbrella-cli events shows it"
[ "$(printf '%s\n' "$out" | tail -n 1 | grep -o "pid=[0-9]*")" = "pid=$pid" ]
check $? "... newest last"
out=$("$cli" events -n 1 2>&1)
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ "$out" == *"pid=$pid "* ]]
check $? "umbrella-cli events -n 1 shows only the last one"
out=$("$cli" events --json 2>&1)
printf '%s\n' "$out" | jq -e --argjson pid "$pid" 'type == "array" and
	(map(select(.type == "denial" and .pid == $pid and .tid == $pid and .comm == "cat" and
		.hook == "file_open" and .restriction == "fs:r" and (.layer | type) == "number" and
		.object == "/etc/hostname" and .permissive == false and (.time | test("Z$"))))
	 | length) == 1' >/dev/null
check $? "umbrella-cli events --json shows it in a JSON array"

other=$(deny_cat)
wait_for entries "$start" "$denied" "UMBRELLA_PID=$other"
out=$("$cli" events --pid "$pid" 2>&1; echo "--"; "$cli" events --pid "$other" 2>&1)
[[ "$out" == *"pid=$pid "*"--"* ]] && [[ "$out" != *"pid=$other "*"--"* ]] &&
	[[ "$out" == *"--"*"pid=$other "* ]] && [[ "$out" != *"--"*"pid=$pid "* ]]
check $? "umbrella-cli events --pid shows that process's denials, not another's"
layer=$(printf '%s\n' "$out" | sed -n "s/.*pid=$other .*layer=\([0-9]*\) .*/\1/p" | head -n 1)
out=$("$cli" events --layer "$layer" 2>&1)
[ -n "$layer" ] && [[ "$out" == *"pid=$other "* ]] && [[ "$out" != *"pid=$pid "* ]]
check $? "umbrella-cli events --layer shows that layer's denials only (layer $layer)"
out=$("$cli" events --since -1h 2>&1; echo "--"; "$cli" events --since "@$(($(date +%s) + 60))" 2>&1)
[[ "$out" == *"pid=$other "*"--" ]]
check $? "umbrella-cli events --since shows the denials since then, none from the future"

# Each record names the hook that denied it, and a socket's the family: an actual
# denied call, then the same kind of call that the layer allows. calls.py CALL [ARG]
# prints its pid, then "denied" or "allowed" for each of the two.
cat >"$tmp/calls.py" <<'PY'
import fcntl, os, socket, sys
print(os.getpid(), flush=True)
def attempt(f):
    try:
        f()
        print("allowed")
    except OSError:
        print("denied")
fd = os.open("/dev/null", os.O_RDONLY)
calls = {
    "unlink": (lambda: os.unlink(sys.argv[2] + "/ro/file"),
               lambda: os.unlink(sys.argv[2] + "/rw")),
    "fcntl": (lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, 1),
              lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())),
    "setgid": (lambda: os.setgid(4242), lambda: os.setgid(os.getgid())),
    "inet6": (lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close(),
              lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close()),
}
for f in calls[sys.argv[1]]:
    attempt(f)
PY
mkdir -p "$tmp/ro"
touch "$tmp/ro/file" "$tmp/rw"
# real_hook RESTRICTION CALL HOOK OBJECT: CALL under RESTRICTION is denied, its allowed
# twin not, and umbrella-cli events --json names HOOK and OBJECT.
real_hook() {
	local res pid
	res=$("$cli" run -r "$1" -- python3 "$tmp/calls.py" "$2" "$tmp" 2>/dev/null)
	pid=$(head -n 1 <<<"$res")
	[ "$(tail -n +2 <<<"$res" | tr '\n' ' ')" = "denied allowed " ] || { out=$res; return 1; }
	wait_for entries "$start" "$denied" "UMBRELLA_PID=$pid" || return 1
	out=$("$cli" events --json --pid "$pid" 2>&1)
	printf '%s\n' "$out" | jq -e --arg hook "$3" --arg object "$4" --arg res "${1%%:*}" \
		'map(select(.type == "denial" and .hook == $hook and .object == $object and
			(.restriction | startswith($res)))) | length == 1' >/dev/null
}
real_hook "fs:$tmp/ro:w" unlink path_unlink "$tmp/ro/file" && [ -e "$tmp/ro/file" ]
check $? "umbrella-cli events: a denied unlink is path_unlink's, with the whole path"
real_hook signal fcntl file_fcntl -
check $? "umbrella-cli events: a denied fcntl(F_SETOWN) is file_fcntl's"
real_hook setid setgid task_fix_setgid -
check $? "umbrella-cli events: a denied setgid(2) is task_fix_setgid's"
real_hook net inet6 socket_create "socket inet6"
check $? "umbrella-cli events: a denied socket names its family (socket inet6)"

"$cli" events --follow -n 0 >"$tmp/follow.log" 2>&1 &
follow=$!
"$cli" events --json --follow -n 0 >"$tmp/follow.json" 2>&1 &
follow_json=$!
sleep 2
pid=$(deny_cat)
wait_for grep "pid=$pid comm=cat .*object=/etc/hostname" "$tmp/follow.log"
check $? "umbrella-cli events --follow shows a denial made after it started"
out=$(cat "$tmp/follow.log")
! grep -v "pid=$pid " "$tmp/follow.log"
check $? "... and with -n 0 no older one"
wait_for jq -c --argjson pid "$pid" 'select(.pid == $pid and .object == "/etc/hostname")' "$tmp/follow.json"
check $? "umbrella-cli events --json --follow prints it as a JSON line"
kill "$follow" "$follow_json"
wait "$follow" "$follow_json" 2>/dev/null
follow= follow_json=

# How many denials one run of the burst's shell makes besides its loop (ld.so.cache...).
burst_run() { # N: sh opening /etc/hostname N times, its pid in $tmp/pid
	"$cli" run -r fs:/etc -- sh -c 'echo $$ >"$1"; i=0
		while [ $i -lt "$2" ]; do true </etc/hostname; i=$((i + 1)); done' sh "$tmp/pid" "$1" \
		>/dev/null 2>&1
	cat "$tmp/pid"
}
start=$(cursor)
pid=$(burst_run 3)
sleep 2
wait_for entries "$start" "$denied" "UMBRELLA_PID=$pid"
extra=$(($(printf '%s\n' "$out" | wc -l) - 3))
out="$extra"
[ "$extra" -ge 0 ]
check $? "a shell opening /etc/hostname 3 times: 3 denials (+$extra of its start)"

# The rate limit, small for the test: BURST 50 per 20 s.
burst=50
mkdir -p "$unit.d"
printf '[Service]\nExecStart=\nExecStart=/usr/local/sbin/umbrellad --log-rate-limit %s/20\n' \
	"$burst" >"$unit.d/rate.conf"
systemctl daemon-reload
systemctl restart umbrellad.service
wait_active
start=$(cursor)
t0=$SECONDS
pid=$(burst_run 1000)
took=$((SECONDS - t0))
# The count comes once the interval (20 s from the first denial) ends, at the next tick.
end=$((SECONDS + 120))
while [ "$SECONDS" -lt "$end" ] && [ -z "$(entries "$start" "$suppressed")" ]; do
	sleep 1
done
waited=$((SECONDS - t0))
logged=$(entries "$start" "$denied" | wc -l)
counts=$(entries "$start" "$suppressed" | jq -r .UMBRELLA_SUPPRESSED)
lost=$(entries "$start" "$dropped" | jq -r .UMBRELLA_DROPPED | paste -sd+ | sed 's/^$/0/' | bc)
out="denials made: $((1000 + extra)), logged: $logged, suppressed: $(echo $counts), dropped: $lost; the burst took ${took}s, the count came after ${waited}s"
[ "$logged" = "$burst" ] && [ "$(printf '%s\n' "$counts" | wc -l)" = 1 ] &&
	[ $((logged + counts + lost)) = $((1000 + extra)) ]
check $? "1000 denials with a limit of $burst per 20 s: $burst logged and one entry counting the rest ($out)"
out=$(entries "$start" "$suppressed" | jq -c '{PRIORITY, MESSAGE, UMBRELLA_SUPPRESSED}')
"$cli" events -n 1 | grep -qE "^[0-9-]+ [0-9:]+ -- $counts denials of uid 0 not logged \(rate limit\)$"
check $? "umbrella-cli events shows the suppressed count ($out)"
out=$(unit_messages "$start" | grep 'denied:')
lines=$(printf '%s\n' "$out" | grep -c 'denied:')
out=$(printf '%s\n' "$out" | sort | uniq -c | sort -rn | head -n 5; echo "$lines lines for $logged entries")
[ "$lines" = "$logged" ]
check $? "no denial is logged twice"

tap_done
