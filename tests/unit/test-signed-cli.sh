#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): the round trip of signed binaries through umbrella-cli, no BPF: key
# generate and add, binary sign (a copy of /bin/true with -r, and a static program
# built with UMBRELLA_EXEC_RESTRICTIONS), verify, inspect --json, tampering, an unsigned
# file, revoke and remove, each with the exit code umbrella-cli(8) documents.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export UMBRELLA_KEYRING=$tmp/ring

id=$("$cli" key generate vendor --dir "$tmp" 2>&1)
rc=$?
out=$id
[ $rc = 0 ] && [[ $id =~ ^[0-9a-f]{64}$ ]] &&
	[ "$(stat -c %a "$tmp/vendor.key")" = 600 ] && [ -f "$tmp/vendor.pub" ]
check $? "key generate: vendor.key (0600) and vendor.pub, prints the key id"
out=$("$cli" key generate vendor --dir "$tmp" 2>&1)
[ $? = 1 ] && [[ $out == *"File exists"* ]]
check $? "key generate never overwrites a key"

out=$("$cli" key add "$tmp/vendor.key" 2>&1)
[ $? = 1 ] && [[ $out == *"private key"* ]]
check $? "key add refuses a private key"
out=$("$cli" key add "$tmp/vendor.pub" 2>&1)
[ $? = 0 ] && [ "$out" = "$id" ] && [ "$(stat -c %a "$UMBRELLA_KEYRING/$id.pem")" = 644 ]
check $? "key add stores the public key as ID.pem (0644)"
out=$("$cli" key list --json 2>&1)
[ "$(jq -r '.[0].id + " " + (.[0].revoked | tostring)' <<<"$out")" = "$id false" ]
check $? "key list --json: the key, not revoked"

cp /bin/true "$tmp/true"
out=$("$cli" binary verify "$tmp/true" 2>&1)
[ $? = 5 ] && [[ $out == *"no signature"* ]]
check $? "binary verify of an unsigned file: exit 5, no signature"

cp -p "$tmp/vendor.key" "$tmp/open.key"
chmod 640 "$tmp/open.key"
out=$("$cli" binary sign --key "$tmp/open.key" --no-policy "$tmp/true" 2>&1)
rc=$?
[ $rc != 0 ] && [[ $out == *"permissions 0640 are too open"* ]] &&
	! "$cli" binary verify "$tmp/true" >/dev/null 2>&1
check $? "binary sign refuses a private key others may read, as ssh does (exit $rc)"
out=$("$cli" binary sign --key "$tmp/vendor.key" -r fs:/etc/passwd -r net "$tmp/true" 2>&1)
check $? "binary sign -r fs:/etc/passwd -r net"
"$tmp/true"
check $? "the signed copy of /bin/true still runs"
out=$("$cli" binary verify "$tmp/true" 2>&1)
[ $? = 0 ] && [[ $out == *"valid signature by key $id"* ]]
check $? "binary verify: exit 0, valid signature by the key"
out=$("$cli" binary inspect --json "$tmp/true" 2>&1)
[ "$(jq -r '[.policy, .key_id, .verdict, (.valid | tostring), (.marked | tostring)] |
	join(" ")' <<<"$out")" = "fs:/etc/passwd,net $id signed true true" ]
check $? "binary inspect --json: policy, key id, verdict, the signature mark"

size=$(stat -c %s "$tmp/true")
out=$("$cli" binary sign --key "$tmp/vendor.key" "$tmp/true" 2>&1) &&
	[ "$(stat -c %s "$tmp/true")" = "$size" ] &&
	[ "$(jq -r .policy <<<"$("$cli" binary inspect -j "$tmp/true")")" = fs:/etc/passwd,net ]
check $? "re-signing without -r keeps the policy and the size"

out=$("$cli" binary sign --key "$tmp/vendor.key" -r 'fs:etc' "$tmp/true" 2>&1)
[ $? = 2 ] && [[ $out == *"fs:etc"* ]]
check $? "binary sign -r with an item the grammar refuses: exit 2"

cp "$tmp/true" "$tmp/tampered"
printf '\x90' | dd of="$tmp/tampered" bs=1 seek=$((size / 3)) conv=notrunc status=none
out=$("$cli" binary verify "$tmp/tampered" 2>&1)
[ $? = 6 ] && [[ $out == *"signature does not match"* ]]
check $? "one byte changed: exit 6, signature does not match"

printf '#!/bin/sh\n' >"$tmp/script"
out=$("$cli" binary inspect --json "$tmp/script" 2>&1)
[ "$(jq -r '[(.elf | tostring), .verdict] | join(" ")' <<<"$out")" = "false unsigned" ]
check $? "binary inspect of a script: not ELF, unsigned"
out=$("$cli" binary sign --key "$tmp/vendor.key" "$tmp/script" 2>&1)
[ $? = 1 ] && [[ $out == *"not an ELF file"* ]]
check $? "binary sign refuses a file that is not ELF"

# A static program built with the macro keeps its policy through signing.
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <umbrella/umbrella.h>

UMBRELLA_EXEC_RESTRICTIONS("fs:/etc/passwd,net");

int main(void)
{
	puts("hello");
	return 0;
}
EOF
if cc -static -I "$source_root/include" -o "$tmp/prog" "$tmp/prog.c" 2>"$tmp/cc.log"; then
	out=$("$cli" binary sign --key "$tmp/vendor.key" "$tmp/prog" 2>&1) &&
		out=$("$tmp/prog") && [ "$out" = hello ] &&
		out=$("$cli" binary inspect --json "$tmp/prog") &&
		[ "$(jq -r '.policy + " " + .verdict' <<<"$out")" = "fs:/etc/passwd,net signed" ]
	check $? "a static program with UMBRELLA_EXEC_RESTRICTIONS: signed, runs, its policy read"
	out=$("$cli" binary sign --key "$tmp/vendor.key" -r fork "$tmp/prog" 2>&1) &&
		out=$("$tmp/prog") && [ "$out" = hello ] &&
		out=$("$cli" binary inspect --json "$tmp/prog") &&
		[ "$(jq -r '.policy + " " + .verdict' <<<"$out")" = "fork signed" ] &&
		[ "$(readelf -SW "$tmp/prog" | grep -c '\.umbrella\.policy')" = 1 ]
	check $? "sign -r replaces the macro's policy: one .umbrella.policy, runs"
else
	echo "# cc -static failed: $(head -n 1 "$tmp/cc.log")"
	skip "no static C toolchain"
fi

# Text a file's author wrote (its policy, the reason it is refused, its name in a tree)
# is shown as printable text: an escape sequence in it must not drive root's terminal.
cat >"$tmp/esc.c" <<'EOF'
#include <umbrella/umbrella.h>
UMBRELLA_EXEC_RESTRICTIONS("fs:/tmp/\x1b]0;owned\x07\x1b[2J\nSIGNED yes");
int main(void) { return 0; }
EOF
if cc -I "$source_root/include" -o "$tmp/esc" "$tmp/esc.c" 2>"$tmp/cc.log"; then
	out=$("$cli" binary inspect --keyring "$UMBRELLA_KEYRING" "$tmp/esc" 2>&1)
	! grep -q "$(printf '[\033\007]')" <<<"$out" &&
		[[ $out == *'\x1b]0;owned\x07\x1b[2J\x0aSIGNED yes'* ]]
	check $? "binary inspect: a policy's escape sequences and newline shown as \\xNN"
else
	echo "# cc failed: $(head -n 1 "$tmp/cc.log")"
	skip "no C toolchain"
fi
mkdir "$tmp/tree"
cp /bin/true "$tmp/tree/a$(printf '\033')[2Jb"
out=$("$cli" binary sign --key "$tmp/vendor.key" --no-policy --tree "$tmp/tree" 2>&1)
[ $? = 0 ] && ! grep -q "$(printf '\033')" <<<"$out" && [[ $out == *'/a\x1b[2Jb: signed'* ]]
check $? "binary sign --tree: a file name's escape sequence shown as \\x1b"
out=$("$cli" binary verify "$tmp/missing$(printf '\033')]0;t" 2>&1)
[ $? = 1 ] && ! grep -q "$(printf '\033')" <<<"$out" &&
	[[ $out == *'missing\x1b]0;t: No such file'* ]]
check $? "an error naming a file: its escape sequence shown as \\x1b"

out=$("$cli" key revoke "$id" 2>&1) && out=$("$cli" key revoke "$id" 2>&1) &&
	[ "$(grep -c "^$id$" "$UMBRELLA_KEYRING/revoked")" = 1 ]
check $? "key revoke, twice: the id once in revoked"
out=$("$cli" key list 2>&1)
[[ $out == *"$id yes"* ]]
check $? "key list: revoked yes"
out=$("$cli" binary verify "$tmp/true" 2>&1)
[ $? = 6 ] && [[ $out == *"revoked key"* ]]
check $? "binary verify after revoke: exit 6, revoked key (the key file is still there)"

out=$("$cli" key remove "$id" 2>&1)
check $? "key remove"
out=$("$cli" key remove "$id" 2>&1)
[ $? = 4 ]
check $? "key remove of a key that is not there: exit 4"
out=$("$cli" key remove nothex 2>&1)
[ $? = 2 ]
check $? "key remove of something that is no key id: exit 2"
printf '' >"$UMBRELLA_KEYRING/revoked"
out=$("$cli" binary verify --keyring "$UMBRELLA_KEYRING" "$tmp/true" 2>&1)
[ $? = 5 ] && [[ $out == *"which the key ring does not know"*"runs as unsigned"* ]]
check $? "binary verify --keyring with the key removed: exit 5, unknown signer, runs as unsigned"
out=$("$cli" --json binary verify --keyring "$UMBRELLA_KEYRING" "$tmp/true" 2>&1)
[ $? = 5 ] && [[ $out == *'"verdict":"unsigned","valid":false,"unknown_signer":true'* ]]
check $? "binary verify --json: unsigned, unknown_signer ($out)"

tap_done
