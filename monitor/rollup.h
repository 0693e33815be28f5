/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The roll-up of detections into alerts. An alert is identified by (rule,
 * sandbox, key). Its first occurrence is emitted at once (OPEN); later
 * occurrences only add to its count, and an UPDATE carries the count
 * every update_ms while it changes; once the condition has been over for
 * linger_ms, a CLOSE ends it. The detectors (detect.c) find the
 * occurrences; this table of open alerts is bounded like theirs, and what
 * does not fit is counted (rollup__shed).
 */
#ifndef RF_MON_ROLLUP_H
#define RF_MON_ROLLUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"
#include "rules.h"
#include "table.h"

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
	/* dns-tunnel: the signal ("distinct-names", "long-label",
	 * "random-label"), the allowed suffix, the latest name, the label */
	const char *dns_signal;
	char dns_suffix[128];
	char dns_name[RF_DNS_RECORD_NAME_LEN];
	char dns_label[64];
	uint32_t dns_label_len;
	double dns_entropy;
	/* unexpected-file: the access kinds seen (RF_ACC_* bits; 0: opened,
	 * neither read nor written yet); the path is dests[0] */
	uint32_t file_access;
	/* monitor.on_alert of the sandbox, and what the live monitor did
	 * (respond.c) on the alert's first record */
	enum rf_mon_response response;
	bool responded;             /* it acted (the result below is set) */
	bool response_ok;
	char response_result[96];   /* "frozen", "killed", or why not */
	char response_tree[512];    /* kill: the process tree it recorded */
};

typedef void (*rf_alert_fn)(const struct rf_alert *a, void *ctx);

/* Late events of an ended sandbox still count this long: its alerts
 * close this long after it ended at the latest. */
#define RF_END_GRACE_MS 1000

/* What alerts name: a sandbox entry of the detectors, which embed it. */
struct rf_rollup_subject {
	bool ended;
	uint64_t ended_ns;
	uint32_t n_eps;                 /* open alerts that name it */
};

/* One alert while open or lingering. */
struct rf_episode {
	bool used;
	uint64_t hkey;
	struct rf_rollup_subject *subj; /* NULL: host-wide */
	int32_t *owner;                 /* the detector's handle, reset to -1 when it closes */
	bool opened;
	bool active;
	uint64_t quiet_since;
	uint64_t last_emit_ns, count_at_emit, count_at_open;
	struct rf_alert a;
};

struct rf_rollup {
	rf_alert_fn fn;
	void *ctx;
	uint64_t update_ms, linger_ms;
	size_t max_alerts;              /* slots for sandboxes' alerts */
	size_t n_slots;                 /* and past them: RF_ROLLUP_OWN */
	struct rf_episode *eps;
	struct rf_index ep_ix;
	uint64_t shed;                  /* alerts that found no slot */
};

/* Alert slots of their own past max_alerts: one per lost-event hop and one
 * for the table-shed alert, so a full table can still say so. */
#define RF_ROLLUP_OWN (RF_HOP_MAX + 1)

int rollup__init(struct rf_rollup *r, size_t max_alerts, uint64_t update_ms,
		 uint64_t linger_ms, rf_alert_fn fn, void *ctx);
void rollup__free(struct rf_rollup *r);

/* The alert (rule, subject, key): an open or lingering one, or a new one
 * (a.count 0, to be filled and then opened by rollup__commit). subj and
 * info NULL: host-wide. NULL when there is no slot (counted). */
struct rf_episode *rollup__get(struct rf_rollup *r, enum rf_rule rule, const char *key,
			       struct rf_rollup_subject *subj,
			       const struct rf_sandbox_info *info);
/* Record an occurrence at t (count already added by the caller); the
 * first one opens the alert. now: the detectors' clock. */
void rollup__commit(struct rf_rollup *r, struct rf_episode *e, uint64_t now, uint64_t t,
		    bool active);
/* The alert at index ep (>= 0) went below its threshold at t: it lingers. */
void rollup__quiet(struct rf_rollup *r, int32_t ep, uint64_t t);
void rollup__close(struct rf_rollup *r, struct rf_episode *e, uint64_t now, const char *reason);
/* Close every alert that names subj. */
void rollup__close_subject(struct rf_rollup *r, const struct rf_rollup_subject *subj,
			   uint64_t now, const char *reason);
/* Close every alert. */
void rollup__close_all(struct rf_rollup *r, uint64_t now, const char *reason);
/* Periodic updates, and closes of alerts quiet for linger_ms or whose
 * sandbox ended RF_END_GRACE_MS ago. */
void rollup__tick(struct rf_rollup *r, uint64_t now);

static inline struct rf_episode *rollup__at(struct rf_rollup *r, int32_t ep)
{
	return &r->eps[ep];
}

static inline int32_t rollup__index(const struct rf_rollup *r, const struct rf_episode *e)
{
	return (int32_t)(e - r->eps);
}

#endif
