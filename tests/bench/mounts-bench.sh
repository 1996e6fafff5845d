#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/mounts-bench.sh BUILD_DIR: how long one request's walk of the mounts below
# its fs rules takes in a user's namespace (unshare -Urm), on the host, as root (no BPF:
# BUILD/tests/bench/mounts-bench): one rule over K mounts side by side, for K = 100, 500,
# 2000; then a chain of 110 bind mounts with a rule on each level, which ends at the
# budget (daemon/mount-guard.h). The old code read the caller's whole mountinfo again
# for each mount root (measured on a busy 2-core host: 1.4 s for K = 500, 21 s for
# K = 2000; this walk: 0.1 s and 0.7 s).
set -eu
bench=${1:?usage: tests/bench/mounts-bench.sh BUILD_DIR}/tests/bench/mounts-bench
tmp=$(mktemp -d)
trap 'kill $ns 2>/dev/null; wait; rm -rf "$tmp"' EXIT

# namespace SCRIPT: a user and mount namespace with a tmpfs on $tmp/m, where SCRIPT runs
# and the namespace stays until killed; its pid in $ns.
namespace() {
	mkdir -p "$tmp/m"
	rm -f "$tmp/ready"
	unshare -Urm sh -c "mount -t tmpfs none $tmp/m && cd $tmp/m && $1 && touch $tmp/ready &&
		exec sleep 600" &
	ns=$!
	while [ ! -e "$tmp/ready" ]; do sleep 0.1; done
}

for k in 100 500 2000; do
	namespace "mkdir d && for i in \$(seq $k); do mkdir d/\$i; mount --bind d/\$i d/\$i; done"
	printf 'K=%s side by side, one rule: ' "$k"
	"$bench" "$ns" "$tmp/m/d"
	kill "$ns"
	wait "$ns" 2>/dev/null || true
done
namespace 'p=.; for i in $(seq 110); do p=$p/d; mkdir $p; mount --bind $p $p; done'
dirs=() p=$tmp/m
for _ in $(seq 110); do
	p=$p/d
	dirs+=("$p")
done
printf 'a chain of 110, a rule on each level: '
"$bench" "$ns" "${dirs[@]}"
