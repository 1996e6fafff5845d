#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): a user's loop of denied calls
# must not take umbrellad.service's loop (TAP). Each denial is a record in the ring
# buffer, and umbrellad read records until the ring was empty: a ring that a flood keeps
# filling is never empty, so the loop served nothing else, not even systemd's watchdog
# (WatchdogSec=30), which killed the service. A turn of the loop now reads a bounded
# number of records (daemon/events.c), so the unit stays up and answers root.
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-flood
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
flood=$build/tests/integration/denial-flood
tmp=$(mktemp -d)
chmod 755 "$tmp"
flooder=

cleanup() {
	[ -n "$flooder" ] && kill "$flooder" 2>/dev/null
	systemctl stop umbrellad.service 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

unit_setup
timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(journal | tail -n 20)
check $rc "umbrellad.service is active"
pid=$(prop MainPID)
restarts=$(prop NRestarts)

"$cli" run --quiet -r fs:/etc -- true
check $? "control: root's rfork works before the flood"

# The flood: nobody's own sandbox, two processes denied socket(AF_INET) for 90 s, three times
# than twice the watchdog's 30 s.
as_nobody "$cli" run --no-fork -r net -- "$flood" 2 90 >"$tmp/flood.out" 2>&1 &
flooder=$!
wait "$flooder"
rc=$?
flooder=
out=$(cat "$tmp/flood.out")
[ "$rc" = 0 ] && grep -q 'denied calls' "$tmp/flood.out"
check $? "the flood ran, each of its socket() calls denied (the layer held)"
out="MainPID $(prop MainPID) (was $pid), NRestarts $(prop NRestarts) (was $restarts), $(prop ActiveState)
$(journalctl -b --no-pager -o cat -u umbrellad.service | grep -a -i 'watchdog\|start\|stop' | tail -n 8)"
[ "$(prop MainPID)" = "$pid" ] && [ "$(prop NRestarts)" = "$restarts" ] &&
	[ "$(prop ActiveState)" = active ]
check $? "umbrellad.service lived through the flood: same main pid, no restart (watchdog)"
timeout 120 "$cli" run --quiet -r fs:/etc -- true
check $? "control: root's rfork works after the flood"

tap_done
