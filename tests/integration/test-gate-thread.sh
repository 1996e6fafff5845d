#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): the exec gate answers on a thread of its own, so that no work of the
# main loop delays an exec (issue 27, item 1). The main loop is held the way the test can
# see and end at will: its thread alone (umbrellad's thread group leader, which runs
# the main loop) is stopped with ptrace (PTRACE_SEIZE and PTRACE_INTERRUPT stop one
# thread; the gate's and the closer's go on). Then root asks for a layer (umbrella-cli
# run), a request only the main loop answers, and user 65534 execs a new unsigned
# program on tmpfs (a file system the gate marks): its first exec needs the gate's
# answer. The exec completes, and its verdict is in umb_verdicts (verdict list reads the
# maps, not the socket), while the main thread is still stopped and the request still
# unanswered; once the main thread runs again, the request gets its layer.
# Controls: the same request is answered before the main thread is stopped; the
# program's verdict was not there before its exec.
# What the gate needs of the main loop waits for it, bounded, and fails closed: a
# signed binary whose policy needs a new layer (the main loop makes layers,
# daemon/gate-bridge.c) is refused after GATE_LAYER_WAIT_USEC (10 s) while the main
# thread is stopped, with a line that says why; once it runs again, the same exec runs
# under its policy (control: without it, that user reads the file). What the main
# thread asks of the gate's loop reaches it: root's verdict flush empties the verdict
# list. A copy of the signed binary (a new inode, the same policy) is not refused while
# the main thread is stopped: the gate finds the layer made before itself (issue 27,
# review 1). The watchdog is petted (WATCHDOG=1 to a NOTIFY_SOCKET of the test's, with
# WATCHDOG_USEC) while idle, not while the gate's thread is stopped, and again once it
# runs (review 2). Last, SIGTERM joins the gate's thread and umbrellad exits 0.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-gatethread-test/umbrellad.sock /sys/fs/bpf/umbrella-gatethread-test
notify= hold=
cleanup_first() {
	touch "$tmp/go" "$tmp/go2" "$tmp/go3" "$tmp/go4" 2>/dev/null
	[ -n "$notify" ] && kill "$notify" 2>/dev/null
}
trap vm_cleanup EXIT
py=/usr/bin/python3
chmod 755 "$tmp"
mkdir "$tmp/keys"

# argv: TID GO. Stops the thread TID alone, prints "stopped", waits until the file GO
# exists (at most 120 s), lets the thread go on. Our exit detaches it too.
cat >"$tmp/hold.py" <<'PY'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 17, 0x4206, 0x4207, 0x40000000
tid = int(sys.argv[1])
for req in (PTRACE_SEIZE, PTRACE_INTERRUPT):
    if libc.ptrace(req, tid, None, None) < 0:
        sys.exit("ptrace %#x: %s" % (req, os.strerror(ctypes.get_errno())))
os.waitpid(tid, WALL)
print("stopped", flush=True)
for _ in range(1200):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.1)
libc.ptrace(PTRACE_DETACH, tid, None, None)
PY

# verdict_of PATH: the state "verdict list --json" gives PATH ("" for none), in $state.
verdict_of() {
	state=$("$cli" --pin-dir "$pin" -j verdict list | "$py" -c '
import json, sys
for v in json.load(sys.stdin):
    if v["path"] == sys.argv[1]:
        print(v["state"])' "$1")
}
# The state of the main thread (field 3 of /proc/PID/task/PID/stat): "t" when stopped.
main_state() { sed 's/.*) \(.\).*/\1/' "/proc/$daemon/task/$daemon/stat"; }
# ask: root's request for a layer whose rule denies secret; its child reads open.
ask() { timeout 150 "$cli" run -r "fs:$tmp/secret" -- cat "$tmp/open"; }

echo secret >"$tmp/secret" && echo fine >"$tmp/open"
cp /bin/echo "$tmp/prog" && chmod 755 "$tmp/prog"
# A signed binary whose policy denies $tmp/secret: a layer no umbrellad made before.
cp "$build/tests/integration/signed-cat" "$tmp/scat"
out=$({ "$cli" key generate t --dir "$tmp" &&
	UMBRELLA_KEYRING=$tmp/keys "$cli" key add "$tmp/t.pub" &&
	"$cli" binary sign --key "$tmp/t.key" -r "fs:$tmp/secret" "$tmp/scat"; } 2>&1)
check $? "a key in the ring, signed-cat signed with the policy fs:$tmp/secret"
chmod 755 "$tmp/scat"
as_user() { timeout 120 setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
# systemd's side of the watchdog, as the test's: a datagram socket, each datagram a line.
mkfifo "$tmp/pause.fifo"
: >"$tmp/notify.log"
"$py" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
with open(sys.argv[2], "a") as log:
    while True:
        for line in s.recv(4096).decode().split("\n"):
            log.write(line + "\n")
        log.flush()' "$tmp/notify.sock" "$tmp/notify.log" >"$tmp/notify.out" 2>&1 &
notify=$!
for _ in $(seq 100); do [ -s "$tmp/notify.out" ] && break; sleep 0.1; done
export NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=4000000
check_start "$tmp/d.log" "umbrellad starts" --pin-dir "$pin" --keyring "$tmp/keys"
unset NOTIFY_SOCKET WATCHDOG_USEC

out=$(ask 2>&1)
[ "$out" = fine ]
check $? "control: root's request is answered while the main loop runs ($out)"

verdict_of "$tmp/prog"
out="verdict: '$state'"
[ -z "$state" ]
check $? "control: the new program has no verdict before its first exec ($out)"

# hold GO: stops umbrellad's main thread until the file GO exists (hold.py in $hold).
hold() {
	rm -f "$tmp/hold.out"
	"$py" "$tmp/hold.py" "$daemon" "$1" >"$tmp/hold.out" 2>&1 &
	hold=$!
	for _ in $(seq 600); do
		[ -s "$tmp/hold.out" ] && break
		sleep 0.1
	done
	before=$(main_state)
	out="$(cat "$tmp/hold.out"); main thread: $before"
	[ "$(cat "$tmp/hold.out")" = stopped ] && [ "$before" = t ]
}

hold "$tmp/go"
check $? "umbrellad's main thread alone is stopped (ptrace)"

ask >"$tmp/ask.out" 2>&1 &
asked=$!
out=$(timeout 120 setpriv --reuid 65534 --regid 65534 --clear-groups "$tmp/prog" ran 2>&1)
rc=$?
# In this order: the exec is done; the main thread has not run since; the request waits.
after=$(main_state)
kill -0 "$asked" 2>/dev/null
pending=$?
verdict_of "$tmp/prog"
out="exec: $out (exit $rc); main thread: $after; request pending: $pending ($(cat "$tmp/ask.out")); verdict: $state"
[ "$rc" = 0 ] && [ "$out" != "${out#exec: ran }" ] && [ "$after" = t ] && [ "$pending" = 0 ] &&
	[ "$state" = unsigned ]
check $? "user 65534's first exec of a new unsigned program completes, its verdict written, while the main loop is held and root's request is unanswered"

touch "$tmp/go"
wait "$hold"
wait "$asked"
rc=$?
out="exit $rc: $(cat "$tmp/ask.out")"
[ "$rc" = 0 ] && [ "$(cat "$tmp/ask.out")" = fine ]
check $? "once the main thread runs again, that request is answered ($out)"

# Again, alone: umbrella-cli gives up on an answer after 10 s, as long as the gate waits.
hold "$tmp/go2"
check $? "umbrellad's main thread alone is stopped again"
start=$SECONDS
out=$(as_user "$tmp/scat" "$tmp/open" 2>&1)
rc=$?
took=$((SECONDS - start))
after=$(main_state)
out="exit $rc after $took s: $out; main thread: $after; log: $(grep -F "did not make the layer" "$tmp/d.log")"
[ "$rc" != 0 ] && [ "$rc" != 124 ] && [[ "$out" == *"Operation not permitted"* ]] &&
	[ "$took" -ge 9 ] && [ "$after" = t ] &&
	grep -qF "main loop did not make the layer of $tmp/scat's policy" "$tmp/d.log"
check $? "a signed binary whose policy needs a new layer is refused (EPERM) after the gate waited 10 s for the held main loop, and the log says why"

touch "$tmp/go2"
wait "$hold"

out=$(as_user cat "$tmp/secret" 2>&1)
[ "$out" = secret ]
check $? "control: user 65534 reads $tmp/secret without the signed policy ($out)"
out=$(as_user "$tmp/scat" "$tmp/open" "$tmp/secret" 2>&1)
rc=$?
ok=$tmp/open:' ok'$'\n'$tmp/secret:
[ "$rc" = 0 ] && { [ "$out" = "$ok EACCES" ] || [ "$out" = "$ok EPERM" ]; }
check $? "with the main loop back, the signed binary runs under its policy: $tmp/secret denied (exit $rc: $out)"

# A fresh copy of that signed binary (a new inode: its first exec; the same policy and
# key) while the main thread is held: the layer made above is in umb_policies, which
# the gate reads itself. Without that, it would wait 10 s for the main loop and be
# refused, as the new policy above was (the control).
cp "$tmp/scat" "$tmp/scat2" && chmod 755 "$tmp/scat2"
hold "$tmp/go3"
check $? "umbrellad's main thread alone is stopped a third time"
start=$SECONDS
out=$(as_user "$tmp/scat2" "$tmp/open" "$tmp/secret" 2>&1)
rc=$?
took=$((SECONDS - start))
after=$(main_state)
touch "$tmp/go3"
wait "$hold"
[ "$rc" = 0 ] && { [ "$out" = "$ok EACCES" ] || [ "$out" = "$ok EPERM" ]; } &&
	[ "$took" -lt 9 ] && [ "$after" = t ]
check $? "a new copy of the signed binary, whose policy's layer exists, runs under it at its first exec while the main loop is held: the gate finds the layer itself (exit $rc after $took s: $out; main thread: $after)"

verdict_of "$tmp/prog"
before=$state
out=$("$cli" verdict flush 2>&1)
rc=$?
verdict_of "$tmp/prog"
out="exit $rc: $out; verdict before: $before, after: '$state'"
[ "$rc" = 0 ] && [ "$before" = unsigned ] && [ -z "$state" ]
check $? "root's verdict flush (the main thread's call into the gate's loop) empties the verdict list ($out)"

# The watchdog (daemon/watchdog.c): the pets (WATCHDOG=1, every 2 s here) come while the
# gate's loop turns, idle or not, and stop when it is stuck: its thread alone is stopped
# (ptrace), with the main loop's ping waiting in it. Past GATE_STALL_USEC (20 s) no pet
# comes and the log says why; once the thread runs again, the pets come again. While
# the gate is stopped, only bash builtins run here: an exec the gate is asked about
# would wait for it.
# pets_since LINE: the number of WATCHDOG=1 datagrams at or after line LINE, in $pets;
# the number of lines of the log, in $lines.
pets_since() {
	local l i=0
	pets=0
	mapfile -t l <"$tmp/notify.log"
	lines=${#l[@]}
	for ((i = $1; i < lines; i++)); do
		[ "${l[i]}" = WATCHDOG=1 ] && pets=$((pets + 1))
	done
}
pause() { read -rt "$1" <>"$tmp/pause.fifo"; } # sleep, as a builtin
pets_since 0
out="$pets pets, $lines datagrams"
[ "$pets" -ge 1 ]
check $? "control: the watchdog is petted from its start ($out)"
pets_since "$lines"
from=$lines
pause 7
pets_since "$from"
out="$pets pets in 7 s"
[ "$pets" -ge 2 ]
check $? "control: the idle daemon keeps petting its watchdog ($out)"

gate=
for t in /proc/$daemon/task/*; do
	[ "$(<"$t/comm")" = umbrellad-gate ] && gate=${t##*/}
done
rm -f "$tmp/hold.out"
"$py" "$tmp/hold.py" "${gate:-0}" "$tmp/go4" >"$tmp/hold.out" 2>&1 &
hold=$!
for _ in {1..600}; do
	[ -s "$tmp/hold.out" ] && break
	pause 0.1
done
stat=
[ -n "$gate" ] && read -r stat <"/proc/$daemon/task/$gate/stat"
stat=${stat##*) }
out="gate thread $gate: $(<"$tmp/hold.out"), state ${stat%% *}"
[ -n "$gate" ] && [ "$(<"$tmp/hold.out")" = stopped ] && [ "${stat%% *}" = t ]
check $? "the gate's thread (umbrellad-gate) alone is stopped (ptrace)"
pause 30
pets_since 0
from=$lines
pause 8
pets_since "$from"
log=$(<"$tmp/d.log")
out="$pets pets in 8 s, 30 s after the gate stopped"
[ "$pets" = 0 ] && [[ "$log" == *"its loop has not turned for"*"stops petting systemd's watchdog"* ]]
check $? "with the gate's loop stuck, the watchdog is no longer petted and the log says why ($out)"
touch "$tmp/go4"
wait "$hold"
pause 6
pets_since "$from"
out="$pets pets in 6 s"
[ "$pets" -ge 1 ] && grep -qF "its loop turns again" "$tmp/d.log"
check $? "once the gate's thread runs again, the pets come again ($out)"

kill -0 "$daemon" 2>/dev/null
check $? "umbrellad still runs"
kill "$daemon" && wait "$daemon"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad stops on SIGTERM, its gate's thread joined (exit $rc)"
daemon=
kill "$notify"
notify=
tap_done
