#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: one uid's flood of denials does not blind another uid (TAP). Uid 65534 floods
# denied socket() calls while umbrellad is stopped (SIGSTOP: nothing reads the ring
# buffer, the worst case of a busy umbrellad), until records are dropped; then uid 4242
# makes five denials. Each uid has its own budget of records in BPF, its own journal
# rate limit and its own history: all five of 4242's records reach its "umbrella-cli
# events" and the log, and the drops and suppressions are counted under 65534 only.
# Before, 65534's flood filled the ring that all share, and 4242's records were lost.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-flood-test/umbrellad.sock /sys/fs/bpf/umbrella-flood-test
TAP_CONTEXT=30
flood=$build/tests/integration/denial-flood
log=$tmp/daemon.log
flooder=

cleanup_first() {
	[ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null
	touch "$tmp/mark/end"
	[ -n "$flooder" ] && kill $(pgrep -P "$flooder") "$flooder" 2>/dev/null
}
trap vm_cleanup EXIT

as() { local uid=$1; shift; setpriv --reuid "$uid" --regid "$uid" --clear-groups "$@"; }
status() { "$cli" --pin-dir "$pin" --json status >"$tmp/status" 2>&1; }
# status_is EXPR: EXPR on the JSON of umbrella-cli status, as j (python).
status_is() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$tmp/status"; }
wait_for() { # COMMAND...: up to 60 s (by the clock: each try may be slow under TCG)
	local end=$((SECONDS + 60))
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}
b_events() { as 4242 "$cli" events >"$tmp/b-events" 2>&1; }
b_has() { # N...: 4242's events show the denial of each $tmp/b/fN
	local i
	b_events
	for i; do grep -q "object=$tmp/b/f$i\$" "$tmp/b-events" || return 1; done
}

mkdir -m 755 "$tmp/b"
mkdir -m 777 "$tmp/mark"
for i in 0 1 2 3 4 5; do echo "$i" >"$tmp/b/f$i"; done
chmod 755 "$tmp"
check_start "$log" "umbrellad starts" --pin-dir "$pin"

# Control, without the flood: 4242's denial is in its events.
as 4242 "$cli" run --quiet -r "fs:$tmp/b" -- cat "$tmp/b/f0" 2>/dev/null
rc=$?
wait_for b_has 0
check $? "control: 4242's denial (cat exited $rc) is in its events without a flood"

# 4242's sandbox, made now (umbrellad will be stopped): five denied reads once told, and
# kept alive until the end so that its layer's records have their uid.
as 4242 "$cli" run --quiet -r "fs:$tmp/b" -- sh -c "touch $tmp/mark/b.ready
	while [ ! -e $tmp/mark/go ]; do sleep 0.1; done
	for i in 1 2 3 4 5; do cat $tmp/b/f\$i; done 2>$tmp/mark/b.err
	touch $tmp/mark/b.done
	while [ ! -e $tmp/mark/end ]; do sleep 0.1; done" &
as 65534 "$cli" run --quiet --no-fork -r net -- "$flood" 1 600 >"$tmp/flood.out" 2>&1 &
flooder=$!
wait_for test -e "$tmp/mark/b.ready" && wait_for pgrep -x denial-flood >/dev/null
check $? "4242's sandbox and 65534's flood run"

echo "# ${SECONDS}s: the flood runs"
kill -STOP "$daemon"
# The flood until records are dropped: its budget spent (or, before, the ring full).
wait_for eval 'status; status_is "j[\"denials_dropped\"] > 0"'
rc=$?
out=$(cat "$tmp/status")
check $rc "records are dropped while umbrellad is stopped and 65534 floods"
echo "# ${SECONDS}s: records dropped"
touch "$tmp/mark/go"
wait_for test -e "$tmp/mark/b.done"
out=$(cat "$tmp/mark/b.err")
[ "$(grep -c 'Permission denied' "$tmp/mark/b.err")" = 5 ]
check $? "4242's five reads are denied, during the flood"
status
out=$(cat "$tmp/status")
status_is 'j["denials_dropped_by_uid"].get("65534", 0) > 0 and "4242" not in j["denials_dropped_by_uid"]'
check $? "status: records dropped for 65534, none for 4242"

echo "# ${SECONDS}s: umbrellad continues"
kill -CONT "$daemon"
kill $(pgrep -P "$flooder") "$flooder" 2>/dev/null
wait "$flooder" 2>/dev/null
flooder=
wait_for b_has 1 2 3 4 5
rc=$?
out=$(cat "$tmp/b-events")
check $rc "all five of 4242's records are in its events"
wait_for grep -q "denial records of uid 65534 dropped" "$log"
rc=$?
out=$(grep -a "dropped\|suppressed" "$log")
check $rc "the log says 65534's records were dropped"
! grep -q "of uid 4242 \(dropped\|suppressed\)" "$log"
check $? "and none of 4242's, neither dropped nor suppressed"
echo "# ${SECONDS}s: the log has the drops"
n=0
for i in 1 2 3 4 5; do grep -q "denied: .*object=$tmp/b/f$i$" "$log" && n=$((n + 1)); done
out="$n of 5 found; $(grep -a "suppressed" "$log")"
[ "$n" = 5 ]
check $? "all five of 4242's denials are in the log, past 65534's rate limit"
wait_for grep -q "denials of uid 65534 suppressed" "$log"
rc=$?
out=$(grep -a "dropped\|suppressed" "$log")
check $rc "65534's denials beyond its rate limit are counted as its own"

tap_done
