#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/signed-bench.sh BUILD_DIR EXEC_ITERATIONS BIG_ITERATIONS
# The in-guest half of tests/bench/run-signed-bench (root, in the test VM, which has
# --plugin insncount.so and one vCPU): generates a key into a temporary ring, starts
# umbrellad with it, prepares the binaries on tmpfs (/tmp/signed-bench) and runs
# signed-bench, whose marked phases the plugin counts (see signed-bench.c).
set -euo pipefail
build=$(realpath "${1:?usage: signed-bench.sh BUILD_DIR EXEC_ITERATIONS BIG_ITERATIONS}")
n_exec=${2:?} n_big=${3:?}
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
pin=/sys/fs/bpf/umbrella-signed-bench
export UMBRELLA_SOCKET=/run/umbrella-signed-bench/umbrellad.sock
dir=/tmp/signed-bench
export UMBRELLA_KEYRING=$dir/keys
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	wait 2>/dev/null || true
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null || true
}
trap cleanup EXIT

mkdir -p "$dir" "$UMBRELLA_KEYRING"
"$cli" key generate bench --dir "$dir" >/dev/null
"$cli" key add "$dir/bench.pub" >/dev/null
sign() { "$cli" binary sign --key "$dir/bench.key" "$@" >/dev/null; }

cp "$build/tests/bench/bench-true" "$dir/true-unsigned"
cp "$dir/true-unsigned" "$dir/true-signed"
sign --no-policy "$dir/true-signed"
cp "$dir/true-unsigned" "$dir/true-policy"
: >"$dir/forbidden"
sign -r "fs:$dir/forbidden" "$dir/true-policy"
# 10 MiB of random bytes in a section that is not loaded: the exec maps what the small
# one maps, the verification hashes it all.
head -c $((10 << 20)) /dev/urandom >"$dir/pad"
objcopy --add-section .bench.pad="$dir/pad" "$dir/true-unsigned" "$dir/big.signed"
rm "$dir/pad"
sign -r "fs:$dir/forbidden" "$dir/big.signed"
cp "$(command -v sha256sum)" "$dir/sha256sum"
cp "$(command -v openssl)" "$dir/openssl"
: >"$dir/empty"
echo "signed-bench: big.signed is $(stat -c %s "$dir/big.signed") bytes; sha256sum uses" \
	"$(ldd "$dir/sha256sum" | grep -q libcrypto && echo OpenSSL || echo "its own SHA-256")"

# The dynamic program and its closure, signed where its PT_INTERP and $ORIGIN find them
# (tests/integration/meson.build), with signed copies kept in pristine/ for the phase
# that needs new inodes; and the same program unsigned beside them.
siglibs=/tmp/umbrella-siglibs
if [ -x "$build/tests/integration/siglib-prog" ]; then
	rm -rf "$siglibs"
	mkdir -p "$siglibs/pristine"
	cp "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$siglibs/pristine/ld-linux-x86-64.so.2"
	cp "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" "$siglibs/pristine/libc.so.6"
	cp "$build/tests/integration/siglib-prog" "$build/tests/integration/libumbsiglib.so" \
		"$siglibs/pristine/"
	sign --no-policy --tree "$siglibs/pristine"
	cp -p "$siglibs"/pristine/* "$siglibs/"
	cp "$build/tests/integration/siglib-prog" "$siglibs/prog-unsigned"
	echo "signed-bench: the closure is $(($(cd "$siglibs" && stat -c %s siglib-prog \
		libumbsiglib.so libc.so.6 ld-linux-x86-64.so.2 | paste -sd+))) bytes"
else
	echo "signed-bench: no siglib-prog (x86-64 only): the dynamic phases are skipped"
	siglibs=-
fi

rm -f "$UMBRELLA_SOCKET"
"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null || true
"$umbrellad" --socket "$UMBRELLA_SOCKET" --pin-dir "$pin" --keyring "$UMBRELLA_KEYRING" \
	2>"$dir/umbrellad.log" &
daemon=$!
for _ in $(seq 300); do
	[ -S "$UMBRELLA_SOCKET" ] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$dir/umbrellad.log" >&2; exit 1; }
	sleep 0.1
done

# Controls: the signed binaries verify, the policy is in force (a refused or unverified
# exec would make the phases measure something else).
"$cli" binary verify "$dir/true-policy" >/dev/null
"$cli" binary verify "$dir/big.signed" >/dev/null
if [ "$siglibs" != - ]; then
	[ "$("$siglibs/siglib-prog")" = "hello from the library" ]
	"$cli" binary verify "$siglibs/siglib-prog" >/dev/null
fi

# The same address space layout at every run (fork copies page tables).
status=0
setarch "$(uname -m)" -R "$build/tests/bench/signed-bench" "$dir" "$n_exec" "$n_big" "$siglibs" ||
	status=$?
echo "signed-bench: umbrellad's log:"
sed 's/^/  /' "$dir/umbrellad.log" | tail -n 20
exit $status
