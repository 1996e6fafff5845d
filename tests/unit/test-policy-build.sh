#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): a program's UMBRELLA_EXEC_RESTRICTIONS() reaches its signature, and
# nothing is signed to run unrestricted by mistake. <umbrella/umbrella.h> compiles as
# C and as C++ (gcc, clang, g++, clang++); the policy section survives
# --gc-sections and -flto and is what "binary sign" signs and "binary inspect" shows;
# "binary sign" refuses a file without a policy section unless -r or --no-policy says
# what is meant; and text the grammar refuses (a path with an unescaped ':') is refused
# by the command line and in a program's policy, naming the item.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli=$build/cli/umbrella-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export UMBRELLA_KEYRING=$tmp/ring

out=$("$cli" key generate vendor --dir "$tmp" 2>&1) && out=$("$cli" key add "$tmp/vendor.pub" 2>&1)
check $? "a key in a fresh ring"
key=$tmp/vendor.key

# The first of the names that is installed (tests/setup installs gcc, g++ and clang-19).
first_of() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null && { echo "$c"; return 0; }
	done
	return 1
}

# inspect FILE: the policy and the verdict that "binary inspect --json" shows.
inspect() {
	jq -r '(.policy // "(none)") + " " + .verdict' <<<"$("$cli" binary inspect --json "$1" 2>&1)"
}

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
cp "$tmp/prog.c" "$tmp/prog.cc"

# Dead-code elimination and LTO must keep the section: nothing refers to it.
variants=(
	"gc:-ffunction-sections -fdata-sections -Wl,--gc-sections"
	"lto-gc:-O2 -flto -ffunction-sections -fdata-sections -Wl,--gc-sections"
)
for names in "gcc" "clang-19 clang" "g++" "clang++-19 clang++"; do
	# shellcheck disable=SC2086 # the list of names is split on purpose
	if ! cc=$(first_of $names); then
		echo "not ok $((n += 1)) - $names: not installed (tests/setup installs it)"
		failed=1
		continue
	fi
	case $cc in
	*++*) src=$tmp/prog.cc std=-std=c++11 ;;
	*) src=$tmp/prog.c std=-std=c11 ;;
	esac
	out=$("$cc" "$std" -pedantic -Wall -Wextra -Werror -I "$source_root/include" \
		-c -o "$tmp/prog.o" "$src" 2>&1)
	check $? "$cc $std -pedantic -Wall -Wextra -Werror: <umbrella/umbrella.h> and the macro compile"
	for variant in "${variants[@]}"; do
		name=${variant%%:*}
		bin=$tmp/prog-$cc-$name
		# shellcheck disable=SC2086 # the flags are split on purpose
		out=$("$cc" ${variant#*:} -I "$source_root/include" -o "$bin" "$src" 2>&1) &&
			out=$("$cli" binary sign --key "$key" "$bin" 2>&1) &&
			[ "$("$bin")" = hello ] &&
			[ "$(inspect "$bin")" = "fs:/etc/passwd,net signed" ]
		check $? "$cc ${variant#*:}: signed, runs, inspect shows its policy"
	done
done

# A file without a policy section: never signed to run unrestricted unless told so.
cc=$(first_of gcc cc)
"$cc" -o "$tmp/plain" -x c - <<<'int main(void) { return 0; }'
out=$("$cli" binary sign --key "$key" "$tmp/plain" 2>&1)
rc=$?
[ $rc = 1 ] && [[ $out == *"no policy section"*"--no-policy"* ]] &&
	[ "$(inspect "$tmp/plain")" = "(none) unsigned" ]
check $? "binary sign of a file without a policy section: refused (exit $rc), left unsigned"
printf '%s\n' "$out" | sed 's/^/# /'
out=$("$cli" binary sign --key "$key" --no-policy "$tmp/plain" 2>&1) &&
	[ "$(inspect "$tmp/plain")" = "(none) signed" ] && "$tmp/plain"
check $? "binary sign --no-policy: signed without restrictions, runs"
out=$("$cli" binary sign --key "$key" "$tmp/plain" 2>&1)
[ $? = 1 ] && [[ $out == *"no policy section"* ]]
check $? "re-signing it without --no-policy is refused too"
out=$("$cli" binary sign --key "$key" -r fork "$tmp/plain" 2>&1) &&
	[ "$(inspect "$tmp/plain")" = "fork signed" ]
check $? "binary sign -r gives it a policy"
out=$("$cli" binary sign --key "$key" --no-policy "$tmp/plain" 2>&1)
rc=$?
[ $rc = 1 ] && [[ $out == *"has a policy section"* ]] && [ "$(inspect "$tmp/plain")" = "fork signed" ]
check $? "binary sign --no-policy of a file with a policy: refused (exit $rc), policy kept"
out=$("$cli" binary sign --key "$key" --no-policy -r fork "$tmp/plain" 2>&1)
[ $? = 2 ] && [[ $out == *"contradict"* ]]
check $? "binary sign -r with --no-policy: exit 2"
out=$("$cli" binary verify --no-policy "$tmp/plain" 2>&1)
[ $? = 2 ] && [[ $out == *"only for binary sign"* ]]
check $? "binary verify --no-policy: exit 2"

# A colon in a path is written "\:"; other text after an unescaped ':' is an error.
out=$("$cli" binary sign --key "$key" -r fs:/etc:R "$tmp/plain" 2>&1)
[ $? = 2 ] && [[ $out == *'fs:/etc:R: access modes are the letters r, w and x only'* ]]
check $? "binary sign -r fs:/etc:R: exit 2, the item named"
out=$("$cli" run -r fs:/etc:rwz -- true 2>&1)
[ $? = 125 ] && [[ $out == *'fs:/etc:rwz: access modes are the letters r, w and x only'* ]]
check $? "run -r fs:/etc:rwz: exit 125 (run's own failure) before umbrellad is asked, the item named"
out=$("$cli" binary sign --key "$key" -r 'fs:/a\:b:r' "$tmp/plain" 2>&1) &&
	[ "$(inspect "$tmp/plain")" = 'fs:/a\:b:r signed' ]
check $? 'binary sign -r fs:/a\:b:r: read on the path /a:b'
sed 's|"fs:/etc/passwd,net"|"fs:/etc:R"|' "$tmp/prog.c" >"$tmp/colon.c"
"$cc" -I "$source_root/include" -o "$tmp/colon" "$tmp/colon.c"
out=$("$cli" binary sign --key "$key" "$tmp/colon" 2>&1)
rc=$?
[ $rc = 1 ] && [[ $out == *'fs:/etc:R: access modes'* ]]
check $? "a program whose own policy says fs:/etc:R: binary sign refuses it (exit $rc)"
out=$("$cli" binary inspect --json "$tmp/colon" 2>&1)
[ "$(jq -r .verdict <<<"$out")" = refused ] && [[ $(jq -r .reason <<<"$out") == *'fs:/etc:R'* ]]
check $? "... and inspect (umbrellad's reader) refuses it, naming the item"

tap_done
