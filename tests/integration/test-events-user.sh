#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: "umbrella-cli events" for a user who cannot read the system journal: the
# denials of the layers their uid made, from umbrellad's memory (UMB_OP_EVENTS), and
# never another uid's (TAP). Each record shown is an actual failed open; each user's
# view is checked beside another user's, which sees its own records and not those.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
log=$(mktemp)
tmp=$(mktemp -d)
chmod 755 "$tmp"

as() { local uid=$1; shift; setpriv --reuid "$uid" --regid "$uid" --clear-groups "$@"; }
# stdout and stderr apart: the note on where the records come from is on stderr.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }

# A raw UMB_OP_EVENTS client: prints the reply's error, then each record's uid-free
# fields "LAYER PID OBJECT", one a line.
# (In this run's own $tmp: a run on another kernel may share $build.)
cat >"$tmp/events-client" <<'PY'
#!/usr/bin/python3
import os, socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.environ["UMBRELLA_SOCKET"])
s.send(struct.pack("IIII", 4, 6, os.getpid(), 0))
m = s.recv(65536)
print(struct.unpack("i", m[:4])[0])
for off in range(16, len(m), 472):
    d = m[off + 16:off + 472]
    layer, pid = struct.unpack("II", d[4:12])
    obj = d[136:456].split(b"\0")[0].decode()
    print(layer, pid, obj)
PY
chmod 644 "$tmp/events-client"
raw="python3 $tmp/events-client"

start_daemon "$log"
rc=$?
out=$(tail -n 40 "$log")
check $rc "umbrellad starts and listens"

# Each uid's own denial: root's, 65534's (the brief's example), 4242's.
echo secret >"$tmp/root-secret"
mkdir -m 755 "$tmp/u4242"
echo mine >"$tmp/u4242/file"
run "$cli" run -r "fs:$tmp/root-secret" -- cat "$tmp/root-secret"
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open $tmp/root-secret"* ]]
check $? "root: the read of $tmp/root-secret is denied"
run as 65534 "$cli" run -r fs:/etc -- cat /etc/hostname
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open /etc/hostname"* ]]
check $? "65534: the read of /etc/hostname is denied"
run as 65534 "$cli" run -r fs:/usr/share/doc -- cat /etc/hostname
check $rc "65534: the same read beside it, under a layer that does not cover it, is allowed"
run as 4242 "$cli" run -r "fs:$tmp/u4242" -- cat "$tmp/u4242/file"
[ "$rc" = 1 ] && [[ "$err" == *"umbrella: denied open $tmp/u4242/file"* ]]
check $? "4242: the read of its own file is denied"

run as 65534 "$cli" events
nobody_out=$out
[ "$rc" = 0 ] && grep -q "hook=file_open restriction=fs:r layer=[0-9]* object=/etc/hostname$" "$tmp/out" &&
	[[ "$err" == *"from umbrellad's memory since it started"* ]]
check $? "65534: events shows its denial with the path, and says where it comes from"
! grep -q -e "$tmp/root-secret" -e "$tmp/u4242" "$tmp/out"
check $? "65534: events shows neither root's nor 4242's denial"
run as 4242 "$cli" events
grep -q "hook=file_open restriction=fs:r layer=[0-9]* object=$tmp/u4242/file$" "$tmp/out" &&
	! grep -q -e /etc/hostname -e "$tmp/root-secret" "$tmp/out"
check $? "4242: events shows its own denial, not 65534's nor root's"
out=$(as 4242 $raw)
[ "$(head -n1 <<<"$out")" = 0 ] && [ "$(wc -l <<<"$out")" -ge 2 ] &&
	! grep -q -e /etc/hostname -e "$tmp/root-secret" <<<"$out"
check $? "4242 over the socket: its records only"

# The filters, on 65534's records.
layer=$(sed -n 's|.* layer=\([0-9]*\) object=/etc/hostname$|\1|p' <<<"$nobody_out" | tail -n1)
pid=$(sed -n 's|.* pid=\([0-9]*\) .*object=/etc/hostname$|\1|p' <<<"$nobody_out" | tail -n1)
run as 65534 "$cli" --json events --layer "$layer"
python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
assert a and all(e["layer"] == int(sys.argv[2]) for e in a), a
assert a[-1]["object"] == "/etc/hostname" and a[-1]["hook"] == "file_open" and a[-1]["type"] == "denial"' \
	"$tmp/out" "$layer" 2>"$tmp/err"
check $? "65534: --json --layer $layer: a JSON array of that layer's records"
run as 65534 "$cli" events --layer $((layer + 1000))
[ "$rc" = 0 ] && ! grep -q /etc/hostname "$tmp/out"
check $? "65534: --layer of another layer: not that record"
run as 65534 "$cli" events --pid "$pid"
[ "$rc" = 0 ] && grep -q "pid=$pid .*object=/etc/hostname" "$tmp/out" &&
	! grep -qv "pid=$pid " "$tmp/out"
check $? "65534: --pid $pid: that process's records only"
run as 65534 "$cli" events --since -1h
grep -q "object=/etc/hostname$" "$tmp/out"
check $? "65534: --since -1h: the record"
run as 65534 "$cli" events --since "@$(($(date +%s) + 3600))"
[ "$rc" = 0 ] && [ -z "$out" ]
check $? "65534: --since an hour ahead: nothing"
run as 65534 "$cli" events -n 1
[ "$(wc -l <"$tmp/out")" = 1 ]
check $? "65534: -n 1: one line"

# --follow: a denial made after it started comes within a few seconds.
# (Denied again until it comes: one made before the follower first asked is an old one.)
as 65534 "$cli" --json events --follow -n 0 >"$tmp/follow" 2>&1 &
follower=$!
for _ in $(seq 10); do
	run as 65534 "$cli" run -r fs:/etc -- cat /etc/passwd
	for _ in $(seq 30); do grep -q '"object": *"/etc/passwd"' "$tmp/follow" && break 2; sleep 0.1; done
done
out=$(cat "$tmp/follow")
grep -q '"object": *"/etc/passwd"' "$tmp/follow" && ! grep -q /etc/hostname "$tmp/follow"
check $? "65534: --follow prints the new denial (and, with -n 0, not the old one)"
kill "$follower"
wait "$follower" 2>/dev/null

# Root: events reads the journal; when it holds no denial (umbrellad started by hand
# logs to a file here, as in the demo), umbrellad's memory, every uid's; over the
# socket, root that carries no layer gets every uid's records.
run "$cli" events -n 50
[ "$rc" = 0 ] && [[ "$err" == *"the journal holds no denial: every uid's, from umbrellad's memory"* ]] &&
	[[ "$out" == *"/etc/hostname"* ]] && [[ "$out" == *"$tmp/u4242/file"* ]]
check $? "root, the journal empty: events shows umbrellad's own record of every uid"
out=$($raw)
[ "$(head -n1 <<<"$out")" = 0 ] && grep -q "/etc/hostname$" <<<"$out" &&
	grep -q "$tmp/root-secret$" <<<"$out" && grep -q "$tmp/u4242/file$" <<<"$out"
check $? "root over the socket: every uid's records"

kill "$daemon"
wait "$daemon"
rm -rf "$log" "$tmp"
tap_done
