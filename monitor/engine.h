/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The live monitor: sources -> (record) -> detectors -> alerts, one loop. */
#ifndef RF_MON_ENGINE_H
#define RF_MON_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "detect.h"

#define RF_MON_LOCK "/run/ringfence/monitor.lock"
#define RF_MON_STATE_DEFAULT "/run/ringfence/monitor.state.json"

struct rf_engine_opts {
	const char *output;         /* NULL: stdout */
	const char *metrics_addr;   /* loopback HTTP, or NULL */
	const char *metrics_file;   /* textfile, or NULL */
	const char *record;         /* --record FILE, or NULL */
	const char *state_path;     /* lost-event baseline across restarts; "" none */
	const char *status_path;    /* --top snapshot; "" none */
	const char *registry_dir;
	uint64_t interval_ms;       /* resource sampling, lost-event polling */
	uint64_t tick_ms;           /* detector clock */
	size_t ringbuf_bytes;       /* the monitor's own ring buffer */
	size_t queue_bytes;         /* output queue bound */
	uint64_t coalesce_us;       /* wait after a ring-buffer wakeup before draining */
	bool bpf_cpu;               /* CPU time from sched_switch even where cpu.stat exists */
	bool top;                   /* render the live view on stdout */
	struct rf_detect_opts detect;
};

/* Runs until SIGINT/SIGTERM. Returns the exit status (0, or 1 when it
 * could not start). */
int engine__run(const struct rf_engine_opts *o);

/* The boot -> wall clock offset now (CLOCK_REALTIME - CLOCK_BOOTTIME). */
int64_t engine__boot_to_real(void);
uint64_t engine__boottime_ns(void);

#endif
