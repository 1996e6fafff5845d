# SPDX-License-Identifier: GPL-2.0-only
# fish completion for umbrella-cli (installed as
# share/fish/vendor_completions.d/umbrella-cli.fish). It offers what umbrella-cli.bash
# offers; tests/unit/test-shell-completion checks that every completion file offers every
# object and command umbrella-cli knows. Objects and commands are completed whole (the
# CLI also takes their unambiguous prefixes: "ta li" is "task list").

# The words of the command line that are neither options nor their values: the object,
# its command, and their arguments.
function __umbrella_cli_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l skip 0
    for t in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case -- --
                return
            case --pin-dir --keyring --key --dir --tree -r --profile -o --output --pid --layer -n --lines --since
                set skip 1
            case '-*'
            case '*'
                echo $t
        end
    end
end

# [OBJECT...]: without arguments, whether no object is given yet; else whether the
# object is one of them and its command is not given yet.
function __umbrella_cli_needs
    set -l w (__umbrella_cli_words)
    if test (count $argv) = 0
        test (count $w) = 0
        return
    end
    test (count $w) = 1; and contains -- $w[1] $argv
end

# OBJECT [COMMAND...]: whether the object is OBJECT (and its command one of COMMAND...).
function __umbrella_cli_at
    set -l w (__umbrella_cli_words)
    test "$w[1]" = $argv[1]; or return 1
    test (count $argv) = 1; and return 0
    contains -- "$w[2]" $argv[2..-1]
end

# OBJECT show, and its id not given yet.
function __umbrella_cli_show
    set -l w (__umbrella_cli_words)
    test (count $w) = 2; and test "$w[1]" = $argv[1]; and test "$w[2]" = show
end

# The restricted processes (as root: "task list"); where this user cannot read the
# pinned maps, every process.
function __umbrella_cli_pids
    set -l pids
    command -q umbrella-cli
    and set pids (umbrella-cli task list 2>/dev/null | awk 'NR > 1 { print $1 }')
    if test (count $pids) -gt 0
        printf '%s\n' $pids
    else
        string match -r '^[0-9]+$' -- (path basename /proc/*)
    end
end

# As root, the layers in the pinned maps; otherwise nothing to offer.
function __umbrella_cli_layers
    command -q umbrella-cli
    and umbrella-cli layer list 2>/dev/null | awk 'NR > 1 { print $1 }'
end

# The items of -r, the last of a comma-separated list (as umbrella-cli.bash).
function __umbrella_cli_restrictions
    set -l word (commandline -ct)
    set -l head ''
    if string match -q '*,*' -- $word
        set head (string replace -r '[^,]*$' '' -- $word)
        set word (string replace -r '.*,' '' -- $word)
    end
    switch $word
        case 'net:*'
            printf "$head%s\n" net:{all,unix,inet,inet4,inet6,netlink,packet,bluetooth,vsock,can,alg,xdp,key,tipc,rds,smc,mctp,qipcrtr,ieee802154,nfc,kcm,ax25,x25,appletalk,ipx,llc,ib,mpls,pppox,phonet,caif,rxrpc,iucv,isdn}
        case 'cap:*'
            printf "$head%s\n" cap:{chown,dac_override,dac_read_search,fowner,fsetid,kill,setgid,setuid,setpcap,linux_immutable,net_bind_service,net_broadcast,net_admin,net_raw,ipc_lock,ipc_owner,sys_module,sys_rawio,sys_chroot,sys_ptrace,sys_pacct,sys_admin,sys_boot,sys_nice,sys_resource,sys_time,sys_tty_config,mknod,lease,audit_write,audit_control,setfcap,mac_override,mac_admin,syslog,wake_alarm,block_suspend,audit_read,perfmon,bpf,checkpoint_restore}
        case 'fs:*'
            for f in (__fish_complete_path (string replace 'fs:' '' -- $word))
                printf "$head%s\n" fs:$f
            end
        case '*'
            printf "$head%s\n" fs: net net:all net:unix net: signal fork exec exec-unsigned ptrace mount module setid keys cap:
    end
end

# The key ids of the ring (--keyring, $UMBRELLA_KEYRING, /etc/umbrella/keys), or of its
# revocation list.
function __umbrella_cli_key_ids
    set -l tokens (commandline -opc)
    set -l ring /etc/umbrella/keys
    set -q UMBRELLA_KEYRING; and test -n "$UMBRELLA_KEYRING"; and set ring $UMBRELLA_KEYRING
    set -l i (contains -i -- --keyring $tokens); and set ring $tokens[(math $i + 1)]
    if test "$argv[1]" = revoked
        string replace -r '#.*' '' <$ring/revoked 2>/dev/null | string trim | string match -rv '^$'
    else
        path change-extension "" (path basename $ring/*.pem)
    end
end

set -l c umbrella-cli
complete -c $c -f

# The global options (before the object or after its command).
complete -c $c -s j -l json -d 'JSON output'
complete -c $c -s p -l pretty -d 'indented JSON output'
complete -c $c -l pin-dir -x -a '(__fish_complete_directories)' -d "umbrellad's pin directory"
complete -c $c -l keyring -x -a '(__fish_complete_directories)' -d 'the key ring'
complete -c $c -s h -l help -d help

# The objects.
complete -c $c -n __umbrella_cli_needs -a status -d 'is Umbrella enforcing, is umbrellad up'
complete -c $c -n __umbrella_cli_needs -a task -d 'the restricted processes'
complete -c $c -n __umbrella_cli_needs -a layer -d 'the live layers'
complete -c $c -n __umbrella_cli_needs -a verdict -d 'the exec verdicts'
complete -c $c -n __umbrella_cli_needs -a events -d 'the last denials'
complete -c $c -n __umbrella_cli_needs -a metrics -d 'the figures for node_exporter'
complete -c $c -n __umbrella_cli_needs -a binary -d 'sign, verify, inspect binaries'
complete -c $c -n __umbrella_cli_needs -a key -d 'the key ring'
complete -c $c -n __umbrella_cli_needs -a run -d 'run a command under restrictions'
complete -c $c -n __umbrella_cli_needs -a version -d 'the version'
complete -c $c -n __umbrella_cli_needs -a help -d 'the help'

# Their commands.
complete -c $c -n '__umbrella_cli_needs status metrics' -a help
complete -c $c -n '__umbrella_cli_needs task layer' -a 'list show help'
complete -c $c -n '__umbrella_cli_needs verdict' -a 'list flush help'
complete -c $c -n '__umbrella_cli_needs binary' -a 'sign verify inspect help'
complete -c $c -n '__umbrella_cli_needs key' -a 'generate list add remove revoke unrevoke help'

# What each takes.
complete -c $c -n '__umbrella_cli_at status' -s v -l verbose -d 'name the hooks'
complete -c $c -n '__umbrella_cli_show task' -a '(__umbrella_cli_pids)'
complete -c $c -n '__umbrella_cli_show layer' -a '(__umbrella_cli_layers)'
complete -c $c -n '__umbrella_cli_at events' -l follow -d 'wait for more'
complete -c $c -n '__umbrella_cli_at events' -s n -l lines -x -d 'the last N'
complete -c $c -n '__umbrella_cli_at events' -l since -x -d 'since TIME'
complete -c $c -n '__umbrella_cli_at events' -l pid -x -a '(__umbrella_cli_pids)'
complete -c $c -n '__umbrella_cli_at events' -l layer -x -a '(__umbrella_cli_layers)'
complete -c $c -n '__umbrella_cli_at metrics' -s o -l output -r -F -d 'write to FILE'
complete -c $c -n '__umbrella_cli_at binary sign' -l key -r -F -d 'the private key'
complete -c $c -n '__umbrella_cli_at binary sign' -s r -x -a '(__umbrella_cli_restrictions)'
complete -c $c -n '__umbrella_cli_at binary sign' -l no-policy -d 'no restrictions'
complete -c $c -n '__umbrella_cli_at binary sign' -l tree -x -a '(__fish_complete_directories)'
complete -c $c -n '__umbrella_cli_at binary sign verify inspect' -F
complete -c $c -n '__umbrella_cli_at key add' -F
complete -c $c -n '__umbrella_cli_at key generate' -l dir -x -a '(__fish_complete_directories)'
complete -c $c -n '__umbrella_cli_at key remove revoke' -a '(__umbrella_cli_key_ids)'
complete -c $c -n '__umbrella_cli_at key unrevoke' -a '(__umbrella_cli_key_ids revoked)'
complete -c $c -n '__umbrella_cli_at run' -s r -x -a '(__umbrella_cli_restrictions)'
complete -c $c -n '__umbrella_cli_at run' -l profile -x -a '(path basename (set -q UMBRELLA_PROFILE_DIR; and echo $UMBRELLA_PROFILE_DIR; or echo /etc/umbrella/profiles)/*)'
complete -c $c -n '__umbrella_cli_at run' -l no-fork -d 'restrict umbrella-cli itself'
complete -c $c -n '__umbrella_cli_at run' -l die-with-parent
complete -c $c -n '__umbrella_cli_at run' -l permissive -d 'only record denials'
complete -c $c -n '__umbrella_cli_at run' -l empty-layer
complete -c $c -n '__umbrella_cli_at run' -l quiet
# After "--": the command and its arguments.
complete -c $c -n '__umbrella_cli_at run; and contains -- -- (commandline -opc)' -a '(__fish_complete_subcommand --fcs-skip=(math (contains -i -- -- (commandline -opc))))'
