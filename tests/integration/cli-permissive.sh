# SPDX-License-Identifier: GPL-2.0-only
# Part of the VM test test-cli-run (sourced by test-cli-run.sh, with umbrellad started,
# its log in $log): umbrella-cli run --permissive. The layer's denials are recorded and
# explained ("would deny"), not enforced; every other layer of the task still enforces,
# whichever of the two is the lower, whichever level of the path each names, and
# whichever item of a socket each has; the protection of umbrellad stays; only a
# process's own child gets a permissive layer. Each check is a real operation, with the
# same operation beside it as the control. Its helpers are its own (run_cmd, verify:
# test-cli-run's run is another).
host=$(cat /etc/hostname)
udp='exec 3<>/dev/udp/127.0.0.1/9'

# run_cmd CMD...: out: stdout, err: stderr (run's explanation); a failed check shows both.
run_cmd() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}
# check(), with what the last run gave when it fails
verify() {
	[ "$1" = 0 ] || out="exit ${rc:-} stdout: ${out:-} stderr: ${err:-}"
	check "$@"
}

# --- the permissive layer alone: allowed, recorded, explained ---
run_cmd "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open /etc/hostname (fs:/etc, layer "* ]]
verify $? "control: run -r fs:/etc -- cat /etc/hostname is denied (exit $rc)"

run_cmd "$cli" run --permissive -r fs:/etc -- cat /etc/hostname
[ "$rc" = 0 ] && [ "$out" = "$host" ] &&
	[[ "$err" =~ "umbrella: would deny open /etc/hostname (fs:/etc, layer "([0-9]+)")" ]]
verify $? "run --permissive -r fs:/etc: cat reads /etc/hostname, run says what it would deny"
layer=${BASH_REMATCH[1]:-none}
sleep 0.5
grep -q "denied: .*comm=cat hook=file_open restriction=fs:r layer=$layer object=/etc/hostname (permissive: allowed)" "$log"
verify $? "umbrellad records the denial of layer $layer, marked permissive"

run_cmd "$cli" run --permissive -r net:all -- bash -c "$udp"
[ "$rc" = 0 ] && [[ "$err" == *"umbrella: would deny create socket inet4 "* ]]
verify $? "run --permissive -r net:all: a socket is created, and reported"

# --- a permissive layer relaxes no other layer (a restricted task tries to escape) ---
run_cmd "$cli" run -r fs:/etc -- "$cli" run --permissive -r fs:/tmp -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"Permission denied"* ]] &&
	[[ "$err" == *"umbrella: denied open /etc/hostname (fs:/etc, layer "* ]]
verify $? "under an enforcing fs:/etc, run --permissive -r fs:/tmp -- cat /etc/hostname is denied"

run_cmd "$cli" run -r fs:/etc -- "$cli" run --permissive -r fs:/etc/hostname -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"Permission denied"* ]]
verify $? "a permissive rule on the file itself does not hide the outer layer's rule on /etc"

run_cmd "$cli" run --permissive -r fs:/etc/hostname -- "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"Permission denied"* ]]
verify $? "nor does one in a lower layer hide the upper layer's rule on /etc"

run_cmd "$cli" run -r fs:/usr/share/doc -- "$cli" run --permissive -r fs:/etc -- cat /etc/hostname
[ "$rc" = 0 ] && [ "$out" = "$host" ] && [[ "$out$err" != *"denied open"* ]]
verify $? "control: under an enforcing layer that does not cover /etc, the permissive run reads it"

run_cmd "$cli" run --permissive -r net:all -- "$cli" run -q -r net:inet -- bash -c "$udp"
[ "$rc" != 0 ] && [[ "$err" == *"Operation not permitted"* ]]
verify $? "a permissive net:all below does not hide an enforcing net:inet (another item)"

run_cmd "$cli" run --permissive -r net:all -- "$cli" run -q -r net:inet6 -- bash -c "$udp"
[ "$rc" = 0 ]
verify $? "control: the same with an enforcing net:inet6, an IPv4 socket is allowed"

run_cmd "$cli" run --permissive -r signal -- kill -0 "$daemon"
[ "$rc" != 0 ] && [[ "$err" == *"Operation not permitted"* ]]
verify $? "umbrellad stays out of reach of a permissive layer's task (kill -0 is denied)"

run_cmd "$cli" run --permissive -r signal -- kill -0 $$
[ "$rc" = 0 ] && [[ "$err" == *"umbrella: would deny kill "* ]]
verify $? "control: the same task may signal another process outside its domain (recorded)"

# --- who may ask for one ---
run_cmd "$cli" run --permissive --no-fork -r fs:/etc -- cat /etc/hostname
[ "$rc" = 125 ] && [ -z "$out" ] && [[ "$err" == *"--permissive and --no-fork"* ]]
verify $? "run --permissive --no-fork is refused before anything runs (exit $rc)"

out=$(python3 - "$UMBRELLA_SOCKET" <<'PY' 2>&1
import os, socket, struct, sys
PERMISSIVE = 0x100
def ask(op, tid, flags):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    # Protocol 4: the sender's own pidfd comes last (protocol.h; needed before 6.5).
    pidfd = os.pidfd_open(os.getpid())
    s.sendmsg([struct.pack("IIII", 4, op, tid, flags) + b"fork\0"],
              [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", pidfd))])
    os.close(pidfd)
    return str(struct.unpack("i", s.recv(4096)[:4])[0])
tid = os.getpid()
print(ask(2, tid, PERMISSIVE), ask(1, 1, PERMISSIVE), ask(1, tid, PERMISSIVE))
PY
)
[ "$out" = "-22 -1 0" ]
verify $? "over the socket: permissive on oneself refused (EINVAL), for another process's thread (EPERM), for one's own child armed ($out)"

# --- task show and layer show tell a permissive layer from an enforcing one ---
# A run's CMD, alive for a while: its pid once it has its layer ("" if it never does).
cmd_pid() {
	local child
	for _ in $(seq 100); do
		child=$(pgrep -P "$1")
		[ -n "$child" ] && "$cli" task show "$child" >/dev/null 2>&1 && echo "$child" && return
		sleep 0.1
	done
}
"$cli" run -q --permissive -r fs:/etc -- sleep 30 &
loose=$!
"$cli" run -q -r fs:/etc -- sleep 30 &
strict=$!
loose_pid=$(cmd_pid "$loose")
strict_pid=$(cmd_pid "$strict")
run_cmd "$cli" task show "$loose_pid"
loose_text=$out
run_cmd "$cli" task show "$strict_pid"
[[ "$loose_text" == *"mode:         permissive (its denials are recorded, not enforced)"* ]] &&
	[[ "$out" == *"mode:         enforcing"* ]] && [[ "$out" != *permissive* ]]
verify $? "task show: the permissive layer's mode says so, the enforcing one's says enforcing"
json() { "$cli" "$@" --json | python3 -c '
import json, sys
v = json.load(sys.stdin)
l = v["layers"][-1] if "layers" in v else v
print(l["id"], l["permissive"])'; }
loose_json=$(json task show "$loose_pid")
strict_json=$(json task show "$strict_pid")
run_cmd "$cli" layer show "${loose_json% *}"
[ "${loose_json#* }" = True ] && [ "${strict_json#* }" = False ] &&
	[[ "$out" == *"mode:         permissive"* ]] &&
	[ "$(json layer show "${loose_json% *}")" = "${loose_json% True} True" ] &&
	[ "$(json layer show "${strict_json% *}")" = "${strict_json% False} False" ]
verify $? "--json: \"permissive\" is true for that layer, false for the other ($loose_json, $strict_json)"
kill "$loose" "$strict"
wait "$loose" "$strict" 2>/dev/null
