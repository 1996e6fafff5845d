# SPDX-License-Identifier: GPL-2.0-only
# Shell helpers that run no program, for VM tests that put "unsigned = deny" in force
# (then nothing unsigned runs, sleep and grep included). Sourced after tap.sh;
# builtins_init opens the FIFO nap() reads from.
#   builtins_init DIR: makes DIR/fifo and holds it open on fd 9
#   nap [SECONDS]: a sleep (default 0.1 s)
#   count FILE TEXT: how many lines of FILE contain TEXT, in $count
#   wait_count FILE TEXT N: until FILE has N lines with TEXT, at most 120 s (a start
#     loads the BPF programs: slow under TCG on a busy host); fails after that
#   set_unsigned allow|deny: writes $conf, reloads umbrellad ($daemon) and waits until
#     its log ($log) says the mode applies. Forced: /bin/sh and the rest of the VM are
#     unsigned (umbrellad refuses deny for that alone; systemd-test-config checks it)

builtins_init() {
	mkfifo "$1/fifo" && exec 9<>"$1/fifo"
}
nap() { read -r -t "${1:-0.1}" -u 9; }
count() {
	local line
	count=0
	while IFS= read -r line; do
		[[ "$line" == *"$2"* ]] && count=$((count + 1))
	done <"$1"
}
wait_count() {
	local _i
	for _i in {1..1200}; do
		count "$1" "$2"
		[ "$count" -ge "$3" ] && return 0
		nap
	done
	return 1
}
set_unsigned() {
	local n
	count "$log" "unsigned=$1 "
	n=$((count + 1))
	printf 'unsigned = %s\nunsigned_deny_force = yes\n' "$1" >"$conf"
	kill -HUP "$daemon" && wait_count "$log" "unsigned=$1 " "$n"
}
