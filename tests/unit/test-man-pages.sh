#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): the manual pages render without groff warnings, and say what the
# code does: every command of `umbrella-cli help`, and every option of each command's
# help, is in umbrella-cli(8), every key of
# the configuration parser in umbrella.conf(5), every MESSAGE_ID of the journal in
# umbrellad(8), every option of `umbrellad --help` in umbrellad(8), every exported
# function of libumbrella in libumbrella(3).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
TAP_CONTEXT=100 # on a failure, every groff warning or missing word
# all_in PAGE WORD...: every WORD appears in PAGE (groff's \- read as -); the missing
# ones in $out.
all_in() {
	local page=$1 text word
	shift
	text=$(sed 's/\\-/-/g' "$page")
	out=
	for word; do
		grep -qF -- "$word" <<<"$text" || out+="$word not in ${page##*/}"$'\n'
	done
	[ -z "$out" ]
}

pages=("$source_root/libumbrella/libumbrella.3" "$source_root/cli/umbrella-cli.8"
	"$source_root/daemon/umbrellad.8" "$source_root/daemon/umbrella.conf.5")
for page in "${pages[@]}"; do
	out=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$out" ]
	check $? "${page##*/} renders without groff warnings"
done

commands=$("$build/cli/umbrella-cli" help | sed -n 's/^ *\(Usage:\)\{0,1\} *umbrella-cli \(\[OPTIONS\] \)\{0,1\}\([a-z]*\).*/\3/p' | sort -u)
[ -n "$commands" ] && all_in "$source_root/cli/umbrella-cli.8" $commands
check $? "umbrella-cli(8) has every command of umbrella-cli help: $(echo $commands)"
# shellcheck disable=SC2086 # one word each
options=$(for c in "" $commands; do "$build/cli/umbrella-cli" $c help; done |
	grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$options" ] && all_in "$source_root/cli/umbrella-cli.8" $options
check $? "umbrella-cli(8) has every option of every command's help: $(echo $options)"

options=$("$build/daemon/umbrellad" --help | grep -o -- '--[a-z-]*' | sort -u)
[ -n "$options" ] && all_in "$source_root/daemon/umbrellad.8" $options
check $? "umbrellad(8) has every option of umbrellad --help: $(echo $options)"

ids=$(sed -n 's/^#define UMB_MESSAGE_[A-Z_]* *"\([0-9a-f]*\)".*/\1/p' "$source_root/include/umbrella/journal.h")
fields=$(grep -o '"UMBRELLA_[A-Z_]*"' "$source_root/include/umbrella/journal.h" | tr -d '"')
[ -n "$ids" ] && all_in "$source_root/daemon/umbrellad.8" $ids $fields
check $? "umbrellad(8) has every MESSAGE_ID and field of include/umbrella/journal.h"

keys=$(sed -n 's/^\t{ "\([a-z_]*\)", parse_.*/\1/p' "$source_root/daemon/config.c")
[ -n "$keys" ] && all_in "$source_root/daemon/umbrella.conf.5" $keys
check $? "umbrella.conf(5) has every key of the parser: $(echo $keys)"

functions=$(sed -n 's/^\t\([a-z_]*\);$/\1/p' "$source_root/libumbrella/libumbrella.sym")
[ -n "$functions" ] && all_in "$source_root/libumbrella/libumbrella.3" $functions
check $? "libumbrella(3) has every exported function ($(echo $functions | wc -w))"

tap_done
