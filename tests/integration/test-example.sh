#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): the libumbrella example, built with pkg-config against the installed
# library (shared and static), contains its worker under a real umbrellad, also when
# run by an unprivileged user: each denial is an actual failed syscall.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
umbrellad=$build/daemon/umbrellad
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
out=$(mktemp -d)
n=0 failed=0 log=
check() { # RESULT DESCRIPTION
	local rc=$1
	shift
	n=$((n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $n - $*"
	else
		echo "not ok $n - $*"
		printf '%s\n' "$log" | tail -n 8 | sed 's/^/# output: /'
		failed=1
	fi
}

"$umbrellad" --socket "$UMBRELLA_SOCKET" 2>"$out/umbrellad.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; "$umbrellad" --reset-pins 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 100); do [ -S "$UMBRELLA_SOCKET" ] && break; sleep 0.1; done
[ -S "$UMBRELLA_SOCKET" ]
log=$(cat "$out/umbrellad.log")
check $? "umbrellad starts and listens"

# Built inside the VM (/tmp is the VM's own); the installed copy must be readable by
# the unprivileged user below.
log=$("$source_root/tests/helpers/build-example" "$build" "$out/example" 2>&1)
check $? "the example builds with pkg-config against the installed library"
chmod -R a+rX "$out"

contained() { # OUTPUT: the worker's three attempts were denied with the right errno
	[[ "$1" == *"worker: open /etc/hostname: Permission denied"* ]] &&
		[[ "$1" == *"worker: socket(AF_INET): Operation not permitted"* ]] &&
		[[ "$1" == *"worker: exec /bin/true: Operation not permitted"* ]] &&
		[[ "$1" == *"the worker was contained"* ]]
}
for binary in untrusted-worker untrusted-worker-static; do
	log=$("$out/example/$binary" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && contained "$log"
	check $? "$binary (root): open, socket and exec denied in the worker (exit $rc)"
done
log=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
	env UMBRELLA_SOCKET="$UMBRELLA_SOCKET" "$out/example/untrusted-worker" 2>&1)
rc=$?
[ "$rc" = 0 ] && contained "$log"
check $? "untrusted-worker (user nobody): the same denials (exit $rc)"

# Control: the same calls from the unrestricted parent's side work.
log=$(cat /etc/hostname 2>&1 && /bin/true && echo ok)
[[ "$log" == *ok ]]
check $? "control: unrestricted, /etc/hostname reads and /bin/true runs"

echo "1..$n"
exit $failed
