# SPDX-License-Identifier: GPL-2.0-only
# bash completion for umbrella-cli (installed as share/bash-completion/completions/umbrella-cli)

_umbrella_cli_pids()
{
	local p
	for p in /proc/[0-9]*; do
		printf '%s\n' "${p#/proc/}"
	done
}

_umbrella_cli_layers()
{
	# As root, the layers in the pinned maps; otherwise nothing to offer.
	umbrella-cli layer list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

# The items of -r. "net" is every address family but unix, "net:unix" local sockets,
# "net:all" both; after "net:" the family names of the grammar.
_umbrella_cli_restrictions()
{
	local items='fs: net net:all net:unix net: signal fork exec exec-unsigned ptrace
		mount module setid cap:'
	[[ $cur == net:* ]] && items='net:all net:unix net:inet net:inet4 net:inet6 net:netlink
		net:packet net:bluetooth net:vsock net:can net:alg net:xdp net:key net:tipc
		net:rds net:smc net:mctp net:qipcrtr net:ieee802154 net:nfc net:kcm net:ax25
		net:x25 net:appletalk net:ipx net:llc net:ib net:mpls net:pppox net:phonet
		net:caif net:rxrpc net:iucv net:isdn'
	COMPREPLY=($(compgen -W "$items" -- "$cur"))
	[[ $COMPREPLY == *: ]] && compopt -o nospace 2>/dev/null
	# With ':' in COMP_WORDBREAKS, bash replaces only the text after the colon.
	declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
}

# binary and key: their commands, options, and files or key ids.
_umbrella_cli_signing()
{
	local object=$1 command=$2 ring
	case $prev in
	--key | --keyring | --dir | --tree)
		[[ $prev == --key ]] && COMPREPLY=($(compgen -f -- "$cur")) ||
			COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	-r)
		_umbrella_cli_restrictions
		return
		;;
	esac
	if [[ -z $command ]]; then
		if [[ $object == binary ]]; then
			COMPREPLY=($(compgen -W 'sign verify inspect help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W 'generate list add remove revoke help' -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		case $object:$command in
		binary:sign) COMPREPLY=($(compgen -W '--key -r --no-policy --tree' -- "$cur")) ;;
		binary:verify) COMPREPLY=($(compgen -W '--keyring' -- "$cur")) ;;
		binary:inspect | key:list) COMPREPLY=($(compgen -W '--keyring -j --json -p --pretty' -- "$cur")) ;;
		key:generate) COMPREPLY=($(compgen -W '--dir' -- "$cur")) ;;
		key:*) COMPREPLY=($(compgen -W '--keyring' -- "$cur")) ;;
		esac
		return
	fi
	case $object:$command in
	key:remove | key:revoke)
		# The ids in the ring (its files' names), as far as this user may read it.
		ring=${UMBRELLA_KEYRING:-/etc/umbrella/keys}
		COMPREPLY=($(compgen -W "$(cd "$ring" 2>/dev/null && ls -- *.pem 2>/dev/null |
			sed 's/\.pem$//')" -- "$cur"))
		;;
	key:generate | key:list) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}

_umbrella_cli()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n : || return # "net:unix" is one word
	else # without the bash-completion package
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi

	local globals='-j --json -p --pretty --pin-dir'
	local objects='status task layer verdict events metrics binary key run version help'
	local i object='' command='' nwords=0

	# Find OBJECT and COMMAND past the global options.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--pin-dir | --key | --keyring | --dir | -r) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $object ]]; then
				object=${words[i]}
			elif [[ -z $command ]]; then
				command=${words[i]}
			else
				((nwords++))
			fi
			;;
		esac
	done

	if [[ $prev == --pin-dir ]]; then
		COMPREPLY=($(compgen -d -- "$cur"))
		return
	fi

	case $object in
	'')
		COMPREPLY=($(compgen -W "$globals $objects" -- "$cur"))
		;;
	task | layer)
		if [[ -z $command ]]; then
			COMPREPLY=($(compgen -W 'list show help' -- "$cur"))
		elif [[ $command == show && $nwords == 0 && $cur != -* ]]; then
			if [[ $object == task ]]; then
				COMPREPLY=($(compgen -W "$(_umbrella_cli_pids)" -- "$cur"))
			else
				COMPREPLY=($(compgen -W "$(_umbrella_cli_layers)" -- "$cur"))
			fi
		else
			COMPREPLY=($(compgen -W '-j --json -p --pretty' -- "$cur"))
		fi
		;;
	status)
		COMPREPLY=($(compgen -W '-j --json -p --pretty help' -- "$cur"))
		;;
	verdict)
		if [[ -z $command ]]; then
			COMPREPLY=($(compgen -W 'list flush help' -- "$cur"))
		elif [[ $command == list ]]; then
			COMPREPLY=($(compgen -W '-j --json -p --pretty' -- "$cur"))
		fi
		;;
	binary | key)
		_umbrella_cli_signing "$object" "$command"
		;;
	events)
		case $prev in
		-n | --since | --pid | --layer) return ;;
		esac
		COMPREPLY=($(compgen -W '--follow -n --since --pid --layer -j --json -p --pretty' \
			-- "$cur"))
		;;
	metrics)
		case $prev in
		-o | --output) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W '-o --output help' -- "$cur")) ;;
		esac
		;;
	run)
		# After "--": the command and its arguments.
		for ((i = 1; i < cword; i++)); do
			if [[ ${words[i]} == -- ]]; then
				if declare -F _command_offset >/dev/null; then
					_command_offset $((i + 1))
				elif ((cword == i + 1)); then
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					COMPREPLY=($(compgen -f -- "$cur"))
				fi
				return
			fi
		done
		case $prev in
		-r)
			_umbrella_cli_restrictions
			;;
		--profile)
			local dir=${UMBRELLA_PROFILE_DIR:-/etc/umbrella/profiles}
			COMPREPLY=($(compgen -W "$(ls "$dir" 2>/dev/null)" -- "$cur"))
			;;
		*)
			COMPREPLY=($(compgen -W '-r --profile --no-fork --die-with-parent --help --' \
				-- "$cur"))
			;;
		esac
		;;
	esac
} &&
	complete -F _umbrella_cli umbrella-cli
