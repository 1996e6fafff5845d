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
run -r "fs:$t/mp/f" -- unshare -m --propagation private sh -c \
	"umount $t/mp && mv $t/mp $t/mp.old"
[ "$rc" != 0 ] && [ -d "$t/mp" ] && [ ! -e "$t/mp.old" ] && mountpoint -q "$t/mp"
check $? "fs:mp/f: in a new mount namespace, unmounting mp (above mp/f) and renaming it fails"
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
# directory, which uncovers the directory below.
mkdir -p "$t/m/d" "$t/free" "$t/mm"
echo secret >"$t/m/d/secret" && echo evil >"$t/evil" && mount -t tmpfs umbrella-test "$t/mm" &&
	mkdir "$t/mm/d" && echo secret >"$t/mm/d/secret"
check $? "setup: m/d/secret, and mm/d/secret on a tmpfs mounted on mm"

run -r "fs:$t/m/d/secret" -- mount -t tmpfs umbrella-test "$t/m"
# (mount(8) takes EACCES for a read-only device, tries again read-only and says so)
[ "$rc" != 0 ] && ! mountpoint -q "$t/m"
check $? "fs:m/d/secret: mounting a tmpfs over m fails"
mountpoint -q "$t/m" && umount "$t/m"

run -r "fs:$t/m/d/secret" -- mount --bind "$t/evil" "$t/m/d/secret"
[ "$rc" != 0 ] && [ "$(cat "$t/m/d/secret")" = secret ]
check $? "fs:m/d/secret: a bind mount over m/d/secret fails"
mountpoint -q "$t/m/d/secret" && umount "$t/m/d/secret"

run -r "fs:$t/m/d/secret" -- sh -c "mount -t tmpfs umbrella-test $t/free && umount $t/free"
[ "$rc" = 0 ] && ! mountpoint -q "$t/free"
check $? "fs:m/d/secret: mounting and unmounting a tmpfs on an unrelated directory works"

run -r "fs:$t/mm/d/secret" -- umount "$t/mm"
[ "$rc" != 0 ] && mountpoint -q "$t/mm"
check $? "fs:mm/d/secret: unmounting mm, which holds the path's directory, fails"
mountpoint -q "$t/mm" || { mount -t tmpfs umbrella-test "$t/mm" && mkdir "$t/mm/d"; }

run -r "fs:$t/mm/d/secret" -- mount --move "$t/mm" "$t/free"
[ "$rc" != 0 ] && mountpoint -q "$t/mm" && ! mountpoint -q "$t/free"
check $? "fs:mm/d/secret: moving the mount on mm away fails"
mountpoint -q "$t/free" && umount "$t/free"

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
