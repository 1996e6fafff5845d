#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: no user stalls umbrellad through a FUSE server of its own (issue 13, TAP).
# A FUSE mount of another user namespace refuses umbrellad without asking its server,
# but an overlay made in that namespace over it asks it with its mounter's credentials.
# The attacker, user nobody in "unshare -Urm", mounts a FUSE server that answers every
# process but umbrellad (tests/helpers/fuse-stall.py: no caching, so each look-up and
# permission check asks it) and an overlay over it, then
#   - asks for a rule below the overlay: umbrellad would ask the server for permission
#     to search the directories above it (the climb by ".."): refused, with the reason;
#   - restricts a directory on its tmpfs, mounts an overlay below it and a tmpfs on the
#     overlay's "x": following the mounts, umbrellad would look "x" up in the overlay:
#     not done, logged.
# After each, root's rfork and a signed exec are answered within 30 s (the controls).
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
vm_test /run/umbrella-fuse-overlay/umbrellad.sock /sys/fs/bpf/umbrella-fuse-overlay-test
chmod 755 "$tmp"
ring=$tmp/keys
res=$tmp/res # the attacker's results, and where it waits for "go"
log=$tmp/umbrellad.log
attacker= fuse_mode=
cleanup_first() {
	touch "$res/go" 2>/dev/null
	[ -n "$attacker" ] && kill -- -"$attacker" 2>/dev/null # its FUSE server too
}
cleanup_last() { [ -n "$fuse_mode" ] && chmod "$fuse_mode" /dev/fuse; }
trap vm_cleanup EXIT
mkdir -p "$ring" "$res" "$tmp/w"
chmod 777 "$res"
export UMBRELLA_KEYRING=$ring

# wait_for SECONDS COMMAND...: until COMMAND succeeds.
wait_for() {
	local n=$(($1 * 10)) _
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# controls WHEN: root's rfork and a signed exec are answered within 30 s.
controls() {
	out=$(timeout -k 5 30 "$cli" run -r fs:/etc/hostname -- cat /etc/hostname 2>&1)
	rc=$?
	out="rc=$rc $out"
	[ "$rc" != 0 ] && [ "$rc" != 124 ] && [[ "$out" == *"Permission denied"* ]]
	check $? "$1: umbrellad answers root: fs:/etc/hostname denies cat /etc/hostname"
	out=$(timeout -k 5 30 "$tmp/signed-cat" /etc/passwd /etc/hostname 2>&1)
	rc=$?
	out="rc=$rc $out"
	[ "$rc" = 0 ] && [[ "$out" == *"/etc/passwd: EACCES"* ]] &&
		[[ "$out" == *"/etc/hostname: ok"* ]]
	check $? "$1: a signed exec is answered: signed-cat runs with its fs:/etc/passwd"
}

load_module fuse
load_module overlay
# Any user may open /dev/fuse where udev runs (0666); the test VM has no udev.
fuse_mode=$(stat -c %a /dev/fuse) && chmod 666 /dev/fuse
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
cp "$build/tests/integration/signed-cat" "$tmp/"
keyid=$("$cli" key generate fuse --dir "$tmp" 2>&1) &&
	out=$("$cli" key add "$tmp/fuse.pub" 2>&1) &&
	start_daemon "$log" --pin-dir "$pin" --keyring "$ring" &&
	out=$("$cli" binary sign --key "$tmp/fuse.key" "$tmp/signed-cat" 2>&1)
rc=$?
out="$keyid $out $(cat "$log")"
[ "$rc" = 0 ]
check $? "umbrellad starts with a key ring, signed-cat is signed"

controls "before"

# The attacker: its results in $res, then it waits for $res/go.
cat >"$tmp/attack.sh" <<EOF
W=$tmp/w
mount -t tmpfs tmpfs \$W || exit 10
mkdir \$W/fuse \$W/empty \$W/ovl \$W/d
python3 $source_root/tests/helpers/fuse-stall.py \$W/fuse $daemon >$res/server.out 2>&1 &
for _ in \$(seq 300); do grep -q ready $res/server.out && break; sleep 0.1; done
mount -t overlay overlay -o lowerdir=\$W/fuse:\$W/empty \$W/ovl || exit 11
ls -d \$W/ovl/x >$res/ls.out 2>&1
echo \$? >$res/ls.rc
timeout -k 5 30 $cli run -r fs:\$W/ovl/x/f -- true >$res/climb.out 2>&1
echo \$? >$res/climb.rc
while [ ! -e $res/climb.go ]; do sleep 0.1; done
$cli run -r fs:\$W/d -- sh -c "touch $res/d.ready; while [ ! -e $res/go ]; do sleep 0.1; done" \
	>$res/d.out 2>&1 &
for _ in \$(seq 300); do [ -e $res/d.ready ] && break; sleep 0.1; done
mkdir \$W/d/o && mount -t overlay overlay -o lowerdir=\$W/fuse:\$W/empty \$W/d/o &&
	mount -t tmpfs tmpfs \$W/d/o/x
echo \$? >$res/watch.rc
while [ ! -e $res/go ]; do sleep 0.1; done
EOF
setsid setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Urm sh "$tmp/attack.sh" \
	>"$tmp/attack.out" 2>&1 </dev/null &
attacker=$!

wait_for 60 test -e "$res/ls.rc"
out="$(cat "$tmp/attack.out" "$res/server.out" "$res/ls.out" 2>&1)"
[ "$(cat "$res/ls.rc" 2>/dev/null)" = 0 ]
check $? "the attacker's FUSE server answers it through its overlay (ls -d ovl/x)"

wait_for 60 test -e "$res/climb.rc"
rc=$(cat "$res/climb.rc" 2>/dev/null)
out="rc=$rc $(cat "$res/climb.out" 2>&1)"
[ -n "$rc" ] && [ "$rc" != 0 ] && [ "$rc" != 124 ] &&
	[[ "$out" == *"overlay or FUSE mount made in a user namespace"* ]]
check $? "a rule below the overlay is refused at once, with the reason"

controls "after the refused rule"
touch "$res/climb.go"

wait_for 60 test -e "$res/watch.rc"
out="$(cat "$tmp/attack.out" "$res/d.out" 2>&1)"
[ -e "$res/d.ready" ] && [ "$(cat "$res/watch.rc" 2>/dev/null)" = 0 ]
check $? "the attacker restricts its d, then mounts an overlay on d/o and a tmpfs on d/o/x"

wait_for 30 grep -qF "the way to it is through an overlay or FUSE mount" "$log"
rc=$?
out=$(cat "$log")
[ "$rc" = 0 ]
check $? "umbrellad does not follow the mount on d/o/x through the overlay: logged"

controls "after the mounts below d"

tap_done
