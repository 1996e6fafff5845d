#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a program that gains privilege at exec (set-user-ID, set-group-ID, file
# capabilities) is refused under a layer that a user other than root chose, as Landlock
# and seccomp need no_new_privs: a user must not run sudo or passwd with files or rights
# taken away where the program does not expect it. Layers that root chose, and the
# same programs without a layer, are the controls.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-privilege/umbrellad.sock
pin=/sys/fs/bpf/umbrella-privilege-test
tmp=$(mktemp -d)
chmod 755 "$tmp"
log=$tmp/umbrellad.log
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

as_user() { out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$@" 2>&1); rc=$?; }
as_root() { out=$("$@" 2>&1); rc=$?; }
# Whether umbrellad logged a privilege denial of FILE.
logged() {
	local _
	for _ in $(seq 50); do
		grep -q "hook=bprm_creds_from_file restriction=scope:privilege .*object=$1\$" "$log" &&
			return 0
		sleep 0.1
	done
	return 1
}

# A set-user-ID-root id(1), a set-group-ID-root one and a grep(1) with a file
# capability (it prints its own capability sets).
install -m 4755 -o root /usr/bin/id "$tmp/id-suid"
install -m 2755 -g root /usr/bin/id "$tmp/id-sgid"
install -m 0755 /usr/bin/grep "$tmp/grep-cap"
setcap cap_net_raw+ep "$tmp/grep-cap"

# Its configuration file is rewritten for permissive mode below (a reload, not a second
# start: each start loads the programs afresh, 20-45 s under TCG).
conf=$tmp/umbrella.conf
printf 'mode = enforcing\n' >"$conf"
start_daemon "$log" --pin-dir "$pin" --config "$conf"
[ $? = 0 ]
check $? "umbrellad starts and listens"

# The controls: without a layer the programs gain what their files say.
as_user "$tmp/id-suid" -u
[ "$rc" = 0 ] && [ "$out" = 0 ]
check $? "a user runs the set-user-ID program without a layer: euid 0 (got '$out')"
as_user "$tmp/grep-cap" CapPrm /proc/self/status
[ "$rc" = 0 ] && [[ "$out" == *"0000000000002000" ]]
check $? "... and the file-capability program: CAP_NET_RAW permitted (got '$out')"

# A layer the user chose.
as_user "$cli" run -r ptrace -- "$tmp/id-suid" -u
[ "$rc" = 126 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "under a layer the user chose: the set-user-ID exec is refused (exit $rc: $out)"
logged "$tmp/id-suid"
check $? "umbrellad logs it: hook bprm_creds_from_file, scope:privilege, the file"
as_user "$cli" run -r ptrace -- "$tmp/id-sgid" -g
[ "$rc" = 126 ]
check $? "... the set-group-ID exec too (exit $rc: $out)"
as_user "$cli" run -r ptrace -- "$tmp/grep-cap" CapPrm /proc/self/status
[ "$rc" = 126 ]
check $? "... and the file-capability exec (exit $rc: $out)"
as_user "$cli" run -r ptrace -- /usr/bin/id -u
[ "$rc" = 0 ] && [ "$out" = 65534 ]
check $? "... while an ordinary exec under the same layer works (got '$out')"
as_user "$cli" run -r ptrace -- sh -c "'$tmp/id-suid' -u; echo status=\$?"
[[ "$out" == *"status=126"* ]]
check $? "... and a child's exec of it is refused as well ($out)"

# The layer an exec pushes (run --no-fork arms it for the exec itself).
as_user "$cli" run --no-fork -r ptrace -- "$tmp/id-suid" -u
[ "$rc" != 0 ] && [ "$out" != 0 ]
check $? "run --no-fork by the user: the layer this exec pushes counts (exit $rc: $out)"

# A permissive "setid" (run --permissive) only records the id change: the scope still
# refuses the exec (a permissive layer must not switch the scope off).
as_user "$cli" run --permissive -r setid -- "$tmp/id-suid" -u
[ "$rc" = 126 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "run --permissive -r setid by the user: the set-user-ID exec is still refused (exit $rc: $out)"

# Layers root chose: root may run such programs anyway, so its layers leave them alone.
as_root "$cli" run -r ptrace -- setpriv --reuid 65534 --regid 65534 --clear-groups \
	"$tmp/id-suid" -u
[ "$rc" = 0 ] && [ "$out" = 0 ]
check $? "under a layer root chose, a user's set-user-ID exec works (got '$out')"

# Permissive mode does not lift it (a scope rule, like the protection of umbrellad).
printf 'mode = permissive\n' >"$conf"
kill -HUP "$daemon"
for _ in $(seq 300); do
	grep -q 'configuration: mode=permissive' "$log" && break
	sleep 0.1
done
out=$(tail -n 5 "$log")
grep -q 'configuration: mode=permissive' "$log"
check $? "umbrellad reloads its configuration: permissive mode"
as_user "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 0 ] && grep -qxF "$(cat /etc/hostname)" <<<"$out" &&
	[[ "$out" == *"would deny open /etc/hostname"* ]]
check $? "the control: in permissive mode a denied read is let through, and reported (exit $rc)"
as_user "$cli" run -r ptrace -- "$tmp/id-suid" -u
[ "$rc" = 126 ]
check $? "in permissive mode the set-user-ID exec is still refused (exit $rc: $out)"

tap_done
