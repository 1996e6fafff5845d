#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): umbrellad.service runs in a
# mount namespace of its own (PrivateTmp=, PrivateDevices=, ProtectHome=), where /tmp,
# /var/tmp, /dev and /root are not the caller's. The caller resolves its fs paths and
# umbrellad resolves none (TAP): fs:/tmp/X, fs:/var/tmp/X, fs:/root/X and fs:/dev/X
# restrict the caller's objects, each beside a file the same rule leaves readable.
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-paths
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
made=()
cleanup() {
	systemctl stop umbrellad.service 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf "${made[@]}"
}
trap cleanup EXIT

unit_setup
"$umbrellad" --reset-pins 2>/dev/null
timeout 300 systemctl start umbrellad.service
wait_active
check $? "umbrellad.service is active"

# DIR/X/file (denied) and DIR/Y/file (the control) under fs:DIR/X
for dir in /tmp /var/tmp /root /dev/shm; do
	mkdir -p "$dir/umb-X" "$dir/umb-Y"
	made+=("$dir/umb-X" "$dir/umb-Y")
	echo secret >"$dir/umb-X/file"
	echo secret >"$dir/umb-Y/file"
	out=$("$cli" run -r "fs:$dir/umb-X" -- cat "$dir/umb-X/file" 2>&1)
	rc=$?
	out1="denied: rc=$rc $out"
	[ "$rc" = 1 ] && [[ "$out" == *"Permission denied"* ]]
	r1=$?
	out=$("$cli" run -r "fs:$dir/umb-X" -- cat "$dir/umb-Y/file" 2>&1)
	rc=$?
	out="$out1
allowed: rc=$rc $out
$(journal | tail -n 5)"
	[ "$r1" = 0 ] && [ "$rc" = 0 ] && [[ "$out" == *secret* ]]
	check $? "fs:$dir/umb-X denies $dir/umb-X/file, not $dir/umb-Y/file"
done

# A name that does not exist yet, in a directory umbrellad cannot see.
out=$("$cli" run -r fs:/root/umb-new -- sh -c 'echo x >/root/umb-new; echo "ran $?"' 2>&1)
made+=(/root/umb-new)
[[ "$out" == *"Permission denied"*"ran "[1-9]* ]] && [ ! -e /root/umb-new ]
check $? "fs:/root/umb-new (not yet there) denies creating /root/umb-new"

# A device node: PrivateDevices= gives umbrellad a /dev of its own.
out=$("$cli" run -r fs:/dev/null -- sh -c 'echo x >/dev/null && echo wrote' 2>&1)
rc=$?
out2=$("$cli" run -r fs:/dev/null -- sh -c 'echo x >/dev/zero && echo wrote' 2>&1)
out="$out / $out2"
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]] && [ "$out2" = wrote ]
check $? "fs:/dev/null denies /dev/null, not /dev/zero"

tap_done
