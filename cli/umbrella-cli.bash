# SPDX-License-Identifier: GPL-2.0-only
# bash completion for umbrella-cli (installed as share/bash-completion/completions/umbrella-cli)

# The restricted processes (as root: "task list"); where this user cannot read the
# pinned maps, every process.
_umbrella_cli_pids()
{
	local p pids
	pids=$(umbrella-cli task list 2>/dev/null | awk 'NR > 1 { print $1 }')
	if [[ -n $pids ]]; then
		printf '%s\n' "$pids"
		return
	fi
	for p in /proc/[0-9]*; do
		printf '%s\n' "${p#/proc/}"
	done
}

# The one word of $2... that $1 abbreviates, else $1 ("ta" is task, as umbrella-cli
# takes it).
_umbrella_cli_expand()
{
	local word=$1 match
	shift
	match=($(compgen -W "$*" -- "$word"))
	if ((${#match[@]} == 1)); then
		printf '%s' "${match[0]}"
	else
		printf '%s' "$word"
	fi
}

_umbrella_cli_layers()
{
	# As root, the layers in the pinned maps; otherwise nothing to offer.
	umbrella-cli layer list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

# The items of -r, the last of a comma-separated list. "net" is every address family
# but unix, "net:unix" local sockets, "net:all" both; after "net:" the families of the
# grammar, after "cap:" the capabilities (libumbrella/restriction-names.c), after "fs:"
# paths.
_umbrella_cli_restrictions()
{
	local head='' word=$cur items
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		word=${cur##*,}
	fi
	items='fs: net net:all net:unix net: signal fork exec exec-unsigned ptrace mount module
		setid keys cap:'
	case $word in
	net:*)
		items='net:all net:unix net:inet net:inet4 net:inet6 net:netlink
		net:packet net:bluetooth net:vsock net:can net:alg net:xdp net:key net:tipc
		net:rds net:smc net:mctp net:qipcrtr net:ieee802154 net:nfc net:kcm net:ax25
		net:x25 net:appletalk net:ipx net:llc net:ib net:mpls net:pppox net:phonet
		net:caif net:rxrpc net:iucv net:isdn'
		;;
	cap:*)
		items=$(printf 'cap:%s ' chown dac_override dac_read_search fowner fsetid kill \
			setgid setuid setpcap linux_immutable net_bind_service net_broadcast \
			net_admin net_raw ipc_lock ipc_owner sys_module sys_rawio sys_chroot \
			sys_ptrace sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time \
			sys_tty_config mknod lease audit_write audit_control setfcap \
			mac_override mac_admin syslog wake_alarm block_suspend audit_read \
			perfmon bpf checkpoint_restore)
		;;
	fs:*)
		local path=${word#fs:} f
		items=
		while IFS= read -r f; do
			[[ -d $f ]] && f+=/
			items+=" fs:$f"
		done < <(compgen -f -- "$path")
		;;
	esac
	COMPREPLY=($(compgen -P "$head" -W "$items" -- "$word"))
	[[ $COMPREPLY == *[:/] ]] && compopt -o nospace 2>/dev/null
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
			COMPREPLY=($(compgen -W 'generate list add remove revoke unrevoke help' \
				-- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		case $object:$command in
		binary:sign) COMPREPLY=($(compgen -W '--key -r --no-policy --tree' -- "$cur")) ;;
		binary:verify | binary:inspect | key:list)
			COMPREPLY=($(compgen -W '--keyring -j --json -p --pretty' -- "$cur")) ;;
		key:generate) COMPREPLY=($(compgen -W '--dir' -- "$cur")) ;;
		key:*) COMPREPLY=($(compgen -W '--keyring' -- "$cur")) ;;
		esac
		return
	fi
	case $object:$command in
	key:remove | key:revoke | key:unrevoke)
		# The ids in the ring (its files' names), or in its revocation list, as far as
		# this user may read it.
		ring=${keyring:-${UMBRELLA_KEYRING:-/etc/umbrella/keys}}
		if [[ $command == unrevoke ]]; then
			COMPREPLY=($(compgen -W "$(sed 's/#.*//' "$ring/revoked" 2>/dev/null)" \
				-- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(cd "$ring" 2>/dev/null &&
				ls -- *.pem 2>/dev/null | sed 's/\.pem$//')" -- "$cur"))
		fi
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

	local globals='-j --json -p --pretty --pin-dir --keyring --help'
	local objects='status task layer verdict events metrics binary key run version help'
	local i object='' command='' nwords=0 keyring=''

	# Find OBJECT and COMMAND past the global options.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--keyring)
			keyring=${words[i + 1]}
			((i++))
			;;
		--pin-dir | --key | --dir | -r) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $object ]]; then
				object=$(_umbrella_cli_expand "${words[i]}" $objects)
			elif [[ -z $command ]]; then
				command=${words[i]}
			else
				((nwords++))
			fi
			;;
		esac
	done

	case $object in
	task | layer) command=$(_umbrella_cli_expand "$command" list show) ;;
	verdict) command=$(_umbrella_cli_expand "$command" list flush) ;;
	binary) command=$(_umbrella_cli_expand "$command" sign verify inspect) ;;
	key) command=$(_umbrella_cli_expand "$command" generate list add remove revoke unrevoke) ;;
	esac

	if [[ $prev == --pin-dir || $prev == --keyring ]]; then
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
		COMPREPLY=($(compgen -W '-v --verbose -j --json -p --pretty help' -- "$cur"))
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
		--pid)
			COMPREPLY=($(compgen -W "$(_umbrella_cli_pids)" -- "$cur"))
			return
			;;
		--layer)
			COMPREPLY=($(compgen -W "$(_umbrella_cli_layers)" -- "$cur"))
			return
			;;
		-n | --lines | --since) return ;;
		esac
		COMPREPLY=($(compgen -W '--follow -n --lines --since --pid --layer -j --json -p --pretty' \
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
			COMPREPLY=($(compgen -W '-r --profile --no-fork --die-with-parent --permissive --empty-layer --quiet --help --' \
				-- "$cur"))
			;;
		esac
		;;
	esac
} &&
	complete -F _umbrella_cli umbrella-cli
