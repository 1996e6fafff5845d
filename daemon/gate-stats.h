/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec gate's figures in the pinned map umb_gate_stats */
#ifndef UMBRELLA_GATE_STATS_H
#define UMBRELLA_GATE_STATS_H

#include <stdint.h>

#include <umbrella/bpf-abi.h>

/* The gate's view of umb_gate_stats: the map's value, which only it writes. */
struct gate_stats {
	int fd; /* umb_gate_stats, or -1 */
	struct umb_gate_stats s;
};

/* Starts from what umb_gate_stats (@fd) holds, so that the counts of an earlier
 * umbrellad carry over a restart (they only reset with the pins). */
void gate_stats_open(struct gate_stats *st, int fd);

/*
 * gate_stats_record() - count one verification and how long its exec waited
 * @state: the verdict cached (UMB_VERDICT_SIGNED, _UNSIGNED, _REFUSED), or 0 when
 *	the file was left without one (it could not be read or verified)
 * @wait_us: from the gate's event to its answer
 *
 * A failed write of the map is not worth a message per exec: the figures are for
 * operators, the verdict does not depend on them.
 */
void gate_stats_record(struct gate_stats *st, uint32_t state, uint64_t wait_us);

#endif /* UMBRELLA_GATE_STATS_H */
