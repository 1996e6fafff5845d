#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a signed policy's fs paths are walked one name at a time from PID 1's
# root, and no directory on the way may be one a user could change (daemon/system-paths.c).
# Copies of signed-cat on tmpfs, each signed with one fs item, in a directory $d (root's):
#   - fs:$d/root/X (every directory root's): X denied, Y beside it read (the control);
#     fs:$d/rlink/X, through root's link to $d/root, denies the same X;
#   - fs:$d/user/X, through a directory user nobody owns (who could rename it away
#     and make another: the rule would stay on the old X), is refused: the exec fails,
#     and umbrellad logs the directory;
#   - fs:$d/ww/X, through root's directory that others may write to (mode 0777, not
#     sticky), is refused; fs:$d/sticky/root/X through a sticky one (/tmp's mode) is not;
#   - fs:$d/sticky/ulink/X, through nobody's link in the sticky directory, is refused;
#   - fs:$d/sticky/fuse/X, where nobody's directory has a FUSE mount with allow_other
#     (a user's fusermount3 where fuse.conf has user_allow_other; made here by root
#     with user_id=65534) whose server never answers: refused by the mount's line,
#     without a question to the server, and umbrellad answers others meanwhile.
# A swap between a check and a resolution cannot be made to happen on demand: there is
# one walk, which this checks by its structure (links and directories judged on the way).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-signed-paths-test
export UMBRELLA_SOCKET=/run/umbrella-signed-paths-test/umbrellad.sock
tmp=$(mktemp -d) # /tmp: tmpfs in the VM, where verdicts are cached
ring=$tmp/keys
bin=$tmp/bin
d=$tmp/d
log=$tmp/d.log
daemon=
cleanup() {
	(for c in /sys/fs/fuse/connections/*/abort; do echo 1 >"$c"; done) 2>/dev/null
	umount -l "$d/sticky/fuse" 2>/dev/null
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export UMBRELLA_KEYRING=$ring
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

# Whether $out has the line "FILE: WHAT" (signed-cat's report of an open).
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
# runs NAME FILE...: run the copy $bin/NAME of signed-cat on FILE...; $out, $rc.
runs() {
	local name=$1
	shift
	out=$(timeout -k 5 90 "$bin/$name" "$@" 2>&1) # an exec the gate never answers: 124
	rc=$?
}
# refused NAME TEXT: the exec of $bin/NAME fails (signed-cat would read $d/root/Y,
# which no policy here denies) and umbrellad's log has TEXT.
refused() {
	runs "$1" "$d/root/Y"
	[ "$rc" != 0 ] && ! opened "$d/root/Y" ok && grep -qF -- "$2" "$log"
	local r=$?
	[ "$r" = 0 ] || out+=$'\n'"$(tail -n 5 "$log")"
	return "$r"
}

mkdir -p "$ring" "$bin" "$d/root" "$d/user" "$d/ww" "$d/sticky/root"
chmod 755 "$tmp" "$d" "$d/root" "$d/sticky/root"
chmod 0777 "$d/ww"
chmod 1777 "$d/sticky"
chown 65534:65534 "$d/user"
for dir in root user ww sticky/root; do
	echo secret >"$d/$dir/X"
	echo free >"$d/$dir/Y"
done
chmod 644 "$d"/*/[XY] "$d"/sticky/root/[XY]
ln -s "$d/root" "$d/rlink"
out=$(nobody ln -s "$d/root" "$d/sticky/ulink" 2>&1)
check $? "user nobody's link in a sticky directory of root's"

sign=()
for item in root/X rlink/X user/X ww/X sticky/root/X sticky/ulink/X sticky/fuse/X; do
	name=${item//\//-}
	cp "$build/tests/integration/signed-cat" "$bin/$name"
	sign+=("$name:$d/$item")
done
out=$("$cli" key generate paths --dir "$tmp" 2>&1 && "$cli" key add "$tmp/paths.pub" 2>&1)
rc=$?
for s in "${sign[@]}"; do
	[ "$rc" = 0 ] || break
	out+=$("$cli" binary sign --key "$tmp/paths.key" -r "fs:${s#*:}" "$bin/${s%%:*}" 2>&1)
	rc=$?
done
check "$rc" "seven copies of signed-cat, each signed with one fs item below $d"

start_daemon "$log" --pin-dir "$pin" --keyring "$ring"
rc=$?
out=$(cat "$log")
check "$rc" "umbrellad starts"

runs root-X "$d/root/X" "$d/root/Y"
[ "$rc" = 0 ] && denied "$d/root/X" && opened "$d/root/Y" ok
check $? "fs:$d/root/X, every directory root's: X denied, Y beside it read"
runs rlink-X "$d/root/X" "$d/root/Y"
[ "$rc" = 0 ] && denied "$d/root/X" && opened "$d/root/Y" ok
check $? "fs:$d/rlink/X, through root's link to $d/root: the same X denied, Y read"
runs sticky-root-X "$d/sticky/root/X" "$d/sticky/root/Y"
[ "$rc" = 0 ] && denied "$d/sticky/root/X" && opened "$d/sticky/root/Y" ok
check $? "fs:$d/sticky/root/X, through a sticky directory of root's: X denied, Y read"

refused user-X "fs:$d/user/X: $d/user, a directory on the path, is uid 65534's: refused"
check $? "fs:$d/user/X, through a directory user nobody owns: refused, no exec"
refused ww-X "fs:$d/ww/X: $d/ww, a directory on the path, is writable by others (mode 0777"
check $? "fs:$d/ww/X, through root's directory others may write to: refused, no exec"
refused sticky-ulink-X "fs:$d/sticky/ulink/X: $d/sticky/ulink, a symbolic link (to $d/root)"
check $? "fs:$d/sticky/ulink/X, through user nobody's link: refused, no exec"

out=$(nobody mkdir "$d/sticky/fuse" 2>&1) && load_module fuse && exec 7<>/dev/fuse &&
	out=$(mount -t fuse -o fd=7,rootmode=40000,user_id=65534,group_id=65534,allow_other \
		stalled "$d/sticky/fuse" 2>&1)
check $? "nobody's directory $d/sticky/fuse, a FUSE mount on it that never answers"
start=$SECONDS
refused sticky-fuse-X "fs:$d/sticky/fuse/X: $d/sticky/fuse is on a FUSE mount"
r=$?
out+=$'\n'"after $((SECONDS - start)) s"
[ "$r" = 0 ] && [ $((SECONDS - start)) -lt 60 ]
check $? "fs:$d/sticky/fuse/X, through the user's FUSE mount: refused in time, no exec"
out=$(timeout 60 "$cli" run -r fs:/etc/hostname -- cat /etc/hostname 2>&1)
[ $? = 1 ] && [[ "$out" == *"Permission denied"* ]]
check $? "umbrellad answers another caller after it (an rfork, its read denied)"
exec 7>&-

out=$(cat "$d/root/Y" 2>&1)
[ "$out" = free ]
check $? "the control: $d/root/Y, which the refused binaries would have read, reads"

tap_done
