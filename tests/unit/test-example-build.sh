#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): libumbrella is a library people link. The example under
# libumbrella/examples builds with pkg-config against the installed library, shared and
# static, binds versioned symbols, and without umbrellad fails closed: rfork() refuses
# and no worker runs. tests/integration/test-example runs it against a real umbrellad.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$source_root/tests/helpers/build-example" "$build" "$tmp" 2>&1)
check $? "the example builds with pkg-config against the installed library, shared and static"
printf '%s\n' "$out" | grep '^pkg-config:' | sed 's/^/# /'

out=$(objdump -T "$tmp/untrusted-worker" 2>&1)
printf '%s\n' "$out" | grep -qE '\(UMBRELLA_0\.1\) +rfork$'
check $? "the shared build binds rfork@UMBRELLA_0.1 (versioned symbols)"

out=$(ldd "$tmp/untrusted-worker-static" 2>&1)
! printf '%s\n' "$out" | grep -q libumbrella
check $? "the static build needs no libumbrella.so"

for binary in untrusted-worker untrusted-worker-static; do
	out=$(UMBRELLA_SOCKET=$tmp/no-such.sock "$tmp/$binary" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [[ "$out" == *"rfork: cannot reach umbrellad"* ]] &&
		! printf '%s\n' "$out" | grep -q '^worker:'
	check $? "$binary without umbrellad: rfork fails, no worker runs (exit $rc)"
done

tap_done
