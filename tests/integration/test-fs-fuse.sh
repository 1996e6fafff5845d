#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: a caller's descriptor of a FUSE mount whose server never answers does not
# stall umbrellad (TAP). umbrellad has one thread: a call into such a file system
# (fstatfs() or fstat() of the descriptor, which FUSE sends to its server) would hold
# every other caller until the watchdog. It tells the file system and whether the
# object is a directory from the mount and /proc/self/fd, which ask the server
# nothing. The server here is /dev/fuse opened and never read: the mount's INIT is
# never answered, so every request to it waits.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
vm_test /run/umbrella-test/umbrellad.sock
log=$tmp/umbrellad.log
cleanup_first() {
	umount -l "$tmp/fuse" 2>/dev/null
	exec 7>&- # closing the server's end aborts the connection: waiting requests fail
}
trap vm_cleanup EXIT

check_start "$log" "umbrellad starts"

mkdir -p "$tmp/fuse"
load_module fuse && exec 7<>/dev/fuse &&
	out=$(mount -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions \
		stalled "$tmp/fuse" 2>&1)
check $? "a FUSE mount whose server never answers"

# The reason, measured here: a call into it waits.
timeout -k 2 3 stat -f "$tmp/fuse" >/dev/null 2>&1
rc=$?
out="stat -f: rc=$rc"
[ "$rc" = 124 ]
check $? "statfs of the FUSE mount waits on its server"

out=$(timeout -k 5 30 "$cli" run -r "fs:$tmp/fuse" -- echo ran 2>&1)
rc=$?
out="rc=$rc $out"
[ "$rc" = 0 ] && [[ "$out" == *ran* ]]
check $? "a rule on the FUSE mount is made without waiting on its server"

out=$(timeout -k 5 30 "$cli" run -r fs:/etc/hostname -- cat /etc/hostname 2>&1)
rc=$?
out="rc=$rc $out"
[ "$rc" != 0 ] && [ "$rc" != 124 ] && [[ "$out" == *"Permission denied"* ]]
check $? "umbrellad still answers: fs:/etc/hostname denies cat /etc/hostname"

tap_done
