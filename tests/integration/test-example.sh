#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): the libumbrella example, built with pkg-config against the installed
# library (shared and static), contains its worker under a real umbrellad, also when
# run by an unprivileged user: each denial is an actual failed syscall.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
tmp=$(mktemp -d)

trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; "$umbrellad" --reset-pins 2>/dev/null; rm -rf "$tmp"' EXIT
start_daemon "$tmp/umbrellad.log"
rc=$?
out=$(cat "$tmp/umbrellad.log")
[ "$rc" = 0 ]
check $? "umbrellad starts and listens"

# Built inside the VM (/tmp is the VM's own); the installed copy must be readable by
# the unprivileged user below.
out=$("$source_root/tests/helpers/build-example" "$build" "$tmp/example" 2>&1)
check $? "the example builds with pkg-config against the installed library"
chmod -R a+rX "$tmp"

contained() { # OUTPUT: the worker's three attempts were denied with the right errno
	[[ "$1" == *"worker: open /etc/hostname: Permission denied"* ]] &&
		[[ "$1" == *"worker: socket(AF_INET): Operation not permitted"* ]] &&
		[[ "$1" == *"worker: exec /bin/true: Operation not permitted"* ]] &&
		[[ "$1" == *"the worker was contained"* ]]
}
for binary in untrusted-worker untrusted-worker-static; do
	out=$("$tmp/example/$binary" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && contained "$out"
	check $? "$binary (root): open, socket and exec denied in the worker (exit $rc)"
done
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
	env UMBRELLA_SOCKET="$UMBRELLA_SOCKET" "$tmp/example/untrusted-worker" 2>&1)
rc=$?
[ "$rc" = 0 ] && contained "$out"
check $? "untrusted-worker (user nobody): the same denials (exit $rc)"

# Control: the same calls from the unrestricted parent's side work.
out=$(cat /etc/hostname 2>&1 && /bin/true && echo ok)
[[ "$out" == *ok ]]
check $? "control: unrestricted, /etc/hostname reads and /bin/true runs"

tap_done
