/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One sandbox's state across the run, and the modules that build it. */
#ifndef RF_SANDBOX_H
#define RF_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

/* What struct sandbox holds by value; the rest is declared below. */
#include "cgroup.h"
#include "backends/sandbox_landlock.h"
#include "backends/sandbox_limits.h"
#include "backends/sandbox_seccomp.h"
#include "cgroups/cgplace.h"
#include "observe/deny_text.h"
#include "observe/landlock_audit.h"
#include "observe/notify.h"
#include "observe/observe.h"
#include "plan/plan.h"
#include "tty_relay.h"
#include "flows.h"
#include "filewatch.h"
#include "unixpin.h"

struct rf_enforcer;
struct rf_net_entry;
struct rf_policy;
struct rf_trace;
struct run_opts;

struct sandbox {
	char name[128];
	struct rf_policy *policy;
	struct rf_plan plan;
	struct rf_caps caps;
	struct rf_trace *trace;
	struct rf_enforcer *enf;
	/* the kernel's skipped runs of its observe programs when it started
	 * (enforcer__observe_skipped; known: it has some), and those while it
	 * ran, read once at its end (report__observe_skipped) */
	uint64_t obs_skipped_base;
	uint64_t obs_skipped;
	bool obs_skipped_known;
	struct rf_cgroup cg;
	struct rf_cgplace place;      /* where cg goes, and why (cgplace.h) */
	uint64_t cgid;            /* kept: cgroup__destroy clears cg */
	struct rf_notify notify;  /* the seccomp boundary's listener, from the launch */
	/* Processes survived the kill: the policy stays in force (maps and
	 * registry entry stay; `ringfence status` shows it as stale). Set
	 * once, by the kill; every later undo respects it. */
	bool keep_policy;
	struct rf_landlock ll;        /* ruleset the child applies */
	struct rf_seccomp sc;         /* filters the child installs */
	struct rf_net_entry *entries;   /* what is in the maps for it */
	size_t n_entries;
	uint64_t next_seq;        /* next kernel sample to put in the trace */
	uint64_t traced;          /* exact samples written to the trace */
	bool frozen_reported;     /* monitor.action written for a freeze */
	bool tty_freeze;            /* frozen by the pty's job control (^Z), not the monitor */
	uint32_t sandbox_flags;   /* rf_sandbox.flags as installed */
	struct rf_observer obs;   /* inferred records: matcher and counts */
	struct rf_ll_audit la;    /* Landlock's own denial log, when audit is on */
	uint64_t missing;         /* samples the kernel could not keep */
	struct deny_log shown;    /* denials as lines for humans (-v, summary) */
	struct rf_limits_watch lw;    /* the limits the supervisor watches (limits.c) */
	struct rf_tty_relay tty;      /* the command's pty, where fds 0-2 hold a terminal */
	struct rf_flow_watch flows;   /* the connection ledger (flows.c) */
	struct rf_file_watch files;   /* monitor.files' fanotify watch (filewatch.c) */
	json_t *user;                 /* which uid runs and why: the plan's "user" */
	struct rf_unix_pins pins;     /* plan.install.unix_pins: the plan's "unix_pins" */
};

/* run.c: the steps of `ringfence run` up to and including the one named
 * last (NULL: all of them); then, when they all succeeded and then is
 * given, its return value is the exit status (check prints the plan). */
int run__steps(const struct run_opts *o, const char *last,
	       int (*then)(const struct sandbox *sb));

#endif
