#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/attack-bench.sh BUILD_DIR SAMPLES [ATTACK]...
# The in-guest half of tests/bench/run-attack-bench (root, in the test VM): starts
# umbrellad on its own socket and pin directory, then for the quiet run and each attack
# (default: all) takes SAMPLES samples of what others see while nobody (65534) attacks:
#   root's rfork    umbrella-cli run -q -r net:inet6 -- true, as root
#   first exec      uid 4243 execs a copy of /bin/true that nobody has run yet (on /tmp,
#                   a tmpfs: the exec gate asks umbrellad about it)
#   records         uid 4243 is denied a read of its own file once per sample; at the end
#                   of the attack its records in "umbrella-cli events" (umbrellad's memory
#                   of that uid's denials) are counted against the denials it provoked
# and prints one line per attack:
#   attack NAME rfork_ms P50 P99 MAX exec_ms P50 P99 MAX records GOT/PROVOKED failed N
# (a probe that fails or takes longer than 60 s counts as 60000 ms and as failed).
# The attacks, each as nobody, running for the whole of the attack's samples:
#   mounts       a chain of 300 nested directories in its own user and mount namespace,
#                each with three bind mounts (900 mounts), and rforks with a rule on each
#                level, in a loop
#   mountflood   the same, with 6 such loops at once (requests served in turns by uid,
#                the attacker's past request_time_per_user refused)
#   requests     4 loops of rforks (umbrella-cli run --empty-layer -- true)
#   execs        execs of new 32 MiB copies of a program (unsigned), in a loop
#   denials      denial-flood: 2 processes calling socket(AF_INET) under "net"
#   connections  200 connections to umbrellad that send half a request and stay open
#   fuse         a FUSE mount of its own whose server never answers umbrellad, and
#                rforks with a rule below it, in a loop
# Exit status: 0 when the quiet run and the attacks ran; 1 otherwise.
set -uo pipefail
build=$(realpath "${1:?usage: attack-bench.sh BUILD_DIR SAMPLES [ATTACK]...}")
samples=${2:?}
shift 2
attacks=("$@")
[ ${#attacks[@]} -gt 0 ] || attacks=(mounts mountflood requests execs denials connections fuse)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-attack-bench
export UMBRELLA_SOCKET=/run/umbrella-attack-bench/umbrellad.sock
dir=/tmp/attack-bench
victim=4243
attacker=65534
daemon= attack_pids=()

as() { # UID CMD...: CMD as UID (and its group), no supplementary groups
	local uid=$1
	shift
	setpriv --reuid "$uid" --regid "$uid" --clear-groups "$@"
}

stop_attack() {
	local p
	for p in "${attack_pids[@]}"; do
		pkill -KILL -s "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	pkill -KILL -u "$attacker" 2>/dev/null
	wait "${attack_pids[@]}" 2>/dev/null
	attack_pids=()
	umount -l "$dir/attacker/fuse" 2>/dev/null
	return 0
}

cleanup() {
	stop_attack
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
}
trap cleanup EXIT

rm -rf "$dir"
mkdir -p "$dir/exec" "$dir/victim" "$dir/attacker"
chmod 755 "$dir" "$dir/exec"
chown "$victim:$victim" "$dir/victim"
chown "$attacker:$attacker" "$dir/attacker"
rm -f "$UMBRELLA_SOCKET"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" 2>"$dir/umbrellad.log" &
daemon=$!
for _ in $(seq 600); do
	[ -S "$UMBRELLA_SOCKET" ] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$dir/umbrellad.log" >&2; exit 1; }
	sleep 0.1
done
[ -S "$UMBRELLA_SOCKET" ] || { echo "attack-bench.sh: umbrellad does not listen" >&2; exit 1; }

# Milliseconds that COMMAND... took; 60000 (and a failure) when it failed or hung.
probe_ms() {
	local start end
	start=$(date +%s%N)
	if timeout 60 "$@" >/dev/null 2>&1; then
		end=$(date +%s%N)
		echo $(((end - start) / 1000000))
	else
		echo 60000 failed
	fi
}

# P50 P99 MAX of the numbers on standard input.
percentiles() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (!NR) { print "- - -"; exit }
		i50 = int((NR - 1) * 0.50) + 1; i99 = int((NR - 1) * 0.99) + 1
		print v[i50], v[i99], v[NR] }'
}

# The attacks: each starts its processes in the background (their pids in attack_pids).
# mount_loops NAME LOOPS: the chain of mounts in a namespace of the attacker's, and LOOPS
# loops of rforks naming every level, at once.
mount_loops() {
	local depth=300
	# Every level bind-mounted on itself three times, and one rfork naming every level.
	as "$attacker" unshare -Urm --propagation private bash -c '
		d=$1 depth=$2 cli=$3 loops=$4 rules=()
		p=$d
		for i in $(seq "$depth"); do
			p=$p/l
			mkdir -p "$p" || exit 1
			for _ in 1 2 3; do mount --bind "$p" "$p" || exit 1; done
			rules+=(-r "fs:$p")
		done
		for _ in $(seq "$loops"); do
			while :; do "$cli" run -q "${rules[@]}" -- true; done &
		done
		wait' \
		_ "$dir/attacker/$1" "$depth" "$cli" "$2" >/dev/null 2>&1 &
	attack_pids+=($!)
}

attack_mounts() { mount_loops mounts 1; }

# Many requests at the budget at once: each waits for its turn (daemon/turns.h), and
# past request_time_per_user the attacker's are refused.
attack_mountflood() { mount_loops mountflood 6; }

attack_requests() {
	for _ in 1 2 3 4; do
		as "$attacker" bash -c 'while :; do "$1" run -q --empty-layer -- true; done' _ "$cli" \
			>/dev/null 2>&1 &
		attack_pids+=($!)
	done
}

attack_execs() {
	as "$attacker" bash -c '
		d=$1 n=0
		while :; do
			n=$((n + 1))
			cp /bin/true "$d/big-$n" && truncate -s 32M "$d/big-$n" &&
				"$d/big-$n"
			rm -f "$d/big-$n"
		done' _ "$dir/attacker" >/dev/null 2>&1 &
	attack_pids+=($!)
}

attack_denials() {
	as "$attacker" "$cli" run -q -r net -- "$build/tests/integration/denial-flood" 2 3600 \
		>/dev/null 2>&1 &
	attack_pids+=($!)
}

attack_connections() {
	as "$attacker" python3 -c '
import socket, sys, time
held = []
for _ in range(200):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(5)
        s.connect(sys.argv[1])
        s.send(b"\x03\x00")  # half of a request header
        held.append(s)
    except OSError:
        time.sleep(0.05)
time.sleep(3600)' "$UMBRELLA_SOCKET" >/dev/null 2>&1 &
	attack_pids+=($!)
}

attack_fuse() {
	mkdir -p "$dir/attacker/fuse"
	chown "$attacker:$attacker" "$dir/attacker/fuse"
	as "$attacker" unshare -Urm --propagation private bash -c '
		fuse=$1 cli=$2 helper=$3 daemon=$4
		python3 "$helper" "$fuse" "$daemon" >"$fuse.log" 2>&1 &
		for _ in $(seq 100); do grep -q ready "$fuse.log" 2>/dev/null && break; sleep 0.1; done
		while :; do "$cli" run -q -r "fs:$fuse/x" -- true; done' \
		_ "$dir/attacker/fuse" "$cli" "$top/tests/helpers/fuse-stall.py" "$daemon" \
		>/dev/null 2>&1 &
	attack_pids+=($!)
}

# One run: the attack NAME (or "quiet") started, SAMPLES samples, the attack stopped.
run_one() {
	local name=$1 i secret rfork exec failed=0 got
	secret=$dir/victim/secret-$name
	as "$victim" sh -c 'echo mine >"$1"' _ "$secret"
	: >"$dir/rfork.ms"
	: >"$dir/exec.ms"
	for i in $(seq "$samples"); do
		cp /bin/true "$dir/exec/$name-$i"
	done
	[ "$name" = quiet ] || "attack_$name"
	sleep 3 # the attack under way
	for i in $(seq "$samples"); do
		rfork=$(probe_ms "$cli" run -q -r net:inet6 -- true)
		exec=$(probe_ms as "$victim" "$dir/exec/$name-$i")
		[[ "$rfork$exec" == *failed* ]] && failed=$((failed + 1))
		echo "${rfork%% *}" >>"$dir/rfork.ms"
		echo "${exec%% *}" >>"$dir/exec.ms"
		timeout 60 as "$victim" "$cli" run -q -r "fs:$secret" -- cat "$secret" >/dev/null 2>&1
		sleep 0.2
	done
	stop_attack
	sleep 2 # the last records read
	got=$(timeout 60 as "$victim" "$cli" events --lines 1000 2>/dev/null |
		grep -c "object=$secret\$")
	echo "attack $name rfork_ms $(percentiles <"$dir/rfork.ms")" \
		"exec_ms $(percentiles <"$dir/exec.ms") records ${got:-0}/$samples failed $failed"
}

status=0
run_one quiet || status=1
for a in "${attacks[@]}"; do
	declare -F "attack_$a" >/dev/null || { echo "attack-bench.sh: no attack '$a'" >&2; exit 2; }
	run_one "$a" || status=1
	kill -0 "$daemon" 2>/dev/null || { echo "attack-bench.sh: umbrellad died" >&2; exit 1; }
done
echo "umbrellad's last lines:"
tail -n 5 "$dir/umbrellad.log"
exit "$status"
