#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP), no BPF: umbrellad --check-config reports every error of the
# configuration file and every file the key ring rejects, with exit 78 (0 when nothing
# is wrong); a bad file at start is reported in full too; umbrellad's messages are plain
# lines, with the journal's "<N>" priority prefix only when stderr is the journal's
# stream (JOURNAL_STREAM); umbrella-cli key list and status show the keys beside the
# rejected files. "unsigned = deny" while essential programs (/bin/sh...) are unsigned, as
# on this host, is refused (78) by --check-config and at start, unless
# unsigned_deny_force = yes.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ring=$tmp/keys

printf 'mode = strict\n# fine\nfoo = 1\nunsigned = deny\nmode = enforcing\n' >"$tmp/bad.conf"
printf 'mode = permissive\n' >"$tmp/good.conf"
id=$("$cli" key generate vendor --dir "$tmp" 2>&1) &&
	out=$("$cli" key add --keyring "$ring" "$tmp/vendor.pub" 2>&1)
check $? "a key in the ring ($id)"

out=$("$umbrellad" --check-config --config "$tmp/good.conf" --keyring "$ring" 2>&1)
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"$tmp/good.conf: mode=permissive unsigned=allow"* ]] &&
	[[ "$out" == *"$ring: 1 keys (0 of them revoked)"* ]]
check $? "--check-config on a good file and ring: exit 0 and what they hold (exit $rc)"

# The user's mistake of issue 11: a vendor's key copied in under its own name.
cp "$tmp/vendor.pub" "$ring/vendor.pub"
echo "notes" >"$ring/notes.txt"
"$umbrellad" --check-config --config "$tmp/bad.conf" --keyring "$ring" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
out=$(cat "$tmp/stderr")
[ "$rc" = 78 ] && [ "$(wc -l <"$tmp/stderr")" = 5 ] &&
	grep -qxF "umbrellad: $tmp/bad.conf:1: unknown mode 'strict' (expected enforcing or permissive)" "$tmp/stderr" &&
	grep -qxF "umbrellad: $tmp/bad.conf:3: unknown key 'foo'" "$tmp/stderr" &&
	grep -qxF "umbrellad: $tmp/bad.conf:5: duplicate key 'mode' (already set on line 1)" "$tmp/stderr" &&
	grep -qF "umbrellad: key ring: $ring/vendor.pub: the Ed25519 public key $id, not trusted" "$tmp/stderr" &&
	grep -qF "umbrellad: key ring: $ring/notes.txt: not an Ed25519 public key" "$tmp/stderr"
check $? "--check-config: exit 78, three errors of the file and two rejected key files, one a line each (exit $rc)"
out=$(cat "$tmp/stdout")
[[ "$out" == *"$ring: 1 keys (0 of them revoked), and rejected files"* ]]
check $? "--check-config: the valid key is still counted"

out=$("$umbrellad" --config "$tmp/bad.conf" --keyring "$ring" 2>&1)
rc=$?
[ "$rc" = 78 ] && [ "$(grep -c "^umbrellad: $tmp/bad.conf:[135]: " <<<"$out")" = 3 ]
check $? "umbrellad started with a bad file: every error, then exit 78 (exit $rc)"

out=$(UMBRELLA_KEYRING=$ring "$cli" --pin-dir "$tmp/no-pins" status 2>&1)
[[ "$out" == *"key ring: $ring (umbrella-cli's: umbrellad is not running): 1 keys, and files rejected (not trusted):"* ]] &&
	[[ "$out" == *"  $ring/vendor.pub: the Ed25519 public key $id"* ]] &&
	[[ "$out" == *"  $ring/notes.txt: "* ]]
check $? "umbrella-cli status lists the files the key ring rejects"
out=$(UMBRELLA_KEYRING=$ring "$cli" --pin-dir "$tmp/no-pins" -j status 2>&1 |
	jq -r '.keyring | "\(.keys) \(.revocations_known) \(.rejected | length) \(.of)"')
[ "$out" = "1 true 2 cli" ]
check $? "status --json: keyring.keys, revocations_known, rejected[], of: cli (no umbrellad) ($out)"

out=$("$cli" key list --keyring "$ring" 2>"$tmp/stderr")
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"$id no"* ]] && grep -qF "$ring/vendor.pub" "$tmp/stderr"
check $? "key list: the key, and the rejected files on stderr (exit $rc)"
rm "$ring/vendor.pub" "$ring/notes.txt"

printf '%s\n%.63s\n' "$id" "$id" >"$ring/revoked"
out=$("$umbrellad" --check-config --config "$tmp/good.conf" --keyring "$ring" 2>&1)
rc=$?
[ "$rc" = 78 ] && [[ "$out" == *"$ring/revoked:2: not a key id"* ]] &&
	[[ "$out" == *"$ring: no key is trusted: the revocation list is not known"* ]]
check $? "--check-config: a bad line in the revocation list means no key is trusted (exit $rc)"
out=$("$cli" key revoke --keyring "$ring" "$id" 2>&1)
[ $? = 1 ] && [ "$(wc -l <"$ring/revoked")" = 2 ]
check $? "key revoke does not append to a list with an error"
rm "$ring/revoked"

# Nothing on this host is signed: deny would refuse /bin/sh, root's shell, systemctl...
printf 'unsigned = deny\n' >"$tmp/deny.conf"
printf 'unsigned = deny\nunsigned_deny_force = yes\n' >"$tmp/force.conf"
"$umbrellad" --check-config --config "$tmp/deny.conf" --keyring "$ring" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
out=$(cat "$tmp/stderr")
[ "$rc" = 78 ] &&
	grep -qF "umbrellad: $tmp/deny.conf: 'unsigned = deny' refused: it would lock this machine up" "$tmp/stderr" &&
	grep -qE "^umbrellad:   /bin/sh( \(.*\))?: no signature$" "$tmp/stderr" &&
	grep -qF "umbrellad:   $(getent passwd 0 | cut -d: -f7)" "$tmp/stderr" &&
	grep -qF "umbrellad:   $umbrellad: no signature" "$tmp/stderr" &&
	grep -qF "unsigned_deny_force = yes" "$tmp/stderr"
check $? "--check-config: unsigned = deny with /bin/sh, root's shell and umbrellad unsigned: exit 78, each named (exit $rc)"
out=$("$umbrellad" --check-config --config "$tmp/force.conf" --keyring "$ring" 2>&1)
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"unsigned_deny_force = yes: 'unsigned = deny' in force although"* ]] &&
	[[ "$out" == *"  /bin/sh"* ]]
check $? "--check-config: the same with unsigned_deny_force = yes: exit 0, the programs named in a warning (exit $rc)"
out=$("$umbrellad" --config "$tmp/deny.conf" --keyring "$ring" 2>&1)
rc=$?
[ "$rc" = 78 ] && [[ "$out" == *"'unsigned = deny' refused"*"  /bin/sh"* ]]
check $? "umbrellad started with unsigned = deny and /bin/sh unsigned: exit 78, before loading anything (exit $rc)"

# Where stderr goes: a file here, not the journal.
"$umbrellad" --config "$tmp/missing.conf" 2>"$tmp/stderr"
out=$(cat "$tmp/stderr")
[ "$out" = "umbrellad: $tmp/missing.conf: No such file or directory" ]
check $? "stderr not the journal: a plain line, no priority prefix"
JOURNAL_STREAM=1:1 "$umbrellad" --config "$tmp/missing.conf" 2>"$tmp/stderr"
out=$(cat "$tmp/stderr")
[ "$out" = "umbrellad: $tmp/missing.conf: No such file or directory" ]
check $? "JOURNAL_STREAM naming another stream (inherited): still plain"
: >"$tmp/journal"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/journal") "$umbrellad" --config "$tmp/missing.conf" \
	2>>"$tmp/journal"
out=$(cat "$tmp/journal")
[ "$out" = "<3>umbrellad: $tmp/missing.conf: No such file or directory" ]
check $? "stderr the stream JOURNAL_STREAM names: the error with its priority prefix <3>"

tap_done
