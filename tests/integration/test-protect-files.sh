#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test (TAP): Umbrella's own files are kept from every task that carries a layer
# (bpf/lib/protect-files.bpf.h, daemon/self-files.c). A root under a layer that says
# nothing about them ("ptrace") tries each route to weaken the next umbrellad or the
# running one: write the configuration, add a key to the key ring, write its
# revocations, rename the configuration's directory or mount over it, add a systemd
# drop-in, replace or chmod umbrellad's binary. Each is refused with EPERM and the file
# is unchanged; root without a layer does the same and succeeds (the control; restored
# after). A verdict flush is refused to the restricted root, accepted from root.
set -u
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/vm-modules.sh"
vm_test /run/umbrella-protect-files/umbrellad.sock /sys/fs/bpf/umbrella-protect-files
trap vm_cleanup EXIT
log=$tmp/umbrellad.log
# The configuration as /etc/umbrella lays it out (/etc is read-only in the test VM), on
# a shared mount as on a systemd host, whose peers a new mount namespace keeps.
shared=$tmp/shared
mkdir "$shared"
mount -t tmpfs none "$shared" && mount --make-shared "$shared"
etc=$shared/etc-umbrella
dropin=/run/systemd/system/umbrellad.service.d
made_run_systemd=
[ -e /run/systemd ] || made_run_systemd=1
# As on a systemd host: the drop-in's directory exists, the drop-in does not.
mkdir -p /run/systemd/system
cleanup_last() {
	umount "$etc" "$tmp/mv1" "$tmp/mv2" "$tmp/ovl" 2>/dev/null
	umount -l "$shared" 2>/dev/null
	rm -f "$umbrellad.new"
	rm -rf "$dropin"
	[ -n "$made_run_systemd" ] && rm -rf /run/systemd
}

# Runs the shell command $1 as root under a layer; its output in $out, status in $rc.
restricted() { out=$("$cli" run -r ptrace -- sh -c "$1" 2>&1); rc=$?; }
unrestricted() { out=$(sh -c "$1" 2>&1); rc=$?; }
denied() { [ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]; }

mkdir -p "$etc/keys"
echo "mode = enforcing" >"$etc/umbrella.conf"
echo "# revoked keys" >"$etc/keys/revoked"
cp "$etc/umbrella.conf" "$tmp/conf.orig"
cp "$etc/keys/revoked" "$tmp/revoked.orig"
cp "$umbrellad" "$tmp/umbrellad.orig"
mode=$(stat -c %a "$umbrellad")

check_start "$log" "umbrellad starts and protects its files" --pin-dir "$pin" \
	--config "$etc/umbrella.conf" --keyring "$etc/keys"

# --- the restricted root ---
restricted "echo 'mode = permissive' >'$etc/umbrella.conf'"
denied && cmp -s "$etc/umbrella.conf" "$tmp/conf.orig"
check $? "a restricted root cannot write umbrella.conf (EPERM, unchanged: $out)"

restricted "echo key >'$etc/keys/mine.pub'"
denied && [ ! -e "$etc/keys/mine.pub" ]
check $? "... nor create a key file in the key ring ($out)"

restricted "chattr +i '$etc/umbrella.conf'"
denied && [[ "$(lsattr "$etc/umbrella.conf" | cut -d" " -f1)" != *i* ]]
check $? "... nor make it immutable (chattr +i) ($out)"

# Every inode-flag ioctl of lib/fsattr.bpf.h: FS_IOC_SETVERSION too, refused before the
# file system (tmpfs has none: ENOTTY otherwise).
restricted "chattr -v 7 '$etc/umbrella.conf'"
denied
check $? "... nor set its generation (chattr -v: FS_IOC_SETVERSION) ($out)"

restricted "echo 0123 >>'$etc/keys/revoked'"
denied && cmp -s "$etc/keys/revoked" "$tmp/revoked.orig"
check $? "... nor write revoked ($out)"

restricted "mv '$etc' '$etc.old' || mv '$etc/keys' '$etc/keys.old'"
denied && [ -f "$etc/umbrella.conf" ] && [ -d "$etc/keys" ] && [ ! -e "$etc.old" ]
check $? "... nor rename the configuration's directory or the key ring ($out)"

# util-linux words EPERM its own way ("must be superuser"): the mount table says it.
restricted "mount -t tmpfs none '$etc'"
[ "$rc" != 0 ] && ! findmnt "$etc" >/dev/null && [ -f "$etc/umbrella.conf" ]
check $? "... nor mount over the configuration's directory ($out)"

restricted "mkdir -p '$dropin' && echo '[Service]' >'$dropin/weak.conf'"
denied && [ ! -e "$dropin/weak.conf" ]
check $? "... nor add a drop-in to umbrellad.service ($out)"

# MS_MOVE names its source by a string the hook cannot resolve: refused, whatever it is.
mkdir "$tmp/mv1" "$tmp/mv2"
mount -t tmpfs none "$tmp/mv1"
restricted "mount --move '$tmp/mv1' '$tmp/mv2'"
[ "$rc" != 0 ] && findmnt "$tmp/mv1" >/dev/null && ! findmnt "$tmp/mv2" >/dev/null
check $? "... nor move a mount (MS_MOVE) ($out)"

# Containers: a mount namespace whose mounts are private (unshare -m, bwrap, runc) is
# not what umbrellad and systemd read; pivot_root and umount of the old root work there,
# and so does a mount over the configuration, which the initial namespace never sees.
mkdir "$tmp/newroot"
restricted "unshare -m --propagation private sh -c \"mount -t tmpfs none '$etc' && \
	mount --bind / '$tmp/newroot' && cd '$tmp/newroot' && pivot_root . mnt && \
	mount -t proc proc /proc && umount -l /mnt\""
[ "$rc" = 0 ] && ! findmnt "$etc" >/dev/null && [ -f "$etc/umbrella.conf" ]
check $? "a restricted root pivots the root of a private mount namespace and unmounts the old one ($out)"

# A new namespace keeps the shared mounts' peers (unshare(CLONE_NEWNS) as it is): a
# mount there would propagate to the initial one.
restricted "unshare -m --propagation unchanged mount -t tmpfs none '$etc'"
[ "$rc" != 0 ] && ! findmnt "$etc" >/dev/null && [ -f "$etc/umbrella.conf" ]
check $? "... but mounts over the configuration on a mount shared with the initial namespace are refused ($out)"

# overlayfs changes its upper directory through vfs_unlink() & co., which reach the
# inode hooks only: with the key ring as upperdir, an rm through the overlay would
# remove the real file.
load_module overlay || echo "# overlayfs: $out"
mkdir "$tmp/lower" "$tmp/ovl" "$shared/work" "$shared/upper" "$shared/work2"
touch "$shared/upper/plain"
restricted "mount -t overlay overlay -o 'lowerdir=$tmp/lower,upperdir=$etc/keys,workdir=$shared/work' '$tmp/ovl' && rm -f '$tmp/ovl/revoked'"
umount "$tmp/ovl" 2>/dev/null
[ "$rc" != 0 ] && cmp -s "$etc/keys/revoked" "$tmp/revoked.orig"
check $? "... nor remove revoked through an overlay whose upperdir is the key ring ($out)"
restricted "mount -t overlay overlay -o 'lowerdir=$tmp/lower,upperdir=$shared/upper,workdir=$shared/work2' '$tmp/ovl' && rm -f '$tmp/ovl/plain'"
umount "$tmp/ovl" 2>/dev/null
[ "$rc" = 0 ] && [ ! -e "$shared/upper/plain" ]
check $? "the same overlay over a directory of its own removes a file ($out)"

# One that root made after umbrellad started: protected by its name.
mkdir "$dropin"
restricted "echo '[Service]' >'$dropin/weak.conf'"
denied && [ ! -e "$dropin/weak.conf" ]
check $? "... nor write into a drop-in directory root made after umbrellad started ($out)"
rmdir "$dropin"

restricted "cp /bin/true '$umbrellad.new' && mv -f '$umbrellad.new' '$umbrellad'"
denied && cmp -s "$umbrellad" "$tmp/umbrellad.orig"
check $? "... nor replace umbrellad's binary by rename ($out)"
rm -f "$umbrellad.new"

restricted "chmod 0700 '$umbrellad' || rm -f '$umbrellad'"
denied && [ "$(stat -c %a "$umbrellad")" = "$mode" ] && [ -f "$umbrellad" ]
check $? "... nor chmod or remove it ($out)"

for _ in $(seq 50); do
	grep -q "hook=file_open restriction=self:0 layer=0 object=$etc/umbrella.conf" "$log" && break
	sleep 0.1
done
out=$(cat "$log")
grep -q "hook=file_open restriction=self:0 layer=0 object=$etc/umbrella.conf" "$log"
check $? "the refusals are recorded as self-protection, naming the file"
grep -q "hook=inode_unlink restriction=self:0" "$log"
check $? "... the overlay's unlink as inode_unlink"

restricted "echo written >'$tmp/elsewhere'"
[ "$rc" = 0 ] && [ "$(cat "$tmp/elsewhere")" = written ]
check $? "the restricted root still writes next to them ($out)"

# --- the controls: root without a layer ---
unrestricted "echo 'mode = permissive' >'$etc/umbrella.conf'"
[ "$rc" = 0 ] && grep -q permissive "$etc/umbrella.conf"
check $? "root without a layer writes umbrella.conf ($out)"
cp "$tmp/conf.orig" "$etc/umbrella.conf"

unrestricted "chattr +i '$etc/umbrella.conf' && chattr -i '$etc/umbrella.conf'"
[ "$rc" = 0 ]
check $? "... makes it immutable and back ($out)"

unrestricted "echo '# x' >'$etc/keys/control.txt' && echo 0123 >>'$etc/keys/revoked' && \
	rm '$etc/keys/control.txt'"
[ "$rc" = 0 ] && ! cmp -s "$etc/keys/revoked" "$tmp/revoked.orig"
check $? "... adds to the key ring and writes revoked ($out)"
cp "$tmp/revoked.orig" "$etc/keys/revoked"

unrestricted "mv '$etc' '$etc.old' && mv '$etc.old' '$etc'"
[ "$rc" = 0 ] && [ -f "$etc/umbrella.conf" ]
check $? "... renames the configuration's directory and back ($out)"

unrestricted "mount -t tmpfs none '$etc' && umount '$etc'"
[ "$rc" = 0 ]
check $? "... mounts over it ($out)"

unrestricted "mount --move '$tmp/mv1' '$tmp/mv2' && umount '$tmp/mv2'"
[ "$rc" = 0 ] && ! findmnt "$tmp/mv1" >/dev/null
check $? "... moves a mount ($out)"

unrestricted "mkdir -p '$dropin' && echo '[Service]' >'$dropin/control.conf'"
[ "$rc" = 0 ] && [ -f "$dropin/control.conf" ]
check $? "... adds a drop-in ($out)"
rm -rf "$dropin"

unrestricted "chmod 0700 '$umbrellad' && chmod '$mode' '$umbrellad'"
[ "$rc" = 0 ]
check $? "... and chmods umbrellad's binary ($out)"

# --- verdict flush ---
restricted "'$cli' --pin-dir '$pin' verdict flush"
[ "$rc" != 0 ] && [[ "$out" == *"only root that carries no layer may flush"* ]]
check $? "a restricted root's verdict flush is refused ($out)"
unrestricted "'$cli' --pin-dir '$pin' verdict flush"
[ "$rc" = 0 ]
check $? "root's verdict flush is accepted ($out)"

tap_done
