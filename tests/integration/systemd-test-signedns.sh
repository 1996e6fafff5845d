#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): a signed binary's fs items
# name the system's files (PID 1's root and mount namespace), not those of the private
# /tmp, /var/tmp, /root and /dev of umbrellad.service's own mount namespace (TAP).
#   - signed-cat signed with fs:/tmp/umb-sns-X, fs:/var/tmp/umb-sns-X, fs:/root/umb-sns-X
#     and fs:/dev/shm/umb-sns-X is denied each DIR/umb-sns-X/file and reads each
#     DIR/umb-sns-Y/file beside it (the control); fs:/dev/null denies /dev/null, not
#     /dev/zero (PrivateDevices= gives umbrellad device nodes of its own);
#   - the same inode through a bind mount in another mount namespace is denied, while
#     that namespace's own /tmp/umb-sns-X (a tmpfs of its own) is not what it names;
#   - a path through a symbolic link of root's that exists only in the system's /tmp
#     (fs:/tmp/umb-sns-link/file, the link to /run/umb-signedns/Z) restricts its target;
#   - a symbolic link as the last name (fs:/tmp/umb-sns-planted, planted by a user before
#     the program makes its file), or a user's link further up (fs:/tmp/umb-sns-ulink/file),
#     is refused: the exec of a binary signed with it fails, and the journal says why;
#   - so is a path through a directory a user owns (fs:/tmp/umb-sns-udir/file: the user
#     could rename it away and make another, and the rule would stay on the old one).
# The binaries live on /run, a tmpfs the gate caches verdicts on (in this VM / is an
# overlay, where they are not cached, and /tmp is umbrellad's own).
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-signedns
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
dirs=(/tmp /var/tmp /root /dev/shm)
run_dir=/run/umb-signedns
tmp=$(mktemp -d)
made=("$tmp" "$run_dir" /tmp/umb-sns-link /tmp/umb-sns-planted /tmp/umb-sns-ulink /tmp/umb-sns-udir)
cleanup() {
	systemctl stop umbrellad.service 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "${made[@]}" /etc/umbrella/keys
}
trap cleanup EXIT

# Whether $out has the line "FILE: WHAT" (signed-cat's report of an open).
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
with_journal() { out+=$'\n'"$(journal | tail -n 12)"; }

mkdir -p "$run_dir/Z"
echo secret >"$run_dir/Z/file"
ln -s "$run_dir/Z" /tmp/umb-sns-link
# A user's links in the system's /tmp: at the policy's path itself, and above a file.
chmod 755 "$run_dir" "$run_dir/Z"
setpriv --reuid 65534 --regid 65534 --clear-groups sh -c \
	"ln -s $run_dir/Z/file /tmp/umb-sns-planted && ln -s $run_dir/Z /tmp/umb-sns-ulink &&
	 mkdir /tmp/umb-sns-udir && echo mine >/tmp/umb-sns-udir/file"
items=()
for dir in "${dirs[@]}"; do
	mkdir -p "$dir/umb-sns-X" "$dir/umb-sns-Y"
	made+=("$dir/umb-sns-X" "$dir/umb-sns-Y")
	echo secret >"$dir/umb-sns-X/file"
	echo secret >"$dir/umb-sns-Y/file"
	items+=(-r "fs:$dir/umb-sns-X")
done
cp "$build/tests/integration/signed-cat" "$run_dir/signed-cat"
cp "$build/tests/integration/signed-cat" "$run_dir/signed-cat-link"
cp "$build/tests/integration/signed-cat" "$run_dir/signed-cat-planted"
cp "$build/tests/integration/signed-cat" "$run_dir/signed-cat-ulink"
cp "$build/tests/integration/signed-cat" "$run_dir/signed-cat-udir"
"$cli" key generate vendor --dir "$tmp" >/dev/null 2>"$tmp/err" &&
	mkdir -p /etc/umbrella/keys &&
	UMBRELLA_KEYRING=/etc/umbrella/keys "$cli" key add "$tmp/vendor.pub" >/dev/null 2>>"$tmp/err" &&
	"$cli" binary sign --key "$tmp/vendor.key" "${items[@]}" -r fs:/dev/null \
		"$run_dir/signed-cat" >>"$tmp/err" 2>&1 &&
	"$cli" binary sign --key "$tmp/vendor.key" -r fs:/tmp/umb-sns-link/file \
		"$run_dir/signed-cat-link" >>"$tmp/err" 2>&1 &&
	"$cli" binary sign --key "$tmp/vendor.key" -r fs:/tmp/umb-sns-planted \
		"$run_dir/signed-cat-planted" >>"$tmp/err" 2>&1 &&
	"$cli" binary sign --key "$tmp/vendor.key" -r fs:/tmp/umb-sns-ulink/file \
		"$run_dir/signed-cat-ulink" >>"$tmp/err" 2>&1 &&
	"$cli" binary sign --key "$tmp/vendor.key" -r fs:/tmp/umb-sns-udir/file \
		"$run_dir/signed-cat-udir" >>"$tmp/err" 2>&1
rc=$?
out=$(cat "$tmp/err")
check "$rc" "five copies of signed-cat signed with the system's paths; the key in /etc/umbrella/keys"

unit_setup
"$umbrellad" --reset-pins 2>/dev/null
timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(journal | tail -n 20)
[ "$rc" = 0 ] && [ "$(readlink "/proc/$(prop MainPID)/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]
check $? "umbrellad.service is active, in a mount namespace of its own"

for dir in "${dirs[@]}"; do
	out=$("$run_dir/signed-cat" "$dir/umb-sns-X/file" "$dir/umb-sns-Y/file" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && denied "$dir/umb-sns-X/file" && opened "$dir/umb-sns-Y/file" ok
	r=$?
	[ "$r" = 0 ] || with_journal
	check "$r" "the signed fs:$dir/umb-sns-X denies $dir/umb-sns-X/file, not $dir/umb-sns-Y/file"
done

out=$("$run_dir/signed-cat" /dev/null /dev/zero 2>&1)
rc=$?
[ "$rc" = 0 ] && denied /dev/null && opened /dev/zero ok
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "the signed fs:/dev/null denies /dev/null, not /dev/zero"

# Another mount namespace: the host's X through a bind mount, and a /tmp of its own.
out=$(unshare -m --propagation private sh -c '
	mkdir -p /run/umb-signedns/bind && mount --bind /tmp/umb-sns-X /run/umb-signedns/bind &&
	mount -t tmpfs none /tmp && mkdir /tmp/umb-sns-X && echo own >/tmp/umb-sns-X/file &&
	/run/umb-signedns/signed-cat /run/umb-signedns/bind/file /tmp/umb-sns-X/file' 2>&1)
rc=$?
[ "$rc" = 0 ] && denied /run/umb-signedns/bind/file && opened /tmp/umb-sns-X/file ok
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "in another mount namespace: the system's /tmp/umb-sns-X/file denied through a bind" \
	"mount, that namespace's own /tmp/umb-sns-X/file is not what the policy names"

out=$("$run_dir/signed-cat-link" "$run_dir/Z/file" /tmp/umb-sns-Y/file 2>&1)
rc=$?
[ "$rc" = 0 ] && denied "$run_dir/Z/file" && opened /tmp/umb-sns-Y/file ok
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "fs:/tmp/umb-sns-link/file, root's link only the system's /tmp has, denies its target"

# refused NAME TEXT: the exec of $run_dir/NAME fails (no layer, no run) and the journal
# has TEXT; signed-cat would read Z/file, allowed to everyone, were it run.
refused() {
	out=$("$run_dir/$1" "$run_dir/Z/file" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && ! opened "$run_dir/Z/file" ok && ! opened "$run_dir/Z/file" EACCES &&
		journal | grep -qF -- "$2"
}
refused signed-cat-planted "fs:/tmp/umb-sns-planted: a symbolic link (to $run_dir/Z/file), refused"
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "fs:/tmp/umb-sns-planted, a link a user planted at the path, is refused: no exec"
refused signed-cat-ulink "fs:/tmp/umb-sns-ulink/file: /tmp/umb-sns-ulink, a symbolic link"
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "fs:/tmp/umb-sns-ulink/file, through a user's link in /tmp, is refused: no exec"
refused signed-cat-udir \
	"fs:/tmp/umb-sns-udir/file: /tmp/umb-sns-udir, a directory on the path, is uid 65534's"
r=$?
[ "$r" = 0 ] || with_journal
check "$r" "fs:/tmp/umb-sns-udir/file, through a directory a user owns in /tmp, is refused: no exec"
out=$(cat "$run_dir/Z/file" 2>&1)
[ "$out" = secret ]
check $? "the control: Z/file, which the refused binaries would have been denied, is readable"

tap_done
