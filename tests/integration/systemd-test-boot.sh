#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1, of a boot with the units of tests/helpers/boot-units
# (tests/run: tests/vm/run --systemd --boot-unit ...): umbrellad.service, enabled as the
# package enables it, starts early in boot, before an ordinary service that runs a
# signed binary; that binary's embedded restriction (fs:/etc/passwd) is enforced, and
# its denial is in the journal. Then umbrellad failing to start: the service starts
# anyway (the default), but not with the drop-in of umbrellad(8) for a service that must
# not run unprotected (Requisite= and After= umbrellad.service), and with umbrellad
# repaired it starts again (the control). Without those units in this boot, one skipped
# check. It leaves the service stopped, nothing pinned and no boot unit enabled, as the
# other systemd-test-* expect.
#   tests/helpers/boot-units BUILD BUILD/boot-units
#   tests/vm/run --systemd --rw BUILD --boot-unit BUILD/boot-units/umbrellad.service \
#     --boot-unit BUILD/boot-units/umbrella-boot-probe.service -- \
#     BUILD/tests/integration/systemd-test-boot
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
probe=umbrella-boot-probe.service
dropin=/run/systemd/system/$probe.d/umbrella.conf

if [ "$(systemctl show -P LoadState "$probe")" != loaded ]; then
	echo "ok 1 - # SKIP no $probe in this boot (tests/vm/run --boot-unit, see tests/run)"
	echo "1..1"
	exit 0
fi
cleanup() {
	systemctl stop "$probe" umbrellad.service 2>/dev/null
	"$build/daemon/umbrellad" --reset-pins 2>/dev/null
	# The boot units go: the next tests install umbrellad.service their own way.
	rm -rf /etc/umbrella/keys /etc/umbrella/umbrella.conf "${dropin%/*}" \
		"/etc/systemd/system/$probe" "/etc/systemd/system/multi-user.target.wants/$probe" \
		/etc/systemd/system/sysinit.target.wants/umbrellad.service "$unit"
	systemctl daemon-reload
	systemctl reset-failed umbrellad.service "$probe" 2>/dev/null
}
trap cleanup EXIT

pprop() { systemctl show -P "$1" "$probe"; }
secs() { printf '%d.%03d' $(($1 / 1000000)) $(($1 / 1000 % 1000)); } # US: seconds
at() { secs "$(systemctl show -P ActiveEnterTimestampMonotonic "$1")"; } # UNIT: active since

# Started at boot, not by a test: both came up before the test unit (multi-user.target).
out=$(systemctl status --no-pager umbrellad.service "$probe" 2>&1 | head -n 30
	journal | tail -n 20)
[ "$(prop ActiveState)" = active ] && [ "$(prop NRestarts)" = 0 ] &&
	[ "$(pprop ActiveState)" = active ] && [ "$(pprop Result)" = success ]
check $? "at boot: umbrellad.service active, $probe ran (result $(pprop Result))"

# The order systemd followed: umbrellad was ready (READY=1, programs attached) before
# sysinit.target, and sysinit.target before the probe started. The boot is not finished
# while this test runs (it is part of it), so systemd-analyze critical-chain cannot say
# it: the same chain from the units' timestamps.
ready=$(prop ActiveEnterTimestampMonotonic)
sysinit=$(systemctl show -P ActiveEnterTimestampMonotonic sysinit.target)
started=$(pprop ExecMainStartTimestampMonotonic)
out="umbrellad active at $ready, sysinit.target at $sysinit, probe started at $started (us)"
[ "$ready" -gt 0 ] && [ "$ready" -le "$sysinit" ] && [ "$sysinit" -le "$started" ]
check $? "umbrellad was active before sysinit.target, the probe after it"
echo "# boot chain (s since the kernel started): local-fs.target $(at local-fs.target)," \
	"umbrellad started $(secs "$(prop ExecMainStartTimestampMonotonic)")" \
	"and ready $(at umbrellad.service), sysinit.target $(at sysinit.target)," \
	"basic.target $(at basic.target), $probe $(at "$probe")"

# The probe's output (its journal): the embedded restriction denied /etc/passwd; the
# control, /etc/hostname, opened.
out=$(journalctl -b -u "$probe" --no-pager -o cat 2>&1)
printf '%s\n' "$out" | grep -qxE '/etc/passwd: (EACCES|EPERM)' &&
	printf '%s\n' "$out" | grep -qx '/etc/hostname: ok'
check $? "the signed binary run at boot: /etc/passwd denied (its restriction), /etc/hostname read"

# umbrellad's record of that denial, with the probe's pid.
journalctl --sync 2>/dev/null
pid=$(pprop ExecMainPID)
out=$(journalctl -b -u umbrellad.service --no-pager -o json "UMBRELLA_PID=$pid" 2>&1 |
	jq -c 'select(.UMBRELLA_OBJECT == "/etc/passwd") | {UMBRELLA_COMM, UMBRELLA_HOOK,
		UMBRELLA_RESTRICTION, UMBRELLA_OBJECT, MESSAGE}' 2>&1)
[[ "$out" == *'"UMBRELLA_COMM":"signed-cat"'*'"UMBRELLA_OBJECT":"/etc/passwd"'* ]]
check $? "umbrellad's journal has the denial (pid $pid, /etc/passwd)"

# When umbrellad fails to start (here: an unknown key in umbrella.conf, exit 78), the
# services after it start anyway, as they would at boot: sysinit.target only Wants= it.
conf=/etc/umbrella/umbrella.conf
echo "no-such-key = 1" >"$conf"
systemctl stop "$probe" umbrellad.service
timeout 120 systemctl start umbrellad.service 2>/dev/null
out=$(timeout 120 systemctl start "$probe" 2>&1)
rc=$?
out+=$'\n'"$(systemctl status --no-pager umbrellad.service "$probe" 2>&1 | head -n 20)"
out+=$'\n'"$(journalctl -b -u "$probe" --no-pager -o cat -n 12)"
[ "$rc" = 0 ] && [ "$(prop ActiveState)" = failed ] && [ "$(prop ExecMainStatus)" = 78 ] &&
	[ "$(pprop ActiveState)" = active ]
check $? "umbrellad failed (exit $(prop ExecMainStatus)), $probe started anyway (the default)"
# Its binary still runs restricted: the verdict made at boot outlives umbrellad.
echo "# $probe without umbrellad: $(journalctl -b -u "$probe" --no-pager -o cat -n 4 |
	grep '^/etc' | tr '\n' ' ')"

# The drop-in of umbrellad(8) for a service that must not run without umbrellad:
# Requisite= and After= umbrellad.service. Now the probe fails, without running.
mkdir -p "${dropin%/*}"
printf '[Unit]\nRequisite=umbrellad.service\nAfter=umbrellad.service\n' >"$dropin"
systemctl daemon-reload
systemctl stop "$probe"
before=$(pprop ExecMainStartTimestampMonotonic)
out=$(timeout 120 systemctl start "$probe" 2>&1)
rc=$?
out+=$'\n'"$(systemctl status --no-pager umbrellad.service "$probe" 2>&1 | head -n 20)"
out+=$'\n'"$(journalctl -b -u "$probe" --no-pager -o cat -n 12)"
[ "$rc" != 0 ] && [ "$(pprop ActiveState)" != active ] &&
	[ "$(pprop ExecMainStartTimestampMonotonic)" = "$before" ]
check $? "with the drop-in, umbrellad failed: $probe does not start (systemctl start: $rc)"

# The control: umbrellad's configuration repaired and umbrellad started, it starts.
rm -f "$conf"
systemctl reset-failed umbrellad.service "$probe"
out=$(timeout 300 systemctl start umbrellad.service 2>&1 &&
	timeout 120 systemctl start "$probe" 2>&1)
rc=$?
out+=$'\n'"$(systemctl status --no-pager umbrellad.service "$probe" 2>&1 | head -n 20)"
out+=$'\n'"$(journalctl -b -u "$probe" --no-pager -o cat -n 12)"
[ "$rc" = 0 ] && [ "$(prop ActiveState)" = active ] && [ "$(pprop Result)" = success ]
check $? "with the drop-in, umbrellad repaired and active: $probe starts (control)"

tap_done
