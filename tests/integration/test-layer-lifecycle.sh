#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: layers live and die with their tasks (TAP). Layers are freed when their last
# holder goes, so rfork works over any uptime; no number of live layers restricting one
# path is too many; a layer outlives the task that made it while anything holds it; a
# killed umbrellad loses nothing; one user cannot use up the layers of everyone.
# Every restriction is checked by an actual denied open(2) beside a positive control
# (layer-churn), and the counts by umbrella-cli status --json.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
churn=$build/tests/integration/layer-churn
export UMBRELLA_SOCKET=/run/umbrella-lifecycle/umbrellad.sock
tmp=$(mktemp -d)
log=$tmp/umbrellad.log
conf=$tmp/umbrella.conf
chmod 755 "$tmp"

# status_field KEY...: a number from umbrella-cli status --json (occupancy.KEY...).
status_field() {
	"$cli" --json status 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)["occupancy"]
for k in sys.argv[1:]:
    v = v[k]
print(v)' "$@"
}
live_layers() { status_field layers live; }
live_rules() { echo $(($(status_field fs_inode_rules live) + $(status_field fs_name_rules live))); }

# converge LAYERS RULES: waits (at most 20 s) until the live counts are back at these.
converge() {
	local _
	for _ in $(seq 200); do
		[ "$(live_layers)" = "$1" ] && [ "$(live_rules)" = "$2" ] && return 0
		sleep 0.1
	done
	out="live layers $(live_layers) (want $1), rules $(live_rules) (want $2)"
	return 1
}

# A low per-user limit, so that the unprivileged test reaches it quickly.
printf 'max_layers_per_user = 20\nmax_rules_per_user = 1000\n' >"$conf"
start_daemon "$log" --config "$conf"
rc=$?
out=$(cat "$log")
[ "$rc" = 0 ]
check $? "umbrellad starts and listens"
chmod 755 "$(dirname "$UMBRELLA_SOCKET")"

base_layers=$(live_layers)
base_rules=$(live_rules)
[ -n "$base_layers" ] && [ -n "$base_rules" ]
check $? "status --json counts the live layers ($base_layers) and rules ($base_rules)"

# 1. Sequential, as a user held to max_layers_per_user (20): every layer must be freed
# when its task goes, or that user's rforks fail from the 21st on.
as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
fails=0
for i in $(seq 100); do
	as_nobody "$cli" run -r fs:/etc -- true >/dev/null 2>"$tmp/run.err" || { fails=$((fails + 1)); cp "$tmp/run.err" "$tmp/first.err"; }
done
out=$(cat "$tmp/first.err" 2>/dev/null)
[ "$fails" = 0 ]
check $? "100 sequential 'umbrella-cli run -r fs:/etc -- true' of a user limited to 20 layers all work ($fails failed)"

out=$(as_nobody "$churn" rforks 400 fs:/etc 2>&1)
[ $? = 0 ] && [[ "$out" == "rforks=400 denied=400 failed=0 "* ]]
check $? "400 sequential rfork() with fs:/etc of that user all work, each child denied ($out)"

converge "$base_layers" "$base_rules"
check $? "after them, the live layers and rules are back where they were"

freed=$(status_field layers freed)
[ "$freed" -ge 500 ]
check $? "status --json counts the freed layers ($freed >= 500)"

# 2. Many live holders of one path, each in its own layer, each denied.
"$churn" hold 40 fs:/etc >"$tmp/hold.out" 2>&1 &
holder=$!
for _ in $(seq 600); do [ -s "$tmp/hold.out" ] && break; sleep 0.1; done
out=$(cat "$tmp/hold.out")
[ "$out" = "held=40 denied=40" ]
check $? "40 live holders of fs:/etc, each in its own layer, each denied ($out)"
layers_now=$(live_layers)
[ "$layers_now" -ge $((base_layers + 40)) ]
check $? "while they live, status counts their layers ($layers_now >= $base_layers + 40)"
kill -TERM "$holder"
wait "$holder"
converge "$base_layers" "$base_rules"
check $? "once they exit, the live layers and rules are back where they were"

# 3. A layer lives while anything holds it: a thread and a grandchild outlive the
# process that made it, and stay denied after it is reaped.
out=$("$churn" outlive 2>&1)
[ "$out" = "thread=denied grandchild=denied" ]
check $? "a thread and an exec'd grandchild that outlive the rfork child stay denied ($out)"
converge "$base_layers" "$base_rules"
check $? "and the layer goes once they do"

# 4. umbrellad killed in the middle of a run of rforks: nothing leaks.
"$churn" rforks 400 fs:/etc >"$tmp/churn.out" 2>&1 &
churner=$!
sleep 2
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
start_daemon "$log" --config "$conf"
rc=$?
wait "$churner"
out="$(cat "$tmp/churn.out"; tail -5 "$log")"
[ "$rc" = 0 ] && grep -q '^rforks=' "$tmp/churn.out"
check $? "umbrellad, killed with SIGKILL during 400 rforks, restarts"
converge "$base_layers" "$base_rules"
check $? "after the restart the live layers and rules converge back"
out=$("$churn" rforks 50 fs:/etc 2>&1)
[ $? = 0 ]
check $? "rfork works after the restart ($out)"

# 5. One user cannot keep others from rforking.
setpriv --reuid 65534 --regid 65534 --clear-groups "$churn" until-refused fs:/etc \
	>"$tmp/nobody.out" 2>&1 &
nobody=$!
for _ in $(seq 600); do [ -s "$tmp/nobody.out" ] && break; sleep 0.1; done
out=$(cat "$tmp/nobody.out")
[[ "$out" == "held=20 denied=20 error="*"limit of 20 live layers per user"* ]]
check $? "an unprivileged user is refused past max_layers_per_user, with the limit named"
out=$("$churn" rforks 20 fs:/etc 2>&1)
[ $? = 0 ]
check $? "meanwhile root's rforks all work ($out)"
kill -TERM "$nobody"
wait "$nobody"
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$churn" rforks 60 fs:/etc 2>&1)
[ $? = 0 ]
check $? "once its processes exit, the user can rfork again: 60 in a row ($out)"
converge "$base_layers" "$base_rules"
check $? "and every layer is freed again"

# The same for rules: layers of 126 fs items each (the most one request carries; the
# review filled the name map with requests of 1024 names) stop at max_rules_per_user
# (1000 here), and root is not held up.
mkdir -m 755 "$tmp/n"
items=fs:/etc
for i in $(seq 125); do items+=",fs:$tmp/n/$i"; done
setpriv --reuid 65534 --regid 65534 --clear-groups "$churn" until-refused "$items" \
	>"$tmp/rules.out" 2>&1 &
nobody=$!
for _ in $(seq 600); do [ -s "$tmp/rules.out" ] && break; sleep 0.1; done
out=$(cat "$tmp/rules.out")
held=$(printf '%s\n' "$out" | sed -n 's/^held=\([0-9]*\) denied=\1 error=.*/\1/p')
[ -n "$held" ] && [ "$held" -ge 1 ] && [ "$held" -le 8 ] &&
	[[ "$out" == *"limit of 1000 fs rules per user"* ]]
check $? "an unprivileged user is refused past max_rules_per_user, with the limit named"
out=$("$churn" rforks 20 "$items" 2>&1)
[ $? = 0 ]
check $? "meanwhile root's rforks with 126 fs items each all work ($out)"
kill -TERM "$nobody"
wait "$nobody"
converge "$base_layers" "$base_rules"
check $? "and every rule is freed again"

# 6. Root is exempt from the per-user limits, but not a root process Umbrella confines.
"$cli" run -r fs:/root -- "$churn" until-refused fs:/etc >"$tmp/rroot.out" 2>&1 &
rroot=$!
for _ in $(seq 600); do [ -s "$tmp/rroot.out" ] && break; sleep 0.1; done
out=$(cat "$tmp/rroot.out")
[[ "$out" == "held=20 denied=20 error=restricted root processes have reached the limit of 20 live layers"* ]]
check $? "a restricted root process is held to the per-user limit"
out=$("$churn" rforks 30 fs:/etc 2>&1)
[ $? = 0 ]
check $? "meanwhile an unrestricted root rforks past it ($out)"
pkill -TERM -P "$rroot" # the churn, umbrella-cli run's child (run does not forward signals)
wait "$rroot"
converge "$base_layers" "$base_rules"
check $? "and every layer is freed again"

kill "$daemon"
wait "$daemon" 2>/dev/null
rm -rf "$tmp"
tap_done
