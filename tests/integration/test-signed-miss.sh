#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): a signed binary never runs without its verdict (issue 15, item 2).
# "umbrella-cli binary sign" writes the signature mark (include/umbrella/signed-elf-format.h)
# into the file's first bytes, which the kernel holds at exec (bprm->buf): on an exec
# without a verdict, BPF refuses a marked file with EPERM instead of running it as
# unsigned under "unsigned = allow". Every check runs the binary and asserts the errno
# of the actual exec, with an unsigned copy beside it as the positive control:
#   (overlayfs, whose files have the verdicts of the files underneath: test-signed-overlay)
#   - tmpfs with umbrellad killed: a marked binary never executed before is refused,
#     also as the interpreter of a script; an unsigned copy runs; a copy verified
#     before the kill runs with its restriction (its cached verdict); a binary signed
#     without the mark (an older umbrella-cli) follows the mode, as documented: it runs,
#     unrestricted.
# Cheap: one umbrellad start, a dozen execs.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
# $tmp: tmpfs in the VM, where verdicts are cached
vm_test /run/umbrella-signed-miss/umbrellad.sock /sys/fs/bpf/umbrella-signed-miss
ring=$tmp/keys
bin=$tmp/bin
trap vm_cleanup EXIT
mkdir -p "$ring" "$bin"
export UMBRELLA_KEYRING=$ring

# probe PATH [ARG]...: exec PATH through exec-probe (static, unsigned) into $out, $rc.
probe() { out=$("$bin/exec-probe" "$@" 2>&1); rc=$?; }
exec_failed() { [ "$rc" = 111 ] && [[ "$out" == "exec $1: $2" ]]; }
opened() { printf '%s\n' "$out" | grep -qxF "$1: $2"; }
denied() { opened "$1" EACCES || opened "$1" EPERM; }

# unmark FILE KEY: FILE (signed, marked) as an umbrella-cli from before the mark signed
# it: the first program header's p_paddr back to its p_vaddr, the digest signed again.
unmark() {
	local off
	off=$(python3 - "$1" "$tmp/digest" <<-'EOS'
	import hashlib, struct, sys
	path, out = sys.argv[1], sys.argv[2]
	b = bytearray(open(path, "rb").read())
	b[88:96] = b[80:88]	# p_paddr = p_vaddr of program header 0 (at e_phoff 64)
	shoff, = struct.unpack_from("<Q", b, 0x28)
	shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
	sh = lambda i: struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i)
	names = sh(shstrndx)[4]
	sig = [s for s in map(sh, range(shnum))
	       if bytes(b[names + s[0]:]).split(b"\0")[0] == b".umbrella.sig"][0]
	off, size = sig[4], sig[5]
	open(path, "wb").write(b)
	open(out, "wb").write(hashlib.sha256(b[:off] + b[off + size:]).digest())
	print(off)
	EOS
	) &&
		openssl pkeyutl -sign -inkey "$2" -rawin -in "$tmp/digest" -out "$tmp/sig" &&
		dd if="$tmp/sig" of="$1" bs=1 seek=$((off + 48)) conv=notrunc status=none
}

# --- set-up: a key, umbrellad, the binaries ---

cp "$build/tests/integration/signed-cat" "$build/tests/integration/exec-probe" "$bin/"
cp "$bin/signed-cat" "$bin/plain"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
keyid=$("$cli" key generate miss --dir "$tmp" 2>"$tmp/err") &&
	"$cli" key add "$tmp/miss.pub" >/dev/null 2>>"$tmp/err" &&
	"$cli" binary sign --key "$tmp/miss.key" "$bin/signed-cat" >/dev/null 2>>"$tmp/err"
rc=$?
out=$(cat "$tmp/err")
[ "$rc" = 0 ]
check $? "a key in the ring ($keyid), signed-cat signed with it"

cp "$bin/signed-cat" "$bin/old"
out=$(unmark "$bin/old" "$tmp/miss.key" 2>&1) &&
	out=$("$cli" -j binary inspect "$bin/old" 2>&1) &&
	[ "$(jq -r '[.verdict, (.marked | tostring)] | join(" ")' <<<"$out")" = "signed false" ]
check $? "a copy signed as an older umbrella-cli did, without the mark: it verifies"

out=$("$cli" -j binary inspect "$bin/signed-cat" 2>&1)
[ "$(jq -r '[.verdict, (.marked | tostring)] | join(" ")' <<<"$out")" = "signed true" ]
check $? "binary inspect: the signed binary carries the mark"

check_start "$tmp/d.log" "umbrellad starts" --pin-dir "$pin" --keyring "$ring"

# --- umbrellad up, tmpfs: verified and cached ---

cp "$bin/signed-cat" "$bin/cached"
probe "$bin/cached" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "tmpfs, umbrellad up: the marked binary is verified and runs with its restriction"

# --- umbrellad killed: every exec of a file not seen before is a miss ---

cp "$bin/signed-cat" "$bin/miss-signed"
cp "$bin/plain" "$bin/miss-plain"
cp "$bin/old" "$bin/miss-old"
printf '#!%s\n' "$bin/miss-signed" >"$bin/script"
chmod +x "$bin/script"
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=

probe "$bin/miss-signed" /etc/passwd
exec_failed "$bin/miss-signed" EPERM
check $? "umbrellad killed: a marked binary never verified is refused (EPERM)"

probe "$bin/script"
exec_failed "$bin/script" EPERM
check $? "umbrellad killed: a script whose interpreter is that binary is refused (EPERM)"

probe "$bin/miss-plain" /etc/passwd
[ "$rc" = 0 ] && opened /etc/passwd ok
check $? "umbrellad killed: an unsigned copy runs (a miss under allow: positive control)"

probe "$bin/cached" /etc/passwd /etc/hostname
[ "$rc" = 0 ] && denied /etc/passwd && opened /etc/hostname ok
check $? "umbrellad killed: the copy verified before runs with its restriction (cached)"

probe "$bin/miss-old" /etc/passwd
[ "$rc" = 0 ] && opened /etc/passwd ok
check $? "umbrellad killed: signed without the mark, a miss follows the mode (runs, unrestricted)"

tap_done
