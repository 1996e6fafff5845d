#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/unit-hardening.sh BUILD_DIR
# The in-guest half of tests/bench/run-unit-hardening (root, under systemd as PID 1):
# installs umbrellad.service as built (tests/helpers/systemd-unit.sh) and, for each
# candidate change of the unit's sandbox, starts it fresh (no pins) with that change in
# a drop-in, printing one line:
#   measured: DESCRIPTION: starts | fails: the journal's last two lines
# then systemd-analyze security's verdict on the unit as shipped. Informational: what
# the unit could drop or add, for whoever tightens it.
set -u
build=$(realpath "${1:?usage: unit-hardening.sh BUILD_DIR}")
umbrellad=$build/daemon/umbrellad
. "$(dirname "$0")/../helpers/systemd-unit.sh"

unit_setup
measure() { # DESCRIPTION DROP-IN-LINE...
	local desc=$1 result
	shift
	"$umbrellad" --reset-pins 2>/dev/null
	mkdir -p "$unit.d"
	printf '[Service]\n' >"$unit.d/measure.conf"
	printf '%s\n' "$@" >>"$unit.d/measure.conf"
	systemctl daemon-reload
	systemctl reset-failed umbrellad.service 2>/dev/null
	if timeout 120 systemctl start umbrellad.service 2>/dev/null &&
		[ "$(prop ActiveState)" = active ]; then
		result=starts
	else
		result="fails: $(journal | grep -v '^$' | tail -n 2 | tr '\n' ' ')"
	fi
	echo "measured: $desc: $result"
	systemctl stop umbrellad.service 2>/dev/null
	rm -r "$unit.d"
	systemctl daemon-reload
	systemctl reset-failed umbrellad.service 2>/dev/null
}
measure "CapabilityBoundingSet=CAP_BPF CAP_PERFMON" "CapabilityBoundingSet=" "CapabilityBoundingSet=CAP_BPF CAP_PERFMON"
measure "CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN" "CapabilityBoundingSet=" "CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN"
measure "CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_RESOURCE" "CapabilityBoundingSet=" "CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_RESOURCE"
measure "ProtectKernelTunables=yes" "ProtectKernelTunables=yes"
measure "ProtectProc=invisible ProcSubset=pid" "ProtectProc=invisible" "ProcSubset=pid"
measure "PrivateUsers=yes" "PrivateUsers=yes"

echo "exposure: $(systemd-analyze security --no-pager umbrellad.service 2>/dev/null | tail -n 1)"
"$umbrellad" --reset-pins 2>/dev/null
