#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: the requests on umbrellad's socket are served in turns by uid, and each uid's
# share of umbrellad's time is rationed (daemon/turns.h) (TAP). User A (65534), in a
# user and mount namespace of its own, makes a chain of bind mounts (as in
# test-fs-mountbudget) and floods: 6 connections (its limit of open files raised: the
# descriptors its requests bring, one for each of 110 rules, count while they wait), each sending a request with an fs
# rule on every level (each costs umbrellad its whole per-request budget of mount steps)
# again as soon as it is answered. Meanwhile root rforks and user B (65533) asks for a
# small layer. Asserted by mechanism, from umbrellad's log of its turns: root's requests
# go first, behind no request of A's or B's queued (only the one being served when they
# arrived), and A's queue is not drained when root is served. Then, request_time_per_user
# reloaded as 1 s a minute, A floods again: its requests fail with EAGAIN and a message naming that setting, while root's and B's
# after it still get their layers. Controls: A's and B's small requests get their layers
# first; A's flood was served (E2BIG) before it was refused.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-turns/umbrellad.sock
trap vm_cleanup EXIT
chmod 755 "$tmp"
py=/usr/bin/python3
user_a=65534 user_b=65533
conns=6

# argv: libumbrella base levels leaves conns [go [stop]]. Runs as a user, in its namespace: a
# tmpfs on base, a chain base/d/d/... of LEVELS directories, each with a bind mount of
# itself, LEAVES directories with one each at its bottom. Then CONNS processes, each
# (once the file GO exists, when given) asks for a layer with an fs rule on each level
# (umb_rfork) until it is refused with EAGAIN, at most 20 times (once without GO; with
# STOP, until the file STOP exists, when they are killed). Each
# answer is a line: "rfork: ERRNO-NAME: umb_last_error()", or "layer" from the child
# that got it. "ready" once every process is waiting for GO.
cat >"$tmp/flood.py" <<'PY'
import ctypes, errno, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
lib = ctypes.CDLL(sys.argv[1], use_errno=True)
base, n, leaves, conns = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
go = sys.argv[6] if len(sys.argv) > 6 else None
stop = sys.argv[7] if len(sys.argv) > 7 else None
def mount(src, dst, fstype, flags):
    if libc.mount(src.encode(), dst.encode(), fstype, flags, None):
        sys.exit("mount %s: %s" % (dst, os.strerror(ctypes.get_errno())))
def say(line):
    os.write(1, (line + "\n").encode())
mount("none", base, b"tmpfs", 0)
levels, p = [], base
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
        if go:
            while not os.path.exists(go):
                time.sleep(0.05)
        for _ in range(1000 if stop else 20 if go else 1):
            if ask() == errno.EAGAIN:
                break
        os._exit(0)
    kids.append(pid)
say("ready")
while kids:
    if stop and os.path.exists(stop):
        # Their requests waiting are answered at no cost: their callers are gone.
        for pid in kids:
            os.kill(pid, 9)
    pid, _ = os.waitpid(-1, os.WNOHANG)
    if pid in kids:
        kids.remove(pid)
    elif not pid:
        time.sleep(0.1)
PY
chmod 644 "$tmp/flood.py"
lib=$build/libumbrella/libumbrella.so.0

# flood USER NAME LEVELS LEAVES CONNS [GO [STOP]]: flood.py as USER in a namespace of its own, on
# $tmp/NAME, at most 150 s; its output in $out; with GO, in the background, its output in
# $tmp/NAME.out.
flood() {
	mkdir -p "$tmp/$2"
	local run=(timeout 150 prlimit --nofile=65536:65536 setpriv --reuid "$1" --regid "$1" --clear-groups unshare -Urm
		"$py" "$tmp/flood.py" "$lib" "$tmp/$2" "$3" "$4" "$5" ${6:+"$6"} ${7:+"$7"})
	if [ -n "${6:-}" ]; then
		"${run[@]}" >"$tmp/$2.out" 2>&1 &
	else
		out=$("${run[@]}" 2>&1)
	fi
}

# root_rfork: root's layer denies $tmp/root/secret and reads $tmp/root/open.
mkdir -p "$tmp/root" && echo secret >"$tmp/root/secret" && echo fine >"$tmp/root/open"
root_rfork() {
	local got
	got=$(timeout 120 "$cli" run -r "fs:$tmp/root/secret" -- \
		sh -c "cat $tmp/root/secret; cat $tmp/root/open" 2>&1)
	echo "# root (exit $?): $got"
	[[ "$got" == *"Permission denied"* ]] && [[ "$got" != *secret ]] && [[ "$got" == *fine* ]]
}

# First no share to speak of (60 s a minute: A drains as fast as it is served), so that
# A's flood lasts until the test stops it: the order of the turns is the point.
printf 'request_time_per_user = 60\n' >"$tmp/umbrella.conf"
check_start "$tmp/umbrellad.log" "umbrellad starts and listens" --config "$tmp/umbrella.conf"
chmod 755 "$(dirname "$UMBRELLA_SOCKET")"

flood "$user_a" a-small 4 2 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "control: user A's request with a rule on each of 4 levels gets its layer"
flood "$user_b" b-small 4 2 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "control: user B's gets its layer"

# wait_for FILE PATTERN: at most 120 s.
wait_for() {
	for _ in $(seq 1200); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# A's flood: every process waits for the go, then asks again and again until stopped.
flood "$user_a" a "110" "400" "$conns" "$tmp/a.go" "$tmp/a.stop"
flood_pid=$!
wait_for "$tmp/a.out" '^ready'
touch "$tmp/a.go"
# Once A's requests wait in turns, root and B ask.
wait_for "$tmp/umbrellad.log" "turn [0-9]+: uid $user_a, queued behind [0-9]+ requests, 1 uids"
(
	flood "$user_b" b-during 4 2 1
	printf '%s\n' "$out" >"$tmp/b-during.out"
) &
b_pid=$!
root_rfork
root_rc=$?
wait "$b_pid"
b_out=$(cat "$tmp/b-during.out" 2>/dev/null)
touch "$tmp/a.stop"
wait "$flood_pid"
log=$(cat "$tmp/umbrellad.log")
sort "$tmp/a.out" | uniq -c | sed 's/^/# A: /' | cut -c1-160
printf '%s\n' "$log" | grep -vE "uid $user_a|refused: (past|the caller gave up)|denied" |
	cut -c1-150 | sed 's/^/# /' | tail -30

check $root_rc "during A's flood, root's rfork is served: its layer denies secret, reads open"
[ "$b_out" = "$(printf 'ready\nlayer')" ]
check $? "during A's flood, B's request gets its layer"
grep -q "^rfork: E2BIG: .*past umbrellad's budget for one request" "$tmp/a.out"
check $? "A's requests were served meanwhile: each failed at the budget for one request (E2BIG)"

# Root's turns: each served before any request of another uid queued after it arrived:
# the turns it waited for (K, "queued behind K") are root's own (umbrella-cli run sends
# more than one at once), none of A's or B's. Every turn taken while root waited is
# logged (root was waiting).
root_turns=$(printf '%s\n' "$log" | grep -E "turn [0-9]+: uid 0, ")
printf '%s\n' "$root_turns" | sed 's/^/# root: /' | cut -c1-150
behind_others=0
while read -r turn behind; do
	for ((k = turn - behind; k < turn; k++)); do
		printf '%s\n' "$log" | grep -qE "turn $k: uid 0, " || behind_others=1
	done
done < <(printf '%s\n' "$root_turns" |
	sed -nE 's/.*turn ([0-9]+): uid 0, queued behind ([0-9]+) .*/\1 \2/p')
[ -n "$root_turns" ] && [ "$behind_others" = 0 ]
check $? "root's requests were served before any request of A or B queued ahead of them"

# A's queue was not drained: A still had requests waiting, served after root's last.
last_root=$(printf '%s\n' "$root_turns" | tail -1 | sed -E 's/.*turn ([0-9]+):.*/\1/')
last_a=$(printf '%s\n' "$log" | grep -E "turn [0-9]+: uid $user_a[ ,]" | tail -1 |
	sed -E 's/.*turn ([0-9]+):.*/\1/')
echo "# root's last turn $last_root, A's last $last_a"
[ -n "$last_root" ] && [ -n "$last_a" ] && [ "$last_a" -gt "$last_root" ]
check $? "root was served while A's requests were still waiting (A had turns after root's)"

# Then a share of 1 s a minute (a reload), and A floods again until refused.
printf 'request_time_per_user = 1\n' >"$tmp/umbrella.conf"
loaded=$(grep -c 'configuration:' "$tmp/umbrellad.log")
kill -HUP "$daemon"
for _ in $(seq 600); do
	[ "$(grep -c 'configuration:' "$tmp/umbrellad.log")" -gt "$loaded" ] && break
	sleep 0.1
done
flood "$user_a" a2 "110" "400" "$conns" "$tmp/a2.go"
flood_pid=$!
wait_for "$tmp/a2.out" '^ready'
touch "$tmp/a2.go"
wait "$flood_pid"
log=$(cat "$tmp/umbrellad.log")
sort "$tmp/a2.out" | uniq -c | sed 's/^/# A: /' | cut -c1-160
grep -q "^rfork: EAGAIN: .*share of umbrellad's time is used up.*request_time_per_user" \
	"$tmp/a2.out"
check $? "past its share of umbrellad's time, A's requests fail with EAGAIN naming request_time_per_user"
printf '%s\n' "$log" | grep -q "uid $user_a is past its share of umbrellad's time"
check $? "umbrellad logged that A is past its share"

# After A's refusal: root and B are served as before, and were never refused.
flood "$user_b" b-after 4 2 1
[ "$out" = "$(printf 'ready\nlayer')" ]
check $? "after A's refusal, B's request gets its layer"
root_rfork
check $? "after A's refusal, root's rfork gets its layer"
! grep -qE "uid (0|$user_b) is past its share|turn [0-9]+: uid (0|$user_b) refused" \
	"$tmp/umbrellad.log"
check $? "neither root nor B was ever refused"
kill -0 "$daemon"
check $? "umbrellad is still running"

tap_done
