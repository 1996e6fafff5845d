#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test (TAP): the bash completion of umbrella-cli (cli/umbrella-cli.bash, without
# the bash-completion package) offers every command of `umbrella-cli help` and what
# each takes.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/cli/umbrella-cli.bash"

# completions WORD...: what completing the last WORD offers, sorted, on one line.
completions() {
	COMP_WORDS=(umbrella-cli "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_umbrella_cli 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

commands=$("$build/cli/umbrella-cli" help | sed -n 's/^ *\(Usage:\)\{0,1\} *umbrella-cli \(\[OPTIONS\] \)\{0,1\}\([a-z]*\).*/\3/p' | sort -u)
out=$(completions '')
missing=
for c in $commands; do
	[[ " $out " == *" $c "* ]] || missing+=" $c"
done
[ -n "$commands" ] && [ -z "$missing" ]
check $? "the first word offers every command of umbrella-cli help (missing:${missing:- none})"

out=$(completions ta)
[ "$out" = task ]
check $? "'ta' completes to task ($out)"
out=$(completions --json layer '')
[ "$out" = "help list show" ]
check $? "after --json layer: help list show ($out)"
out=$(completions task show '')
[[ " $out " == *" $$ "* ]]
check $? "task show offers process ids (this shell's among them)"
# Where task list and layer list answer (root, pins readable): the restricted
# processes and the live layers, from an umbrella-cli that prints their tables.
stub=$(mktemp -d)
cat >"$stub/umbrella-cli" <<'SH'
#!/bin/sh
case "$1 $2" in
"task list") printf 'PID      COMM             LAYERS (bottom first)\n4242     sleep            7\n' ;;
"layer list") printf 'ID       ORIGIN         CREATOR\n7        rfork          x\n9        signed         y\n' ;;
*) exit 1 ;;
esac
SH
chmod 755 "$stub/umbrella-cli"
out=$(PATH=$stub:$PATH completions task show '')
[ "$out" = 4242 ]
check $? "task show offers the restricted processes of task list ($out)"
out=$(PATH=$stub:$PATH completions layer show '')
layers=$(PATH=$stub:$PATH completions events --layer '')
rm -rf "$stub"
[ "$out" = "7 9" ] && [ "$layers" = "7 9" ]
check $? "layer show and events --layer offer the layer ids of layer list ($out; $layers)"
out=$(completions events --f)
[ "$out" = --follow ]
check $? "events --f completes to --follow ($out)"
want=$("$build/cli/umbrella-cli" events help | grep -o -- '--[a-z][a-z-]*' | grep -vx -- --help |
	sort -u | tr '\n' ' ')
out=$(completions events --)
missing=
for o in $want; do
	[[ " $out " == *" $o "* ]] || missing+=" $o"
done
[ -n "$want" ] && [ -z "$missing" ]
check $? "events -- offers every option of events help (missing:${missing:- none})"
out=$(completions run -r ex)
[ "$out" = "exec exec-unsigned" ]
check $? "run -r ex offers exec and exec-unsigned ($out)"
out=$(completions run --no)
[ "$out" = --no-fork ]
check $? "run --no completes to --no-fork ($out)"
profiles=$(mktemp -d)
touch "$profiles/web-server" "$profiles/worker"
out=$(UMBRELLA_PROFILE_DIR=$profiles completions run --profile w)
rm -rf "$profiles"
[ "$out" = "web-server worker" ]
check $? "run --profile offers the profiles' names ($out)"
out=$(completions run -r ne)
[ "$out" = "net net: net:all net:unix" ]
check $? "run -r ne offers net, net:all, net:unix and net: ($out)"
out=$(completions binary sign -r net:u)
[ "$out" = net:unix ]
check $? "binary sign -r net:u completes to net:unix ($out)"
out=$(completions run -r net:inet)
[ "$out" = "net:inet net:inet4 net:inet6" ]
check $? "run -r net:inet offers the IP families ($out)"
out=$(completions binary sign --key k.key --)
[ "$out" = "--key --no-policy --tree" ]
check $? "binary sign -- offers --key, --no-policy and --tree ($out)"

out=$(completions run -r cap:net_)
[ "$out" = "cap:net_admin cap:net_bind_service cap:net_broadcast cap:net_raw" ]
check $? "run -r cap:net_ offers the net_ capabilities ($out)"
# Every capability name of the grammar, and no other.
want=$(sed -n 's/^\t\[CAP_[A-Z_]*\] = "\([a-z_]*\)",$/cap:\1/p' \
	"$source_root/libumbrella/restriction-names.c" | sort | tr '\n' ' ' | sed 's/ $//')
out=$(completions run -r cap:)
[ -n "$want" ] && [ "$out" = "$want" ]
check $? "run -r cap: offers exactly the capabilities of restriction-names.c"
dir=$(mktemp -d)
mkdir "$dir/etc" && touch "$dir/etc/hostname" "$dir/etc/hosts"
out=$(completions run -r "fs:$dir/et")
[ "$out" = "fs:$dir/etc/" ]
check $? "run -r fs:PATH completes directories ($out)"
out=$(completions run -r "net,fs:$dir/etc/host")
[ "$out" = "net,fs:$dir/etc/hostname net,fs:$dir/etc/hosts" ]
check $? "the last item of a comma-separated list completes ($out)"
out=$(completions ta sh '')
[[ " $out " == *" $$ "* ]]
check $? "'ta sh' (task show, abbreviated) offers process ids"
out=$(completions key '')
[[ " $out " == *" unrevoke "* ]]
check $? "key offers unrevoke ($out)"
mkdir "$dir/ring" && printf '%s\n' "# old key" "$(printf 'ab%.0s' {1..32})" >"$dir/ring/revoked"
out=$(completions --keyring "$dir/ring" key unrevoke '')
rm -rf "$dir"
[ "$out" = "$(printf 'ab%.0s' {1..32})" ]
check $? "key unrevoke offers the ids of the --keyring's revocation list ($out)"
out=$(completions --)
[[ " $out " == *" --keyring "* ]]
check $? "--keyring is a global option ($out)"

tap_done
