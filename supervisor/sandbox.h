/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One sandbox's state across the run, and the modules that build it. */
#ifndef RF_SANDBOX_H
#define RF_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "cgroup.h"
#include "deny_text.h"
#include "enforcer.h"
#include "landlock_audit.h"
#include "error.h"
#include "sandbox_limits.h"
#include "netrules.h"
#include "notify.h"
#include "observe.h"
#include "plan.h"
#include "policy.h"
#include "probe.h"
#include "registry.h"
#include "run.h"
#include "sandbox_landlock.h"
#include "sandbox_seccomp.h"
#include "sbmaps.h"
#include "trace.h"

struct sandbox {
	char name[128];
	struct rf_policy *policy;
	struct rf_plan plan;
	struct rf_caps caps;
	struct rf_trace *trace;
	struct rf_enforcer *enf;
	struct rf_cgroup cg;
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
	uint32_t sandbox_flags;   /* rf_sandbox.flags as installed */
	struct rf_observer obs;   /* inferred records: matcher and counts */
	struct rf_ll_audit la;    /* Landlock's own denial log, when audit is on */
	uint64_t missing;         /* samples the kernel could not keep */
	struct deny_log shown;    /* denials as lines for humans (-v, summary) */
	struct rf_limits_watch lw;    /* the limits the supervisor watches (limits.c) */
};

/* prepare.c: before anything is created; 0 or -errno with e filled */
int prepare__load_policy(const char *path, struct rf_policy **ret, struct rf_error *e);
void prepare__print_refusal(const struct rf_plan *plan);
unsigned int prepare__probe_flags(const struct rf_policy *p, const struct rf_plan_opts *o);
int prepare__backends(const struct rf_policy *p, struct rf_plan *plan,
		      struct rf_landlock *ll, struct rf_seccomp *sc, struct rf_error *e);

/* run.c: the steps of `ringfence run` up to and including the one named
 * last (NULL: all of them); then, when they all succeeded and then is
 * given, its return value is the exit status (check prints the plan). */
int run__steps(const struct run_opts *o, const char *last,
	       int (*then)(const struct sandbox *sb));

/* report.c: trace events and the summary line */
json_t *report__plan(const struct rf_policy *p, const struct rf_plan *plan,
		     const struct rf_caps *caps);
json_t *report__approximations(const struct rf_landlock *ll);
json_t *report__decision(const struct rf_policy *p, const struct rf_resolved *res,
			 size_t n_res);
json_t *report__configure(const struct sandbox *sb, bool installed);
void report__drain_samples(struct sandbox *sb, bool final);
/* Landlock's denial records from the audit socket (landlock_audit.c). */
void report__drain_landlock_audit(struct sandbox *sb, bool final);
/* sandbox.exit: which counts are exact and which inferred, and the latter. */
json_t *report__exit_counts(const struct sandbox *sb);
/* "; inferred: file 2, exec 1, process 1" for the summary; "" when the
 * sandbox has no observed class. */
void report__inferred_text(const struct sandbox *sb, char *buf, size_t len);
void report__summary(const struct sandbox *sb);
/* Every kernel.deny record, kernel-kept or inferred, passes here: -v
 * prints it (rate-limited) and the exit summary lists the first few. */
void report__deny_human(struct sandbox *sb, const struct rf_event *ev);
/* After the exit summary line. unkept: denials counted but never seen. */
void report__denials_after_summary(const struct sandbox *sb, uint64_t unkept);

#endif
