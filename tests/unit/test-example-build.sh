#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): libumbrella is a library people link. The example under
# libumbrella/examples builds with pkg-config against the installed library, shared and
# static, binds versioned symbols, and without umbrellad fails closed: rfork() refuses
# and no worker runs. tests/integration/test-example runs it against a real umbrellad.
# Only the public headers are installed, and they are enough for what the API names.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$source_root/tests/helpers/build-example" "$build" "$tmp" 2>&1)
check $? "the example builds with pkg-config against the installed library, shared and static"
printf '%s\n' "$out" | grep '^pkg-config:' | sed 's/^/# /'

out=$(objdump -T "$tmp/untrusted-worker" 2>&1)
printf '%s\n' "$out" | grep -qE '\(UMBRELLA_0\.3\) +rfork$'
check $? "the shared build binds rfork@UMBRELLA_0.3 (versioned symbols)"

out=$(ldd "$tmp/untrusted-worker-static" 2>&1)
! printf '%s\n' "$out" | grep -q libumbrella
check $? "the static build needs no libumbrella.so"

# The installed headers are libumbrella's API only: the kernel<->daemon map ABI
# (bpf-abi.h) and the signed-binary format stay in the source tree.
out=$(cd "$tmp/root" && find . -path '*/include/umbrella/*' | sort)
[ "$(sed 's|.*/include/umbrella/||' <<<"$out" | tr '\n' ' ')" = "restrictions.h umbrella.h " ]
check $? "only umbrella.h and restrictions.h are installed under include/umbrella"

# What the API hands out (item kinds, rights, access kinds, the policy macro) compiles
# from the installed headers alone, as C and as C++.
pc=$(find "$tmp/root" -name libumbrella.pc -print -quit)
cflags=$(PKG_CONFIG_LIBDIR=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$tmp/root pkg-config --cflags libumbrella)
cat >"$tmp/values.c" <<'PROGRAM'
#include <umbrella/umbrella.h>

UMBRELLA_EXEC_RESTRICTIONS("fs:/etc/shadow:r,net");

int main(void)
{
	struct umb_restrictions *r = umb_restrictions__new();
	const struct umb_item *item;
	int ok;

	ok = r && umb_restrictions__add_cap(r, UMB_CR_NET | UMB_CR_EXEC) == 0 &&
	     umb_restrictions__add_fs(r, "/etc", UMB_FS_READ | UMB_FS_WRITE) == 0;
	item = ok ? umb_restrictions__item(r, 1) : 0;
	ok = ok && item && item->kind == UMB_ITEM_FS && item->fs_access != UMB_FS_ALL;
	umb_restrictions__free(r);
	return ok && sizeof(struct umb_policy_header) == 16 ? 0 : 1;
}
PROGRAM
cp "$tmp/values.c" "$tmp/values.cc"
out=$(cc -Wall -Wextra -Werror $cflags -c "$tmp/values.c" -o "$tmp/values-c.o" 2>&1 &&
	c++ -std=c++11 -Wall -Wextra -Werror $cflags -c "$tmp/values.cc" -o "$tmp/values-cc.o" 2>&1)
check $? "a program using the item kinds, UMB_CR_*, UMB_FS_* and the policy macro builds from the installed headers (C and C++)"

for binary in untrusted-worker untrusted-worker-static; do
	out=$(UMBRELLA_SOCKET=$tmp/no-such.sock "$tmp/$binary" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [[ "$out" == *"rfork: cannot reach umbrellad"* ]] &&
		! printf '%s\n' "$out" | grep -q '^worker:'
	check $? "$binary without umbrellad: rfork fails, no worker runs (exit $rc)"
done

tap_done
