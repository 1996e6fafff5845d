#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): libumbrella is a library people link. The example under
# libumbrella/examples builds with pkg-config against the installed library, shared and
# static, binds versioned symbols, and without umbrellad fails closed: rfork() refuses
# and no worker runs. tests/integration/test-example runs it against a real umbrellad.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0 failed=0 log=
check() { # RESULT DESCRIPTION
	local rc=$1
	shift
	n=$((n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $n - $*"
	else
		echo "not ok $n - $*"
		printf '%s\n' "$log" | tail -n 5 | sed 's/^/# output: /'
		failed=1
	fi
}

log=$("$source_root/tests/helpers/build-example" "$build" "$out" 2>&1)
check $? "the example builds with pkg-config against the installed library, shared and static"
printf '%s\n' "$log" | grep '^pkg-config:' | sed 's/^/# /'

log=$(objdump -T "$out/untrusted-worker" 2>&1)
printf '%s\n' "$log" | grep -qE '\(UMBRELLA_0\.1\) +rfork$'
check $? "the shared build binds rfork@UMBRELLA_0.1 (versioned symbols)"

log=$(ldd "$out/untrusted-worker-static" 2>&1)
! printf '%s\n' "$log" | grep -q libumbrella
check $? "the static build needs no libumbrella.so"

for binary in untrusted-worker untrusted-worker-static; do
	log=$(UMBRELLA_SOCKET=$out/no-such.sock "$out/$binary" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [[ "$log" == *"rfork: cannot reach umbrellad"* ]] &&
		! printf '%s\n' "$log" | grep -q '^worker:'
	check $? "$binary without umbrellad: rfork fails, no worker runs (exit $rc)"
done

echo "1..$n"
exit $failed
