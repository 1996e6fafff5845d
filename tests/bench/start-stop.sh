#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/start-stop.sh BUILD - where the time of one umbrellad start and stop goes,
# as the VM tests pay it (each starts its own umbrellad). Not a test: run it in the test
# VM (root), on both kernels:
#   tests/vm/run --kernel 6.12 --rw build -- tests/bench/start-stop.sh $PWD/build
# Prints, in seconds from each start: umbrellad's messages as they come (the "pinned new
# state" one follows the load and the attach), when its socket listens; then how long
# SIGTERM, a restart on the pinned state (adopt), kill -9 and --reset-pins (the detach of
# every link) take. Then verifier-stats --attach splits the load and the attach further.
set -u
build=${1:?usage: tests/bench/start-stop.sh BUILD}
umbrellad=$build/daemon/umbrellad
pin=/sys/fs/bpf/umbrella-start-stop
sock=/run/umbrella-start-stop.sock
fifo=/run/umbrella-start-stop.log # no /dev/fd in the VM for <(...)

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

# Starts umbrellad, its messages stamped with the time since $start; waits for the socket.
start() {
	rm -f "$sock"
	rm -f "$fifo"
	mkfifo "$fifo"
	start=$(now)
	while IFS= read -r line; do
		printf '  %6.2f s  %s\n' "$(since "$start")" "$line"
	done <"$fifo" &
	"$umbrellad" --socket "$sock" --pin-dir "$pin" 2>"$fifo" &
	daemon=$!
	until [ -S "$sock" ]; do
		kill -0 "$daemon" 2>/dev/null || { echo "umbrellad exited"; exit 1; }
		sleep 0.05
	done
	printf '  %6.2f s  listening (READY)\n' "$(since "$start")"
}

"$umbrellad" --reset-pins --pin-dir "$pin" >/dev/null 2>&1
for round in 1 2; do
	echo "round $round: fresh start (no pins)"
	start
	t=$(now)
	kill -TERM "$daemon"
	wait "$daemon"
	printf 'stop (SIGTERM until it exited): %.2f s\n' "$(since "$t")"
	echo "restart on the pinned state (adopt)"
	start
	t=$(now)
	kill -9 "$daemon"
	wait "$daemon" 2>/dev/null
	printf 'kill -9 until it exited: %.2f s\n' "$(since "$t")"
	t=$(now)
	"$umbrellad" --reset-pins --pin-dir "$pin" >/dev/null 2>&1
	printf -- '--reset-pins (pins removed; 6.12 detaches the links afterwards, in a kworker): %.2f s\n' "$(since "$t")"
done
sleep 1
echo "verifier-stats --attach:"
"$build/tests/bench/verifier-stats" --attach
