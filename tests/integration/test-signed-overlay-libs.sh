#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): no write reaches the mapped code of a signed program's library under
# exec-unsigned (issue 15, the containers stop's open item: libraries were not pinned).
# The kernel keeps writers off a running program's own executable (ETXTBSY), not off a
# library or ld.so: their files open for write while mapped, and a write reaches the
# mapped text through the page cache (the verdict dies, the code runs on). So a file
# whose SIGNED verdict lets a task under exec-unsigned map it as code is pinned first,
# as the file underneath an overlay is (bpf/lib/backing.bpf.h): from then on it refuses
# write opens (ETXTBSY) for every user until its inode leaves memory.
# siglib-prog's library returns 0x5a17c0de from an immediate in its code; "siglib-prog
# wait FIFO" prints it, waits, and prints it again, while nobody (who owns the copies)
# changes that immediate in the library's file:
#   - control: the program run without exec-unsigned: the write succeeds and the
#     running program prints the changed value (the write reaches mapped code);
#   - exec-unsigned: the write is refused (ETXTBSY), the program prints the signed
#     value twice; after it ended, still refused; ld.so (the interpreter the kernel
#     mapped) refuses a write too;
#   - 6.12, an overlay whose lower layer holds the copies (verified there by a direct
#     exec; the mappings through the overlay take the verdict underneath at
#     mmap_backing_file): the same, with the file underneath. 6.1 has no such hook and
#     refuses those mappings (test-signed-overlay).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-signed-overlay-libs
export UMBRELLA_SOCKET=/run/umbrella-signed-overlay-libs/umbrellad.sock
tmp=$(mktemp -d)
dir=/tmp/umbrella-siglibs # siglib-prog's PT_INTERP names it (meson.build)
lower=$dir/lower	  # the overlay's lower layer (the same tmpfs: cached)
ovl=$tmp/ovl
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	umount "$ovl" 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp" "$dir"
}
trap cleanup EXIT
new_kernel=0
[ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge 6012 ] && new_kernel=1

need_siglib_prog

# patch FILE: as nobody, change the library's immediate 0x5a17c0de to 0x0bad0bad in
# FILE in place; prints "ok" or the errno's name.
patch() {
	setpriv --reuid 65534 --regid 65534 --clear-groups python3 - "$1" <<'EOP'
import errno, os, sys
path = sys.argv[1]
try:
    data = open(path, 'rb').read()
    off = data.index(b'\xb8\xde\xc0\x17\x5a') + 1
    fd = os.open(path, os.O_WRONLY)
    os.pwrite(fd, b'\xad\x0b\xad\x0b', off)
    os.close(fd)
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
EOP
}
# wopen FILE: as root, open FILE for writing (and change nothing); "ok" or the errno.
wopen() {
	python3 -c '
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_WRONLY)); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1"
}
# attack [-u] PROG: PROG wait FIFO (under "run -r exec-unsigned" with -u) in the
# background; once it printed the first value, patch its library ($(dirname
# LIB)/libumbsiglib.so, or $lib when set), then let it go on. Into $out: its output,
# then "patch: RESULT".
attack() {
	local u=() prog fifo=$tmp/fifo res
	[ "$1" = -u ] && { u=("$cli" run -r exec-unsigned --); shift; }
	prog=$1
	rm -f "$fifo" "$tmp/run.out" && mkfifo -m 666 "$fifo"
	"${u[@]}" "$prog" wait "$fifo" >"$tmp/run.out" 2>&1 </dev/null &
	local pid=$!
	for _ in $(seq 100); do
		grep -q '^value' "$tmp/run.out" && break
		sleep 0.1
	done
	res=$(patch "${lib:-$(dirname "$prog")/libumbsiglib.so}")
	timeout 10 sh -c 'echo >"$1"' sh "$fifo" || kill "$pid"
	wait "$pid"
	out="$(cat "$tmp/run.out")"$'\n'"patch: $res"
}
has() { printf '%s\n' "$out" | grep -qxF "$1"; }
signed_twice() { [ "$(printf '%s\n' "$out" | grep -c '^value 5a17c0de$')" = 2 ]; }

# --- set-up: the signed tree, a copy for the control, umbrellad ---

rm -rf "$dir"
mkdir -p "$dir/ctl" "$lower/ctl" "$ovl" "$tmp/upper" "$tmp/work"
cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$dir/ld-linux-x86-64.so.2"
for d in "$dir" "$dir/ctl" "$lower" "$lower/ctl"; do
	cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$d/libc.so.6"
	cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" "$d/"
done
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
out=$({ "$cli" key generate vendor --dir "$tmp" >/dev/null && mkdir "$tmp/keys" &&
	UMBRELLA_KEYRING=$tmp/keys "$cli" key add "$tmp/vendor.pub" >/dev/null &&
	"$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$dir" >/dev/null &&
	chown -R 65534:65534 "$dir" && chmod 755 "$tmp"; } 2>&1)
check $? "a vendor key; the program, its library, libc and ld.so signed, copies owned by nobody"

start_daemon "$tmp/d.log" --pin-dir "$pin" --keyring "$tmp/keys"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

# --- a local file system (tmpfs) ---

attack "$dir/ctl/siglib-prog"
has "patch: ok" && has "value 5a17c0de" && has "value bad0bad"
check $? "control: without exec-unsigned the library opens for write, and the change reaches the running code"

out=$("$cli" run -r exec-unsigned -- "$dir/siglib-prog" 2>&1)
[ "$out" = "hello from the library" ]
check $? "exec-unsigned: the signed dynamic program runs (positive control)"

attack -u "$dir/siglib-prog"
has "patch: ETXTBSY" && signed_twice
check $? "exec-unsigned: while it runs, its library refuses the write (ETXTBSY), the code stays signed"

out=$(patch "$dir/libumbsiglib.so")
[ "$out" = ETXTBSY ]
check $? "after it ended, the library still refuses a write (pinned until it leaves memory)"

out=$(wopen "$dir/ld-linux-x86-64.so.2")
[ "$out" = ETXTBSY ]
check $? "ld.so, mapped by the kernel under exec-unsigned, refuses a write open too, also root's"

out=$(wopen "$dir/ctl/libumbsiglib.so")
[ "$out" = ok ]
check $? "a library never mapped under exec-unsigned opens for write (control)"

# --- overlayfs: the file underneath ---

if [ "$new_kernel" = 1 ]; then
	out=$({ load_module overlay && mount -t overlay overlay \
		-o "lowerdir=$lower,upperdir=$tmp/upper,workdir=$tmp/work" "$ovl" &&
		"$lower/siglib-prog" && "$lower/ctl/siglib-prog"; } 2>&1)
	check $? "6.12: an overlay over the copies; the program exec'd from the layer (its libraries verified there)"

	lib=$lower/ctl/libumbsiglib.so attack "$ovl/ctl/siglib-prog"
	has "patch: ok" && has "value 5a17c0de" && has "value bad0bad"
	check $? "6.12, control: through the overlay without exec-unsigned, the change underneath reaches the running code"

	lib=$lower/libumbsiglib.so attack -u "$ovl/siglib-prog"
	has "patch: ETXTBSY" && signed_twice
	check $? "6.12, exec-unsigned through the overlay: the library underneath refuses the write (ETXTBSY)"
else
	skip "6.12 only: the libraries underneath an overlay (6.1 has no mmap_backing_file hook)"
fi

tap_done
