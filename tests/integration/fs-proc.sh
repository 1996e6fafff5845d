# SPDX-License-Identifier: GPL-2.0-only
# Part of the VM test test-fs-filesystems (sourced by test-fs-filesystems.sh, with
# umbrellad started and $tmp a directory of its own): fs rules in procfs either hold or
# are refused. procfs gives a process's entries (/proc/PID/...) and every sysctl below
# /proc/sys a new inode number when it reads one back in after its eviction (memory
# pressure, drop_caches), and rules are keyed by inode number: a rule there would stop
# matching. umbrellad refuses such a rule, naming the item; rules on what keeps its
# number (the proc root, /proc/sys itself, /proc/meminfo) are made, and hold across an
# eviction. drop_caches and holds are test-fs-filesystems.sh's; refused is its own:
# fs-overlay.sh, sourced after it, defines its own again.
# refused RULE WHAT: "run -r RULE" fails before running anything, naming the item
refused() {
	out=$("$cli" run -r "fs:$1" -- echo ran 2>&1)
	local rc=$?
	out="rc=$rc $out"
	[ "$rc" != 0 ] && [[ "$out" != *ran* ]] && [[ "$out" == *"fs:${1%:r}:"*"cannot hold"* ]]
	check $? "$2"
}

# The reason, measured here: these get new numbers once evicted.
a=$(stat -c %i /proc/sys/kernel/hostname /proc/1/status)
drop_caches
b=$(stat -c %i /proc/sys/kernel/hostname /proc/1/status)
out="before: $a after: $b"
[ "$a" != "$b" ]
check $? "a sysctl's and a process's proc inodes get new numbers after an eviction"

refused /proc/sys/kernel/hostname:r "a rule on a sysctl is refused"
refused /proc/sys/kernel "a rule on a directory of sysctls is refused"
refused /proc/1/status "a rule on a process's proc file is refused"
refused /proc/1 "a rule on a process's proc directory is refused"

# A file bind-mounted over a sysctl: the object keeps its number, but the name rule
# would be keyed on the sysctl's directory. In a mount namespace of the caller's own.
echo public >"$tmp/domainname"
out=$(unshare -m --propagation private sh -c '
	mount --bind "$2" /proc/sys/kernel/domainname &&
	"$1" run -r fs:/proc/sys/kernel/domainname -- echo ran' sh "$cli" "$tmp/domainname" 2>&1)
rc=$?
out="rc=$rc $out"
[ "$rc" != 0 ] && [[ "$out" != *ran* ]] && [[ "$out" == *"fs:/proc/sys/kernel/domainname:"*"cannot hold"* ]]
check $? "a rule on a file bind-mounted over a sysctl is refused (its name is in a sysctl directory)"

holds fs:/proc/sys:r /proc/sys/kernel/hostname /proc/version \
	"fs:/proc/sys:r holds for a sysctl across an eviction (/proc/version still read)"
holds fs:/proc/meminfo:r /proc/meminfo /proc/version \
	"fs:/proc/meminfo:r holds across an eviction (/proc/version still read)"
holds fs:/proc:r /proc/sys/kernel/hostname /etc/hostname \
	"fs:/proc:r holds for a sysctl across an eviction (/etc/hostname still read)"
