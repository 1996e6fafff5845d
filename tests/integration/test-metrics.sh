#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrella-cli metrics (TAP). The output is parsed with a real parser (Debian's
# python3-prometheus-client) and its counters are checked to move with what they count:
# a denial of an open, execs of a signed, an unsigned and a tampered binary (the gate's
# verifications and its wait histogram), the second exec of a file (a cache hit), a
# live layer. umbrellad runs from a copy on tmpfs with its own pins and key ring.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-metrics-test
export UMBRELLA_SOCKET=/run/umbrella-metrics-test/umbrellad.sock
tmp=$(mktemp -d) # tmpfs in the VM: a file system the gate caches
ring=$tmp/keys bin=$tmp/bin
umbrellad=$bin/umbrellad
export UMBRELLA_KEYRING=$ring
mkdir -p "$ring" "$bin"
python=/usr/bin/python3 # Debian's, with python3-prometheus-client

cleanup() {
	[ -n "${daemon:-}" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# metrics: the samples of "umbrella-cli metrics", parsed, one per line as
# "NAME{LABEL=VALUE,...} VALUE" (labels sorted), in $out; the parser's verdict in $rc.
metrics() {
	out=$("$cli" --pin-dir "$pin" metrics 2>&1 | "$python" -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        print("%s{%s} %s" % (s.name, labels, repr(float(s.value))))
' 2>&1)
	rc=$?
}
# value NAME{LABELS}: the value of that sample in $out (0 when absent), as an integer.
value() {
	local v
	v=$(printf '%s\n' "$out" | awk -v k="$1" '$1 == k { print $2 }')
	printf '%.0f\n' "${v:-0}"
}

cp "$build/daemon/umbrellad" "$umbrellad"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
out=$({ "$cli" key generate metrics --dir "$tmp" && "$cli" key add "$tmp/metrics.pub" &&
	cp /bin/true "$bin/signed" && cp /bin/true "$bin/unsigned" && cp /bin/true "$bin/tampered" &&
	"$cli" binary sign --no-policy --key "$tmp/metrics.key" "$bin/signed" &&
	"$cli" binary sign --no-policy --key "$tmp/metrics.key" "$bin/tampered" &&
	printf 'X' | dd of="$bin/tampered" bs=1 seek=200 conv=notrunc status=none; } 2>&1)
check $? "a key in the ring, a signed, an unsigned and a tampered binary on tmpfs"

log=$tmp/umbrellad.log
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" --keyring "$ring" 2>"$log" &
daemon=$!
for _ in $(seq 1200); do grep -q "programs attached, listening" "$log" && break; sleep 0.1; done
out=$(cat "$log")
grep -q "programs attached, listening" "$log"
check $? "umbrellad starts with its own pins and key ring"

metrics
before=$out
[ "$rc" = 0 ] && [ "$(value 'umbrella_daemon_running{}')" = 1 ] &&
	[ "$(value 'umbrella_layers_limit{}')" -gt 0 ] &&
	[ "$(value 'umbrella_fs_rules_limit{map=inode}')" -gt 0 ] &&
	[[ "$out" == *"umbrella_gate_wait_seconds_bucket{le=+Inf}"* ]]
check $? "the output parses as the Prometheus text format, with the gauges and limits"

"$cli" run -r fs:/etc -- sh -c 'cat /etc/hostname; sleep 2' >/dev/null 2>&1 &
holder=$!
sleep 1
metrics
[ "$(value 'umbrella_denials_total{hook=file_open,kind=fs}')" -ge 1 ] &&
	[ "$(value 'umbrella_layers{}')" -ge 1 ]
check $? "a denied open counts under hook=file_open, kind=fs; the live layer counts"
wait "$holder"

out=$before
hits0=$(value 'umbrella_verdict_cache_hits_total{}')
misses0=$(value 'umbrella_verdict_cache_misses_total{}')
"$bin/signed" && "$bin/unsigned" && "$bin/signed"
ran=$?
"$bin/tampered" 2>/dev/null
tampered=$?
"$bin/tampered" 2>/dev/null || tampered=$((tampered + $?)) # refused by its cached verdict
metrics
[ "$ran" = 0 ] && [ "$tampered" != 0 ] &&
	[ "$(value 'umbrella_gate_verifications_total{result=signed}')" -ge 1 ] &&
	[ "$(value 'umbrella_gate_verifications_total{result=unsigned}')" -ge 1 ] &&
	[ "$(value 'umbrella_gate_verifications_total{result=refused}')" -ge 1 ] &&
	[ "$(value 'umbrella_gate_wait_seconds_count{}')" -ge 3 ] &&
	[ "$(value 'umbrella_denials_total{hook=bprm_check_security,kind=verdict}')" -ge 1 ]
check $? "the gate's verifications count by result (signed, unsigned, refused) in the wait histogram"

[ "$(value 'umbrella_verdict_cache_hits_total{}')" -gt "$hits0" ] &&
	[ "$(value 'umbrella_verdict_cache_misses_total{}')" -ge "$misses0" ]
check $? "the second exec of the signed binary is a verdict cache hit"

# The counters carry over a restart of umbrellad (they live in the pins).
verifications=$(value 'umbrella_gate_wait_seconds_count{}')
kill "$daemon"
wait "$daemon" 2>/dev/null
metrics
[ "$rc" = 0 ] && [ "$(value 'umbrella_daemon_running{}')" = 0 ] &&
	[ "$(value 'umbrella_gate_wait_seconds_count{}')" = "$verifications" ]
check $? "with umbrellad down the figures are still there, and it says it is down"
: >"$log"
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" --keyring "$ring" 2>"$log" &
daemon=$!
for _ in $(seq 1200); do grep -q "programs attached, listening" "$log" && break; sleep 0.1; done
cp /bin/true "$bin/unsigned2"
"$bin/unsigned2"
metrics
[ "$(value 'umbrella_gate_wait_seconds_count{}')" -gt "$verifications" ]
check $? "a restarted umbrellad adds to the counts an earlier one left"

# --json: the same families and samples as the text, as JSON (one read of each; nothing
# is denied or verified in between, so the sample names and labels are the same).
"$cli" --pin-dir "$pin" metrics >"$tmp/metrics.txt" &&
	"$cli" --pin-dir "$pin" --json metrics >"$tmp/metrics.json" &&
	"$python" - "$tmp/metrics.txt" "$tmp/metrics.json" <<'PY'
import json, sys
from prometheus_client.parser import text_string_to_metric_families
def key(name, labels):
    return name + "{" + ",".join("%s=%s" % kv for kv in sorted(labels.items())) + "}"
text = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
families = json.load(open(sys.argv[2]))
assert isinstance(families, list) and families, "not a non-empty array"
by_name = {f["name"]: f for f in families}
# prometheus_client drops a counter's "_total" from the family name.
assert {n[:-6] if n.endswith("_total") else n for n in by_name} == set(text), \
    (sorted(by_name), sorted(text))
for f in families:
    assert f["type"] in ("gauge", "counter", "histogram") and f["help"], f
t = {key(s.name, s.labels): s.value for fam in text.values() for s in fam.samples}
j = {key(s["name"], s["labels"]): s["value"] for f in families for s in f["samples"]}
assert set(t) == set(j), set(t) ^ set(j)
assert j["umbrella_layers_limit{}"] == t["umbrella_layers_limit{}"] > 0
assert j["umbrella_gate_wait_seconds_count{}"] == t["umbrella_gate_wait_seconds_count{}"]
PY
check $? "--json metrics: the same families and samples as the text form, as JSON"
out=$("$cli" --pin-dir "$tmp/nothing-here" --json metrics 2>/dev/null)
rc=$?
[ "$rc" = 1 ] && printf '%s' "$out" | "$python" -c 'import json,sys; assert "nothing pinned" in json.load(sys.stdin)["error"]'
check $? "--json metrics with nothing pinned: one {\"error\"} object, exit $rc"

"$cli" --pin-dir "$pin" metrics -o "$tmp/umbrella.prom" &&
	[ "$(stat -c %a "$tmp/umbrella.prom")" = 644 ] &&
	grep -q '^umbrella_layers_limit ' "$tmp/umbrella.prom" &&
	[ -z "$(find "$tmp" -maxdepth 1 -name 'umbrella.prom.*')" ]
check $? "metrics -o FILE writes the file whole (a temporary renamed over it), mode 644"

out=$("$cli" --pin-dir "$tmp/nothing-here" metrics 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ "$out" == *"nothing pinned"* ]]
check $? "with nothing pinned, metrics fails with a message (exit $rc)"

tap_done
