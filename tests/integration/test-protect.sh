#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test: self-protection (TAP). While umbrellad is up, root itself cannot write
# Umbrella's maps (through a pin or by id), detach or update its links, load a program
# that uses its maps, attach a program to its programs, or remove or rename what it
# pinned; reading stays allowed, and maps, programs and links that are not Umbrella's
# are untouched.
# A restricted task cannot set umbrellad's limits or oom_score_adj, and cannot remove the
# pins or unmount /sys/fs/bpf while umbrellad is down.
# A second umbrellad is refused naming the first. After kill -9 of umbrellad, a new one
# adopts the pinned state, and --reset-pins right after its own kill -9 removes
# everything.
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
bpftool=/usr/sbin/bpftool
pin=/sys/fs/bpf/umbrella-protect-test
other=/sys/fs/bpf/umbrella-protect-other
export UMBRELLA_SOCKET=/run/umbrella-protect-test/umbrellad.sock
tmp=$(mktemp -d)
daemon=
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -f "$other"
	rm -rf "$tmp"
}
trap cleanup EXIT

# "id" of the object described by bpftool -j ... show on stdin.
json_id() { python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }
# Whether a restricted command is still denied.
still_enforced() {
	out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
	[[ "$out" == *"Permission denied"* ]]
}
# Whether the daemon's log $1 records a self-protection denial by hook $2.
logged() {
	for _ in $(seq 20); do
		grep -q "hook=$2 restriction=self:" "$1" && return 0
		sleep 0.1
	done
	return 1
}
zeros() { printf '0 %.0s' $(seq "$1"); }
# The number of self-protection records of hook $2 (restriction=self:$3, any id without
# it) in the daemon's log $1.
records() { grep -c "hook=$2 restriction=self:${3:-}" "$1"; }
# Waits until that number is above $4.
more_records() {
	for _ in $(seq 50); do
		[ "$(records "$1" "$2" "${3:-}")" -gt "$4" ] && return 0
		sleep 0.1
	done
	return 1
}

# bpf(2) by hand, for what bpftool does not do: prints "ok" or the errno's name.
#   load-using PIN|new    load a socket filter that uses the map PIN (opened read-only,
#                         as anyone may) or a new map of its own
#   attach-to ID|own      load an fentry program on the program ID (its fd by id, as
#                         bpftool prog show gets one) or on a socket filter of its own
#   update PIN|own        BPF_LINK_UPDATE of the link PIN, or of a cgroup_skb link of
#                         its own on /sys/fs/cgroup, to a new program
cat >"$tmp/bpf.py" <<-'PY'
	import ctypes, errno, os, struct, sys
	libc = ctypes.CDLL(None, use_errno=True)
	SYS_bpf = 321
	MAP_CREATE, PROG_LOAD, OBJ_GET, PROG_GET_FD_BY_ID, LINK_CREATE, LINK_UPDATE = 0, 5, 7, 13, 28, 29
	SOCKET_FILTER, CGROUP_SKB, TRACING = 1, 8, 26
	CGROUP_INET_INGRESS, TRACE_FENTRY, F_RDONLY = 0, 24, 1 << 3
	keep = []
	class Err(Exception):
	    pass
	def bpf(cmd, attr):
	    buf = ctypes.create_string_buffer(attr, 128)
	    r = libc.syscall(SYS_bpf, cmd, buf, 128)
	    if r < 0:
	        n = ctypes.get_errno()
	        raise Err(errno.errorcode.get(n, str(n)))
	    return r
	def cstr(text):
	    keep.append(ctypes.create_string_buffer(text.encode()))
	    return ctypes.addressof(keep[-1])
	def insns(*ins):
	    keep.append(ctypes.create_string_buffer(b"".join(struct.pack("=BBhi", *i) for i in ins)))
	    return ctypes.addressof(keep[-1]), len(ins)
	EXIT = [(0xb7, 0, 0, 0), (0x95, 0, 0, 0)]  # r0 = 0; exit
	def load(prog_type, code, attach_type=0, attach_btf_id=0, attach_prog_fd=0):
	    addr, count = insns(*code)
	    return bpf(PROG_LOAD, struct.pack("=IIQQIIQII16sIIIIQIIQIII", prog_type, count, addr,
	                                      cstr("GPL"), 0, 0, 0, 0, 0, b"umb_test", 0,
	                                      attach_type, 0, 0, 0, 0, 0, 0, 0, attach_btf_id,
	                                      attach_prog_fd))
	def obj_get(path, flags):
	    return bpf(OBJ_GET, struct.pack("=QII", cstr(path), 0, flags))
	def cgroup_skb():  # r0 = 1 (let the packet through); exit
	    return load(CGROUP_SKB, [(0xb7, 0, 0, 1), (0x95, 0, 0, 0)], CGROUP_INET_INGRESS)
	def main(what, arg):
	    if what == "load-using":
	        fd = (obj_get(arg, F_RDONLY) if arg != "new" else
	              bpf(MAP_CREATE, struct.pack("=IIIII", 2, 4, 4, 1, 0)))
	        # r1 = the map (BPF_PSEUDO_MAP_FD), unused
	        load(SOCKET_FILTER, [(0x18, 0x11, 0, fd), (0, 0, 0, 0)] + EXIT)
	    elif what == "attach-to":
	        target = (load(SOCKET_FILTER, EXIT) if arg == "own" else
	                  bpf(PROG_GET_FD_BY_ID, struct.pack("=III", int(arg), 0, 0)))
	        try:
	            load(TRACING, EXIT, TRACE_FENTRY, 1, target)
	        except Err as e:
	            # the kernel's own refusal of an fd that is no fentry target: not ours
	            if arg == "own" and str(e) == "EINVAL":
	                print("EINVAL (the kernel's)")
	                return
	            raise
	    elif what == "update":
	        if arg == "own":
	            cgroup = os.open("/sys/fs/cgroup", os.O_RDONLY | os.O_DIRECTORY)
	            link = bpf(LINK_CREATE, struct.pack("=IIII", cgroup_skb(), cgroup,
	                                                CGROUP_INET_INGRESS, 0))
	        else:
	            link = obj_get(arg, 0)
	        bpf(LINK_UPDATE, struct.pack("=IIII", link, cgroup_skb(), 0, 0))
	    print("ok")
	try:
	    main(sys.argv[1], sys.argv[2])
	except Err as e:
	    print(e)
	PY
bpfpy() { out=$(python3 "$tmp/bpf.py" "$@" 2>&1); }

"$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
rm -f "$other"

start_daemon "$tmp/d1.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d1.log")
[ "$rc" = 0 ] && [ -e "$pin/umb_layers" ] && [ -n "$(ls "$pin/links")" ]
check $? "umbrellad pins its maps and links in $pin"

out=$(ctl_daemon_tgid 2>&1)
[ "$out" = "$daemon" ]
check $? "umb_ctl.daemon_tgid is umbrellad's pid, readable by root ($daemon)"

# Maps: writing through a pin or an id is refused; reading is not.
out=$("$bpftool" map update pinned "$pin/umb_layers" key 1 0 0 0 value $(zeros 56) 2>&1)
rc=$?
[ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "bpftool map update pinned umb_layers is refused with EPERM (exit $rc)"

logged "$tmp/d1.log" bpf_map
out=$(grep 'hook=bpf_map' "$tmp/d1.log")
check $? "the refusal is recorded (hook=bpf_map, restriction=self:ID)"

out=$("$bpftool" map update pinned "$pin/umb_ctl" key 0 0 0 0 value $(zeros 24) 2>&1)
[ $? != 0 ] && [ "$(ctl_daemon_tgid)" = "$daemon" ]
check $? "bpftool map update pinned umb_ctl is refused: the daemon stays registered"

out=$("$cli" --pin-dir "$pin" status 2>&1)
[ $? = 0 ] && [[ "$out" == *"running (pid $daemon)"* ]]
check $? "umbrella-cli status reads the pinned maps (read-only)"

# By id: the ids of the maps of the program behind a pinned link (bpftool gets link
# and program fds by id: no map fd is asked for).
prog=$("$bpftool" -j link show pinned "$pin/links/umb_file_open" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["prog_id"])')
ids=$("$bpftool" -j prog show id "$prog" |
	python3 -c 'import json, sys; print(" ".join(map(str, json.load(sys.stdin)["map_ids"])))')
out="prog $prog maps $ids"
[ -n "$ids" ]
check $? "bpftool prog show id $prog (one of Umbrella's programs) works"

refused=0
for id in $ids; do
	out=$("$bpftool" map update id "$id" key 0 0 0 0 value 0 2>&1)
	[ $? != 0 ] && [[ "$out" == *"Operation not permitted"* ]] && refused=$((refused + 1))
done
[ "$refused" = "$(echo $ids | wc -w)" ]
check $? "bpftool map update id N is refused with EPERM for each of its maps ($ids)"

# Every map pinned in the directory (umb_meta aside: umbrellad's own, see
# bpf/lib/protect.bpf.h), so that a map added later cannot be left out of the list.
out=
for file in "$pin"/umb_*; do
	[ "${file##*/}" = umb_meta ] && continue
	"$bpftool" map update pinned "$file" key 0 0 0 0 value 0 2>&1 |
		grep -q "Operation not permitted" || out+=" ${file##*/}"
done
[ -z "$out" ]
check $? "a writable fd of every pinned map is refused (not refused:${out:- none})"

out=$("$bpftool" map create "$other" type array key 4 value 4 entries 1 name umb_layers 2>&1) &&
	out=$("$bpftool" map update pinned "$other" key 0 0 0 0 value 1 0 0 0 2>&1) &&
	out=$(rm "$other" 2>&1)
check $? "a map that is not Umbrella's (even named umb_layers) can be written and unpinned"

# Pins: no unlink, rename or rmdir, no new pin in the directory.
out=$(rm -f "$pin/umb_layers" 2>&1)
rc=$?
[ "$rc" != 0 ] && [ -e "$pin/umb_layers" ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "rm of a pinned map is refused with EPERM"

logged "$tmp/d1.log" path_unlink
out=$(grep 'hook=path_unlink' "$tmp/d1.log")
check $? "the refusal is recorded under the hook that made it (hook=path_unlink)"
[[ "$out" == *"hook=path_unlink restriction=self:0 layer=0 object=$pin/umb_layers"* ]]
check $? "its record names the pin by its whole path ($pin/umb_layers)"

link=$(ls "$pin/links" | head -n 1)
out=$(rm -f "$pin/links/$link" 2>&1)
[ $? != 0 ] && [ -e "$pin/links/$link" ]
check $? "rm of a pinned link (links/$link) is refused"
# pinned: the daemon's log $1 records hook $2 on the whole path $3.
pinned() {
	local _
	for _ in $(seq 20); do
		grep -qF "hook=$2 restriction=self:0 layer=0 object=$3" "$1" && return 0
		sleep 0.1
	done
	out=$(grep "hook=$2 restriction=self:" "$1" | tail -n 3)
	return 1
}
pinned "$tmp/d1.log" path_unlink "$pin/links/$link"
check $? "its record names the link's whole path (links/ included)"

out=$(mv "$pin/umb_layers" "$pin/moved" 2>&1)
[ $? != 0 ] && [ -e "$pin/umb_layers" ]
check $? "mv of a pinned map within the directory is refused"

pinned "$tmp/d1.log" path_rename "$pin/umb_layers"
check $? "the rename's record names the pin's whole path"

out=$(mv "$pin" "$pin-moved" 2>&1)
[ $? != 0 ] && [ -d "$pin" ]
check $? "mv of the pin directory is refused"

out=$(rm -rf "$pin/links" 2>&1)
[ $? != 0 ] && [ -e "$pin/links/$link" ]
check $? "rm -rf of the links directory is refused"

out=$("$bpftool" map pin pinned "$pin/umb_ctl" "$pin/extra" 2>&1)
[ $? != 0 ] && [ ! -e "$pin/extra" ]
check $? "pinning another object into the pin directory is refused"

# A map of its own, pinned into the directory: refused at the pin (path_mknod).
out=$("$bpftool" map create "$pin/extra" type array key 4 value 4 entries 1 name other 2>&1)
[ $? != 0 ] && [ ! -e "$pin/extra" ] && pinned "$tmp/d1.log" path_mknod "$pin/extra"
check $? "pinning a new map into the pin directory is refused, its record names the new pin"

# Links: detaching one, by its pin or its id, is refused; the programs keep enforcing.
out=$("$bpftool" link detach pinned "$pin/links/umb_file_open" 2>&1)
rc=$?
[ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "bpftool link detach pinned links/umb_file_open is refused with EPERM"

lid=$("$bpftool" -j link show pinned "$pin/links/umb_file_open" | json_id)
out=$("$bpftool" link detach id "$lid" 2>&1)
rc=$?
[ -n "$lid" ] && [ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "bpftool link detach id $lid is refused with EPERM"

out=$("$bpftool" link show 2>&1)
[ $? = 0 ] && [[ "$out" == *"$lid"* ]]
check $? "bpftool link show still lists Umbrella's links"

# Programs: one that uses Umbrella's maps is refused (it could write them whatever mode
# its map fd had), at the hook that hands out its fd (bpf_prog).
n=$(records "$tmp/d1.log" bpf_prog)
bpfpy load-using "$pin/umb_layers"
[ "$out" = EPERM ] && more_records "$tmp/d1.log" bpf_prog "" "$n"
check $? "loading a program that uses umb_layers (fd read-only) fails with EPERM, recorded ($out)"

bpfpy load-using new
[ "$out" = ok ]
check $? "the control: the same program with a map of its own loads ($out)"

# fentry on one of Umbrella's programs: refused at bpf(2) (hook bpf) before the kernel
# looks at the rest; on a program of its own the kernel itself refuses it (EINVAL: no
# BTF), unrecorded.
n=$(records "$tmp/d1.log" bpf "$prog ")
bpfpy attach-to "$prog"
[ "$out" = EPERM ] && more_records "$tmp/d1.log" bpf "$prog " "$n"
check $? "loading an fentry program on Umbrella's program $prog fails with EPERM, recorded ($out)"

n=$(records "$tmp/d1.log" bpf)
bpfpy attach-to own
[ "$out" = "EINVAL (the kernel's)" ] && [ "$(records "$tmp/d1.log" bpf)" = "$n" ]
check $? "the control: on a program of its own, the kernel's answer, no record ($out)"

# BPF_LINK_UPDATE: refused before the kernel would say that an LSM link has no update
# (EINVAL); a cgroup link of its own is updated.
n=$(records "$tmp/d1.log" bpf "$prog ")
bpfpy update "$pin/links/umb_file_open"
[ "$out" = EPERM ] && more_records "$tmp/d1.log" bpf "$prog " "$n"
check $? "BPF_LINK_UPDATE of links/umb_file_open fails with EPERM, recorded ($out)"

bpfpy update own
[ "$out" = ok ]
check $? "the control: BPF_LINK_UPDATE of a cgroup_skb link of its own works ($out)"

still_enforced
check $? "after the attempts the programs still enforce (run -r fs:/etc is denied /etc/hostname)"

# A second umbrellad is refused, naming the first.
out=$(timeout 60 "$umbrellad" --socket "$tmp/second.sock" --pin-dir "$pin" 2>&1)
rc=$?
[ "$rc" = 1 ] && [[ "$out" == *"another umbrellad is using it (pid $daemon "* ]]
check $? "a second umbrellad is refused, naming the first one's pid (exit $rc)"

out=$("$umbrellad" --reset-pins --pin-dir "$pin" 2>&1)
rc=$?
[ "$rc" != 0 ] && [ -e "$pin/umb_layers" ] && [[ "$out" == *"(pid $daemon)"* ]]
check $? "--reset-pins is refused while umbrellad is up (exit $rc)"

# A restricted root task (the scope of every layer, bpf/lib/scope.bpf.h) cannot make the
# kernel kill umbrellad, nor make it the OOM killer's first choice.
out=$("$cli" run -r fs:/etc -- prlimit --pid "$daemon" --cpu=0:0 2>&1)
rc=$?
sleep 1
[ "$rc" != 0 ] && kill -0 "$daemon" && [[ "$(prlimit --pid "$daemon" --cpu -o SOFT --noheadings)" != *0* ]]
check $? "a restricted task's prlimit --cpu=0:0 on umbrellad is refused; umbrellad lives (exit $rc)"

adj=$(cat "/proc/$daemon/oom_score_adj")
out=$("$cli" run -r fs:/etc -- sh -c "echo 1000 > /proc/$daemon/oom_score_adj" 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$(cat "/proc/$daemon/oom_score_adj")" = "$adj" ]
check $? "a restricted task cannot write umbrellad's oom_score_adj (exit $rc)"

out=$("$cli" run -q -r fs:/etc -- sh -c "echo 500 > /proc/self/oom_score_adj && cat /proc/self/oom_score_adj" 2>&1)
[ "$out" = 500 ]
check $? "the control: it writes its own oom_score_adj"

# A restricted task that outlives umbrellad: the pins stay out of its reach.
"$cli" run -r fs:/etc -- sh -c "touch $tmp/ready; while [ ! -e $tmp/go ]; do sleep 0.1; done
	rm -f $pin/umb_layers $pin/links/umb_file_open 2>$tmp/rm.err; echo \$? >$tmp/rm.rc
	umount -l /sys/fs/bpf 2>$tmp/umount.err; echo \$? >$tmp/umount.rc
	cat /etc/hostname >/dev/null 2>&1; echo \$? >$tmp/cat.rc" &
restricted=$!
for _ in $(seq 100); do
	[ -e "$tmp/ready" ] && break
	sleep 0.1
done
# A crash: the registration goes with the process; a new umbrellad adopts.
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
old=$daemon
daemon=
for _ in $(seq 50); do
	[ "$(ctl_daemon_tgid)" = 0 ] && break
	sleep 0.1
done
out=$(ctl_daemon_tgid 2>&1)
[ "$out" = 0 ]
check $? "after kill -9 of umbrellad ($old), umb_ctl.daemon_tgid is cleared"

touch "$tmp/go"
wait "$restricted"
out="rm: $(cat "$tmp/rm.rc" "$tmp/rm.err" 2>&1) umount: $(cat "$tmp/umount.rc" "$tmp/umount.err" 2>&1)"
[ -s "$tmp/rm.rc" ] && [ "$(cat "$tmp/rm.rc")" != 0 ] && [ -e "$pin/umb_layers" ] &&
	[ -e "$pin/links/umb_file_open" ] && [ -s "$tmp/umount.rc" ] &&
	[ "$(cat "$tmp/umount.rc")" != 0 ] && mountpoint -q /sys/fs/bpf
check $? "while umbrellad is down, a restricted task can neither remove pins nor unmount /sys/fs/bpf"

out="cat /etc/hostname: exit $(cat "$tmp/cat.rc" 2>&1)"
[ -s "$tmp/cat.rc" ] && [ "$(cat "$tmp/cat.rc")" != 0 ]
check $? "with umbrellad down, the pinned programs still enforce on that task ($out)"

start_daemon "$tmp/d2.log" --pin-dir "$pin"
rc=$?
out=$(cat "$tmp/d2.log")
[ "$rc" = 0 ] && grep -q "adopted the pinned state in $pin" "$tmp/d2.log" &&
	[ "$(ctl_daemon_tgid)" = "$daemon" ]
check $? "a restarted umbrellad adopts the pinned state and registers ($daemon)"

out=$("$bpftool" map update pinned "$pin/umb_layers" key 1 0 0 0 value $(zeros 56) 2>&1)
[ $? != 0 ] && still_enforced
check $? "the restarted umbrellad's maps are protected, and it enforces"

# A crash again, and --reset-pins right after it: it waits for the registration to go.
# (That a clean stop unregisters, test-pin-restart checks.)
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
out=$("$umbrellad" --reset-pins --pin-dir "$pin" 2>&1)
[ $? = 0 ] && [ ! -e "$pin" ]
check $? "umbrellad --reset-pins right after kill -9 removes the pin directory"

tap_done
