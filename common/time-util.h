/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - the one clock for intervals, deadlines and rate limits. */
#ifndef UMBRELLA_COMMON_TIME_UTIL_H
#define UMBRELLA_COMMON_TIME_UTIL_H

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC 1000000ULL

/* CLOCK_MONOTONIC in microseconds: it never jumps with the wall clock (settimeofday,
 * NTP), so an interval measured on it is one. It cannot fail for this clock. */
static inline uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

#endif /* UMBRELLA_COMMON_TIME_UTIL_H */
