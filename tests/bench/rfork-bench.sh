#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/rfork-bench.sh BUILD_DIR phases ITERATIONS
# tests/bench/rfork-bench.sh BUILD_DIR soak RFORKS CHUNK
# The in-guest half of tests/bench/run-rfork-bench (root, in the test VM): starts
# umbrellad on its own socket and pin directory, then
#   phases: runs BUILD/tests/bench/rfork-bench ITERATIONS, whose marked phases the
#           plugin counts (see rfork-bench.c); prints umbrella-cli status before and after
#   soak:   runs BUILD/tests/integration/layer-churn "rforks CHUNK fs:/etc" until RFORKS
#           rforks are done (the last chunk smaller), and before the first and after each
#           chunk prints one line, "rfork-soak DONE LIVE_LAYERS INODE_RULES NAME_RULES
#           FREED RSS_KB SECONDS" (umbrella-cli --json status: occupancy.layers.live,
#           .fs_inode_rules.live, .fs_name_rules.live, .layers.freed; umbrellad's VmRSS
#           from /proc/PID/status; seconds since the soak started), and each chunk's
#           result as "rfork-soak-chunk DONE LAYER_CHURN_OUTPUT"; at the end, once the
#           live layers are back at their starting number or 30 s have passed, the
#           same numbers again as "rfork-soak-settled ...".
# Exit status: 0 when everything ran, 1 otherwise.
set -euo pipefail
usage() {
	echo "usage: rfork-bench.sh BUILD_DIR phases ITERATIONS | BUILD_DIR soak RFORKS CHUNK" >&2
	exit 2
}
build=$(realpath "${1:?}")
mode=${2:-}
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-rfork-bench
export UMBRELLA_SOCKET=/run/umbrella-rfork-bench/umbrellad.sock
dir=/tmp/rfork-bench
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	wait 2>/dev/null || true
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null || true
}
trap cleanup EXIT

case "$mode" in
phases) n=${3:?}; [ $# = 3 ] || usage ;;
soak) total=${3:?} chunk=${4:?}; [ $# = 4 ] && [ "$chunk" -gt 0 ] || usage ;;
*) usage ;;
esac

mkdir -p "$dir"
rm -f "$UMBRELLA_SOCKET"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null || true
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" 2>"$dir/umbrellad.log" &
daemon=$!
for _ in $(seq 600); do
	[ -S "$UMBRELLA_SOCKET" ] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$dir/umbrellad.log" >&2; exit 1; }
	sleep 0.1
done
[ -S "$UMBRELLA_SOCKET" ] || { echo "rfork-bench.sh: umbrellad does not listen" >&2; exit 1; }

# The numbers of "umbrella-cli --json status": live layers, inode rules, name rules, freed.
occupancy() {
	"$cli" --pin-dir "$pin" --json status | python3 -c '
import json, sys
o = json.load(sys.stdin)["occupancy"]
print(o["layers"]["live"], o["fs_inode_rules"]["live"], o["fs_name_rules"]["live"],
      o["layers"]["freed"])'
}
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$daemon/status"; }
show_status() { echo "rfork-bench.sh: $1: $("$cli" --pin-dir "$pin" status | grep '^layers:')"; }

status=0
if [ "$mode" = phases ]; then
	show_status "before the phases"
	# The same address space layout at every run (fork copies page tables).
	setarch "$(uname -m)" -R "$build/tests/bench/rfork-bench" "$n" || status=$?
	sleep 1 # the last releases
	show_status "after the phases"
else
	churn=$build/tests/integration/layer-churn
	done_=0
	start=$(date +%s.%N)
	since() { awk -v s="$start" -v t="$(date +%s.%N)" 'BEGIN { printf "%.1f", t - s }'; }
	line() { echo "rfork-soak $done_ $(occupancy) $(rss_kb) $(since)"; }
	read -r base_live _ <<<"$(occupancy)"
	line
	while [ "$done_" -lt "$total" ]; do
		k=$((total - done_ < chunk ? total - done_ : chunk))
		out=$("$churn" rforks "$k" fs:/etc 2>&1) || status=1
		done_=$((done_ + k))
		echo "rfork-soak-chunk $done_ $out"
		# umbrellad frees each layer when its release record arrives: give the last
		# ones of the chunk a moment (at most 5 s) before counting.
		read -r live _ <<<"$(occupancy)"
		for _ in $(seq 50); do
			[ "$live" = "$base_live" ] && break
			sleep 0.1
			read -r live _ <<<"$(occupancy)"
		done
		line
		kill -0 "$daemon" 2>/dev/null || { echo "rfork-bench.sh: umbrellad died" >&2; status=1; break; }
	done
	# Layers still live then: late, or leaked? umbrellad sweeps for lost releases every
	# 10 s; give it 30 s.
	for _ in $(seq 30); do
		read -r live _ <<<"$(occupancy)"
		[ "$live" = "$base_live" ] && break
		sleep 1
	done
	echo "rfork-soak-settled $done_ $(occupancy) $(rss_kb) $(since)"
fi
# One line per layer armed and per denial (at most 200 per 5 s): counted, not shown.
routine='armed for its next child|: denied: |denials (of uid [0-9]+ )?suppressed'
echo "rfork-bench.sh: umbrellad's log: $(grep -Ec "$routine" "$dir/umbrellad.log") lines" \
	"of armed layers and denials; the last 20 others:"
grep -Ev "$routine" "$dir/umbrellad.log" | tail -n 20 | sed 's/^/  /'
exit $status
