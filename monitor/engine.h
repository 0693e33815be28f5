/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live monitor's event loop: sources -> (record) -> detectors ->
 * alerts. setup.c makes what the loop works with (struct rf_engine) as
 * do/undo steps and runs the loop; the sandboxes it follows are
 * sandboxes.c's. Only those two files touch the fields.
 */
#ifndef RF_MON_ENGINE_H
#define RF_MON_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <jansson.h>
#include "alert.h"
#include "detect.h"
#include "metrics.h"
#include "sandboxes.h"
#include "service.h"
#include "sinks.h"

#define RF_MON_LOCK "/run/ringfence/monitor.lock"
#define RF_MON_STATE_DEFAULT "/run/ringfence/monitor.state.json"

struct rf_engine_opts {
	const char *output;         /* NULL: stdout */
	const char *activity;       /* activity records (DNS Activity); NULL: none */
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
	struct rf_sinks_opts sinks; /* --journal, --syslog, --otlp, --webhook */
};

struct rf_flowwatch;

struct rf_engine {
	const struct rf_engine_opts *o;
	struct rf_detect *det;
	struct rf_flowwatch *flows;     /* the ledger's flows */
	struct rf_output *out;
	struct rf_sinks *sinks;
	struct rf_output *act;          /* --activity (the activity thread's); NULL: none */
	struct rf_actq *actq;           /* the activity thread: --activity or a sink on */
	_Atomic uint64_t act_out_dropped; /* act's drops, as the activity thread saw them */
	struct rf_recorder *rec;
	struct rf_metrics m;
	struct rf_regwatch *reg;
	struct rf_sensors *sens;
	struct rf_decisions *dec;
	struct rf_http *http;
	int ep, tfd, sfd, lock_fd;
	int dec_fd_in_ep;
	int64_t boot_to_real;
	struct rf_alert_origin origin;
	uint64_t seq;
	bool stop;
	struct rf_watchdog wd;

	struct rf_sandboxes sbx;

	uint64_t next_sample_ns;
	bool dec_baseline_set;
	uint64_t dec_lost_last;
	uint32_t dec_stats_id;
	uint64_t mon_lost_last, maps_lost_last, out_lost_last, sinks_lost_last, flows_shed_last;
	json_t *recent;
};

/* The sources' callbacks, for setup.c to hand to what it opens. */
void engine__on_alert(const struct rf_alert *a, void *ctx);
int engine__on_decision(void *ctx, void *data, size_t size);
int engine__on_sensor(void *ctx, void *data, size_t size);
void engine__feed(void *ctx, const struct rf_input *in);
/* The activity thread's emitter and idle call (actq.h): --activity and the
 * sinks. */
void engine__act_emit(void *ctx, const char *line, size_t len);
void engine__act_idle(void *ctx, bool reopen);
void engine__drain(void *ctx);

/* (Re-)attach the supervisor's decisions ring buffer when it appears or
 * its pinned set is replaced. */
void engine__decisions_check(struct rf_engine *e);
/* Before stopping: the records so far, lost events reported, and their
 * baseline saved for the next monitor. */
void engine__final_drain(struct rf_engine *e);

/* Until SIGINT/SIGTERM (e->stop). Returns the exit status: 0, or 1 when
 * waiting failed. */
int engine__loop(struct rf_engine *e);

#endif
