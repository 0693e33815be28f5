/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Detectors and alert roll-up. Pure: input records in, alert records out,
 * time taken only from the records (virtual time). Every table has a
 * fixed bound; what does not fit is counted (hop monitor-tables).
 */
#ifndef RF_MON_DETECT_H
#define RF_MON_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"
#include "rules.h"

#define RF_ALERT_DESTS 8
#define RF_KEY_LEN 64
#define RF_DEST_LEN 160

struct rf_alert_proc {
	uint32_t pid;
	char name[RF_COMM_LEN + 1];
	char path[RF_MON_PATH_LEN + 1];
	uint32_t ppid;
	char parent_name[RF_COMM_LEN + 1];
	char parent_path[RF_MON_PATH_LEN + 1];
	bool parent_known;
};

/* A destination of a denied operation, as evidence. */
struct rf_alert_dest {
	char key[RF_DEST_LEN];      /* "127.0.0.1:9/tcp", "unix:/run/x", "file:/etc/x" */
	int family;                 /* AF_INET, AF_INET6, AF_UNIX, 0 */
	char address[48];
	uint16_t port;
	char protocol[12];
	int protocol_num;           /* IANA number (inet) */
	bool dir;                   /* path names a directory (mkdir, rmdir) */
	char path[sizeof(((struct rf_event *)0)->path) + 1];
	uint64_t count;
};

struct rf_alert {
	enum rf_rule rule;
	enum rf_phase phase;
	char uid[24];               /* same for every record of one alert */
	char key[RF_KEY_LEN];       /* class, syscall, resource or hop */
	uint64_t time_ns;           /* this record (virtual, boot ns) */
	uint64_t first_ns, last_ns; /* first and last occurrence */
	uint64_t count;             /* occurrences folded into this alert */
	uint64_t suppressed;        /* of which after the first record */
	char sandbox[RF_SANDBOX_LEN];   /* "" for host-wide (lost events) */
	char policy_id[RF_POLICY_ID_LEN];
	uint64_t cgroup_id;
	uint32_t n_labels;          /* the sandbox's --label key=value, as given */
	char labels[RF_LABELS_MAX][RF_LABEL_LEN];
	char traceparent[RF_TRACEPARENT_LEN];   /* W3C TRACEPARENT at run, or "" */
	bool has_proc;
	struct rf_alert_proc proc;
	uint32_t n_dests;           /* top destinations, most first */
	struct rf_alert_dest dests[RF_ALERT_DESTS];
	uint64_t other_dests;       /* denials to destinations not listed */
	char verdict[12];           /* "denied" or "audited" (bursts) */
	char syscall[RF_SYSCALL_NAME_LEN];
	int32_t syscall_nr;
	int32_t syscall_err;        /* errno of its first call, 0: it succeeded */
	bool refused;               /* that errno was EPERM/EACCES (rf_syscall_refused) */
	bool syscall_listener;      /* seen by the supervisor's seccomp listener */
	bool syscall_unknown;       /* ...which let it through: its outcome unknown */
	uint64_t window_ms;         /* bursts */
	uint64_t threshold;         /* count (bursts), percent, bytes or processes */
	uint64_t value;             /* resources: the measured value (peak) */
	const char *unit;           /* "denials", "percent", "bytes", "processes", "events" */
	bool rise;                  /* resources: a sudden rise, not a threshold */
	bool cap;                   /* resources: a cap of the policy's limits held
				     * (key "<limit>-cap"; threshold: the cap) */
	uint64_t cap_events;        /* cap: the kernel's count of hits (OOM kills,
				     * forks refused, throttled periods), 0 unknown */
	uint64_t baseline;          /* rise: the value it rose from */
	uint64_t lost_total;        /* lost events: all on this hop since start */
	bool before_start;          /* lost events: includes events lost before start */
	uint64_t capacity;          /* table shed: the table's capacity */
	uint64_t shed_total;        /* table shed: sandboxes shed since start */
	char last_shed[RF_SANDBOX_LEN]; /* table shed: the latest one shed */
	const char *close_reason;   /* CLOSE: "quiet", "sandbox-ended", "shed", "shutdown" */
};

/* OCSF severity_id of an alert record (its rule's row, rules.c). */
int rf_alert_severity(const struct rf_alert *a);

typedef void (*rf_alert_fn)(const struct rf_alert *a, void *ctx);

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
/* The cgroup has an entry (ended or not). */
bool detect__has(const struct rf_detect *d, uint64_t cgroup_id);

/* A cgroup that never reached the registry, idle this long, leaves the table. */
#define RF_UNREG_IDLE_MS 30000

#endif
