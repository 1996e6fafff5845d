#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: fs rules hold on every kind of file system a distribution boots from, and
# on the paths the caller sees (TAP). The BPF walk keys inodes by the super block's
# s_dev; stat()'s st_dev differs on btrfs (each subvolume its own) and for a file on
# overlayfs with layers on different file systems (the layer's pseudo device), where a
# rule keyed by st_dev restricted nothing. And umbrellad resolves no path itself: a
# caller in a mount namespace of its own gets its own /tmp/X restricted.
#
#   ext4, xfs, btrfs   a loop device each; btrfs also a subvolume mounted on its own
#                      (as Fedora and openSUSE mount / and /home)
#   tmpfs
#   overlay            lower on ext4, upper on tmpfs: a file's inode rule, seen
#                      through a hard link (another name, the same lower inode)
# Every denial is a failed cat beside one that works.
#
# Then, in parts of their own, the file systems that give an object a new inode number
# when they read it back in after its eviction, where a rule would stop matching:
# fs-proc.sh (procfs) and fs-overlay.sh (overlayfs without xino). They were the
# programs test-fs-proc and test-fs-overlay; they are parts of this one so that
# umbrellad, with the same default configuration, starts (and loads its BPF object) once:
# a load costs 20 to 45 s under TCG (docs/performance.md). Each part gets a directory
# of its own as $tmp, and what it mounted, its loop devices and its files go before the
# next part starts (part_done).
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
export UMBRELLA_SOCKET=/run/umbrella-test/umbrellad.sock
top=$(mktemp -d)
log=$top/umbrellad.log
loops=()
# part_done: unmounts what the parts mounted below $top, detaches their loop devices
# and removes the part's $tmp (its images would otherwise stay in the VM's memory)
part_done() {
	local m
	for m in $(grep " $top/" /proc/mounts | cut -d' ' -f2 | sort -r); do umount -l "$m"; done
	for m in "${loops[@]}"; do losetup -d "$m" 2>/dev/null; done
	loops=()
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
}
cleanup() {
	part_done
	kill "$daemon" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$top"
}
trap cleanup EXIT

run() { out=$("$cli" run "$@" 2>&1); rc=$?; }

# denied_beside RULE DENIED ALLOWED WHAT: cat DENIED fails and cat ALLOWED works under
# -r RULE
denied_beside() {
	local rule=$1 denied=$2 allowed=$3 what=$4 out1
	run -r "$rule" -- cat "$denied"
	out1="denied: rc=$rc $out"
	[ "$rc" != 0 ] && [[ "$out" == *"Permission denied"* ]]
	local r1=$?
	run -r "$rule" -- cat "$allowed"
	out="$out1
allowed: rc=$rc $out"
	[ "$r1" = 0 ] && [ "$rc" = 0 ] && [[ "$out" == *secret* ]]
	check $? "$what"
}

# make_fs TYPE SIZE: a file system of TYPE on a loop device, mounted at $tmp/TYPE
make_fs() {
	local type=$1 dev
	mkdir -p "$tmp/$type"
	truncate -s "$2" "$tmp/$type.img"
	dev=$(losetup -f --show "$tmp/$type.img") || { out="losetup failed"; return 1; }
	loops+=("$dev")
	out=$("mkfs.$type" -q "$dev" 2>&1 || "mkfs.$type" "$dev" 2>&1) || return 1
	out=$(mount -t "$type" "$dev" "$tmp/$type" 2>&1)
}

# fill DIR: DIR/dir/file (to deny), DIR/other (to read), DIR/f and its hard link DIR/hl
fill() {
	mkdir -p "$1/dir"
	echo secret >"$1/dir/file"
	echo secret >"$1/other"
	echo secret >"$1/f"
	ln "$1/f" "$1/hl"
}

start_daemon "$log"
rc=$?
out=$(cat "$log")
[ "$rc" = 0 ]
check $? "umbrellad starts"

tmp=$top/filesystems
mkdir "$tmp"
load_module loop
for type in ext4 xfs btrfs; do
	if ! command -v "mkfs.$type" >/dev/null; then
		out="mkfs.$type is missing: tests/setup installs it"
		check 1 "$type: a file system to test on"
		continue
	fi
	load_module "$type" && make_fs "$type" 320M
	rc=$?
	[ "$rc" = 0 ] || out="$out
$(dmesg | tail -n 5)"
	check "$rc" "$type: a file system on a loop device"
	fill "$tmp/$type"
	denied_beside "fs:$tmp/$type/dir" "$tmp/$type/dir/file" "$tmp/$type/other" \
		"$type: fs:DIR denies a file under it, not a file beside it"
	denied_beside "fs:$tmp/$type/f" "$tmp/$type/hl" "$tmp/$type/other" \
		"$type: a file's rule holds for its hard link (the inode rule)"
done

# btrfs as Fedora has it: the files in a subvolume, mounted on its own.
if [ -d "$tmp/btrfs" ] && btrfs subvolume create "$tmp/btrfs/sub" >/dev/null 2>&1; then
	mkdir -p "$tmp/sub"
	out=$(mount -o subvol=sub "${loops[-1]}" "$tmp/sub" 2>&1)
	check $? "btrfs: a subvolume mounted on its own"
	fill "$tmp/sub"
	out="st_dev $(stat -c %d "$tmp/sub/dir"), mountinfo $(grep " $tmp/sub " /proc/self/mountinfo)"
	denied_beside "fs:$tmp/sub/dir" "$tmp/sub/dir/file" "$tmp/sub/other" \
		"btrfs subvolume: fs:DIR denies a file under it, not a file beside it"
	denied_beside "fs:$tmp/btrfs/sub/dir" "$tmp/sub/dir/file" "$tmp/sub/other" \
		"btrfs subvolume: the rule holds through the other mount of the subvolume"
else
	out="btrfs subvolume create failed"
	check 1 "btrfs: a subvolume"
fi

mkdir -p "$tmp/tmpfs"
mount -t tmpfs tmpfs "$tmp/tmpfs"
fill "$tmp/tmpfs"
denied_beside "fs:$tmp/tmpfs/dir" "$tmp/tmpfs/dir/file" "$tmp/tmpfs/other" \
	"tmpfs: fs:DIR denies a file under it, not a file beside it"
denied_beside "fs:$tmp/tmpfs/f" "$tmp/tmpfs/hl" "$tmp/tmpfs/other" \
	"tmpfs: a file's rule holds for its hard link"

# overlay: lower on ext4, upper and work on tmpfs (another file system)
if [ -d "$tmp/ext4" ] && load_module overlay; then
	mkdir -p "$tmp/ext4/lower" "$tmp/tmpfs/upper" "$tmp/tmpfs/work" "$tmp/ovl"
	fill "$tmp/ext4/lower"
	out=$(mount -t overlay overlay -o "lowerdir=$tmp/ext4/lower,upperdir=$tmp/tmpfs/upper,workdir=$tmp/tmpfs/work" "$tmp/ovl" 2>&1)
	check $? "overlay: lower on ext4, upper on tmpfs"
	denied_beside "fs:$tmp/ovl/f" "$tmp/ovl/hl" "$tmp/ovl/other" \
		"overlay: a lower file's rule holds for its hard link (the inode rule)"
	# (A rule on a directory of this overlay, on two file systems without xino, is
	# refused: fs-overlay.sh.)
	echo secret >"$tmp/ovl/new"
	ln "$tmp/ovl/new" "$tmp/ovl/newlink"
	denied_beside "fs:$tmp/ovl/new" "$tmp/ovl/newlink" "$tmp/ovl/other" \
		"overlay: an upper file's rule holds for its hard link"
else
	check 1 "overlay: the module loads"
fi

# A caller in a mount namespace of its own, with a private /tmp: its /tmp/X is what
# fs:/tmp/X restricts. (Our /tmp/X holds no secret: a rule put there would not show.)
mkdir -p /tmp/X
echo public >/tmp/X/file
out=$(unshare -m --propagation private sh -c '
	mount -t tmpfs tmpfs /tmp && mkdir /tmp/X /tmp/Y &&
	echo secret >/tmp/X/file && echo secret >/tmp/Y/file &&
	"$1" run -r fs:/tmp/X -- cat /tmp/X/file; echo "rc=$?"
	"$1" run -r fs:/tmp/X -- cat /tmp/Y/file; echo "rc=$?"' sh "$cli" 2>&1)
[[ "$out" == *"/tmp/X/file: Permission denied"*"rc=1"*"secret"*"rc=0"* ]]
check $? "a caller with a private /tmp: fs:/tmp/X denies its /tmp/X/file, not its /tmp/Y/file"
run -r fs:/tmp/X -- cat /tmp/X/file
[ "$rc" = 1 ] && [[ "$out" == *"Permission denied"* ]]
check $? "fs:/tmp/X from the first namespace denies that namespace's /tmp/X/file"
part_done

# For the parts: the kernel drops its caches of dentries and inodes (an eviction).
drop_caches() { sync; echo 2 >/proc/sys/vm/drop_caches; echo 2 >/proc/sys/vm/drop_caches; }

# holds RULE DENIED ALLOWED WHAT: under -r RULE, with the caches dropped while the
# restricted shell waits, cat DENIED fails and cat ALLOWED works
holds() {
	"$cli" run -r "$1" -- sh -c "sleep 1; cat $2 && echo read-denied; cat $3 >/dev/null && echo read-allowed" \
		>"$tmp/out" 2>&1 &
	local pid=$!
	sleep 0.3
	drop_caches
	wait "$pid"
	out=$(cat "$tmp/out")
	[[ "$out" == *"$2"*"Permission denied"* ]] && [[ "$out" != *read-denied* ]] &&
		[[ "$out" == *read-allowed* ]]
	check $? "$4"
}

for part in proc overlay; do
	tmp=$top/$part
	mkdir "$tmp"
	. "$source_root/tests/integration/fs-$part.sh"
	part_done
done

tap_done
