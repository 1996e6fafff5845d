#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a dynamically linked signed program under exec-unsigned (issue 15,
# item 1). siglib-prog needs its own library libumbsiglib.so and libc through
# DT_RUNPATH $ORIGIN, and its ELF interpreter is a copy of ld.so: all four are copied
# to $dir (tmpfs, where verdicts are cached) and signed there with "binary sign --tree".
# umbrellad verifies the program's library closure at its exec; under
# "run -r exec-unsigned":
#   - it runs (and without exec-unsigned too: the controls);
#   - an unsigned library by LD_PRELOAD or dlopen(): its mapping fails with EPERM, its
#     code never runs, and umbrellad's log names it;
#   - one byte of its own library changed after the verification (a changed copy put in
#     its place: mapped under exec-unsigned, it is pinned), the mapping fails with EPERM, the log names the library (the denial, and the gate's refusal of the
#     library when the program's next exec verifies its closure again).
# And a user stalls no exec through its library directory (issue 13): user nobody in
# "unshare -Urm" mounts a FUSE server that answers every process but umbrellad
# (tests/helpers/fuse-stall.py) and an overlay over it and the real $dir on $dir, then
# runs the program from a bind mount of the real $dir under exec-unsigned, after a
# change in $dir made the gate verify its closure again: its interpreter, at $dir, is
# through the overlay, where umbrellad does not look it up.
# The exec is answered within 30 s, and root's rfork and exec meanwhile too.
# And a caller's mounts past the mount guard's budget get that caller's exec refused,
# nobody else's (issue 27, review 3: see the end).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-siglibs-test
export UMBRELLA_SOCKET=/run/umbrella-siglibs-test/umbrellad.sock
tmp=$(mktemp -d)
dir=/tmp/umbrella-siglibs # siglib-prog's PT_INTERP names it (meson.build)
prog=$dir/siglib-prog
preload=$tmp/libsiglibpreload.so # unsigned, outside the signed tree
daemon= attacker= fuse_mode=
cleanup() {
	touch "$tmp/res/go" 2>/dev/null
	[ -n "$attacker" ] && kill -- -"$attacker" 2>/dev/null # its FUSE server too
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	[ -n "$fuse_mode" ] && chmod "$fuse_mode" /dev/fuse
	rm -rf "$tmp" "$dir"
}
trap cleanup EXIT

need_siglib_prog

# run [-u] CMD...: CMD (under "umbrella-cli run -r exec-unsigned" with -u) into $out, $rc.
run() {
	if [ "$1" = -u ]; then
		shift
		out=$("$cli" run -r exec-unsigned -- "$@" 2>&1 </dev/null)
	else
		out=$("$@" 2>&1 </dev/null)
	fi
	rc=$?
}
# Whether umbrellad's log names $1 in a line with $2 (waits up to 3 s: a ring buffer).
logged() {
	for _ in $(seq 30); do
		grep -F "$2" "$tmp/d.log" | grep -qF "$1" && return 0
		sleep 0.1
	done
	return 1
}
# check_log RESULT DESCRIPTION: check, with umbrellad's log in the output on failure.
check_log() {
	[ "$1" = 0 ] || out+=$'\n'"$(tail -n 8 "$tmp/d.log")"
	check "$@"
}
# flip FILE OFFSET: invert the byte at OFFSET in place.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

rm -rf "$dir"
mkdir -p "$dir"
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$dir/ld-linux-x86-64.so.2"
cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$dir/libc.so.6"
cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" "$dir/"
cp "$build/tests/integration/libsiglibpreload.so" "$preload"
echo "not a program" >"$dir/README"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null

"$cli" key generate vendor --dir "$tmp" >/dev/null 2>"$tmp/err" &&
	mkdir "$tmp/keys" && UMBRELLA_KEYRING=$tmp/keys "$cli" key add "$tmp/vendor.pub" \
	>/dev/null 2>>"$tmp/err"
rc=$?
out=$(cat "$tmp/err")
[ "$rc" = 0 ]
check $? "a vendor key, trusted in a key ring"

out=$("$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$dir" 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q "^4 signed, 1 skipped, 0 failed$" <<<"$out" &&
	grep -q "^$dir/libumbsiglib.so: signed .*(a shared library: no restrictions)$" <<<"$out" &&
	grep -q "^$dir/libc.so.6: signed .*(a shared library: no restrictions)$" <<<"$out" &&
	grep -q "^$dir/README: skipped (not an ELF file)$" <<<"$out"
check $? "binary sign --tree signs the program, its library, libc and ld.so, and skips the rest"

out=$("$cli" binary sign --key "$tmp/vendor.key" -r net "$dir/libumbsiglib.so" 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "a shared library carries no restrictions" <<<"$out"
check $? "binary sign -r of a shared library is refused"

start_daemon "$tmp/d.log" --pin-dir "$pin" --keyring "$tmp/keys"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: the signed dynamic program runs with its signed libraries"
# libc needs "ld-linux-x86-64.so.2": ld.so is the interpreter already loaded from $dir,
# not a file for the gate to look up in /lib (it did, and logged it as not verified).
out=$(grep 'ld-linux' "$tmp/d.log")
[ -z "$out" ]
check $? "the interpreter satisfies libc's DT_NEEDED of its soname: nothing else is looked up"

run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: and again (cached verdicts)"

run "$prog" preload "$preload"
[ "$rc" = 0 ] && grep -q "unsigned library code ran" <<<"$out"
check $? "LD_PRELOAD of an unsigned library runs its code without exec-unsigned (control)"

run -u "$prog" preload "$preload"
! grep -q "unsigned library code ran" <<<"$out" && grep -q "hello from the library" <<<"$out" &&
	logged libsiglibpreload.so "hook=mmap_file"
check_log $? "exec-unsigned: LD_PRELOAD of an unsigned library: its mapping is refused and logged"

run "$prog" dlopen "$preload"
[ "$rc" = 0 ] && grep -q "^dlopen: loaded$" <<<"$out"
check $? "dlopen() of an unsigned library works without exec-unsigned (control)"

run -u "$prog" dlopen "$preload"
[ "$rc" = 3 ] && grep -q "^dlopen: .*libsiglibpreload.so" <<<"$out" &&
	! grep -q "unsigned library code ran" <<<"$out" && logged libsiglibpreload.so "hook=mmap_file"
check $? "exec-unsigned: dlopen() of an unsigned library: its mapping is refused"

cp "$dir/libumbsiglib.so" "$tmp/libcopy.so"
run -u "$prog" dlopen "$tmp/libcopy.so"
[ "$rc" = 3 ] && grep -q "^dlopen: .*libcopy.so" <<<"$out" && logged "object=$tmp/libcopy.so" "hook=mmap_file"
check $? "exec-unsigned: dlopen() of a signed copy that no closure verified fails with EPERM (its record names the whole path)"

cp "$dir/libumbsiglib.so" "$tmp/libgood.so"
# One byte of .comment (the code still loads) of the verified library, changed in a
# copy put in its place by rename: the library was mapped under exec-unsigned, so it
# refuses a write in place (pinned: test-signed-overlay-libs).
s=($(readelf -S -W "$dir/libumbsiglib.so" | awk '$2 == ".comment" { print $5, $6 }'))
cp "$dir/libumbsiglib.so" "$dir/.libumbsiglib.so.new"
[ ${#s[@]} = 2 ] && flip "$dir/.libumbsiglib.so.new" $((16#${s[0]} + 16#${s[1]} / 2)) &&
	mv "$dir/.libumbsiglib.so.new" "$dir/libumbsiglib.so"
run "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "one byte of the library changed: the program runs without exec-unsigned (control)"

run -u "$prog"
[ "$rc" = 127 ] && grep -q "libumbsiglib.so" <<<"$out" &&
	logged libumbsiglib.so "hook=mmap_file" &&
	logged "path=$dir/libumbsiglib.so" "refused binary:"
check_log $? "exec-unsigned: one byte of the library changed after verification: EPERM, logged"

run -u "$prog"
[ "$rc" = 127 ]
check $? "exec-unsigned: and the next exec too"

# The library's name swapped to an unsigned file (a symbolic link to it).
ln -sf "$preload" "$dir/libumbsiglib.so"
run -u "$prog"
[ "$rc" = 127 ] && ! grep -q "unsigned library code ran" <<<"$out"
check $? "exec-unsigned: the library's name a symbolic link to an unsigned library: refused"

# Replaced by rename with a good copy (a new inode), as a package manager installs: the
# gate sees the directory change and verifies the closure at the next exec (an exec
# before it has seen the change fails closed: retried for 3 s).
cp "$tmp/libgood.so" "$dir/.libumbsiglib.so.new" && mv "$dir/.libumbsiglib.so.new" "$dir/libumbsiglib.so"
for _ in $(seq 30); do
	run -u "$prog"
	[ "$rc" = 0 ] && break
	sleep 0.1
done
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: the library replaced by rename with a signed one: the program runs"

# Issue 13: the attacker. Its results in $res, then it waits for $res/go.
load_module fuse && load_module overlay
check $? "the fuse and overlay modules are there"
# Any user may open /dev/fuse where udev runs (0666); the test VM has no udev.
fuse_mode=$(stat -c %a /dev/fuse) && chmod 666 /dev/fuse
res=$tmp/res
mkdir -p "$res" "$tmp/w" && chmod 755 "$tmp" && chmod 777 "$res"
cat >"$tmp/attack.sh" <<EOF
W=$tmp/w
$cli run -r exec-unsigned -- $prog >$res/control.out 2>&1
echo \$? >$res/control.rc
mount -t tmpfs tmpfs \$W && mkdir \$W/fuse \$W/real || exit 10
python3 $source_root/tests/helpers/fuse-stall.py \$W/fuse $daemon >$res/server.out 2>&1 &
for _ in \$(seq 300); do grep -q ready $res/server.out && break; sleep 0.1; done
mount --bind $dir \$W/real && mount -t overlay overlay -o lowerdir=\$W/fuse:\$W/real $dir
echo \$? >$res/mount.rc
while [ ! -e $res/exec.go ]; do sleep 0.1; done
start=\$(date +%s)
timeout -k 5 60 $cli run -r exec-unsigned -- \$W/real/siglib-prog >$res/stall.out 2>&1
echo "\$? \$((\$(date +%s) - start))" >$res/stall.rc
while [ ! -e $res/go ]; do sleep 0.1; done
EOF
setsid setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Urm sh "$tmp/attack.sh" \
	>"$tmp/attack.out" 2>&1 </dev/null &
attacker=$!
for _ in $(seq 600); do [ -e "$res/mount.rc" ] && break; sleep 0.1; done

out="$(cat "$res/control.out" 2>&1)"
[ "$(cat "$res/control.rc" 2>/dev/null)" = 0 ] && [ "$out" = "hello from the library" ]
check $? "exec-unsigned: the user runs the program in its namespace (control)"
out="$(cat "$tmp/attack.out" "$res/server.out" 2>&1)"
[ "$(cat "$res/mount.rc" 2>/dev/null)" = 0 ]
check $? "the user mounts its FUSE server and an overlay over it on $dir"

# A change in $dir drops the gate's ignore marks: the user's next exec of the program
# asks umbrellad, which resolves its closure (as at its first exec after a boot).
touch "$dir/.changed" && rm "$dir/.changed" && sleep 2 && touch "$res/exec.go"
sleep 2 # the user's exec is asked about by now: umbrellad would wait on the server
out=$(timeout -k 5 30 "$cli" run -r fs:/etc/hostname -- cat /etc/hostname 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && [[ "$out" == *"Permission denied"* ]]
check $? "meanwhile umbrellad answers root: fs:/etc/hostname denies cat /etc/hostname"
out=$(timeout -k 5 30 "$cli" run -r exec-unsigned -- "$prog" 2>&1 </dev/null)
rc=$?
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check $? "meanwhile root's exec-unsigned run of the program is answered: it runs"

for _ in $(seq 900); do [ -e "$res/stall.rc" ] && break; sleep 0.1; done
read -r rc secs <"$res/stall.rc" 2>/dev/null
out="rc=$rc in ${secs}s: $(cat "$res/stall.out" 2>&1)"
[ -n "$rc" ] && [ "$rc" != 124 ] && [ "$rc" != 137 ] && [ "${secs:-99}" -le 30 ] &&
	logged "not looked up at $dir/ld-linux-x86-64.so.2" "overlay or FUSE mount made in a user namespace"
check_log $? "the user's exec with its interpreter through the overlay is answered at once, logged"
touch "$res/go"

# Issue 27, review 3: the closure reads the caller's mounts once, within the mount
# guard's budget (daemon/mount-guard.h), not a whole mountinfo per library. Root in a
# mount namespace of its own (no user namespace: the guard checks no mount there, but
# still reads its mounts, budgeted) stacks 3000 bind mounts at a depth of 3.5 KB: its
# mountinfo (~20 MB) is past the budget. After a flush (every closure verified again),
# its exec-unsigned run of the program is refused (its libraries get no verdict) and
# the log says why; then root's run outside that namespace runs (the refusal was that
# caller's: the program got no ignore mark). Before, umbrellad read the mountinfo once
# per library, with no bound, and the program ran. The namespace is remembered for a
# minute: the next exec there is refused without reading its mounts again.
cat >"$tmp/mounts.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def mount(src, dst, fstype, flags):
    if libc.mount(src.encode(), dst.encode(), fstype, flags, None):
        sys.exit("mount %s: %s" % (dst, os.strerror(ctypes.get_errno())))
base = sys.argv[1]
os.makedirs(base, exist_ok=True)
mount("none", base, b"tmpfs", 0)
p = base + ("/" + "m" * 250) * 14
os.makedirs(p)
for i in range(int(sys.argv[2])):
    d = "%s/%d" % (p, i)
    os.mkdir(d)
    mount(d, d, None, 4096) # MS_BIND
print("mounted", flush=True)
PY
out=$("$cli" verdict flush 2>&1)
check $? "root flushes the verdicts: every closure is verified again ($out)"
out=$(timeout -k 5 300 unshare -m --propagation private sh -c \
	"python3 '$tmp/mounts.py' /tmp/umbrella-siglibs-mounts 3000 &&
	 '$cli' run -r exec-unsigned -- '$prog'; echo \"first: \$?\";
	 '$cli' run -r exec-unsigned -- '$prog'; echo \"second: \$?\"" 2>&1 </dev/null)
rc=$?
[[ "$out" == mounted* ]] && [[ "$out" == *"first: 127"* ]] && ! grep -q "hello from the library" <<<"$out" &&
	logged "libraries of $prog" "its mount namespace is past umbrellad's budget for one exec"
check_log $? "exec-unsigned in a namespace of 3000 long mounts: the closure is past the mount budget, the program's libraries are refused, logged (rc=$rc)"
budget_lines=$(grep -c "is past umbrellad's budget for one exec" "$tmp/d.log")
[[ "$out" == *"second: 127"* ]] && [ "$budget_lines" = 1 ]
check_log $? "its next exec there is refused without reading its mounts again (the namespace remembered: $budget_lines log line)"
run -u "$prog"
[ "$rc" = 0 ] && [ "$out" = "hello from the library" ]
check_log $? "exec-unsigned outside that namespace: the program runs (the refusal was that caller's alone)"

tap_done
