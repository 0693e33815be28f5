/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The detectors. Pure: input records in, alert records out (through the
 * roll-up, rollup.h), time taken only from the records (virtual time).
 * Every table has a fixed bound; what does not fit is counted (hop
 * monitor-tables).
 */
#ifndef RF_MON_DETECT_H
#define RF_MON_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"
#include "rollup.h"
#include "rules.h"

struct rf_detect_opts {
	uint64_t burst_count;       /* default 20 */
	uint64_t burst_window_ms;   /* default 1000 */
	uint64_t cpu_percent;       /* default: 0 (off) */
	uint64_t memory_mb;         /* default: 0 (off) */
	uint64_t pids;              /* default: 0 (off) */
	uint64_t update_ms;         /* periodic updates, default 10000 */
	uint64_t linger_ms;         /* quiet time before a close, default 3000 */
	size_t max_sandboxes;       /* default 1024 */
	size_t max_procs;           /* default 8192 */
	size_t max_alerts;          /* open alerts, default 1024 */
};

struct rf_detect;

int detect__new(const struct rf_detect_opts *opts, rf_alert_fn fn, void *ctx,
		struct rf_detect **ret);
void detect__free(struct rf_detect *d);
void detect__input(struct rf_detect *d, const struct rf_input *in);
/* Close every open alert (reason "shutdown"). */
void detect__finish(struct rf_detect *d, uint64_t t_ns);
/* Effective options (defaults filled in). */
const struct rf_detect_opts *detect__opts(const struct rf_detect *d);

/* Per-sandbox state, for --top and the status file. */
struct rf_sandbox_status {
	char sandbox[RF_SANDBOX_LEN];
	char policy_id[RF_POLICY_ID_LEN];
	uint64_t cgroup_id;
	bool ended;
	bool sampled;
	double cpu_percent;
	uint64_t mem_bytes;
	int64_t procs;
	uint64_t denials;
	uint64_t syscalls_seen;
	uint64_t open_alerts;
	uint64_t thr_cpu_percent, thr_memory_mb, thr_pids;
};

typedef void (*rf_status_fn)(const struct rf_sandbox_status *s, void *ctx);
void detect__foreach_sandbox(const struct rf_detect *d, rf_status_fn fn, void *ctx);
size_t detect__n_sandboxes(const struct rf_detect *d);
/* Entries shed from bounded tables so far (also reported as lost events). */
uint64_t detect__shed(const struct rf_detect *d);

/* The sandbox table: entries in it (ended ones included), live sandboxes
 * shed when it was full (the oldest idle first; alert table-shed), and
 * entries it dropped without loss: sandboxes that ended, and entries of
 * cgroups outside the registry that stayed idle for RF_UNREG_IDLE_MS. */
struct rf_table_stats {
	size_t entries, capacity;
	uint64_t shed;
	uint64_t ended_freed, idle_freed;
};
void detect__table_stats(const struct rf_detect *d, struct rf_table_stats *ret);
/* The registry entry of a cgroup the table holds (NULL: none). Valid until
 * the next input. */
const struct rf_sandbox_info *detect__info(const struct rf_detect *d, uint64_t cgroup_id);
/* The cgroup has an entry (ended or not). */
bool detect__has(const struct rf_detect *d, uint64_t cgroup_id);
/* A live sandbox has monitor.egress_bytes: the flows have a reader here. */
bool detect__wants_flows(const struct rf_detect *d);

/* A cgroup that never reached the registry, idle this long, leaves the table. */
#define RF_UNREG_IDLE_MS 30000

#endif
