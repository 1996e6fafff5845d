#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): umbrellad.service as built
# (the hardened unit meson installs, with ExecStart pointed at the build tree) reaches
# active, enforces, is restarted by systemd after kill -9 while the pinned programs keep
# enforcing, and adopts the pinned state (TAP).
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-service
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40 # on a failure, 40 lines of $out (journal excerpts)
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
loop=
cleanup() {
	[ -n "$loop" ] && kill "$loop" 2>/dev/null
	systemctl stop umbrellad.service 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

unit_setup
# --man=no: the build tree's man pages are not installed (systemd-test-package checks
# the Documentation= of the installed unit).
out=$(systemd-analyze verify --man=no "$unit" 2>&1)
check $? "systemd-analyze verify accepts the unit"

timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(systemctl status --no-pager umbrellad.service 2>&1 | head -n 12; journal | tail -n 25)
[ "$rc" = 0 ]
check $? "systemctl start umbrellad reaches active (Type=notify: READY=1 once attached)"
if [ "$rc" != 0 ]; then
	# Which of the unit's directives keeps umbrellad from seeing what it needs?
	echo "# lsm list seen by the test: $(cat /sys/kernel/security/lsm 2>&1)"
	systemctl stop umbrellad.service
	sed -n 's/^\([A-Z][A-Za-z]*=.*\)/\1/p' "$unit" | grep -vE '^(Type|ExecStart|Restart|RestartSec|RestartPreventExitStatus|WatchdogSec|Description|After|WantedBy|Documentation|DefaultDependencies|Wants|Before|Conflicts|StartLimitIntervalSec|StartLimitBurst)=' |
	while IFS= read -r directive; do
		echo "# with $directive: $(timeout 60 systemd-run --wait --pipe --quiet -p "$directive" \
			sh -c 'head -c 200 /sys/kernel/security/lsm; echo; ls /sys/fs/bpf >/dev/null && echo bpffs-ok' 2>&1 | tr '\n' ' ')"
	done
fi

out=$(prop StatusText)
[[ "$out" == "Enforcing ("*")" ]]
check $? "the unit's status text says it enforces ($out)"

out=$("$cli" --json status 2>&1)
rc=$?
[ "$rc" = 0 ] && printf '%s\n' "$out" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["umbrellad"]["running"] and s["programs"]["attached"] > 0, s
assert s["programs"]["attached"] == len(s["programs"]["hooks"]), s'
check $? "umbrella-cli --json status: umbrellad running, programs attached (exit $rc)"

out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
[[ "$out" == *"/etc/hostname: Permission denied"* ]]
check $? "umbrella-cli run -r fs:/etc -- cat /etc/hostname is denied through the service"
out=$("$cli" run -r fs:/tmp -- cat /etc/hostname 2>&1)
[ "$out" = "$(cat /etc/hostname)" ]
check $? "umbrella-cli run -r fs:/tmp -- cat /etc/hostname works"

start_loop
all_denied_since 1
check $? "a long-running restricted process is denied /etc/hostname"

pid=$(prop MainPID)
restarts=$(prop NRestarts)
since=$(($(loop_lines) + 1))
kill -9 "$pid"
wait_active "$pid"
rc=$?
out="MainPID $pid -> $(prop MainPID), NRestarts $restarts -> $(prop NRestarts)"
[ "$rc" = 0 ] && [ "$(prop NRestarts)" = $((restarts + 1)) ]
check $? "after kill -9 systemd restarts umbrellad (Restart=on-failure: $out)"
all_denied_since "$since"
check $? "the restriction held through the restart"
out=$(journal)
[[ "$out" == *"adopted the pinned state in /sys/fs/bpf/umbrella"* ]]
check $? "the restarted umbrellad adopted the pinned state"
out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
[[ "$out" == *"Permission denied"* ]]
check $? "the restarted service serves new restrictions"

# The watchdog: with a short WatchdogSec the service must keep pinging and stay up.
mkdir -p "$unit.d"
printf '[Service]\nWatchdogSec=3s\n' >"$unit.d/watchdog.conf"
systemctl daemon-reload
systemctl restart umbrellad.service
wait_active
pid=$(prop MainPID)
restarts=$(prop NRestarts)
# Meanwhile the exec gate drops one file's ignore mark through the unit's sandbox
# (open_by_handle_at: its capability and system call): an exec on tmpfs, a chmod (BPF
# voids the verdict), the next exec.
gated=/run/umbrella-test-gated-true
cp /bin/true "$gated"
"$gated"
rc1=$?
chmod 700 "$gated"
sleep 1
"$gated"
rc2=$?
rm -f "$gated"
sleep 9
out="WatchdogUSec=$(prop WatchdogUSec) MainPID $pid -> $(prop MainPID) NRestarts $restarts -> $(prop NRestarts)"
[ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$pid" ] &&
	[ "$(prop NRestarts)" = "$restarts" ] && [ "$(prop WatchdogUSec)" = 3s ]
check $? "with WatchdogSec=3s umbrellad pings the watchdog and stays up ($out)"
out="exec: $rc1, after chmod: $rc2; $(journal | grep 'ignore mark')"
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && ! journal | grep -q "ignore mark"
check $? "... and removes a changed file's ignore mark alone ($out)"
rm -r "$unit.d"
systemctl daemon-reload

since=$(($(loop_lines) + 1))
systemctl stop umbrellad.service
out=$(prop ActiveState)
[ "$out" = inactive ] && all_denied_since "$since"
check $? "systemctl stop: the service is inactive, the pinned programs still enforce"

# What the unit's sandbox could lose or gain: tests/bench/run-unit-hardening.
# How exposed the unit is, for the record.
systemd-analyze security --no-pager umbrellad.service 2>/dev/null | tail -n 1 | sed 's/^/# /'

tap_done
