#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# VM test, under systemd as PID 1 (tests/vm/run --systemd): umbrellad.service and its
# configuration file /etc/umbrella/umbrella.conf (TAP). mode = enforcing denies,
# `systemctl reload` to mode = permissive lets the same access through and logs it,
# while umbrellad's self-protection stays; a bad file on reload is logged with its line
# and the configuration in force is kept, a bad value of unsigned too, and
# "unsigned = deny" while the essential programs are unsigned (it would lock the VM up);
# a bad file at start fails the unit with status 78 and the line in the journal, that
# deny too; max_rules_per_layer is enforced on rfork.
#   tests/vm/run --systemd --rw BUILD -- BUILD/tests/integration/systemd-test-config
set -u
build=$(cd "$(dirname "$0")/../.." && pwd)
source_root='@SOURCE_ROOT@'
. "$source_root/tests/helpers/tap.sh"
. "$source_root/tests/helpers/systemd-unit.sh"
TAP_CONTEXT=40 # on a failure, 40 lines of $out (journal excerpts)
umbrellad=$build/daemon/umbrellad
cli=$build/cli/umbrella-cli
conf=/etc/umbrella/umbrella.conf
cleanup() {
	systemctl stop umbrellad.service 2>/dev/null
	systemctl reset-failed umbrellad.service 2>/dev/null
	"$umbrellad" --reset-pins 2>/dev/null
	rm -rf /etc/umbrella
}
trap cleanup EXIT

# The outcome of a reload, success or error, as umbrellad logs it.
outcomes() { journal | grep -cE 'umbrellad: (configuration: |.*keeping the configuration in force)'; }
# systemctl reload, then wait until umbrellad has logged the outcome: with Type=notify
# on systemd 252 the reload job ends once kill has sent SIGHUP (see the unit).
reload() {
	local before end
	before=$(outcomes)
	systemctl reload umbrellad.service || return 1
	end=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(outcomes)" -gt "$before" ] && return 0
		sleep 0.2
	done
	return 1
}
write_conf() { printf "$@" >"$conf"; }
denied() { # the access of the test: denied under enforcing
	out=$("$cli" run -r fs:/etc -- cat /etc/hostname 2>&1)
	[[ "$out" == *"/etc/hostname: Permission denied"* ]]
}
allowed() { # (-q: in permissive mode run would tell what it would have denied)
	out=$("$cli" run -q -r fs:/etc -- cat /etc/hostname 2>&1)
	[ "$out" = "$(cat /etc/hostname)" ]
}

unit_setup
"$umbrellad" --reset-pins 2>/dev/null
mkdir -p /etc/umbrella

out=$(prop ExecReload)
[[ "$out" == *"/bin/kill"*"-HUP"* ]]
check $? "the unit reloads with SIGHUP (ExecReload=)"

write_conf '# test\nmode = enforcing\n'
timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(journal | tail -n 20)
[ "$rc" = 0 ]
check $? "umbrellad starts with mode = enforcing"
pid=$(prop MainPID)
out=$(prop StatusText)
[[ "$out" == "Enforcing ("*")" ]]
check $? "status text: $out"
denied
check $? "mode = enforcing: umbrella-cli run -r fs:/etc -- cat /etc/hostname is denied"

write_conf 'mode = permissive # trying restrictions out\n'
reload
rc=$?
out=$(journal | tail -n 20)
[ "$rc" = 0 ] && [ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$pid" ]
check $? "systemctl reload: the same umbrellad reloads"
out=$(prop StatusText)
[ "$out" = "Permissive (configuration reloaded)" ]
check $? "status text: $out"
allowed
check $? "mode = permissive: the same command reads /etc/hostname"
sleep 1
out=$(journal | grep 'hostname' | tail -n 5)
printf '%s\n' "$out" | grep 'comm=cat' | grep -q 'permissive'
check $? "the journal records the denial that permissive mode let through"
printf '%s\n' "$out" | grep 'permissive' | tail -n 1 | sed 's/^/# logged: /'
out=$("$cli" run -r fs:/tmp -- kill -0 "$pid" 2>&1)
[ $? != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "mode = permissive: a restricted task still cannot signal umbrellad"
# bpf(): not "bpftool map list", which unrestricted root fails too while umbrellad is up
# (it asks for writable map fds, Umbrella's refused). "prog show" works for root
# (docs/features.md: Self-protection); a restricted task is refused every bpf() command, with a
# record that names no layer and is not marked permissive.
out=$("$cli" run -q -r fs:/tmp -- bpftool prog show 2>&1)
rc=$?
[ "$rc" != 0 ] && [[ "$out" == *"Operation not permitted"* ]]
check $? "mode = permissive: a restricted task's bpftool prog show fails with EPERM (exit $rc)"
sleep 1
out=$(journal | grep 'comm=bpftool hook=bpf ' | tail -n 3)
printf '%s\n' "$out" | tail -n 1 | grep 'restriction=self:0 layer=0' | grep -vq 'permissive'
check $? "... the journal records it: hook=bpf restriction=self:0, enforced"
out=$(bpftool prog show 2>&1)
rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"name umb_file_open"* ]]
check $? "the control: unrestricted root's bpftool prog show lists Umbrella's programs (exit $rc)"

write_conf 'mode = enforcing\n\nfoo = 1\n'
reload
rc=$?
out=$(journal | tail -n 5)
[ "$rc" = 0 ] && [[ "$out" == *"$conf:3: unknown key 'foo'; keeping the configuration in force"* ]]
check $? "a bad file on reload: the error names the line"
out="ActiveState=$(prop ActiveState) MainPID $pid -> $(prop MainPID) StatusText=$(prop StatusText)"
[ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$pid" ] &&
	[[ "$(prop StatusText)" == "Permissive (reload failed"*"$conf:3: unknown key 'foo'"* ]]
check $? "a bad file on reload: umbrellad stays up ($out)"
allowed
check $? "a bad file on reload: the permissive configuration stays in force"

# Not "unsigned = deny", which is valid: here nothing is signed, and it would refuse
# every exec in this VM (test-exec-gate tests it with signed binaries on tmpfs).
write_conf 'mode = enforcing\nunsigned = maybe\n'
reload
out=$(journal | tail -n 5)
[[ "$out" == *"$conf:2: unknown value 'maybe' for 'unsigned' (expected allow or deny)"* ]]
check $? "a bad value of unsigned is refused with its reason"
allowed
check $? "... and the permissive configuration stays in force"

# "unsigned = deny" itself, where nothing is signed: every shell, systemctl, login would
# be refused. The reload says which programs, and keeps the configuration in force.
write_conf 'mode = enforcing\nunsigned = deny\n'
reload
out=$(journal | tail -n 15)
[[ "$out" == *"$conf: 'unsigned = deny' refused: it would lock this machine up"* ]] &&
	[[ "$out" == *"  /bin/sh ("*"): no signature"* ]] &&
	[[ "$out" == *"  /bin/systemctl ("*"): no signature"* ]] &&
	[[ "$out" == *"  /usr/local/sbin/umbrellad: no signature"* ]] &&
	[[ "$out" == *"no signature; keeping the configuration in force"* ]]
check $? "unsigned = deny with /bin/sh, systemctl and umbrellad unsigned: the reload is refused, naming them"
out="ActiveState=$(prop ActiveState) MainPID $pid -> $(prop MainPID) StatusText=$(prop StatusText)"
[ "$(prop MainPID)" = "$pid" ] &&
	[[ "$(prop StatusText)" == "Permissive (reload failed"*"'unsigned = deny' refused"* ]]
check $? "... umbrellad stays up and says why in its status ($out)"
out=$("$cli" status 2>&1)
[[ "$out" == *"unsigned = allow"* ]] && allowed
check $? "... unsigned = allow and the permissive configuration stay in force"

write_conf 'mode = enforcing\nunsigned = allow\nmax_rules_per_layer = 3\nlog_rate_limit = 100/10\n'
reload
out=$(journal | tail -n 5)
[[ "$out" == *"configuration: mode=enforcing unsigned=allow max_rules_per_layer=3 log_rate_limit=100/10"* ]]
check $? "every key, applied on reload"
out=$(prop StatusText)
[ "$out" = "Enforcing (configuration reloaded)" ]
check $? "status text: $out"
denied
check $? "back to mode = enforcing: denied again"

out=$("$cli" run -r fs:/etc -r net -r fork -r ptrace -- true 2>&1)
rc=$?
[ "$rc" != 0 ] && [[ "$out" == *"4 restrictions in one layer, more than the 3 that umbrellad allows (max_rules_per_layer"* ]]
check $? "max_rules_per_layer = 3: a layer of 4 is refused with a clear error"
printf '%s\n' "$out" | tail -n 1 | sed 's/^/# said: /'
out=$("$cli" run -r fs:/var -r net -r fork -- cat /etc/hostname 2>&1)
[ "$out" = "$(cat /etc/hostname)" ]
check $? "max_rules_per_layer = 3: a layer of 3 is accepted"

# A bad file at start: the unit fails, with the line in the journal, and is not restarted.
systemctl stop umbrellad.service
write_conf 'mode = enforcing\nmode = strict\n'
restarts=$(prop NRestarts)
systemctl start umbrellad.service 2>/dev/null
rc=$?
sleep 3
out="start: $rc, ActiveState=$(prop ActiveState) ExecMainStatus=$(prop ExecMainStatus) NRestarts $restarts -> $(prop NRestarts)"
[ "$rc" != 0 ] && [ "$(prop ActiveState)" = failed ] && [ "$(prop ExecMainStatus)" = 78 ] &&
	[ "$(prop NRestarts)" = "$restarts" ]
check $? "a bad file at start: the unit fails with status 78, not restarted ($out)"
out=$(journal | tail -n 10)
[[ "$out" == *"$conf:2: duplicate key 'mode' (already set on line 1)"* ]]
check $? "a bad file at start: the journal names the line"
systemctl reset-failed umbrellad.service

# unsigned = deny at start, nothing signed: refused as a bad file, before anything loads.
write_conf 'unsigned = deny\n'
systemctl start umbrellad.service 2>/dev/null
rc=$?
sleep 3
out="start: $rc, ActiveState=$(prop ActiveState) ExecMainStatus=$(prop ExecMainStatus)"
[ "$rc" != 0 ] && [ "$(prop ActiveState)" = failed ] && [ "$(prop ExecMainStatus)" = 78 ]
check $? "unsigned = deny at start with /bin/sh unsigned: the unit fails with status 78 ($out)"
out=$(journal | tail -n 15)
[[ "$out" == *"$conf: 'unsigned = deny' refused"* ]] && [[ "$out" == *"  /bin/sh ("*"): no signature"* ]]
check $? "... the journal says why, naming /bin/sh"
systemctl reset-failed umbrellad.service

# No file at the default path: the defaults (enforcing).
rm "$conf"
timeout 300 systemctl start umbrellad.service
wait_active
rc=$?
out=$(journal | tail -n 10)
[ "$rc" = 0 ] && [[ "$out" == *"no $conf: using the defaults"* ]]
check $? "no configuration file: umbrellad starts with the defaults"
denied
check $? "no configuration file: enforcing"

# status shows the key ring umbrellad uses, not the one the CLI's own default names.
out=$(UMBRELLA_KEYRING=/tmp/not-umbrellads "$cli" status 2>&1)
[[ "$out" == *"key ring: /etc/umbrella/keys: "* ]] && [[ "$out" != *"/tmp/not-umbrellads"* ]]
check $? "umbrella-cli status with UMBRELLA_KEYRING set: umbrellad's key ring, /etc/umbrella/keys"
out=$(UMBRELLA_KEYRING=/tmp/not-umbrellads "$cli" -j status 2>&1 | jq -r '.keyring | "\(.dir) \(.of)"')
[ "$out" = "/etc/umbrella/keys umbrellad" ]
check $? "... and in JSON: keyring.dir, of umbrellad ($out)"

# --config with a missing file is an error (checked outside the unit: same code path).
out=$("$umbrellad" --config /etc/umbrella/missing.conf 2>&1)
rc=$?
[ "$rc" = 78 ] && [[ "$out" == *"/etc/umbrella/missing.conf: No such file or directory"* ]]
check $? "umbrellad --config MISSING exits 78 naming the file ($rc)"

tap_done
