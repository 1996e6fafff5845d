#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): the Debian packages that
# tests/build-packages put in BUILD/deb, installed as a user would, with dpkg -i (the
# maintainer scripts apt-get install ./umbrella_*.deb ./libumbrella0_*.deb runs; apt's
# cache of the host's package lists takes minutes to build under TCG). The service is enabled early in boot and
# active, umbrella-cli works and enforces, a program built with pkg-config against
# libumbrella-dev rforks a restricted child, an upgrade restarts umbrellad while the
# pinned programs enforce, and dpkg --remove leaves enforcement in force; purge removes
# /etc/umbrella. Everything happens in the VM's overlay of the host's root: the host's
# dpkg database is not touched. Without packages (no tests/build-packages run), one
# skipped check (TAP).
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-package
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40
deb=$build/deb
cli=/usr/bin/umbrella-cli
tmp=$(mktemp -d)
vendor=
loop=
export DEBIAN_FRONTEND=noninteractive

# tests/run installs the packages in the first kernel's systemd boot only: what they
# test is dpkg and the unit, not the kernel, and each install costs minutes under TCG.
if [ -n "${UMBRELLA_PACKAGES_TESTED_ON:-}" ]; then
	echo "ok 1 - # SKIP the packages are tested on $UMBRELLA_PACKAGES_TESTED_ON"
	echo "1..1"
	exit 0
fi
shopt -s nullglob
debs=("$deb"/umbrella_*.deb "$deb"/libumbrella0_*.deb "$deb"/libumbrella-dev_*.deb)
shopt -u nullglob
if [ ${#debs[@]} != 3 ]; then
	echo "ok 1 - # SKIP no packages in $deb (tests/build-packages $deb builds them)"
	echo "1..1"
	exit 0
fi

cleanup() {
	[ -n "$loop" ] && kill "$loop" 2>/dev/null
	wait 2>/dev/null
	systemctl stop umbrellad.service 2>/dev/null
	dpkg --purge umbrella libumbrella-dev libumbrella0 >/dev/null 2>&1
	"$build/daemon/umbrellad" --reset-pins 2>/dev/null
	[ -e "$tmp/policy-rc.d" ] && mv "$tmp/policy-rc.d" /usr/sbin/policy-rc.d
	systemctl daemon-reload
	rm -rf "$tmp" "$vendor"
}
trap cleanup EXIT

mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
# As on a user's machine: no unit of the other tests in /etc shadowing the package's,
# and no policy-rc.d (the host's, made for containers, forbids starting services).
# man-db's trigger (a full index under TCG) is off: auto-update is its switch.
rm -f "$unit" /var/lib/man-db/auto-update
[ -e /usr/sbin/policy-rc.d ] && mv /usr/sbin/policy-rc.d "$tmp/policy-rc.d"
systemctl daemon-reload

rm -rf /etc/umbrella # a fresh install: nothing of Umbrella's in /etc yet
out=$(cd "$deb" && timeout 300 dpkg -i ./umbrella_*.deb ./libumbrella0_*.deb 2>&1)
check $? "dpkg -i ./umbrella_*.deb ./libumbrella0_*.deb"

out=$(ls -la /etc/umbrella 2>&1; dpkg-query -W -f='${Conffiles}\n' umbrella 2>&1)
[ -d /etc/umbrella/keys ] && [ -d /etc/umbrella/profiles ] &&
	[[ "$out" == *" /etc/umbrella/umbrella.conf "* ]] &&
	! grep -v '^#' /etc/umbrella/umbrella.conf | grep -q '[^[:space:]]'
check $? "the package ships /etc/umbrella: keys/, profiles/, umbrella.conf (a conffile, all comments)"

wait_active
rc=$?
out=$(systemctl status --no-pager umbrellad.service 2>&1 | head -n 12; journal | tail -n 25)
[ "$rc" = 0 ] && [ "$(prop FragmentPath)" = /lib/systemd/system/umbrellad.service ]
check $? "the package's umbrellad.service is active ($(prop FragmentPath))"

out=$(systemctl is-enabled umbrellad.service 2>&1; ls -l /etc/systemd/system/sysinit.target.wants/ 2>&1)
[ "$(systemctl is-enabled umbrellad.service 2>&1)" = enabled ] &&
	[ -L /etc/systemd/system/sysinit.target.wants/umbrellad.service ]
check $? "umbrellad.service is enabled, wanted by sysinit.target"

# Early in boot: no default dependencies, ordered before sysinit.target.
out="DefaultDependencies=$(prop DefaultDependencies) Before=$(prop Before) After=$(prop After)"
[ "$(prop DefaultDependencies)" = no ] && [[ " $(prop Before) " == *" sysinit.target "* ]] &&
	[[ " $(prop After) " == *" local-fs.target "* ]]
check $? "ordered early: DefaultDependencies=no, Before=sysinit.target, After=local-fs.target"

# Documentation= names man pages the package installs (verify runs man on each).
out=$(systemd-analyze verify /lib/systemd/system/umbrellad.service 2>&1)
check $? "systemd-analyze verify accepts the installed unit, man pages included"

out=$("$cli" status 2>&1)
check $? "umbrella-cli status (installed) succeeds"

out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
[[ "$out" == *"/etc/hostname: Permission denied"* ]]
check $? "umbrella-cli run -r fs:/etc -- cat /etc/hostname is denied"
out=$("$cli" run -r fs:/tmp -- cat /etc/hostname 2>&1)
[ "$out" = "$(cat /etc/hostname)" ]
check $? "control: umbrella-cli run -r fs:/tmp -- cat /etc/hostname works"

# The vendor flow on a fresh install: a binary signed by a key the machine does not
# trust yet runs as unsigned (unsigned = allow, the default); "key add" into the
# shipped ring puts the key in force at the next exec, with no reload. The program
# lives on /run, a tmpfs that the gate caches and umbrellad sees as we do (its /tmp is
# private; this VM's root is not cached).
vendor=$(mktemp -d -p /run)
out=$({ "$cli" key generate vendor --dir "$tmp" && cp /bin/true "$vendor/vendor-true" &&
	"$cli" binary sign --key "$tmp/vendor.key" --no-policy "$vendor/vendor-true"; } 2>&1)
check $? "a vendor's key pair, and a program signed with it"
# vstate: the state verdict list --json gives the vendor's program ("" for none).
vstate() {
	"$cli" -j verdict list | python3 -c '
import json, sys
print(" ".join(v["state"] for v in json.load(sys.stdin) if v["path"] == sys.argv[1]))' \
		"$vendor/vendor-true"
}
out=$("$vendor/vendor-true" 2>&1)
rc=$?
out+=$'\n'$("$cli" verdict list 2>&1)
[ "$rc" = 0 ] &&
	[[ "$out" == *"$vendor/vendor-true (unknown signer: run as unsigned with its restrictions)"* ]]
check $? "the program signed by an unknown key runs as unsigned (exit $rc), verdict list says so"
out=$("$cli" key add "$tmp/vendor.pub" 2>&1)
rc=$?
for _ in {1..100}; do
	"$vendor/vendor-true" 2>/dev/null && [ "$(vstate)" = signed ] && break
	sleep 0.2
done
out+=$'\n'$("$vendor/vendor-true" 2>&1; echo "exit $?")$'\n'$(vstate)
[ "$rc" = 0 ] && [[ "$out" == *"exit 0"$'\n'signed ]]
check $? "after key add (no reload) the vendor's program runs as signed"

# A program built against libumbrella-dev with pkg-config, as its users build theirs.
out=$(cd "$deb" && timeout 300 dpkg -i ./libumbrella-dev_*.deb 2>&1) &&
	out=$(cc -Wall -Wextra -Werror /usr/share/doc/libumbrella-dev/examples/untrusted-worker.c \
		$(pkg-config --cflags --libs libumbrella) -o "$tmp/worker" 2>&1) &&
	out=$(ldd "$tmp/worker" 2>&1) &&
	[[ "$out" == *"libumbrella.so.0 => /lib/x86_64-linux-gnu/libumbrella.so.0"* ||
		"$out" == *"libumbrella.so.0 => /usr/lib/x86_64-linux-gnu/libumbrella.so.0"* ]]
check $? "libumbrella-dev: the example builds with pkg-config against the installed library"
out=$(for name in rfork umb_rfork umb_restrict_self umb_restrict_self_on_exec umb_last_error; do
	man -w 3 "$name" 2>&1 || echo "no page: $name"
done)
[[ "$out" != *"no page"* ]]
check $? "libumbrella-dev: man 3 rfork, umb_restrict_self, ... find their page"
out=$("$tmp/worker" 2>&1)
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"worker: open /etc/hostname: Permission denied"* ]] &&
	[[ "$out" == *"worker: exec /bin/true: Operation not permitted"* ]] &&
	[[ "$out" == *"the worker was contained"* ]]
check $? "the example rforks a restricted child: open and exec denied in it (exit $rc)"

# An upgrade (here: the same version again) restarts umbrellad; the pinned programs
# enforce throughout, as the restricted loop sees.
start_loop
all_denied_since 1
check $? "a long-running restricted process is denied /etc/hostname"
pid=$(prop MainPID)
since=$(($(loop_lines) + 1))
out=$(cd "$deb" && timeout 300 dpkg -i ./umbrella_*.deb 2>&1)
rc=$?
wait_active "$pid"
active=$?
out+=$'\n'"MainPID $pid -> $(prop MainPID)"
[ "$rc" = 0 ] && [ "$active" = 0 ]
check $? "reinstall (upgrade path): postinst restarts umbrellad, active again"
all_denied_since "$since"
check $? "the restricted process stays denied across the restart"

since=$(($(loop_lines) + 1))
out=$(timeout 300 dpkg --remove umbrella 2>&1)
rc=$?
removed_text=$out
[ "$rc" = 0 ] && [ ! -e /usr/sbin/umbrellad ] &&
	[ "$(prop ActiveState)" = inactive ] && [ -d /sys/fs/bpf/umbrella ]
check $? "dpkg --remove umbrella stops umbrellad; the pins stay"
out=$removed_text
[[ "$out" == *"keep enforcing"*"umbrellad --reset-pins"*"reboot"* ]]
check $? "remove says the pinned programs keep enforcing until --reset-pins or a reboot"
all_denied_since "$since"
check $? "after remove the restricted process is still denied /etc/hostname"
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
loop=

"$build/daemon/umbrellad" --reset-pins 2>/dev/null
mkdir -p /etc/umbrella/keys && echo '# test' >/etc/umbrella/umbrella.conf
out=$(timeout 300 dpkg --purge umbrella 2>&1 </dev/null)
rc=$?
[ "$rc" = 0 ] && [ ! -e /etc/umbrella ]
check $? "dpkg --purge removes /etc/umbrella (configuration, key ring) without asking"

tap_done
