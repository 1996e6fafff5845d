#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrella-cli run tells its user what the layer denied (UMB_OP_FOLLOW), root
# and a user alike, and nobody learns of another user's denials (TAP). Each denial is
# an actual failed open, beside a run that denies nothing.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
log=$(mktemp)
# The helper scripts below live here, not in the build tree: the other kernel's VM runs
# this test at the same time on the same build tree. 755: nobody runs some of them.
tmp=$(mktemp -d)
chmod 755 "$tmp"

as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
# stdout and stderr apart: the explanation is run's, on stderr.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }

# A client of the socket (python): LAYER... follows each LAYER (0: the layers it asks
# for from now on) on one connection and prints each reply's error; with FLAG set in
# the environment, it then prints "ready", waits for the file FLAG, ends the stream and
# prints "records=N end=1".
cat >"$tmp/follow-client" <<'PY'
#!/usr/bin/python3
import os, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.environ["UMBRELLA_SOCKET"])
errors = []
for layer in map(int, sys.argv[1:]):
    body = struct.pack("I", layer) if layer else b""
    s.send(struct.pack("IIII", 3, 5, os.getpid(), 0) + body)
    errors.append(str(struct.unpack("i", s.recv(4096)[:4])[0]))
print(" ".join(errors), flush=True)
flag = os.environ.get("FLAG")
if flag:
    print("ready", flush=True)
    while not os.path.exists(flag):
        time.sleep(0.05)
    s.send(struct.pack("IIII", 3, 5, os.getpid(), 1))
    records, end = 0, 0
    while True:
        m = s.recv(4096)
        if len(m) != 456:
            break
        if struct.unpack("I", m[:4])[0] == 2:
            end = 1
            break
        records += 1
    print("records=%d end=%d" % (records, end), flush=True)
PY
chmod 755 "$tmp/follow-client"
follow=$tmp/follow-client

start_daemon "$log"
rc=$?
out=$(tail -n 40 "$log")
check $rc "umbrellad starts and listens"

run "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" =~ "umbrella: denied open /etc/hostname (fs:/etc, layer "[0-9]+")" ]]
check $? "root: run names the denied open, its path and the rule: $(grep -m1 hostname "$tmp/err")"

# A command whose own code the layer would deny mapping is refused before its exec,
# naming the rule (126), where run can know; beside it, the same command under a rule
# that leaves its code alone runs.
run "$cli" run -r exec-unsigned -- true
[ "$rc" = 126 ] && [[ "$err" == *"true: not run: exec-unsigned denies mapping $(realpath /bin/true) (the program): it has no signature"* ]] &&
	[[ "$err" != *"denied mmap"* ]]
check $? "run -r exec-unsigned -- true (unsigned) is refused before the exec (exit $rc)"
run "$cli" run -r fs:/ -- true
[ "$rc" = 126 ] && [[ "$err" == *"not run: fs:/ denies mapping"* ]]
check $? "run -r fs:/ -- true is refused before the exec (exit $rc)"
run "$cli" run -r fs:/:w -- true
[ "$rc" = 0 ] && [ -z "$err" ]
check $? "control: run -r fs:/:w -- true runs (exit $rc)"
mkdir -p "$tmp/bin" "$tmp/other"
cp /bin/true "$tmp/bin/prog"
ln "$tmp/bin/prog" "$tmp/other/prog"
run "$cli" run -r "fs:$tmp/bin:x" -- "$tmp/bin/prog"
[ "$rc" = 126 ] && [[ "$err" == *"not run: fs:$tmp/bin:x denies mapping $tmp/bin/prog (the program)"* ]]
check $? "fs:DIR:x over the command is refused before the exec (exit $rc)"
run "$cli" run -r "fs:$tmp/bin:w" -- "$tmp/bin/prog"
[ "$rc" = 0 ]
check $? "control: fs:DIR:w over the command runs it (exit $rc)"
# Reached by another name (a hard link), run cannot know; the kernel denies all the
# same, and the command killed for want of its own code is told why, in words.
run "$cli" run -r "fs:$tmp/bin/prog:x" -- "$tmp/other/prog"
[ "$rc" = 139 ] && [[ "$err" == *"denied mmap"* ]] &&
	[[ "$err" == *"prog was killed (Segmentation fault) because the layer denied mapping its own code"* ]]
check $? "a command killed for want of its own code is told why (exit $rc)"
run "$cli" run -r fs:/nonexistent -- sh -c 'kill -SEGV $$'
[ "$rc" = 139 ] && [[ "$err" != *"was killed"* ]]
check $? "control: a command that kills itself with SIGSEGV is not blamed on the layer (exit $rc)"

run "$cli" run -r fs:/etc/ -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" =~ "umbrella: denied open /etc/hostname (fs:/etc/, layer "[0-9]+")" ]]
check $? "a rule written with a trailing slash is named as written"

run "$cli" run -r fs:/etc:w,fs:/etc/hostname:r -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open /etc/hostname (fs:/etc/hostname:r, layer "* ]]
check $? "the rule named is the deepest item that denies the access"

mkdir -p "$tmp/deep/er"
touch "$tmp/deep/er/file"
run "$cli" run -r "fs:$tmp/deep" -- stat "$tmp/deep/er/file"
[ "$rc" != 0 ] && [[ "$err" == *"umbrella: denied getattr $tmp/deep/er/file (fs:$tmp/deep, layer "* ]]
check $? "a getattr denial names the whole path, not only its last name" "$err"

esc=$(printf 'a\033]0;owned\007b')
mkdir -p "$tmp/esc"
touch "$tmp/esc/$esc"
run "$cli" run -r "fs:$tmp/esc" -- cat "$tmp/esc/$esc"
[ "$rc" = 1 ] && [[ "$err" == *'umbrella: denied open '"$tmp"'/esc/a\x1b]0;owned\x07b (fs:'* ]] &&
	! grep '^umbrella:' "$tmp/err" | grep -q "$(printf '\033')"
check $? "an escape sequence in a denied path reaches the terminal as text (\\xNN)"

# Each record names the hook that denied, as umbrellad logs it and run explains it: an
# actual denied call beside one that the same layer allows.
# logged HOOK RESTRICTION OBJECT: umbrellad logged a denial with these fields.
logged() {
	local _
	for _ in $(seq 50); do
		out=$(grep -F "hook=$1 restriction=$2 layer=" "$log" | grep -F "object=$3")
		[ -n "$out" ] && return 0
		sleep 0.1
	done
	out=$(grep 'denied:' "$log" | tail -n 5)
	return 1
}
mkdir -p "$tmp/ro"
touch "$tmp/ro/file" "$tmp/rw"
run "$cli" run -r "fs:$tmp/ro:w" -- sh -c "rm -f '$tmp/ro/file' || rm -f '$tmp/rw'"
[ -e "$tmp/ro/file" ] && [ ! -e "$tmp/rw" ] &&
	[[ "$err" == *"umbrella: denied unlink $tmp/ro/file (fs:$tmp/ro:w, layer "* ]] &&
	logged path_unlink fs:w "$tmp/ro/file"
check $? "unlink: denied as path_unlink, a file outside the rule is removed"

# The records of the path hooks (where the kernel lets no BPF program call bpf_d_path)
# name the whole path, on 6.1 and 6.12 alike (lib/dpath.bpf.h): each call denied on an
# object two levels below the restricted directory, the same call allowed beside it.
cat >"$tmp/path-call" <<'PY'
#!/usr/bin/python3
# path-call CALL PATH: truncate(2) or setxattr(2) of PATH; prints "denied" or "allowed".
import os, sys
try:
    if sys.argv[1] == "truncate":
        os.truncate(sys.argv[2], 0)
    else:
        os.setxattr(sys.argv[2], "trusted.umbrella-test", b"1")
    print("allowed")
except OSError:
    print("denied")
PY
chmod 755 "$tmp/path-call"
w=$tmp/wr/a/b   # under the rule
f=$tmp/free/a/b # beside it
mkdir -p "$w/gone" "$f/gone"
echo data >"$w/file"
# path_op HOOK OBJECT BODY: the shell function BODY (of a directory, $1) is denied on
# $w and then allowed on $f, each object made anew there; run explains HOOK on OBJECT,
# and umbrellad logs it.
path_op() {
	echo data >"$f/file"
	run "$cli" run -r "fs:$tmp/wr:w" -- sh -c "op() { $3; }; ! op \"\$1\" 2>/dev/null && op \"\$2\"" \
		sh "$w" "$f"
	[ "$rc" = 0 ] && [[ "$err" == *"umbrella: denied ${1#*_} $2 (fs:$tmp/wr:w, layer "* ]] &&
		logged "$1" fs:w "$2"
}
path_op path_mkdir "$w/new" 'mkdir "$1/new"' && [ ! -e "$w/new" ] && [ -d "$f/new" ]
check $? "mkdir: the record names the whole path of the new directory" "$err"
path_op path_rename "$w/file" 'mv "$1/file" "$1/moved"' && [ -e "$w/file" ] && [ -e "$f/moved" ]
check $? "rename: the record names the whole path of the object moved" "$err"
path_op path_link "$w/file" 'ln "$1/file" "$1/hard"' && [ ! -e "$w/hard" ] && [ -e "$f/hard" ]
check $? "link: the record names the whole path of the object linked" "$err"
path_op path_symlink "$w/sym" 'ln -s file "$1/sym"' && [ ! -L "$w/sym" ] && [ -L "$f/sym" ]
check $? "symlink: the record names the whole path of the new link" "$err"
path_op path_chmod "$w/file" 'chmod 600 "$1/file"' &&
	[ "$(stat -c %a "$w/file")" != 600 ] && [ "$(stat -c %a "$f/file")" = 600 ]
check $? "chmod: the record names the whole path" "$err"
path_op path_chown "$w/file" 'chown 1:1 "$1/file"' &&
	[ "$(stat -c %u "$w/file")" = 0 ] && [ "$(stat -c %u "$f/file")" = 1 ]
check $? "chown: the record names the whole path" "$err"
path_op path_truncate "$w/file" "[ \$($tmp/path-call truncate \"\$1/file\") = allowed ]" &&
	[ -s "$w/file" ] && [ ! -s "$f/file" ]
check $? "truncate(2): the record names the whole path" "$err"
# A hook that gives no mount: the path is found through the file system's mount.
path_op inode_setxattr "$w/file" "[ \$($tmp/path-call setxattr \"\$1/file\") = allowed ]"
check $? "setxattr (a hook without the mount): the record names the whole path" "$err"
path_op path_unlink "$w/file" 'rm "$1/file"' && [ -e "$w/file" ] && [ ! -e "$f/file" ]
check $? "unlink: the record names the directory's path and the name" "$err"
path_op path_rmdir "$w/gone" 'rmdir "$1/gone"' && [ -d "$w/gone" ] && [ ! -e "$f/gone" ]
check $? "rmdir: the record names the directory's path and the name" "$err"
# An object unlinked while it is still open is named as d_path() names it: chmod of
# /proc/self/fd/3, a file of the restricted directory removed meanwhile. (The chmod
# above, of a file that is there, says no " (deleted)".)
echo data >"$w/del"
exec 3<"$w/del"
rm "$w/del"
run "$cli" run -r "fs:$tmp/wr:w" -- chmod 600 /proc/self/fd/3
exec 3<&-
[ "$rc" != 0 ] && [[ "$err" == *"umbrella: denied chmod $w/del (deleted) (fs:$tmp/wr:w, layer "* ]] &&
	logged path_chmod fs:w "$w/del (deleted)"
check $? "an unlinked object is named with ' (deleted)', as d_path() does" "$err"
# A hook without the mount (setxattr) on a file system mounted twice: the path is
# through one of its mounts, and the record says that the task may have used another.
# The control: once the second mount is gone, the same call's record says nothing more.
mkdir -p "$tmp/m1" "$tmp/m2"
mount -t tmpfs umbrella-test "$tmp/m1" && mount --bind "$tmp/m1" "$tmp/m2" &&
	touch "$tmp/m1/file"
run "$cli" run -r "fs:$tmp/m1:w" -- "$tmp/path-call" setxattr "$tmp/m2/file"
[ "$out" = denied ] &&
	[[ "$err" == *"umbrella: denied setxattr $tmp/m"[12]"/file (via one of several mounts) (fs:"* ]] &&
	logged inode_setxattr fs:w "$tmp/m" && [[ "$out" == *"/file (via one of several mounts)"* ]]
check $? "setxattr on a file system mounted twice: the record says 'via one of several mounts'" "$err"
umount "$tmp/m2"
run "$cli" run -r "fs:$tmp/m1:w" -- "$tmp/path-call" setxattr "$tmp/m1/file"
[ "$out" = denied ] && [[ "$err" == *"umbrella: denied setxattr $tmp/m1/file (fs:$tmp/m1:w, layer "* ]]
check $? "the control: mounted once, the record names it through that mount, unmarked" "$err"
umount "$tmp/m1"
# The marks above a restricted path (lib/ancestors.bpf.h) name the whole path too: a
# directory above the rule may not move, one beside it may.
mkdir -p "$tmp/anc/a/b" "$tmp/anc/free"
run "$cli" run -r "fs:$tmp/anc/a/b" -- sh -c \
	"! mv '$tmp/anc/a' '$tmp/anc/moved' 2>/dev/null && mv '$tmp/anc/free' '$tmp/anc/free2'"
[ "$rc" = 0 ] && [ -d "$tmp/anc/a/b" ] && [ -d "$tmp/anc/free2" ] &&
	[[ "$err" == *"umbrella: denied rename $tmp/anc/a ("* ]] &&
	logged path_rename fs:w "$tmp/anc/a"
check $? "rename of a directory above a restricted path: the record names its whole path" "$err"
# A path longer than the record holds begins with "...", never a wrong path.
long=$w
for i in 1 2 3; do long=$long/$(printf 'l%.0s' $(seq 90)); done
mkdir -p "$long"
run "$cli" run -r "fs:$tmp/wr:w" -- mkdir "$long/new"
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied mkdir .../l"*"l/new (fs:w, layer "* ]] &&
	logged path_mkdir fs:w ".../l"
check $? "a path too long for the record begins with '...'" "$err"

cat >"$tmp/explain-calls" <<'PY'
#!/usr/bin/python3
# explain-calls CALL: makes the call CALL, then the same kind of call that is allowed;
# prints "denied" or "allowed" for each.
import fcntl, os, socket, sys
def attempt(f):
    try:
        f()
        print("allowed")
    except OSError:
        print("denied")
fd = os.open("/dev/null", os.O_RDONLY)
calls = {
    # F_SETOWN to another process, then to itself.
    "fcntl": (lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, 1),
              lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())),
    # A new gid, then the one it has (nothing changes).
    "setgid": (lambda: os.setgid(4242), lambda: os.setgid(os.getgid())),
    "inet6": (lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close(),
              lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close()),
}
for f in calls[sys.argv[1]]:
    attempt(f)
PY
chmod 755 "$tmp/explain-calls"
calls=$tmp/explain-calls

run "$cli" run -r signal -- "$calls" fcntl
[ "$out" = "$(printf 'denied\nallowed')" ] &&
	[[ "$err" == *"umbrella: denied fcntl - (signal, layer "* ]] && logged file_fcntl signal -
check $? "fcntl(F_SETOWN) of another process: denied as file_fcntl, of itself allowed"

run "$cli" run -r setid -- "$calls" setgid
[ "$out" = "$(printf 'denied\nallowed')" ] &&
	[[ "$err" == *"umbrella: denied setgid - (setid, layer "* ]] && logged task_fix_setgid setid -
check $? "setgid(2) to a new gid: denied as task_fix_setgid, to its own allowed"

run "$cli" run -r net -- "$calls" inet6
[ "$out" = "$(printf 'denied\nallowed')" ] &&
	[[ "$err" == *"umbrella: denied create socket inet6 (net, layer "* ]] &&
	logged socket_create net "socket inet6"
check $? "an inet6 socket under net: the record names the family, a unix socket is allowed"

run "$cli" run -r net:inet6 -- "$calls" inet6
[ "$out" = "$(printf 'denied\nallowed')" ] &&
	[[ "$err" == *"umbrella: denied create socket inet6 (net:inet6, layer "* ]] &&
	logged socket_create net:inet6 "socket inet6"
check $? "an inet6 socket under net:inet6: the record names the family"

run "$cli" run -q -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"Permission denied"* ]] && [[ "$err" != *"umbrella:"* ]]
check $? "-q (--quiet): denied all the same, and nothing explained"

# Grouping and choosing the lines, on files of our own (under /etc, ld.so and the
# locale would add denials of their own).
xd=$tmp/explain-many
mkdir -p "$xd"
for f in a b c d e f g; do echo "$f" >"$xd/$f"; done
run "$cli" run -r "fs:$xd" -- sh -c 'for i in 1 2 3; do cat "$1/a" 2>/dev/null; done; :' _ "$xd"
[ "$rc" = 0 ] && [ "$(grep -c '^umbrella: denied ' "$tmp/err")" = 1 ] &&
	[[ "$err" == *"umbrella: denied open $xd/a (fs:$xd, layer "[0-9]*"), 3 times"* ]]
check $? "the same denial three times: one line with a count ($err)"

run "$cli" run -r "fs:$xd" -- sh -c 'for f in a b c d e f g; do cat "$1/$f" 2>/dev/null; done; :' _ "$xd"
shown=$(grep -c '^umbrella: denied ' "$tmp/err")
[ "$rc" = 0 ] && [ "$shown" = 5 ] &&
	[[ "$err" =~ "umbrella: 2 more denials, see umbrella-cli events --layer "[0-9]+ ]]
check $? "many denials: the first 5 lines, then a count ($(tail -n1 "$tmp/err"))"

# The one denial of a rarer kind is shown, not counted behind the many of another kind.
run "$cli" run -r "fs:$xd,net:inet6" -- sh -c 'for f in a b c d e f; do cat "$1/$f" 2>/dev/null; done; "$2" inet6 >/dev/null; :' _ "$xd" "$calls"
[ "$rc" = 0 ] && [ "$(grep -c '^umbrella: denied ' "$tmp/err")" = 5 ] &&
	[[ "$err" == *"umbrella: denied create socket inet6 (net:inet6, layer "* ]] &&
	[[ "$err" =~ "umbrella: 2 more denials" ]]
check $? "six fs denials and one net: the net one has a line of its own ($err)"

run as_nobody "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open /etc/hostname (fs:/etc, layer "* ]]
check $? "a user (nobody) is told about the denials of the command they restricted"

run as_nobody "$cli" run -r fs:/usr/share/doc -- cat /etc/hostname
[ "$rc" = 0 ] && [ "$out" = "$(cat /etc/hostname)" ] && [ -z "$err" ]
check $? "a run that is denied nothing says nothing on stderr (exit $rc)" "$err"

# Root's layer, alive for a while: its id from task show.
"$cli" run -r fs:/etc -- sleep 60 2>/dev/null &
root_run=$!
layer=
for _ in $(seq 100); do
	child=$(pgrep -P "$root_run")
	[ -n "$child" ] && layer=$("$cli" task show "$child" --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["layers"][-1]["id"])' 2>/dev/null)
	[ -n "$layer" ] && break
	sleep 0.1
done
[ -n "$layer" ]
check $? "root's run has a layer ($layer)"
out=$(as_nobody "$follow" "$layer" 999999)
out_root=$("$follow" "$layer")
[ "$out" = "-1 -1" ] && [ "$out_root" = 0 ]
check $? "following root's layer over the socket: refused to nobody (EPERM), also a layer that does not exist; root may ($out, $out_root)"
kill -TERM "$root_run"
wait "$root_run"

# nobody follows its own new layers while root's run is denied: it hears nothing.
FLAG=$tmp/flag as_nobody "$follow" 0 >"$tmp/spy" 2>&1 &
spy=$!
for _ in $(seq 100); do grep -q ready "$tmp/spy" && break; sleep 0.1; done
run "$cli" run -r fs:/etc -- cat /etc/hostname
touch "$tmp/flag"
wait "$spy"
grep -qx 0 "$tmp/spy" && grep -qx 'records=0 end=1' "$tmp/spy" && [[ "$err" == *"umbrella: denied open"* ]]
check $? "another user's follow connection gets none of root's denials: $(tr '\n' ' ' <"$tmp/spy")"

# In the permissive system mode the layer kills nothing: run refuses nothing before the
# exec either (root reads the mode from the pins).
kill "$daemon"
wait "$daemon"
pin=/sys/fs/bpf/umbrella-run-explain-test
printf 'mode = permissive\n' >"$tmp/permissive.conf"
start_daemon "$log" --pin-dir "$pin" --config "$tmp/permissive.conf"
run "$cli" --pin-dir "$pin" run -r fs:/ -- true
[ "$rc" = 0 ] && [[ "$err" != *"not run"* ]]
check $? "permissive mode: run -r fs:/ -- true is not refused before the exec, and runs (exit $rc)"

kill "$daemon"
wait "$daemon"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
rm -rf "$log" "$tmp"
tap_done
