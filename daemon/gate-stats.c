// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - the exec gate's figures in the pinned map umb_gate_stats */
#include <bpf/bpf.h>

#include "gate-stats.h"

static const uint64_t latency_bounds_us[] = UMB_GATE_LATENCY_BOUNDS_US;

_Static_assert(sizeof(latency_bounds_us) / sizeof(latency_bounds_us[0]) ==
		       UMB_GATE_LATENCY_BUCKETS - 1,
	       "one bucket per bound, and +Inf");

void gate_stats_open(struct gate_stats *st, int fd)
{
	__u32 zero = 0;

	*st = (struct gate_stats){ .fd = fd };
	if (fd >= 0 && bpf_map_lookup_elem(fd, &zero, &st->s) < 0)
		st->s = (struct umb_gate_stats){};
}

void gate_stats_record(struct gate_stats *st, uint32_t state, uint64_t wait_us)
{
	size_t bucket = 0;
	__u32 zero = 0;

	switch (state) {
	case UMB_VERDICT_SIGNED:
		st->s.signed_ok++;
		break;
	case UMB_VERDICT_UNSIGNED:
		st->s.unsigned_++;
		break;
	case UMB_VERDICT_REFUSED:
		st->s.refused++;
		break;
	default:
		st->s.errors++;
		break;
	}
	while (bucket < UMB_GATE_LATENCY_BUCKETS - 1 && wait_us > latency_bounds_us[bucket])
		bucket++;
	st->s.latency_buckets[bucket]++;
	st->s.latency_sum_us += wait_us;
	if (st->fd >= 0)
		(void)bpf_map_update_elem(st->fd, &zero, &st->s, BPF_ANY);
}
