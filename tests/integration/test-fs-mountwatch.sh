#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: a file system mounted below a restricted directory D after the layer was made
# (TAP). The walk from a file in a bind mount or open_tree() clone of that mount elsewhere
# never reaches D, so umbrellad follows the mounts of the caller's namespace and puts D's
# rule on the new mount's root (daemon/fs-watch.c). Each denial is an actual failed read
# of a restricted task, beside a control that works; the rules added count against the
# layer owner's max_rules_per_user and go with the layer. A user's loop of mounts and
# unmounts in a namespace of its own does not keep umbrellad busy, and the mount left
# after it is covered (the passes are queued and rationed).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-mountwatch/umbrellad.sock
tmp=$(mktemp -d)
chmod 755 "$tmp"
log=$tmp/umbrellad.log
conf=$tmp/umbrella.conf
sync=$tmp/sync # where the restricted tasks say they are ready and wait for "go"
t=$tmp/t
py=/usr/bin/python3

# status_field KEY...: a number from umbrella-cli status --json (occupancy.KEY...).
status_field() {
	"$cli" --json status 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)["occupancy"]
for k in sys.argv[1:]:
    v = v[k]
print(v)' "$@"
}
live_rules() { echo $(($(status_field fs_inode_rules live) + $(status_field fs_name_rules live))); }

# wait_for COMMAND...: at most 20 s until COMMAND succeeds.
wait_for() {
	local _
	for _ in $(seq 200); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# later NAME ITEMS SCRIPT [USER]: runs SCRIPT under "umbrella-cli run -r ITEMS" (as USER),
# which says it is ready ($sync/NAME.ready) and then waits for $sync/NAME.go, so that
# its layer exists before the mounts the test makes. Output in $tmp/NAME.out, exit status
# in $tmp/NAME.rc.
later() {
	local as=()
	[ -n "${4:-}" ] && as=(setpriv --reuid "$4" --regid "$4" --clear-groups)
	(
		"${as[@]}" "$cli" run -r "$2" -- sh -c "touch $sync/$1.ready
			while [ ! -e $sync/$1.go ]; do sleep 0.1; done
			$3" >"$tmp/$1.out" 2>&1
		echo $? >"$tmp/$1.rc"
	) </dev/null >/dev/null 2>&1 &
}
# Whatever happens, no restricted task is left waiting (the suite reads our output).
trap 'touch "$sync"/bind.go "$sync"/clone.go "$sync"/media.go "$sync"/user.go "$sync"/uloop.go \
	"$sync"/uloop.stop 2>/dev/null' EXIT

# finish NAME: lets NAME go and waits for it; its output in $out.
finish() {
	touch "$sync/$1.go"
	wait_for test -e "$tmp/$1.rc"
	out="$(cat "$tmp/$1.out") rc=$(cat "$tmp/$1.rc" 2>/dev/null)"
}

# logged TEXT: umbrellad logged TEXT (waited for, at most 20 s); the log in $out.
logged() {
	wait_for grep -qF -- "$1" "$log"
	local rc=$?
	out=$(cat "$log")
	return $rc
}

# open_tree(OPEN_TREE_CLONE) of argv[1], then a read of f in the detached copy.
clone='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(428, -100, sys.argv[1].encode(), 1 | os.O_CLOEXEC)
if fd < 0:
    sys.exit("open_tree: " + os.strerror(ctypes.get_errno()))
print(os.read(os.open("f", os.O_RDONLY, dir_fd=fd), 100).decode(), end="")'
printf '%s\n' "$clone" >"$tmp/clone.py"

# A user's mount loop, in a user and mount namespace of its own (argv: cli t sync fill
# seconds script): FILL tmpfs mounts outside uloop (a long mountinfo for each of
# umbrellad's passes), a restricted task in a layer with fs:uloop made in that namespace
# (running SCRIPT once it may go), then tmpfs mounted and unmounted on uloop/m until
# $sync/uloop.stop (SECONDS at most), and a last one left there with a secret in it.
uloop='import ctypes, os, subprocess, sys, time
libc = ctypes.CDLL(None, use_errno=True)
cli, t, sync, fill, secs, script = sys.argv[1:7]
def mount(p):
    if libc.mount(b"none", p.encode(), b"tmpfs", 0, None):
        sys.exit("mount %s: %s" % (p, os.strerror(ctypes.get_errno())))
def umount(p):
    # Detached: umbrellad holds the root of a mount it is following for a moment (EBUSY).
    if libc.umount2(p.encode(), 2):
        sys.exit("umount %s: %s" % (p, os.strerror(ctypes.get_errno())))
def say(name):
    open(sync + "/uloop." + name, "w").close()
mount(t + "/ufill")
for i in range(int(fill)):
    os.mkdir("%s/ufill/%d" % (t, i))
    mount("%s/ufill/%d" % (t, i))
task = subprocess.Popen([cli, "run", "-r", "fs:" + t + "/uloop", "--", "sh", "-c", script])
while not os.path.exists(sync + "/uloop.ready"):
    time.sleep(0.1)
say("looping")
end, n, m = time.monotonic() + float(secs), 0, t + "/uloop/m"
while time.monotonic() < end and not os.path.exists(sync + "/uloop.stop"):
    mount(m)
    umount(m)
    n += 1
mount(m)
with open(m + "/f", "w") as f:
    f.write("secret\n")
print("loops=%d" % n, flush=True)
say("mounted")
sys.exit(task.wait())'
printf '%s\n' "$uloop" >"$tmp/uloop.py"

: >"$conf"
start_daemon "$log" --config "$conf"
check $? "umbrellad starts and listens"
chmod 755 "$(dirname "$UMBRELLA_SOCKET")"
base_rules=$(live_rules)

mkdir -p "$t/data/late" "$t/media" "$t/else" "$t/out" "$t/udata/a" "$t/udata/b" "$t/uloop/m" \
	"$t/ufill" "$sync" &&
	chmod -R 755 "$t" && chmod 777 "$sync" && echo fine >"$t/out/f"
check $? "setup: the scratch tree"

# The restricted tasks, each in a layer made before the mounts below.
bind_late="unshare -Urm sh -c 'mount --bind $t/data/late $t/else && cat $t/else/f'
	echo bind=\$?; cat $t/out/f"
later bind "fs:$t/data" "$bind_late"
later clone "fs:$t/data" "$py $tmp/clone.py $t/data/late"
later media "fs:$t/media" "unshare -Urm sh -c 'mount --bind $t/media $t/else && cat $t/else/f'"
wait_for test -e "$sync/bind.ready" -a -e "$sync/clone.ready" -a -e "$sync/media.ready"
root_rules=$(live_rules)
later user "fs:$t/udata" "true" 65534
wait_for test -e "$sync/user.ready"
check $? "four restricted tasks wait in their layers (fs:data twice, fs:media, a user's fs:udata)"
user_rules=$(($(live_rules) - root_rules))

# Made after the layers, by an unrestricted task: a tmpfs below data, one on media itself
# (a mount point that was empty when the rule was made, as for a USB stick).
mount -t tmpfs umbrella-test "$t/data/late" && echo secret >"$t/data/late/f" &&
	mount -t tmpfs umbrella-test "$t/media" && echo secret >"$t/media/f"
check $? "setup: tmpfs mounts on data/late and on media, after the layers, each with a secret"

logged "the mount on $t/data/late (below its rule on $t/data) is restricted too"
check $? "umbrellad follows the new mount below data"
logged "the mount on $t/media (below its rule on $t/media) is restricted too"
check $? "umbrellad follows the new mount on media"

finish bind
[[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]] && [[ "$out" == *bind=1* ]]
check $? "fs:data: a bind mount (unshare -Urm) of the mount made on data/late later is not read"
[[ "$out" == *fine* ]]
check $? "fs:data: the same task reads a file outside data"

finish clone
[[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]]
check $? "fs:data: an open_tree() clone of the mount made on data/late later is not read"

finish media
[[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]]
check $? "fs:media: a bind mount of the mount made on media itself later is not read"

out=$(unshare -Urm sh -c "mount --bind $t/data/late $t/else && cat $t/else/f" 2>&1)
[ "$out" = secret ]
check $? "unrestricted: the same bind mount of data/late is read"
out=$("$py" "$tmp/clone.py" "$t/data/late" 2>&1)
[ "$out" = secret ]
check $? "unrestricted: the same open_tree() clone of data/late is read"

# A user who mounts and unmounts in a loop, in a namespace of its own where its layer
# follows fs:uloop: umbrellad reads that namespace again at most every 50 ms and for at
# most 50 ms of its time a second (fs-watch.h), so it stays mostly idle (root's rfork
# times meanwhile are printed); the pass after the last mount still comes.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$daemon/stat"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# rfork_ms: how long root's "umbrella-cli run -r fs:$t/out -- true" takes, in ms.
rfork_ms() {
	local start
	start=$(now_ms)
	"$cli" run -r "fs:$t/out" -- true || return 1
	echo $(($(now_ms) - start))
}
base=0
for _ in 1 2 3; do
	ms=$(rfork_ms) && [ "$ms" -gt "$base" ] && base=$ms
done
uloop_script="while [ ! -e $sync/uloop.go ]; do sleep 0.1; done
	unshare -Urm sh -c 'mount --bind $t/uloop/m $t/else && cat $t/else/f'
	echo bind=\$?; cat $t/out/f"
(
	setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Urm nice -n 19 "$py" \
		"$tmp/uloop.py" "$cli" "$t" "$sync" 1500 600 \
		"touch $sync/uloop.ready; $uloop_script" >"$tmp/uloop.out" 2>&1
	echo $? >"$tmp/uloop.rc"
) </dev/null >/dev/null 2>&1 &
wait_for test -e "$sync/uloop.looping" || wait_for test -e "$sync/uloop.looping"
check $? "setup: a user's namespace with 1500 mounts, its layer made, its mount loop started"
sleep 1
ticks0=$(cpu_ticks) start=$(now_ms) worst=0
for _ in 1 2 3 4 5; do
	ms=$(rfork_ms) || ms=999999
	[ "$ms" -gt "$worst" ] && worst=$ms
	sleep 0.3
done
sleep 1
ticks=$(($(cpu_ticks) - ticks0)) wall=$(($(now_ms) - start))
touch "$sync/uloop.stop"
share=$((ticks * 10 * 100 / wall)) # percent of one CPU (100 ticks a second)
wait_for test -e "$sync/uloop.mounted" || wait_for test -e "$sync/uloop.mounted"
mounted=$?
out="umbrellad used ${share}% of a CPU over ${wall} ms; $(cat "$tmp/uloop.out")"
echo "# umbrellad used ${share}% of a CPU over ${wall} ms of the loop;" \
	"$(grep -o 'loops=[0-9]*' "$tmp/uloop.out")"
[ "$mounted" = 0 ] && [ "$share" -lt 40 ]
check $? "a user's mount loop in its own namespace keeps umbrellad under 40% of a CPU"
out="root's rfork: ${worst} ms in the loop, ${base} ms before"
echo "# $out"
# Printed, not checked: with umbrellad at 11-14% of a CPU, root's rfork still took 10-18
# times as long during the loop (6.1, 6.12), so most of that is not umbrellad's loop
# (the kernel's mount locks under the loop's mounts, presumably; not measured apart).
# The pass after the last mount: within a second (the user's debt is at most 50 ms).
sleep 2
touch "$sync/uloop.go"
wait_for test -e "$tmp/uloop.rc"
out="$(cat "$tmp/uloop.out") rc=$(cat "$tmp/uloop.rc" 2>/dev/null)"
[[ "$out" == *"Permission denied"* ]] && [[ "$out" != *secret* ]] && [[ "$out" == *bind=1* ]] &&
	[[ "$out" == *fine* ]]
check $? "fs:uloop: the mount left on uloop/m after the loop is covered (its bind mount not read)"

# A user's layer: its rules count against its max_rules_per_user, the followed ones too.
# The limit is set (SIGHUP) to what the layer holds plus one: the first mount below udata
# is followed, the second is refused and logged.
printf 'max_rules_per_user = %d\n' "$((user_rules + 1))" >"$conf"
kill -HUP "$daemon" && logged "reloading the configuration"
check $? "setup: max_rules_per_user reloaded to one over the $user_rules entries of the user's layer"
mount -t tmpfs umbrella-test "$t/udata/a" && logged "the mount on $t/udata/a (below its rule" &&
	mount -t tmpfs umbrella-test "$t/udata/b" &&
	logged "the mount on $t/udata/b, below its rule on $t/udata, is not restricted"
check $? "a user's layer follows one mount below udata, the next is refused past max_rules_per_user"
finish user

# The layers go with their tasks, and with them the rules added.
rules_back() { [ "$(live_rules)" = "$base_rules" ]; }
wait_for rules_back
rc=$?
out="rules $(live_rules), want $base_rules"
check $rc "the layers' rules, the followed ones too, are freed with the layers"

kill "$daemon"
wait "$daemon"
umount "$t/data/late" "$t/media" "$t/udata/a" "$t/udata/b"
rm -rf "$tmp"
tap_done
