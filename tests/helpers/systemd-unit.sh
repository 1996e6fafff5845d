# SPDX-License-Identifier: GPL-2.0-only
# Sourced (not executed) by the systemd-test-* scripts (tests/integration), which run
# under systemd as PID 1 (tests/vm/run --systemd) and set $build and $umbrellad first.
# It offers:
#   $unit                  the path of the unit, /etc/systemd/system/umbrellad.service.
#   unit_setup             the unit as built: umbrellad installed as
#                          /usr/local/sbin/umbrellad, $unit written from the build's
#                          umbrellad.service with ExecStart= pointed there, daemon-reload.
#   prop PROPERTY          a property of umbrellad.service (systemctl show -P).
#   wait_active [PID]      waits (90 s at most) until the unit is active with a main pid
#                          (other than PID, when given); fails at once if it has failed.
#   journal                this boot's messages of umbrellad.service, text only.
unit=/etc/systemd/system/umbrellad.service

unit_setup() {
	# The unit has PrivateTmp=yes: a build tree under /tmp (a CI clone) is out of its
	# sight, so the daemon runs from /usr/local/sbin of the VM's writable overlay, as
	# installed.
	install -m 0755 "$umbrellad" /usr/local/sbin/umbrellad
	sed "s|^ExecStart=.*|ExecStart=/usr/local/sbin/umbrellad|" "$build/daemon/umbrellad.service" >"$unit"
	systemctl daemon-reload
}

prop() { systemctl show -P "$1" umbrellad.service; }

wait_active() { # [PID]: until the unit is active with a main pid other than PID
	local end=$((SECONDS + 90)) pid
	while [ "$SECONDS" -lt "$end" ]; do
		pid=$(prop MainPID)
		[ "$(prop ActiveState)" = active ] && [ "$pid" != 0 ] && [ "$pid" != "${1:-}" ] &&
			return 0
		[ "$(prop ActiveState)" = failed ] && return 1
		sleep 0.2
	done
	return 1
}

journal() { journalctl -b -u umbrellad.service --no-pager -o cat; }
