#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: a user's mounts cannot hold umbrellad (TAP). In a user and mount namespace of
# its own ("unshare -Urm", open to any user), a user stacks a bind mount on each level of
# a chain of directories and asks for one layer with an fs rule on every level: each
# rule's mounts below are looked up name by name, which grows with the cube of the chain.
# umbrellad reads the caller's mounts once per request and counts that work against a
# budget (daemon/mount-guard.h): the request fails with E2BIG and a message naming the
# budget, and umbrellad serves root's rfork after it while the user's namespace is
# still there (not a timeout: the client gives up after 10 s; the old code went on with
# the user's request for minutes, as long as the user's process lived). Controls: the same shape, small, gets its layer, whose rule
# denies an open beside one it allows; so does root's rfork after the refusal.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-mountbudget/umbrellad.sock
trap vm_cleanup EXIT
chmod 755 "$tmp"
py=/usr/bin/python3
# Levels of the chain: its cube over 6 (~220,000 names looked up) is past
# MOUNT_BUDGET_STEPS (65536) with a wide margin; and leaves: bind mounts side by side at
# its bottom, each looked up from every level (the old code read the whole mountinfo
# again for each, and stalled for minutes). Quick to make.
levels=110 leaves=400

# argv: libumbrella base levels leaves. Runs as the user, in its namespace: a tmpfs on
# base, a chain base/d/d/... of LEVELS directories, each with a bind mount of itself,
# LEAVES directories with one each at its bottom, a file f there and base/open; then
# one umb_rfork() with an fs rule on each level. Prints
# "rfork: ERRNO-NAME: umb_last_error()", or the child's "f=denied|read open=...";
# then, with a fifth argument, waits until that file exists (at most 120 s).
cat >"$tmp/chain.py" <<'PY'
import ctypes, errno, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
lib = ctypes.CDLL(sys.argv[1], use_errno=True)
base, n, leaves = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def mount(src, dst, fstype, flags):
    if libc.mount(src.encode(), dst.encode(), fstype, flags, None):
        sys.exit("mount %s: %s" % (dst, os.strerror(ctypes.get_errno())))
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
for path, text in ((p + "/f", "secret"), (base + "/open", "fine")):
    with open(path, "w") as f:
        f.write(text)
lib.umb_restrictions__new.restype = ctypes.c_void_p
lib.umb_last_error.restype = ctypes.c_char_p
r = ctypes.c_void_p(lib.umb_restrictions__new())
err = ctypes.c_char_p()
if lib.umb_restrictions__parse(r, ",".join("fs:" + l for l in levels).encode(),
                               ctypes.byref(err)) < 0:
    sys.exit("parse: %s" % err.value)
sys.stdout.flush()
pid = lib.umb_rfork(r, 0)
if pid < 0:
    e = ctypes.get_errno()
    print("rfork: %s: %s" % (errno.errorcode.get(e, e), (lib.umb_last_error() or b"").decode()),
          flush=True)
    for _ in range(1200 if len(sys.argv) > 5 else 0):
        if os.path.exists(sys.argv[5]):
            break
        time.sleep(0.1)
    sys.exit(0)
if pid == 0:
    res = []
    for name, path in (("f", p + "/f"), ("open", base + "/open")):
        try:
            with open(path) as f:
                res.append("%s=read:%s" % (name, f.read()))
        except PermissionError:
            res.append("%s=denied" % name)
    print(" ".join(res), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
PY
chmod 644 "$tmp/chain.py"
lib=$build/libumbrella/libumbrella.so.0

# chain NAME LEVELS LEAVES [GO]: chain.py as user 65534 in a namespace of its own, on
# $tmp/NAME; at most 150 s (the old code held umbrellad for minutes). Its output in
# $out; with GO, in the background, its output in $tmp/NAME.out.
chain() {
	mkdir -p "$tmp/$1"
	local run=(timeout 150 setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Urm
		"$py" "$tmp/chain.py" "$lib" "$tmp/$1" "$2" "$3" ${4:+"$4"})
	if [ -n "${4:-}" ]; then
		"${run[@]}" >"$tmp/$1.out" 2>&1 &
	else
		out=$("${run[@]}" 2>&1)
	fi
}

check_start "$tmp/umbrellad.log" "umbrellad starts and listens"
chmod 755 "$(dirname "$UMBRELLA_SOCKET")"

chain small 4 2
[ "$out" = "f=denied open=allowed" ] || [ "$out" = "f=denied open=read:fine" ]
check $? "a user's chain of 4 bind mounts and 2 leaves, a rule on each level: its layer denies f, reads open"

# The user's process stays (its namespace with it) until root's rfork below is done.
chain big "$levels" "$leaves" "$tmp/big.go"
chain_pid=$!
for _ in $(seq 1300); do
	grep -q '^rfork' "$tmp/big.out" 2>/dev/null && break
	sleep 0.1
done
out=$(cat "$tmp/big.out")
echo "# $out"
[[ "$out" == "rfork: E2BIG: "*"past umbrellad's budget for one request"* ]]
check $? "the same with $levels levels and $leaves leaves: its request fails with E2BIG, the message names the budget"

mkdir -p "$tmp/root" && echo secret >"$tmp/root/secret" && echo fine >"$tmp/root/open"
out=$(timeout 60 "$cli" run -r "fs:$tmp/root/secret" -- \
	sh -c "cat $tmp/root/secret; cat $tmp/root/open" 2>&1)
[[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret ]] && [[ "$out" == *fine* ]]
check $? "then, the user's namespace still there, root's rfork is served: its layer denies secret, reads open"
touch "$tmp/big.go"
wait "$chain_pid"
kill -0 "$daemon"
rc=$?
out=$(cat "$tmp/umbrellad.log")
check $rc "umbrellad is still running"

tap_done
