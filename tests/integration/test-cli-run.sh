#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: umbrellad + umbrella-cli run, end to end (TAP). The restrictions travel from
# the command line through libumbrella's rfork() and umbrellad's socket into the BPF
# maps; every denial is an actual failed syscall, each beside a positive control.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
log=$(mktemp)

run() { out=$("$cli" run "$@" 2>&1); rc=$?; }

start_daemon "$log"
rc=$?
out=$(cat "$log")
[ "$rc" = 0 ]
check $? "umbrellad starts and listens"

run -r fs:/tmp -- cat /etc/hostname
[ "$rc" = 0 ] && [ "$out" = "$(cat /etc/hostname)" ]
check $? "run -r fs:/tmp -- cat /etc/hostname works"

run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$out" == *"/etc/hostname: Permission denied"* ]]
check $? "run -r fs:/etc -- cat /etc/hostname fails with Permission denied (exit $rc)"

run -r fs:/etc -- sh -c 'cat /etc/hostname'
[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]]
check $? "the restriction holds for the command's children"

sleep 0.5
out=$(cat "$log")
grep -q 'denied: .*comm=cat .*hook=file_open restriction=fs:r.* object=/etc/hostname' "$log"
check $? "umbrellad reports the denial (pid, comm, hook, restriction, layer, object)"

run -r exec -- sh -c '/bin/true; echo status=$?'
[ "$rc" = 0 ] && [[ "$out" == *"status=126"* ]]
check $? "run -r exec -- sh -c /bin/true: sh starts, its exec of /bin/true is denied"

run -- sh -c '/bin/true; echo status=$?'
[ "$rc" = 0 ] && [ "$out" = "status=0" ]
check $? "without restrictions the same exec works"

run -r net -- bash -c 'exec 3<>/dev/udp/127.0.0.1/9'
[ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "run -r net: creating a socket fails with EPERM"

run -r net:inet6 -- bash -c 'exec 3<>/dev/udp/127.0.0.1/9'
[ "$rc" = 0 ]
check $? "run -r net:inet6: an IPv4 socket still works"

run -r fs:etc -- true
[ "$rc" = 2 ] && [[ "$out" == "umbrella-cli: fs:etc"* ]] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]
check $? "a malformed item is refused in one line naming it (exit $rc)"

run -r fs:/nonexistent-dir/file -- true
[ "$rc" = 1 ] && [[ "$out" == *"fs:/nonexistent-dir/file"*"(create /nonexistent-dir first)"* ]]
check $? "a path whose directory does not exist is refused, naming it and what to create"

run -r fs:/etc:R -- true
[ "$rc" = 2 ] && [[ "$out" == "umbrella-cli: fs:/etc:R: access modes are the letters r, w and x only"* ]]
check $? "fs:/etc:R is refused, not taken as the path /etc:R (exit $rc)"

out=$(python3 - "$UMBRELLA_SOCKET" <<'PY' 2>&1
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(b"garbage")
err = struct.unpack("i", s.recv(4096)[:4])[0]
s.send(struct.pack("IIII", 3, 1, 1, 0) + b"fork\0")  # protocol 3; tid 1 is not ours
err2 = struct.unpack("i", s.recv(4096)[:4])[0]
print(err, err2)
PY
)
[ "$out" = "-74 -1" ] && kill -0 "$daemon"
check $? "garbled and foreign requests get errors (EBADMSG, EPERM) and umbrellad stays up"

run -r fs:/tmp -- cat /etc/hostname
[ "$rc" = 0 ]
check $? "umbrellad still serves after bad requests"

kill "$daemon"
wait "$daemon"
run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$out" == *"cannot reach umbrellad"* ]]
check $? "without umbrellad, run refuses to start the command (fail closed)"

rm -f "$log"
tap_done
