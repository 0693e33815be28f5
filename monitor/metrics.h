/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus text metrics: served on a loopback HTTP port (GET /metrics)
 * or written atomically to a file for node_exporter's textfile collector.
 * Low cardinality: labels are sources, rules, phases and hops only.
 */
#ifndef RF_MON_METRICS_H
#define RF_MON_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include "actq.h"
#include "detect.h"
#include "error.h"
#include "input.h"
#include "names.h"
#include "sinks.h"

enum rf_evsrc {
	RF_EVSRC_DECISION = 0,
	RF_EVSRC_SYSCALL,
	RF_EVSRC_FORK,
	RF_EVSRC_EXEC,
	RF_EVSRC_EXIT,
	RF_EVSRC_SAMPLE,
	RF_EVSRC_REGISTRY,
	RF_EVSRC_DNS,           /* the DNS gates' query records */
	RF_EVSRC_FLOW,          /* the ledger's flow records */
	RF_EVSRC_MAX,
};

struct rf_metrics {
	uint64_t events[RF_EVSRC_MAX];
	uint64_t alerts[RF_RULE_MAX];       /* alerts opened, by rule */
	uint64_t records[RF_PHASE_MAX];     /* records written, by phase */
	uint64_t lost[RF_HOP_MAX];          /* events lost, by hop */
	uint64_t sandboxes;                 /* watched now */
	struct rf_table_stats table;        /* the detectors' sandbox table */
	uint64_t cgroups_gone;              /* entries ended because their cgroup is gone */
	uint64_t flow_polls;                /* reads of the pinned flows maps (a consumer on) */
	bool decisions_attached;            /* the pinned ring buffer is drained */
	double start_time;                  /* unix seconds */
	/* kernel decisions by class, verdict and the backend that made (or,
	 * for inferred denials, answered) them */
	uint64_t decisions[RF_CLASS_KERNEL_MAX][RF_VERDICT_MAX][RF_BE_MAX];
	bool replay;                        /* no process_* metrics: not a live monitor */
	struct rf_sink_stats sinks[RF_SINK_MAX]; /* the sinks on (.on) */
	bool activity_on;                   /* the activity thread runs */
	struct rf_actq_stats activity;
};

/* Count one input (events by source, decisions, lost events). */
void metrics__count_input(struct rf_metrics *m, const struct rf_input *in);
/* Count one alert record (alerts opened by rule, records by phase). */
void metrics__count_alert(struct rf_metrics *m, const struct rf_alert *a);
/* The backend behind a decision: the cgroup hooks, BPF-LSM, or for denials
 * inferred from failed syscalls the Landlock or seccomp layer that answered. */
enum rf_backend metrics__decision_backend(const struct rf_event *ev);

/* The exposition text (malloc'd). */
char *metrics__render(const struct rf_metrics *m);
/* The textfile's mode: readable by node_exporter's textfile collector,
 * which runs as another user. */
#define RF_METRICS_FILE_MODE 0644

/* Write to path via a temp file and rename, RF_METRICS_FILE_MODE whatever
 * the umask. 0 or -errno. */
int metrics__write_file(const char *path, const char *text);

/* "127.0.0.1:9464" or "[::1]:9464": loopback addresses only.
 * 0, or -EINVAL with why (a usage error). */
int metrics__parse_addr(const char *spec, void *ret_sockaddr, unsigned int *ret_len,
			char *why, size_t why_len);

struct rf_http;

int http__open(const char *spec, struct rf_http **ret, struct rf_error *e);
void http__close(struct rf_http *h);
/* Pollable (an epoll fd of its own sockets). */
int http__fd(const struct rf_http *h);
/* Accept, read requests, answer GET and HEAD of /metrics with body(ctx). */
void http__process(struct rf_http *h, char *(*body)(void *ctx), void *ctx);

#endif
