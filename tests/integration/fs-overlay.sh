# SPDX-License-Identifier: GPL-2.0-only
# Part of the VM test test-fs-filesystems (sourced by test-fs-filesystems.sh, with
# umbrellad started and $tmp a directory of its own): fs rules on overlayfs either hold
# or are refused. With its layers on several file systems and without xino (the
# default), overlayfs numbers a directory anew each time it reads it back in after its
# eviction (memory pressure, drop_caches), and rules are keyed by inode number: a rule
# on or below such a directory would stop matching. umbrellad refuses it, naming the
# item; rules on an overlay on one file system, or with xino=on, are made and hold
# across an eviction, and so does a rule on a file in the root of the other overlay (the
# root is pinned, files keep their layer's number). drop_caches and holds are
# test-fs-filesystems.sh's; refused is its own, defined again over the part before's.
# refused RULE WHY WHAT: "run -r fs:RULE" fails before running anything, naming the item
# and WHY
refused() {
	out=$("$cli" run -r "fs:$1" -- echo ran 2>&1)
	local rc=$?
	out="rc=$rc $out"
	[ "$rc" != 0 ] && [[ "$out" != *ran* ]] && [[ "$out" == *"fs:$1:"*"cannot hold"*"$2"* ]]
	check $? "$3"
}

# overlay NAME LOWER UPPERFS [OPTION]: an overlay at $tmp/NAME of the lower directory
# LOWER (filled: dir/file, dir/sub, other, f) and an upper directory on UPPERFS
overlay() {
	local lower=$2 upper=$3/$1-upper work=$3/$1-work
	mkdir -p "$lower/dir/sub" "$upper" "$work" "$tmp/$1"
	echo secret >"$lower/dir/file"
	echo secret >"$lower/other"
	echo secret >"$lower/f"
	out=$(mount -t overlay overlay \
		-o "lowerdir=$lower,upperdir=$upper,workdir=$work${4:+,$4}" "$tmp/$1" 2>&1)
}

mkdir -p "$tmp/ext4" "$tmp/tmpfs"
truncate -s 64M "$tmp/ext4.img"
load_module loop && load_module ext4 && load_module overlay &&
	loop=$(losetup -f --show "$tmp/ext4.img") && loops+=("$loop") &&
	out=$(mkfs.ext4 -q "$loop" 2>&1) && mount "$loop" "$tmp/ext4" && mount -t tmpfs tmpfs "$tmp/tmpfs"
check $? "an ext4 and a tmpfs to put layers on"

overlay split "$tmp/ext4/lower-split" "$tmp/tmpfs" xino=off
check $? "overlay: lower on ext4, upper on tmpfs, xino=off"
overlay xino "$tmp/ext4/lower-xino" "$tmp/tmpfs" xino=on
check $? "overlay: lower on ext4, upper on tmpfs, xino=on"
overlay same "$tmp/tmpfs/lower-same" "$tmp/tmpfs"
check $? "overlay: lower and upper on one tmpfs"

# The reason, measured here: the split overlay's directories get new numbers.
a=$(stat -c %i "$tmp/split/dir" "$tmp/xino/dir" "$tmp/same/dir" "$tmp/split/f")
drop_caches
b=$(stat -c %i "$tmp/split/dir" "$tmp/xino/dir" "$tmp/same/dir" "$tmp/split/f")
out="before: $a after: $b"
[ "$(head -n1 <<<"$a")" != "$(head -n1 <<<"$b")" ] && [ "$(tail -n +2 <<<"$a")" = "$(tail -n +2 <<<"$b")" ]
check $? "split overlay: a directory gets a new number after an eviction, not on the others"

refused "$tmp/split/dir" "xino" "split overlay: a rule on a directory is refused"
refused "$tmp/split/dir/file" "xino" "split overlay: a rule on a file in a directory is refused"
refused "$tmp/split/dir/sub/new" "xino" "split overlay: a rule on a name two levels down is refused"
mkdir -p "$tmp/bind"
mount --bind "$tmp/split/dir" "$tmp/bind"
refused "$tmp/bind/sub" "xino" \
	"split overlay: a rule below a bind mount of a part of it is refused"
umount "$tmp/bind"

holds "fs:$tmp/split/f:r" "$tmp/split/f" "$tmp/split/other" \
	"split overlay: fs:ROOT/f:r holds across an eviction (the root's other file still read)"
holds "fs:$tmp/xino/dir:r" "$tmp/xino/dir/file" "$tmp/xino/other" \
	"xino overlay: fs:DIR:r holds across an eviction (a file beside it still read)"
holds "fs:$tmp/same/dir:r" "$tmp/same/dir/file" "$tmp/same/other" \
	"one-file-system overlay: fs:DIR:r holds across an eviction (a file beside it still read)"
mkdir "$tmp/xino/dir/sub/up" "$tmp/same/dir/sub/up"
echo secret >"$tmp/xino/dir/sub/up/file"
echo secret >"$tmp/same/dir/sub/up/file"
holds "fs:$tmp/xino/dir/sub/up/file:r" "$tmp/xino/dir/sub/up/file" "$tmp/xino/dir/file" \
	"xino overlay: a rule three directories down (one made on the upper layer) holds"
holds "fs:$tmp/same/dir/sub/up/file:r" "$tmp/same/dir/sub/up/file" "$tmp/same/dir/file" \
	"one-file-system overlay: a rule three directories down (one made on the upper layer) holds"
holds "fs:$tmp/split:r" "$tmp/split/dir/file" /etc/hostname \
	"split overlay: fs:ROOT:r holds across an eviction (/etc/hostname still read)"
