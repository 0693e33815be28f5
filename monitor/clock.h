/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The live monitor's clocks: inputs carry boot time (what BPF stamps). */
#ifndef RF_MON_CLOCK_H
#define RF_MON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock__ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static inline uint64_t clock__boottime_ns(void)
{
	return clock__ns(CLOCK_BOOTTIME);
}

static inline uint64_t clock__mono_ns(void)
{
	return clock__ns(CLOCK_MONOTONIC);
}

/* The boot -> wall clock offset now (CLOCK_REALTIME - CLOCK_BOOTTIME). */
static inline int64_t clock__boot_to_real(void)
{
	struct timespec r, b;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_BOOTTIME, &b);
	return ((int64_t)r.tv_sec - b.tv_sec) * 1000000000LL + (r.tv_nsec - b.tv_nsec);
}

#endif
