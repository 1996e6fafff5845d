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
 * With --attach it then attaches each program (one link each, as umbrellad does, but
 * unpinned), and releases the links, and prints the wall time of each phase: what a
 * fresh umbrellad start and a --reset-pins cost besides the verifier.
 * Exit status: 0 when the object loaded, 1 otherwise (the verifier's log of the failing
 * program is then printed by libbpf).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "bpf-open.h"
#include "umbrella.skel.h"

/* Room for the statistics lines of one program (a few hundred bytes). */
#define STATS_LOG_SIZE 4096

/* Seconds from @a to @b. */
static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Attaches every loaded program, then releases the links, printing the wall time of
 * each phase and the slowest program of each. Return: 0, or -errno. */
static int attach_release(struct umbrella_bpf *skel)
{
	struct bpf_program *prog;
	struct bpf_link *links[128] = {};
	const char *names[128] = {};
	const char *slow_attach = "", *slow_release = "";
	double attach = 0, release = 0, max_attach = 0, max_release = 0;
	struct timespec t0, t1;
	unsigned int n = 0;
	int r = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		double t;

		if (!bpf_program__autoload(prog) || n == sizeof(links) / sizeof(links[0]))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		links[n] = bpf_program__attach(prog);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!links[n]) {
			r = -errno;
			fprintf(stderr, "verifier-stats: attaching %s: %s\n",
				bpf_program__name(prog), strerror(-r));
			break;
		}
		names[n] = bpf_program__name(prog);
		t = seconds(&t0, &t1);
		attach += t;
		if (t > max_attach) {
			max_attach = t;
			slow_attach = bpf_program__name(prog);
		}
		n++;
	}
	printf("verifier-stats: %u programs attached in %.2f s (slowest %s, %.3f s)\n", n, attach,
	       slow_attach, max_attach);
	for (unsigned int i = 0; i < n; i++) {
		double t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		bpf_link__destroy(links[i]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t = seconds(&t0, &t1);
		release += t;
		if (t > max_release) {
			max_release = t;
			slow_release = names[i];
		}
	}
	printf("verifier-stats: %u links released in %.2f s (slowest %s, %.3f s)\n", n, release,
	       slow_release, max_release);
	return r;
}

/* The number after @key in @log, or -1. */
static long log_number(const char *log, const char *key)
{
	const char *p = strstr(log, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

int main(int argc, char *argv[])
{
	bool attach = argc > 1 && strcmp(argv[1], "--attach") == 0;
	struct umbrella_bpf *skel = NULL;
	struct bpf_program *prog;
	struct timespec t0, t1;
	long insns_sum = 0, usec_sum = 0;
	unsigned int n = 0, i = 0;
	char *logs;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = umbrella_bpf_open_for_kernel(&skel);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (attach)
		printf("verifier-stats: open took %.2f s (wall)\n", seconds(&t0, &t1));
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
	printf("verifier-stats: load took %.2f s (wall)\n", seconds(&t0, &t1));
	if (attach)
		r = attach_release(skel);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	umbrella_bpf__destroy(skel);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (attach)
		printf("verifier-stats: the object destroyed in %.2f s (wall)\n",
		       seconds(&t0, &t1));
	free(logs);
	return r < 0;
}
