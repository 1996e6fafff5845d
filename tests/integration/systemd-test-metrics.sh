#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): umbrella-metrics.service and
# its timer as built (TAP). The timer is off until enabled; the service, with its
# sandboxing, writes node_exporter's textfile with the figures of the running
# umbrellad.service, and fails with a message when the collector's directory is absent.
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-metrics
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
umbrellad=$build/daemon/umbrellad
units=/etc/systemd/system
textfile=/var/lib/prometheus/node-exporter
cleanup() {
	systemctl stop umbrellad.service 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -f "$units/umbrella-metrics.service" "$units/umbrella-metrics.timer"
	rm -rf /var/lib/prometheus
	systemctl daemon-reload
}
trap cleanup EXIT

unit_setup
sed "s|^ExecStart=[^ ]*|ExecStart=$build/cli/umbrella-cli|" "$build/daemon/umbrella-metrics.service" \
	>"$units/umbrella-metrics.service"
cp "$source_root/daemon/umbrella-metrics.timer" "$units/"
systemctl daemon-reload
"$umbrellad" --reset-pins 2>/dev/null
timeout 300 systemctl start umbrellad.service
wait_active
check $? "umbrellad.service is active"

out=$(systemctl is-enabled umbrella-metrics.timer 2>&1)
[ "$out" = disabled ]
check $? "umbrella-metrics.timer is off until enabled ($out)"

systemctl start umbrella-metrics.service 2>/dev/null
for _ in $(seq 50); do # journald may take the message after systemctl returned
	out=$(journalctl -b -u umbrella-metrics.service --no-pager -o cat 2>&1 | grep umbrella-cli)
	[ -n "$out" ] && break
	sleep 0.1
done
[ "$(systemctl show -P Result umbrella-metrics.service)" != success ] &&
	[[ "$out" == *"umbrella.prom"*"No such file or directory"* ]]
check $? "without the collector's directory the service fails, saying why"

mkdir -p "$textfile"
systemctl reset-failed umbrella-metrics.service 2>/dev/null
out=$(systemctl start umbrella-metrics.service 2>&1; journalctl -b -u umbrella-metrics.service --no-pager -o cat 2>&1 | tail -n 3)
[ "$(systemctl show -P Result umbrella-metrics.service)" = success ] &&
	grep -q '^umbrella_daemon_running 1$' "$textfile/umbrella.prom" &&
	/usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
names = {f.name for f in text_string_to_metric_families(open(sys.argv[1]).read())}
sys.exit(0 if {"umbrella_denials", "umbrella_gate_wait_seconds", "umbrella_layers"} <= names else 1)
' "$textfile/umbrella.prom"
check $? "with it, the sandboxed service writes the figures of the running umbrellad"

tap_done
