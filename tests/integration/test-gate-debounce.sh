#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a library directory any user may write to costs the exec gate at most
# one flush of its ignore marks per second (issue 13, item 8). siglib-prog and its
# libraries are signed in $dir (as test-signed-libs does), its closure verified once
# under "run -r exec-unsigned", which watches $dir; then, as nobody, a file is made
# in $dir 40 times, 50 ms apart: umbrellad logs each flush, at most one for the first
# change and one per second after it (before: one per change). The last change
# is the library renamed over by a signed copy, a new inode without a verdict: the flush
# it is due comes (late, never lost), and the program runs with the new one.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
vm_test /run/umbrella-debounce-test/umbrellad.sock /sys/fs/bpf/umbrella-debounce-test
dir=/tmp/umbrella-siglibs # siglib-prog's PT_INTERP names it (meson.build)
prog=$dir/siglib-prog
fifo=/tmp/umbrella-debounce-fifo # where nobody may open it ($tmp is root's)
cleanup_last() { rm -rf "$dir" "$fifo"; }
trap vm_cleanup EXIT

need_siglib_prog

flushes() { grep -c "libraries changed" "$tmp/d.log"; }

rm -rf "$dir" "$fifo"
mkdir -p "$dir"
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$dir/ld-linux-x86-64.so.2"
cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$dir/libc.so.6"
cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" "$dir/"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null

out=$("$cli" key generate vendor --dir "$tmp" 2>&1 && mkdir "$tmp/keys" &&
	UMBRELLA_KEYRING=$tmp/keys "$cli" key add "$tmp/vendor.pub" 2>&1 &&
	"$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$dir" 2>&1)
check $? "the program, its library, libc and ld.so signed with a trusted key"

check_start "$tmp/d.log" "umbrellad starts" --pin-dir "$pin" --keyring "$tmp/keys"

out=$("$cli" run -r exec-unsigned -- "$prog" 2>&1 </dev/null)
[ "$out" = "hello from the library" ]
check $? "exec-unsigned: the signed dynamic program runs (its closure verified, \$dir watched)"

# $dir is the test's; a directory of a system's libraries that a user may write to is
# the same to the gate.
chmod 1777 "$dir"
cp "$dir/libumbsiglib.so" "$tmp/libumbsiglib.so" # signed: the copy verifies as well
sleep 1.2 # no flush for libraries within the last interval
before=$(flushes)
start=$EPOCHREALTIME
# Shell builtins only (a read that times out on an empty FIFO for the pause): an exec
# per change would itself ask the gate, whose marks the changes drop, and take longer
# than the interval on a loaded emulated machine.
mkfifo -m 666 "$fifo"
setpriv --reuid=65534 --regid=65534 --clear-groups bash -c '
	exec 3<>"$2" || exit
	for ((i = 0; i < 40; i++)); do
		: >"$1/x$i"
		read -r -t 0.05 -u 3
	done
	exit 0' - "$dir" "$fifo"
check $? "nobody changes the directory 40 times"
cp "$tmp/libumbsiglib.so" "$dir/.new" && mv -f "$dir/.new" "$dir/libumbsiglib.so"
end=$EPOCHREALTIME
sleep 5 # the flush still due (due within 1 s; a loaded host runs its timer late)
count=$(($(flushes) - before))
# The first change at once, then one per whole second begun, and the last one due.
secs=$(((${end/./} - ${start/./}) / 1000000 + 1))
out="$count flushes in $secs s (40 changes and a rename)"$'\n'"$(tail -n 5 "$tmp/d.log")"
# Fewer than half the changes, too: on a machine so loaded that the changes come less
# than a second apart the bound above would hold without any debounce.
[ "$count" -ge 2 ] && [ "$count" -le $((secs + 2)) ] && [ "$count" -lt 20 ]
check $? "as nobody, 40 changes of the directory: at most one flush per second ($count in ~$secs s)"

out=$("$cli" run -r exec-unsigned -- "$prog" 2>&1 </dev/null)$'\n'"$(tail -n 5 "$tmp/d.log")"
[ "$(head -n 1 <<<"$out")" = "hello from the library" ]
check $? "the library renamed over last: its flush came, the program runs with the new inode"

kill -0 "$daemon"
check $? "umbrellad still runs"
tap_done
