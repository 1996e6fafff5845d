// SPDX-License-Identifier: GPL-2.0-only
/*
 * verifier-stats - what the verifier does with Umbrella's programs on the running kernel.
 *
 * Opens the object as umbrellad does (daemon/bpf-open.c), asks the kernel for each
 * program's verifier statistics (log level 4, BPF_LOG_STATS: "processed N insns ...",
 * "verification time N usec"), loads it and prints one line per program, then the
 * sums and the wall time of the load. Not a test and not part of run-bench: run it in
 * the test VM (root) when the walk or a hook changes, on both kernels:
 *   tests/vm/run --kernel 6.12 --rw build -- build/tests/bench/verifier-stats
 * Exit status: 0 when the object loaded, 1 otherwise (the verifier's log of the failing
 * program is then printed by libbpf).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "bpf-open.h"
#include "umbrella.skel.h"

/* Room for the statistics lines of one program (a few hundred bytes). */
#define STATS_LOG_SIZE 4096

/* The number after @key in @log, or -1. */
static long log_number(const char *log, const char *key)
{
	const char *p = strstr(log, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

int main(void)
{
	struct umbrella_bpf *skel = NULL;
	struct bpf_program *prog;
	struct timespec t0, t1;
	long insns_sum = 0, usec_sum = 0;
	unsigned int n = 0, i = 0;
	char *logs;
	int r;

	r = umbrella_bpf_open_for_kernel(&skel);
	if (r < 0) {
		fprintf(stderr, "verifier-stats: opening the object: %s\n", strerror(-r));
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
		n++;
	logs = calloc(n, STATS_LOG_SIZE);
	if (!logs) {
		umbrella_bpf__destroy(skel);
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		(void)bpf_program__set_log_level(prog, 4);
		(void)bpf_program__set_log_buf(prog, logs + (size_t)i++ * STATS_LOG_SIZE,
					       STATS_LOG_SIZE);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = umbrella_bpf__load(skel);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		fprintf(stderr, "verifier-stats: loading: %s\n", strerror(-r));
		umbrella_bpf__destroy(skel);
		free(logs);
		return 1;
	}
	printf("%-32s %10s %12s\n", "program", "insns", "verify_usec");
	i = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		const char *log = logs + (size_t)i++ * STATS_LOG_SIZE;
		long insns, usec;

		if (!bpf_program__autoload(prog))
			continue;
		insns = log_number(log, "processed ");
		usec = log_number(log, "verification time ");
		printf("%-32s %10ld %12ld\n", bpf_program__name(prog), insns, usec);
		insns_sum += insns > 0 ? insns : 0;
		usec_sum += usec > 0 ? usec : 0;
	}
	printf("%-32s %10ld %12ld\n", "total", insns_sum, usec_sum);
	printf("verifier-stats: load took %.2f s (wall)\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	umbrella_bpf__destroy(skel);
	free(logs);
	return 0;
}
