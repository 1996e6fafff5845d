#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): umbrella-cli's grammar, no BPF: the command tables (prefix
# abbreviations, ambiguity named, unknown words), help for every object and command and
# --help anywhere, "run help" against a program named help, --json answers and errors
# ({"error": ...} on stdout, the exit status unchanged), global options before the
# object and after the command; the key ring's labels, id prefixes and unrevoke; and
# signing that keeps file capabilities and other attributes, and refuses hard links
# and security.evm.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export UMBRELLA_KEYRING=$tmp/ring

# run ARG...: umbrella-cli's stdout in $out, its stderr in $err, its status in $rc.
run() {
	out=$("$cli" "$@" 2>"$tmp/stderr")
	rc=$?
	err=$(cat "$tmp/stderr")
}
# json_is EXPR: the jq expression EXPR holds on $out (one JSON document).
json_is() { [ "$(jq -c "$1" <<<"$out" 2>/dev/null)" = true ]; }

# Abbreviations: the objects and the commands, as bpftool takes them.
run --pin-dir "$tmp/none" ta li
[ $rc = 1 ] && [[ $err == *"$tmp/none: nothing pinned"* ]]
check $? "'ta li' is task list: it reads the pins (exit $rc: $err)"
run --keyring "$tmp/ring" k l
[ $rc = 0 ] && [[ $out == ID* ]]
check $? "'k l' is key list (exit $rc)"
run ver
[ $rc = 2 ] && [[ $err == *"ver: ambiguous: verdict, version"* ]] && [ -z "$out" ]
check $? "'ver' is ambiguous: an error naming verdict and version, exit 2 ($err)"
run version
[ $rc = 0 ] && [[ $out == "umbrella-cli "* ]]
check $? "a word spelt out is never ambiguous: version (exit $rc)"
run key re "$(printf 'a%.0s' {1..64})"
[ $rc = 2 ] && [[ $err == *"key re: ambiguous: remove, revoke"* ]]
check $? "'key re' is ambiguous between remove and revoke ($err)"
run frobnicate
[ $rc = 2 ] && [[ $err == *"frobnicate: unknown command"* ]]
check $? "an unknown object: exit 2 ($err)"
run task frob
[ $rc = 2 ] && [[ $err == *"task frob: unknown command"* ]]
check $? "an unknown command: exit 2 ($err)"

# Help for every object and command, with help, --help or -h, never running anything.
missing=
for words in "help" "--help" "status help" "status --help" "task help" "task list --help" \
	"task show -h" "layer help" "layer show --help" "verdict help" "verdict flush --help" \
	"events --help" "events help" "metrics help" "metrics --help" "binary help" "binary sign --help" \
	"key help" "key list --help" "key revoke -h" "key generate --help" "run help" \
	"run --help" "version --help" "ta --help"; do
	run $words
	[ $rc = 0 ] && [[ $out == *Usage:* ]] || missing+=" [$words: $rc]"
done
out=$missing
[ -z "$missing" ]
check $? "help for every object and command, exit 0 (failed:${missing:- none})"
run key list --help --keyring /nonexistent/ring
[ $rc = 0 ] && [[ $out == *"key generate"* ]] && [ ! -e /nonexistent ]
check $? "key list --help shows key's help instead of listing"
mkdir "$tmp/bin"
printf '#!/bin/sh\necho the program named help\n' >"$tmp/bin/help"
chmod +x "$tmp/bin/help"
out=$(PATH=$tmp/bin:$PATH "$cli" run help 2>&1)
[[ $out == *Usage:* ]] && [[ $out != *"the program named help"* ]]
check $? "run help is help, not a program named help"

# --json: answers and errors.
run --json version
[ $rc = 0 ] && json_is '.version != null and .abi_version > 0'
check $? "--json version: an object ($out)"
run --json frobnicate
[ $rc = 2 ] && json_is '.error == "frobnicate: unknown command (try '"'"'umbrella-cli help'"'"')"'
check $? "--json: an unknown object is {\"error\": ...} on stdout, exit 2 ($out)"
run --json $'quo"te\\\n'
[ $rc = 2 ] && json_is '.error | startswith("quo\"te\\\n: unknown command")'
check $? "--json: an error quoting a word with a quote, a backslash and a newline is valid JSON ($out)"
run task show 1 --json --pin-dir "$tmp/none"
[ $rc = 1 ] && json_is '.error | startswith("'"$tmp"'/none: nothing pinned")'
check $? "--json after the command: a failure is {\"error\": ...}, exit 1 ($out)"
run -j key remove "$(printf 'b%.0s' {1..64})"
[ $rc = 4 ] && json_is '.error | test("no such key")'
check $? "--json: key remove of a missing key, exit 4 kept ($out)"
run -p task help
[ $rc = 0 ] && [ "$out" = null ]
check $? "--pretty task help: null, as bpftool's help under --json ($out)"
run -j metrics --pin-dir "$tmp/nothing-pinned"
[ $rc = 1 ] && json_is '.error | test("nothing pinned")'
check $? "--json metrics: its failure is JSON too ($out)"
run -j metrics help
[ $rc = 0 ] && [ "$out" = null ]
check $? "--json metrics help: null ($out)"
run run --json --help
[ $rc = 0 ] && [ "$out" = null ]
check $? "run --json --help: null, run takes the global options before CMD ($out)"
run run -j -r no-such-item -- true
[ $rc = 125 ] && json_is '.error | test("no-such-item")'
check $? "run -j with a bad item: a JSON error, exit 125 ($out)"
run run -r no-such-item --json -- true
[ $rc = 125 ] && json_is '.error | test("no-such-item")' && [ -z "$err" ]
check $? "run with --json after a bad item: the error is JSON on stdout only ($out | $err)"
run --json frobnicate
[ -z "$err" ]
check $? "--json: the error is not repeated as text on stderr ($err)"
run stauts
[ $rc = 2 ] && [[ "$err" == *"stauts: unknown command; did you mean 'status'?"* ]]
check $? "a mistyped object gets a suggestion ($err)"
run key lsit
[ $rc = 2 ] && [[ "$err" == *"key lsit: unknown command; did you mean 'list'?"* ]]
check $? "a mistyped command gets a suggestion ($err)"
run -V
[ $rc = 0 ] && [[ "$out" == "umbrella-cli "[0-9]* ]]
check $? "-V prints the version ($out)"

# Global options where the man page puts them: before the object, after the command.
mkdir "$tmp/other"
"$cli" key generate other --dir "$tmp/other" >/dev/null
run --keyring "$tmp/other/ring" key add "$tmp/other/other.pub"
other=$out
[ $rc = 0 ] && [ -f "$tmp/other/ring/$other.pem" ]
check $? "--keyring before the object (exit $rc: $err)"
run key list --keyring "$tmp/other/ring" -j
[ $rc = 0 ] && json_is "length == 1 and .[0].id == \"$other\""
check $? "--keyring and -j after the command ($out)"
run key generate x --keyring "$tmp/other/ring" --dir "$tmp"
[ $rc = 2 ] && [[ $err == *"--keyring"* ]] && [ ! -e "$tmp/x.key" ]
check $? "key generate refuses --keyring (its --dir is not the ring) ($err)"

# The key ring: labels, id prefixes, unrevoke.
run key generate "Vendor Inc." --dir "$tmp"
id=$out
[ $rc = 0 ] && grep -q '^# name: Vendor Inc\.$' "$tmp/Vendor Inc..pub" &&
	grep -Eq '^# created: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "$tmp/Vendor Inc..pub"
check $? "key generate labels the key with its name and date"
run key add "$tmp/Vendor Inc..pub"
run -j key list
[ $rc = 0 ] && json_is ".[0].id == \"$id\" and .[0].name == \"Vendor Inc.\" and (.[0].created | test(\"^[0-9-]{10}T\"))"
check $? "key list --json: the name and date given at generate ($out)"
run key list
[[ $out == *"$id no "*"Vendor Inc."* ]]
check $? "key list: the name and date in the table ($out)"
run key generate $'bad\nname' --dir "$tmp"
[ $rc = 2 ] && [ ! -e "$tmp/bad" ]
check $? "key generate refuses a name with a control character (exit $rc)"
# A forged label is dropped, never copied: only a well-formed one travels.
"$cli" key generate forged --dir "$tmp/other" >/dev/null
{ printf '# name: \033[31mred\n# created: yesterday\n'; grep -v "^#" "$tmp/other/forged.pub"; } >"$tmp/forged.pub"
run key add "$tmp/forged.pub"
forged=$out
run -j key list
[ $rc = 0 ] && json_is "[.[] | select(.id == \"$forged\")][0] | .name == null and .created == null"
check $? "a malformed label is not copied into the ring ($out)"
run key revoke "${id:0:8}"
[ $rc = 0 ] && [ "$out" = "$id" ] && grep -qx "$id" "$tmp/ring/revoked"
check $? "key revoke by an id prefix revokes the full id ($out)"
printf '# a comment stays\n' >>"$tmp/ring/revoked"
run key unrevoke "${id:0:6}"
[ $rc = 0 ] && ! grep -q "$id" "$tmp/ring/revoked" && grep -qx '# a comment stays' "$tmp/ring/revoked"
check $? "key unrevoke by a prefix takes the id out, comments kept ($(cat "$tmp/ring/revoked"))"
run key unrevoke "$id"
[ $rc = 4 ] && [[ $err == *"not revoked"* ]]
check $? "key unrevoke of a key not revoked: exit 4 ($err)"
run key revoke ""
[ $rc = 2 ]
check $? "an empty id is refused (exit $rc)"
# Seventeen keys: two of them share a first digit.
mkdir "$tmp/many"
for i in $(seq 17); do
	"$cli" key generate "k$i" --dir "$tmp/many" >/dev/null &&
		"$cli" --keyring "$tmp/many/ring" key add "$tmp/many/k$i.pub" >/dev/null
done
common=$(ls "$tmp/many/ring" | cut -c1 | sort | uniq -d | head -n 1)
run --keyring "$tmp/many/ring" key remove "$common"
[ -n "$common" ] && [ $rc = 2 ] && [[ $err == *"key remove $common: ambiguous: $common"*", $common"* ]] &&
	[ "$(ls "$tmp/many/ring" | wc -l)" = 17 ]
check $? "a prefix of two ids is ambiguous, an error naming them; nothing removed ($err)"
touch "$tmp/ring/stray.pub"
run key list
[ $rc = 0 ] && [[ $err == *"stray.pub"* ]] && [[ $out == *"$id"* ]]
check $? "key list still names a stray file the ring rejects ($err)"
run -j key list
[ $rc = 0 ] && json_is 'length == 2'
check $? "with --json the rejected file is a warning on stderr, not an error object ($out)"

# Signing keeps file capabilities, refuses hard links and security.evm.
cp /bin/true "$tmp/capped"
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null && setcap cap_net_raw+ep "$tmp/capped"; then
	run binary sign --key "$tmp/Vendor Inc..key" -r net "$tmp/capped"
	[ $rc = 0 ] && [[ $(getcap "$tmp/capped") == *cap_net_raw=ep* ]]
	check $? "binary sign keeps the file's capabilities ($(getcap "$tmp/capped"))"
else
	skip "setcap needs root and libcap's tools"
fi
# security.evm cannot be kept (EVM covers the inode and the IMA hash of the old
# contents): signing refuses the file, naming it, and leaves it as it was; a file with
# another attribute beside it signs and keeps it.
cp /bin/true "$tmp/evm"
cp /bin/true "$tmp/tagged"
setx='import os, sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())'
if [ "$(id -u)" = 0 ] && python3 -c "$setx" "$tmp/evm" security.evm $'\x05\x02' 2>/dev/null &&
	python3 -c "$setx" "$tmp/evm" user.origin vendor &&
	python3 -c "$setx" "$tmp/tagged" user.origin vendor; then
	run binary sign --key "$tmp/Vendor Inc..key" -r net "$tmp/evm"
	[ $rc = 1 ] && [[ $err == *"security.evm"* ]] && cmp -s /bin/true "$tmp/evm" &&
		[ -z "$(find "$tmp" -name 'evm.umbrella-*')" ]
	check $? "binary sign refuses a file carrying security.evm, naming it, the file as it was ($err)"
	run binary sign --key "$tmp/Vendor Inc..key" -r net "$tmp/tagged"
	[ $rc = 0 ] && ! cmp -s /bin/true "$tmp/tagged" &&
		[ "$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.origin").decode())' \
			"$tmp/tagged")" = vendor ]
	check $? "binary sign of a file with another attribute signs it and keeps the attribute ($err)"
else
	skip "setting security.evm needs root, python3 and a file system with xattrs"
	skip "binary sign keeping another attribute: the same"
fi
cp /bin/true "$tmp/linked"
ln "$tmp/linked" "$tmp/link2"
run binary sign --key "$tmp/Vendor Inc..key" -r net "$tmp/linked"
[ $rc = 1 ] && [[ $err == *"2 hard links"* ]] && cmp -s /bin/true "$tmp/link2" &&
	cmp -s /bin/true "$tmp/linked"
check $? "binary sign refuses a file with hard links, leaving it as it was ($err)"
run -j binary sign --key "$tmp/Vendor Inc..key" -r net "$tmp/capped"
[ $rc = 0 ] && json_is ".key_id == \"$id\""
check $? "binary sign --json ($out)"

tap_done
