#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: a restricted path keeps its rule against renames and removals of the
# directories above it (TAP). With "fs:T/a/b/secret", a restricted task that renamed
# T/a (or T/a/b) away and made a new T/a/b/secret would have a file there that the rule
# does not name, which every other process then reads by that name. So a task may not
# rename, replace, exchange (RENAME_EXCHANGE) or remove a directory above a path that
# one of its layers restricts, nor a directory something is mounted on (in any mount
# namespace: "unshare -m; umount; mv" would rename the host's mount point), nor mount
# over one, or over what its rules deny w on, or unmount or move the mount that holds
# one. And a rule on a directory holds for a file system mounted below it, also through
# a bind mount or an open_tree() clone of that mount elsewhere. Each denial is an
# actual failed syscall, beside a control that works.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
log=$(mktemp)
tmp=$(mktemp -d)
t=$tmp/t
py=/usr/bin/python3

run() { out=$("$cli" run "$@" 2>&1); rc=$?; }

# Puts back what a check that failed (on a kernel or build without the fix) moved, so
# that the next checks start from the same tree.
restore() { # DIR
	[ -e "$1.old" ] || return 0
	rm -rf "$1"
	mv "$1.old" "$1"
}

# renameat2(OLD, NEW, RENAME_EXCHANGE) in python (coreutils 9.1 has no mv --exchange).
exchange='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)
if r:
    sys.exit(os.strerror(ctypes.get_errno()))'

# mount(2), umount(2) and move_mount(2) in python, so that a check sees the errno itself:
# mnt mount SRC TARGET FSTYPE FLAGS | umount TARGET | move_mount FROM TO prints "ok" or
# the errno's name.
mnt='import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a = [x.encode() for x in sys.argv[2:]]
if sys.argv[1] == "mount":
    r = libc.mount(a[0], a[1], a[2], ctypes.c_ulong(int(a[3])), None)
elif sys.argv[1] == "umount":
    r = libc.umount2(a[0], 0)
else:  # open_tree(2) of the mount at FROM (no clone: that mount), move_mount(2) to TO
    r = fd = libc.syscall(428, -100, a[0], os.O_CLOEXEC)
    if fd >= 0:
        r = libc.syscall(429, fd, b"", -100, a[1], 4)  # MOVE_MOUNT_F_EMPTY_PATH
n = ctypes.get_errno()
print("ok" if r == 0 else errno.errorcode.get(n, str(n)))'
MS_BIND=4096 MS_MOVE=8192

start_daemon "$log"
check $? "umbrellad starts and listens"

mkdir -p "$t/a/b" "$t/a/c" "$t/other/sub" "$t/e" "$t/empty" "$t/g" "$t/newg" "$t/x" \
	"$t/mp" "$t/mpok"
echo secret >"$t/a/b/secret"
mount -t tmpfs umbrella-test "$t/mp" && mount -t tmpfs umbrella-test "$t/mpok"
check $? "setup: the scratch tree and two tmpfs mounts are made"
secret=fs:$t/a/b/secret

run -r "$secret" -- sh -c "mv $t/a $t/a.old && mkdir -p $t/a/b && echo evil >$t/a/b/secret"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ -d "$t/a" ] && [ ! -e "$t/a.old" ] &&
	[ "$(cat "$t/a/b/secret")" = secret ]
check $? "fs:a/b/secret: renaming a away (to make a new a/b/secret) fails with EACCES"
restore "$t/a"

run -r "$secret" -- mv "$t/a/b" "$t/a/b.old"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ -d "$t/a/b" ]
check $? "fs:a/b/secret: renaming its directory a/b fails with EACCES"
restore "$t/a/b"

run -r "$secret" -- mv "$t/other" "$t/other2"
[ "$rc" = 0 ] && [ -d "$t/other2" ] && mv "$t/other2" "$t/other"
check $? "fs:a/b/secret: renaming an unrelated directory works"

run -r "$secret" -- mv "$t/a/c" "$t/c"
[ "$rc" = 0 ] && [ -d "$t/c" ]
check $? "fs:a/b/secret: renaming a/c, beside the restricted path, works"

run -r "$secret" -- "$py" -c "$exchange" "$t/x" "$t/a"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ -f "$t/a/b/secret" ]
check $? "fs:a/b/secret: RENAME_EXCHANGE of an empty directory with a fails with EACCES"

run -r "$secret" -- "$py" -c "$exchange" "$t/x" "$t/other"
[ "$rc" = 0 ] && [ -d "$t/x/sub" ]
check $? "fs:a/b/secret: RENAME_EXCHANGE of two unrelated directories works"

# A rule on a path that does not exist yet: its directory g is empty, so it could be
# removed or replaced by rename, taking the name rule along.
run -r "fs:$t/g/h" -- sh -c "rmdir $t/g && mkdir $t/g"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ -d "$t/g" ]
check $? "fs:g/h (not made yet): removing the empty directory g fails with EACCES"

run -r "fs:$t/g/h" -- mv -T "$t/newg" "$t/g"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ -d "$t/newg" ]
check $? "fs:g/h: renaming another directory over g fails with EACCES"

run -r "fs:$t/g/h" -- rmdir "$t/empty"
[ "$rc" = 0 ] && [ ! -e "$t/empty" ]
check $? "fs:g/h: removing an unrelated empty directory works"

# The mount point of a mount in another namespace (the host's): unmounted in a new
# namespace, the directory below could be renamed, and the host's mount with it.
# Each step is tried: the umount(2) (of the mount holding mp/f's directory) and the mv.
run -q -r "fs:$t/mp/f" -- unshare -m --propagation private sh -c \
	"$py -c '$mnt' umount $t/mp; mv $t/mp $t/mp.old"
[ "$rc" != 0 ] && [[ "$out" == "EACCES"*"mv: "*"Permission denied"* ]] && [ -d "$t/mp" ] &&
	[ ! -e "$t/mp.old" ] && mountpoint -q "$t/mp"
check $? "fs:mp/f: in a new mount namespace, unmounting mp (above mp/f) and renaming it fail with EACCES"
[ -e "$t/mp.old" ] && umount "$t/mp.old" && rmdir "$t/mp.old" && mkdir "$t/mp" &&
	mount -t tmpfs umbrella-test "$t/mp"

run -r "fs:$t/mp/f" -- unshare -m --propagation private sh -c \
	"umount $t/mpok && mv $t/mpok $t/mpok.old"
out="$out rc=$rc"
[[ "$out" == *"Permission denied"* ]] && [ -d "$t/mpok" ]
check $? "fs:mp/f: so does renaming an unrelated mount point (any mount point is refused)"
[ -e "$t/mpok.old" ] && umount "$t/mpok.old" && rmdir "$t/mpok.old" && mkdir "$t/mpok" &&
	mount -t tmpfs umbrella-test "$t/mpok"

# Mounts that would hide a restricted path (the layers have no "mount" item): over a
# directory above it, over the object, or unmounting or moving the mount that holds its
# directory, which uncovers the directory below. Each call is made by mnt (above), which
# prints the errno's name: the hooks' own (EACCES from the walk; EPERM for MS_MOVE,
# which every task with fs rules is refused), not mount(8)'s retries or a missing
# program (exit 125-127 of the wrapper); -q: only the program's output.
MS_BIND=4096 MS_MOVE=8192
mkdir -p "$t/m/d" "$t/free" "$t/mm" "$t/free2"
echo secret >"$t/m/d/secret" && echo evil >"$t/evil" && mount -t tmpfs umbrella-test "$t/mm" &&
	mkdir "$t/mm/d" && echo secret >"$t/mm/d/secret"
check $? "setup: m/d/secret, and mm/d/secret on a tmpfs mounted on mm"

run -q -r "fs:$t/m/d/secret" -- "$py" -c "$mnt" mount umbrella-test "$t/m" tmpfs 0
[ "$rc" = 0 ] && [ "$out" = EACCES ] && ! mountpoint -q "$t/m"
check $? "fs:m/d/secret: mount(2) of a tmpfs over m fails with EACCES ($out)"
mountpoint -q "$t/m" && umount "$t/m"

run -q -r "fs:$t/m/d/secret" -- "$py" -c "$mnt" mount "$t/evil" "$t/m/d/secret" none $MS_BIND
[ "$rc" = 0 ] && [ "$out" = EACCES ] && [ "$(cat "$t/m/d/secret")" = secret ]
check $? "fs:m/d/secret: a bind mount over m/d/secret fails with EACCES ($out)"
mountpoint -q "$t/m/d/secret" && umount "$t/m/d/secret"

run -q -r "fs:$t/m/d/secret" -- sh -c "$py -c '$mnt' mount umbrella-test $t/free tmpfs 0 &&
	mountpoint -q $t/free && $py -c '$mnt' umount $t/free"
[ "$rc" = 0 ] && [ "$out" = "ok
ok" ] && ! mountpoint -q "$t/free"
check $? "fs:m/d/secret: mount(2) and umount(2) of a tmpfs on an unrelated directory work"

run -q -r "fs:$t/mm/d/secret" -- "$py" -c "$mnt" umount "$t/mm"
[ "$rc" = 0 ] && [ "$out" = EACCES ] && mountpoint -q "$t/mm"
check $? "fs:mm/d/secret: umount(2) of mm, which holds the path's directory, fails with EACCES ($out)"
mountpoint -q "$t/mm" || { mount -t tmpfs umbrella-test "$t/mm" && mkdir "$t/mm/d"; }

run -q -r "fs:$t/mm/d/secret" -- "$py" -c "$mnt" mount "$t/mm" "$t/free" none $MS_MOVE
[ "$rc" = 0 ] && [ "$out" = EPERM ] && mountpoint -q "$t/mm" && ! mountpoint -q "$t/free"
check $? "fs:mm/d/secret: MS_MOVE of the mount on mm fails with EPERM ($out)"
mountpoint -q "$t/free" && umount "$t/free"

# The hook cannot resolve MS_MOVE's source (a string): every MS_MOVE is refused.
mount -t tmpfs umbrella-test "$t/free2"
run -q -r "fs:$t/mm/d/secret" -- "$py" -c "$mnt" mount "$t/free2" "$t/free" none $MS_MOVE
[ "$rc" = 0 ] && [ "$out" = EPERM ] && mountpoint -q "$t/free2"
check $? "fs:mm/d/secret: so does MS_MOVE of an unrelated mount ($out)"
mountpoint -q "$t/free" && umount "$t/free"

# move_mount(2) gives the hook the mount moved: only the one above the path is refused.
run -q -r "fs:$t/mm/d/secret" -- "$py" -c "$mnt" move_mount "$t/mm" "$t/free"
[ "$rc" = 0 ] && [ "$out" = EACCES ] && mountpoint -q "$t/mm" && ! mountpoint -q "$t/free"
check $? "fs:mm/d/secret: move_mount(2) of the mount on mm fails with EACCES ($out)"
mountpoint -q "$t/free" && umount "$t/free"

run -q -r "fs:$t/mm/d/secret" -- "$py" -c "$mnt" move_mount "$t/free2" "$t/free"
[ "$rc" = 0 ] && [ "$out" = ok ] && mountpoint -q "$t/free" && ! mountpoint -q "$t/free2"
check $? "fs:mm/d/secret: move_mount(2) of an unrelated mount works ($out)"
umount "$t/free" "$t/free2" 2>/dev/null

# A file system mounted below a restricted directory before the rule, reached through a
# copy of its mount elsewhere: the walk from a file there goes up to the copy's mount
# point, not to data. umbrellad puts data's rule on the roots of the mounts below it.
mkdir -p "$t/data/sub" "$t/okm" "$t/else"
mount -t tmpfs umbrella-test "$t/data/sub" && echo secret >"$t/data/sub/f" &&
	mount -t tmpfs umbrella-test "$t/okm" && echo fine >"$t/okm/f"
check $? "setup: tmpfs mounts on data/sub and okm"
data=fs:$t/data

run -r "$data" -- unshare -Urm sh -c "mount --bind $t/okm $t/else && cat $t/else/f"
[ "$rc" = 0 ] && [ "$out" = fine ]
check $? "fs:data: in a new user and mount namespace, a bind mount of okm is read"

run -r "$data" -- unshare -Urm sh -c "mount --bind $t/data/sub $t/else && cat $t/else/f"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]]
check $? "fs:data: a bind mount of the mount on data/sub elsewhere is not read (EACCES)"

# open_tree(OPEN_TREE_CLONE): a detached copy, reached by no LSM mount hook.
clone='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(428, -100, sys.argv[1].encode(), 1 | os.O_CLOEXEC)
if fd < 0:
    sys.exit("open_tree: " + os.strerror(ctypes.get_errno()))
print(os.read(os.open("f", os.O_RDONLY, dir_fd=fd), 100).decode(), end="")'

run -r "$data,mount" -- "$py" -c "$clone" "$t/okm"
[ "$rc" = 0 ] && [ "$out" = fine ]
check $? "fs:data,mount: a file in an open_tree() clone of okm is read"

run -r "$data,mount" -- "$py" -c "$clone" "$t/data/sub"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]]
check $? "fs:data,mount: a file in an open_tree() clone of data/sub is not read (EACCES)"

run --empty-layer -- mv "$t/a" "$t/a.old"
[ "$rc" = 0 ] && [ -f "$t/a.old/b/secret" ]
check $? "without restrictions renaming a works"

kill "$daemon"
wait "$daemon"
umount "$t/mp" "$t/mpok" "$t/data/sub" "$t/okm" "$t/mm"
rm -rf "$log" "$tmp"
tap_done
