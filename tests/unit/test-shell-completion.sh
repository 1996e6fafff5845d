#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): the completion files of umbrella-cli for bash, zsh and fish
# (cli/umbrella-cli.bash, cli/_umbrella-cli, cli/umbrella-cli.fish) each offer exactly
# the objects of umbrella-cli's command table, and for each object with commands exactly
# the commands of its table (and help): a command added to the CLI and not to a
# completion fails here. Each shell runs its own completion (zsh's under zpty, with
# tests/helpers/zsh-complete; fish's complete -C; bash's function as
# test-bash-completion calls it, without the bash-completion package).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
cli_src=$source_root/cli

# The names of the command table in FILE (struct cmd NAME[] = { { "name", fn }, ... }).
table() { # FILE
	awk '/struct cmd [a-z_]*\[\] = \{/ { on = 1 } on { print } on && /\};/ { exit }' "$1" |
		grep -o '{ "[a-z-]*",' | sed 's/{ "\(.*\)",/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
objects=$(table "$cli_src/umbrella-cli.c")
[[ " $objects " == *" task "* && " $objects " == *" run "* ]]
check $? "the objects of umbrella-cli's table: $objects"
# OBJECT -> its commands, and help (cmd_select() takes it for every table).
declare -A commands
for o in $objects; do
	[ -f "$cli_src/$o.c" ] || continue
	t=$(table "$cli_src/$o.c")
	[ -n "$t" ] && commands[$o]=$(printf '%s\n' $t help | sort -u | tr '\n' ' ' | sed 's/ $//')
done
[ "${commands[key]:-}" != "" ] && [ "${commands[task]:-}" != "" ]
check $? "the commands of their tables: $(for o in "${!commands[@]}"; do printf '%s: %s; ' "$o" "${commands[$o]}"; done)"

# What each shell offers at the end of a line, without options, sorted, on one line.
words() { grep -v '^-' | grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//'; }
complete_bash() { # LINE
	(
		. "$cli_src/umbrella-cli.bash"
		read -r -a COMP_WORDS <<<"$1"
		[[ $1 == *' ' ]] && COMP_WORDS+=('')
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_umbrella_cli 2>/dev/null
		printf '%s\n' "${COMPREPLY[@]}"
	) | words
}
complete_zsh() { "$source_root/tests/helpers/zsh-complete" "$cli_src" "$1" | words; }
complete_fish() {
	fish --no-config -c "source '$cli_src/umbrella-cli.fish'; complete -C '$1'" 2>/dev/null |
		cut -f1 | words
}

for shell in bash zsh fish; do
	if ! command -v "$shell" >/dev/null; then
		skip "$shell is not installed (tests/setup installs it)"
		continue
	fi
	case $shell in
	zsh) zsh -n "$cli_src/_umbrella-cli" ;;
	fish) fish --no-execute "$cli_src/umbrella-cli.fish" ;;
	bash) bash -n "$cli_src/umbrella-cli.bash" ;;
	esac
	check $? "$shell: the completion file parses"
	out=$("complete_$shell" 'umbrella-cli ')
	[ "$out" = "$objects" ]
	check $? "$shell: the first word offers exactly the objects (offered: $out)"
	for o in "${!commands[@]}"; do
		out=$("complete_$shell" "umbrella-cli $o ")
		[ "$out" = "${commands[$o]}" ]
		check $? "$shell: $o offers exactly its commands: ${commands[$o]} (offered: $out)"
	done
done
# The control: the comparison sees a command the table lacks.
out=$(complete_bash 'umbrella-cli key ')
[ "$out" != "$(printf '%s\n' ${commands[key]} nonesuch | sort | tr '\n' ' ' | sed 's/ $//')" ]
check $? "control: a command missing from a completion is seen"

tap_done
