#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a signed binary through a nested overlay (an overlay whose lower layer
# is an overlay, as a container over an image that is itself an overlay). Its verdict is
# that of the file holding the content, two levels down (bpf/lib/backing.bpf.h):
#   - 6.12: verified at the first exec through the outer overlay, it runs with its
#     signed restriction (signed-cat's policy denies /etc/passwd); 6.1 sends no event
#     for the file underneath: there it is first exec'd from its layer;
#   - the file holding the content then refuses a write open (ETXTBSY: pinned);
#   - a signed copy changed in the bottom layer from outside is refused (EPERM), an
#     unsigned binary runs (the mode is allow), through the nested overlay;
#   - exec-unsigned, 6.12: the signed binary maps by the verdict two levels down and runs
#     restricted; the unsigned one is refused (EPERM).
# Before, the note of the file underneath never matched the outer overlay file (its
# backing file is the inner overlay file): every signed binary there was refused.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-signed-overlay-nested
export UMBRELLA_SOCKET=/run/umbrella-signed-overlay-nested/umbrellad.sock
tmp=$(mktemp -d)
bin=$tmp/bin
base=$tmp/base   # a tmpfs: the bottom layer
inner=$tmp/inner # an overlay over it
outer=$tmp/outer # an overlay whose lower layer is $inner
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	umount "$outer" "$inner" "$tmp/up" "$base" 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$bin" "$base" "$inner" "$outer" "$tmp/up"
export UMBRELLA_KEYRING=$tmp/keys
new_kernel=0
[ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge 6012 ] && new_kernel=1

probe() { out=$("$bin/exec-probe" "$@" 2>&1); rc=$?; }
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }
runs_restricted() {
	probe "$1" /etc/passwd /etc/hostname
	[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
}
wopen() { # FILE: open FILE for writing, change nothing; "ok" or the errno's name
	python3 -c '
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_WRONLY)); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1"
}

cp "$build/tests/integration/signed-cat" "$build/tests/integration/exec-probe" "$bin/"
cp "$bin/signed-cat" "$bin/plain"
cp "$bin/exec-probe" "$bin/exec-probe-signed"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
out=$({ mkdir "$tmp/keys" && "$cli" key generate ovl --dir "$tmp" >/dev/null &&
	"$cli" key add "$tmp/ovl.pub" >/dev/null &&
	"$cli" binary sign --key "$tmp/ovl.key" "$bin/signed-cat" >/dev/null &&
	"$cli" binary sign --no-policy --key "$tmp/ovl.key" "$bin/exec-probe-signed" >/dev/null; } 2>&1)
check $? "a key in the ring, signed-cat and exec-probe signed with it"

out=$({ mount -t tmpfs base "$base" && mount -t tmpfs up "$tmp/up" &&
	mkdir -p "$tmp/up/iu" "$tmp/up/iw" "$tmp/up/ou" "$tmp/up/ow" &&
	for f in app changed; do cp "$bin/signed-cat" "$base/$f"; done &&
	cp "$bin/plain" "$base/plain" && load_module overlay &&
	mount -t overlay overlay -o "lowerdir=$base,upperdir=$tmp/up/iu,workdir=$tmp/up/iw" "$inner" &&
	mount -t overlay overlay -o "lowerdir=$inner,upperdir=$tmp/up/ou,workdir=$tmp/up/ow" "$outer" &&
	[ "$(stat -f -c %T "$outer/app")" = overlayfs ]; } 2>&1)
check $? "a nested overlay: the outer one's lower layer is an overlay over a tmpfs"

start_daemon "$tmp/d.log" --pin-dir "$pin" --keyring "$tmp/keys"
rc=$?
out=$(cat "$tmp/d.log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

if [ "$new_kernel" = 0 ]; then
	runs_restricted "$base/app"
	check $? "6.1: the binary exec'd from the bottom layer (verified there: no event underneath)"
else
	skip "6.1 only: the binary exec'd from the bottom layer first (6.12 verifies it through the overlay)"
fi
runs_restricted "$outer/app"
check $? "through the nested overlay, the signed binary runs with its restriction"

runs_restricted "$outer/app"
check $? "and again"

out=$(wopen "$base/app")
[ "$out" = ETXTBSY ]
check $? "the file holding its content refuses a write open (ETXTBSY: pinned)"

out=$(python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR); off = os.fstat(fd).st_size // 2
os.pwrite(fd, bytes([os.pread(fd, 1, off)[0] ^ 0xff]), off); os.close(fd)' "$base/changed" 2>&1)
check $? "one byte of a signed copy changed in the bottom layer, from outside"

probe "$outer/changed" /etc/passwd
[ "$rc" = 111 ] && [ "$out" = "exec $outer/changed: EPERM" ]
check $? "through the nested overlay, the changed copy is refused (EPERM)"

probe "$outer/plain" /etc/passwd
[ "$rc" = 0 ] && opened /etc/passwd ok
check $? "through the nested overlay, an unsigned binary runs (the mode is allow: control)"

eu() { out=$("$cli" run -r exec-unsigned -- "$bin/exec-probe-signed" "$@" 2>&1); rc=$?; }
if [ "$new_kernel" = 1 ]; then
	eu "$outer/app" /etc/passwd /etc/hostname
	[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
	check $? "6.12, exec-unsigned: the signed binary maps by the verdict two levels down and runs"
else
	skip "6.12 only: exec-unsigned through a nested overlay (6.1 has no mmap_backing_file hook)"
fi
eu "$outer/plain" /etc/passwd
[ "$rc" = 111 ] && printf '%s\n' "$out" | grep -qxF "exec $outer/plain: EPERM"
check $? "exec-unsigned: the unsigned binary through the nested overlay is refused (EPERM)"

tap_done
