# SPDX-License-Identifier: GPL-2.0-only
# Sourced (not executed) by the shell tests, tests/unit/*.sh and tests/integration/*.sh:
#   source_root='@SOURCE_ROOT@'   (filled in by meson's configure_file)
#   . "$source_root/tests/helpers/tap.sh"
# It offers:
#   check RESULT DESCRIPTION...  one TAP check, numbered: "ok N - DESCRIPTION" when
#                                RESULT is 0, else "not ok N - DESCRIPTION", the last
#                                $TAP_CONTEXT lines (default 20) of $out as "# output: "
#                                lines, and failed=1. Put what explains a failure in $out.
#   skip REASON...               a check that cannot run here: "ok N - # SKIP REASON"
#                                (tests/run counts it apart, and fails on a skip that
#                                tests/skips-allowed does not name).
#   need_siglib_prog             ends the test at once unless siglib-prog was built: a
#                                skip where it cannot be (not x86-64), else a failure.
#   tap_done                     prints the plan "1..N" and exits with $failed.
#   wait_socket PATH [PID]       waits until PATH is a socket, at most 30 s; fails at
#                                once if process PID (when given) has exited.
#   start_daemon LOG [ARG...]    starts "$umbrellad" --socket "$UMBRELLA_SOCKET" ARG...
#                                in the background, its stderr in LOG, its pid in
#                                $daemon; waits until it listens (wait_socket).
#   start_loop                   starts the restricted loop: "$cli" run -r fs:/etc of a
#                                shell that tries to read /etc/hostname every 0.1 s and
#                                writes "allowed" or "denied" to $tmp/loop.log, one line
#                                per try; its pid in $loop.
#   loop_lines                   the number of lines of $tmp/loop.log.
#   all_denied_since LINE        the loop's tries from line LINE on (waited for, then
#                                1 s more, into $out): at least one, all denied.
# The VM tests' preamble (tests/integration/*.sh, run as BUILD/tests/integration/NAME):
#   vm_paths                     $build (BUILD), $umbrellad and $cli (its umbrellad and
#                                umbrella-cli).
#   vm_test SOCKET [PIN]         vm_paths; UMBRELLA_SOCKET=SOCKET, exported (the test's
#                                own socket); $pin=PIN, the test's pin directory (empty:
#                                umbrellad's default, and nothing reset); $tmp, a new
#                                directory; $daemon empty, for start_daemon.
#   vm_cleanup                   for "trap vm_cleanup EXIT": the test's cleanup_first
#                                (when it defines one: what must go before umbrellad),
#                                kill -9 of $daemon, a wait for every child, the test's
#                                cleanup_last (when defined: unmounts), umbrellad
#                                --reset-pins of $pin (when set), rm -rf $tmp.
#   check_start LOG DESCRIPTION [ARG...]
#                                start_daemon LOG ARG... as one check, DESCRIPTION, with
#                                LOG in $out when it fails.
#   ctl_daemon_tgid              umb_ctl.daemon_tgid of the pins in $pin: the pid of the
#                                umbrellad registered there, 0 when none is. Read as
#                                umbrella-cli does, through the pin opened with
#                                BPF_F_RDONLY (bpftool 7.5 opens pins for writing, even to
#                                read them, which is refused while umbrellad is up).
n=0 failed=0 out=

check() { # RESULT DESCRIPTION...
	local rc=$1 desc
	shift
	# One line: a newline (of an output quoted in it) would end the TAP line.
	desc=$*
	desc=${desc//$'\n'/ | }
	n=$((n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		printf '%s\n' "$out" | tail -n "${TAP_CONTEXT:-20}" | sed 's/^/# output: /'
		failed=1
	fi
}

skip() { # REASON...
	n=$((n + 1))
	echo "ok $n - # SKIP $*"
}

need_siglib_prog() {
	[ -x "$build/tests/integration/siglib-prog" ] && return 0
	# meson.build builds it on x86-64 (its PT_INTERP is x86-64's ld.so): missing there
	# is a broken build, not a reason to test nothing.
	if [ "$(uname -m)" = x86_64 ]; then
		out="no $build/tests/integration/siglib-prog"
		check 1 "siglib-prog is built (on x86-64, meson.build builds it)"
	else
		skip "siglib-prog is built on x86-64 only ($(uname -m) here)"
	fi
	tap_done
}

tap_done() {
	echo "1..$n"
	exit "$failed"
}

wait_socket() { # PATH [PID]
	local _
	for _ in $(seq 300); do
		[ -S "$1" ] && return 0
		[ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 1
		sleep 0.1
	done
	return 1
}

start_daemon() { # LOG [ARG...]
	local log=$1
	shift
	rm -f "$UMBRELLA_SOCKET"
	"$umbrellad" --socket "$UMBRELLA_SOCKET" "$@" 2>"$log" &
	daemon=$!
	wait_socket "$UMBRELLA_SOCKET" "$daemon"
}

start_loop() {
	: >"$tmp/loop.log"
	"$cli" run -r fs:/etc -- sh -c 'while :; do
		if cat /etc/hostname >/dev/null 2>&1; then echo allowed; else echo denied; fi
		sleep 0.1
	done' >>"$tmp/loop.log" 2>&1 &
	loop=$!
}

loop_lines() { wc -l <"$tmp/loop.log"; }

all_denied_since() { # LINE
	local since=$1 _
	for _ in $(seq 100); do
		[ "$(loop_lines)" -ge "$since" ] && break
		sleep 0.1
	done
	sleep 1
	out=$(tail -n +"$since" "$tmp/loop.log")
	[ -n "$out" ] && ! printf '%s\n' "$out" | grep -qv '^denied$'
}

vm_paths() {
	build=$(cd "$(dirname "$0")/../.." && pwd)
	umbrellad=$build/daemon/umbrellad
	cli=$build/cli/umbrella-cli
}

vm_test() { # SOCKET [PIN]
	vm_paths
	export UMBRELLA_SOCKET=$1
	pin=${2:-}
	tmp=$(mktemp -d)
	daemon=
}

vm_cleanup() {
	if declare -F cleanup_first >/dev/null; then cleanup_first; fi
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	wait 2>/dev/null
	if declare -F cleanup_last >/dev/null; then cleanup_last; fi
	[ -n "$pin" ] && "$umbrellad" --reset-pins --pin-dir "$pin" 2>/dev/null
	rm -rf "$tmp"
}

check_start() { # LOG DESCRIPTION [ARG...]
	local log=$1 what=$2 rc
	shift 2
	start_daemon "$log" "$@"
	rc=$?
	out=$(cat "$log")
	check "$rc" "$what"
}

ctl_daemon_tgid() {
	python3 - "$pin/umb_ctl" <<-'PY'
	import ctypes, struct, sys
	libc = ctypes.CDLL(None, use_errno=True)
	SYS_bpf, BPF_MAP_LOOKUP_ELEM, BPF_OBJ_GET, BPF_F_RDONLY = 321, 1, 7, 1 << 3
	def bpf(cmd, attr):
	    buf = ctypes.create_string_buffer(attr, 128)
	    r = libc.syscall(SYS_bpf, cmd, buf, 128)
	    if r < 0:
	        sys.exit("bpf(%d): errno %d" % (cmd, ctypes.get_errno()))
	    return r
	path = ctypes.create_string_buffer(sys.argv[1].encode())
	fd = bpf(BPF_OBJ_GET, struct.pack("=QII", ctypes.addressof(path), 0, BPF_F_RDONLY))
	key, value = ctypes.c_uint32(0), ctypes.create_string_buffer(24)
	bpf(BPF_MAP_LOOKUP_ELEM, struct.pack("=IIQQQ", fd, 0, ctypes.addressof(key),
	                                     ctypes.addressof(value), 0))
	print(struct.unpack_from("=I", value.raw)[0])
	PY
}
