#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: the requests on umbrellad's socket are served in turns by uid, root that
# carries no layer first, and each uid's share of umbrellad's time is rationed
# (daemon/turns.h) (TAP). Asserted by mechanism, from umbrellad's log of its turns,
# not by time (latency under attack: tests/bench/run-attack-bench):
#  - order: umbrellad stopped (SIGSTOP: its loop busy, as behind a long request), user
#    A (65534) queues 4 requests, then user B (65533) 2, then root 1; resumed, umbrellad
#    serves root first (queued behind none), then A and B in turns (A B A B A A), not
#    A's 4 before B's;
#  - budget: request_time_per_user reloaded as 1 s a minute, A floods with requests
#    that each take umbrellad's whole budget of mount steps (a chain of bind mounts in
#    a namespace of its own, as test-fs-mountbudget): served (E2BIG) until its share is
#    used up, then refused with EAGAIN and a message naming the setting; A's next
#    request is refused still, B's and root's right after it get their layers.
# Controls: A's and B's small requests get their layers before; every request of the
# order part gets its layer.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-turns/umbrellad.sock
cleanup_first() {
	# A stopped umbrellad would hold the execs of the gated file systems.
	[ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null
}
trap vm_cleanup EXIT
chmod 755 "$tmp"
py=/usr/bin/python3
user_a=65534 user_b=65533

# argv: libumbrella base levels leaves conns asks [go]. LEVELS 0: a layer with one fs
# rule, on BASE. Otherwise, run as a user in its own namespace: a tmpfs on BASE, a chain
# BASE/d/d/... of LEVELS directories, each with a bind mount of itself, LEAVES
# directories with one each at its bottom, and a rule on each level. Then CONNS
# processes, each (once the file GO exists, when given) asks for the layer (umb_rfork)
# up to ASKS times, stopping at an EAGAIN. Each answer is a line: "rfork: ERRNO-NAME:
# umb_last_error()", or "layer" from the child that got it. "ready" once every process
# is waiting for GO. Nothing is executed after "ready" (umbrellad may be stopped: an
# exec on a gated file system would wait for it).
cat >"$tmp/flood.py" <<'PY'
import ctypes, errno, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
lib = ctypes.CDLL(sys.argv[1], use_errno=True)
base, n, leaves = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
conns, asks = int(sys.argv[5]), int(sys.argv[6])
go = sys.argv[7] if len(sys.argv) > 7 else None
def mount(src, dst, fstype, flags):
    if libc.mount(src.encode(), dst.encode(), fstype, flags, None):
        sys.exit("mount %s: %s" % (dst, os.strerror(ctypes.get_errno())))
def say(line):
    os.write(1, (line + "\n").encode())
levels, p = [base], base
if n:
    mount("none", base, b"tmpfs", 0)
    levels = []
for _ in range(n):
    p += "/d"
    os.mkdir(p)
    mount(p, p, None, 4096) # MS_BIND
    levels.append(p)
for i in range(leaves):
    os.mkdir("%s/%d" % (p, i))
    mount("%s/%d" % (p, i), "%s/%d" % (p, i), None, 4096)
lib.umb_restrictions__new.restype = ctypes.c_void_p
lib.umb_last_error.restype = ctypes.c_char_p
r = ctypes.c_void_p(lib.umb_restrictions__new())
err = ctypes.c_char_p()
if lib.umb_restrictions__parse(r, ",".join("fs:" + l for l in levels).encode(),
                               ctypes.byref(err)) < 0:
    sys.exit("parse: %s" % err.value)
def ask():
    pid = lib.umb_rfork(r, 0)
    if pid == 0:
        say("layer")
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
        return 0
    e = ctypes.get_errno()
    say("rfork: %s: %s" % (errno.errorcode.get(e, e), (lib.umb_last_error() or b"").decode()))
    return e
kids = []
for _ in range(conns):
    pid = os.fork()
    if pid == 0:
        while go and not os.path.exists(go):
            time.sleep(0.02)
        for _ in range(asks):
            if ask() == errno.EAGAIN:
                break
        os._exit(0)
    kids.append(pid)
say("ready")
for pid in kids:
    os.waitpid(pid, 0)
PY
chmod 644 "$tmp/flood.py"
lib=$build/libumbrella/libumbrella.so.0

# flood USER NAME LEVELS LEAVES CONNS ASKS [GO]: flood.py as USER (in a user and mount
# namespace of its own when LEVELS is not 0) on $tmp/NAME, at most 150 s; its output in
# $out; with GO, in the background (its pid in $!), its output in $tmp/NAME.out.
flood() {
	local ns=()
	mkdir -p "$tmp/$2"
	[ "$3" = 0 ] || ns=(unshare -Urm)
	local run=(timeout 150 prlimit --nofile=65536:65536
		setpriv --reuid "$1" --regid "$1" --clear-groups "${ns[@]}"
		"$py" "$tmp/flood.py" "$lib" "$tmp/$2" "$3" "$4" "$5" "$6" ${7:+"$7"})
	if [ -n "${7:-}" ]; then
		"${run[@]}" >"$tmp/$2.out" 2>&1 &
	else
		out=$("${run[@]}" 2>&1)
	fi
}

# wait_for FILE PATTERN: at most 60 s.
wait_for() {
	for _ in $(seq 600); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# While umbrellad is stopped, only shell builtins: a tick of SECONDS on a fifo that never
# gets a line, and the connections in umbrellad's socket's name (its listening socket,
# those it accepted and those waiting in its backlog) in /proc/net/unix.
mkfifo "$tmp/tick"
exec 9<>"$tmp/tick"
tick() { read -rt "$1" -u 9 || :; }
sockets() {
	local line count=0
	while read -r -a line; do
		[ "${line[7]:-}" = "$UMBRELLA_SOCKET" ] && count=$((count + 1))
	done </proc/net/unix
	echo "$count"
}
# wait_sockets N: until there are N, at most 10 s.
wait_sockets() {
	for ((i = 0; i < 200; i++)); do
		[ "$(sockets)" -ge "$1" ] && return 0
		tick 0.05
	done
	return 1
}

# root_rfork: root's layer denies $tmp/root/secret and reads $tmp/root/open.
mkdir -p "$tmp/root" && echo secret >"$tmp/root/secret" && echo fine >"$tmp/root/open"
root_rfork() {
	local got
	got=$(timeout 60 "$cli" run -r "fs:$tmp/root/secret" -- \
		sh -c "cat $tmp/root/secret; cat $tmp/root/open" 2>&1)
	echo "# root (exit $?): $got"
	[[ "$got" == *"Permission denied"* ]] && [[ "$got" != *secret ]] && [[ "$got" == *fine* ]]
}

printf 'request_time_per_user = 30\n' >"$tmp/umbrella.conf"
check_start "$tmp/umbrellad.log" "umbrellad starts and listens" --config "$tmp/umbrella.conf"
chmod 755 "$(dirname "$UMBRELLA_SOCKET")"

flood "$user_a" a-small 4 2 1 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "control: user A's request with a rule on each of 4 levels gets its layer"
flood "$user_b" b-small 0 0 1 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "control: user B's request gets its layer"

# The order: A's 4 requests queued first, then B's 2, then root's, all while umbrellad
# is stopped. A second between the last connection and SIGCONT: each client sends its
# request right after its connect().
flood "$user_a" a-order 0 0 4 1 "$tmp/a.go"
a_pid=$!
flood "$user_b" b-order 0 0 2 1 "$tmp/b.go"
b_pid=$!
flood 0 r-order 0 0 1 1 "$tmp/r.go"
r_pid=$!
for f in a-order b-order r-order; do
	wait_for "$tmp/$f.out" '^ready'
done
log_lines=$(wc -l <"$tmp/umbrellad.log")
kill -STOP "$daemon"
base=$(sockets)
: >"$tmp/a.go"
wait_sockets $((base + 4)) && : >"$tmp/b.go" &&
	wait_sockets $((base + 6)) && : >"$tmp/r.go" &&
	wait_sockets $((base + 7))
queued=$?
tick 1
kill -CONT "$daemon"
wait "$a_pid" "$b_pid" "$r_pid"
out="base $base, now $(sockets)"
check $queued "while umbrellad is stopped, A's 4 requests, then B's 2, then root's wait"

out=$(cat "$tmp/a-order.out" "$tmp/b-order.out" "$tmp/r-order.out")
[ "$(grep -c '^layer$' "$tmp/a-order.out")" = 4 ] &&
	[ "$(grep -c '^layer$' "$tmp/b-order.out")" = 2 ] &&
	[ "$(grep -c '^layer$' "$tmp/r-order.out")" = 1 ]
check $? "control: each of those 7 requests gets its layer"

# umbrellad's turns since SIGCONT: "turn N: uid U, queued behind K requests, M uids
# waiting" (logged while others wait: every one of these).
turns=$(tail -n +$((log_lines + 1)) "$tmp/umbrellad.log" | grep -E 'turn [0-9]+: uid ')
out=$turns
printf '%s\n' "$turns" | sed 's/^/# /'
# A connection's hang-up takes no turn (closed at once): these 7 turns are the requests.
order=$(printf '%s\n' "$turns" | sed -nE 's/.*turn [0-9]+: uid ([0-9]+).*/\1/p' | tr '\n' ' ')
echo "# order: $order"
printf '%s\n' "$turns" | head -1 | grep -qE "turn [0-9]+: uid 0, queued behind 0 requests, 2 uids waiting"
check $? "root, queued last, is served first, behind none of A's or B's queued requests"
[ "$order" = "0 $user_a $user_b $user_a $user_b $user_a $user_a " ]
check $? "then A and B take turns, one request each (A B A B A A: B's 2 not behind A's 4)"

# The budget: 1 s a minute (a reload), and A floods with heavy requests.
printf 'request_time_per_user = 1\n' >"$tmp/umbrella.conf"
loaded=$(grep -c 'configuration:' "$tmp/umbrellad.log")
kill -HUP "$daemon"
for _ in $(seq 300); do
	[ "$(grep -c 'configuration:' "$tmp/umbrellad.log")" -gt "$loaded" ] && break
	sleep 0.1
done
# 60 levels, 100 leaves: each rule's mounts below looked up name by name is far past
# MOUNT_BUDGET_STEPS (65536): each request takes umbrellad's whole budget (E2BIG).
flood "$user_a" a-flood 60 100 2 20
printf '%s\n' "$out" | sort | uniq -c | sed 's/^/# A: /' | cut -c1-200
a_flood=$out
printf '%s\n' "$a_flood" | grep -q "^rfork: E2BIG: .*past umbrellad's budget for one request"
check $? "control: A's heavy requests are served (E2BIG at the budget for one request)"
printf '%s\n' "$a_flood" | grep -q "^rfork: EAGAIN: .*share of umbrellad's time is used up.*request_time_per_user"
check $? "then, past its share, A's requests fail with EAGAIN naming request_time_per_user"
out=$(grep "past its share" "$tmp/umbrellad.log")
[ "$(printf '%s\n' "$out" | grep -c "uid $user_a is past its share of umbrellad's time")" = 1 ]
check $? "umbrellad logs once that A is past its share"

# For that caller only: A's next request, small, is refused still; B's and root's
# right after it are served.
flood "$user_a" a-after 0 0 1 1
printf '%s\n' "$out" | grep -q "^rfork: EAGAIN: .*request_time_per_user"
check $? "A's next request, a small one, is refused still"
flood "$user_b" b-after 0 0 1 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "then B's request gets its layer"
root_rfork
check $? "then root's rfork gets its layer: it denies secret, reads open"
out=$(grep -E "uid (0|$user_b) is past its share|uid (0|$user_b) refused" "$tmp/umbrellad.log")
[ -z "$out" ]
check $? "neither root nor B was ever refused"
kill -0 "$daemon"
check $? "umbrellad is still running"

tap_done
