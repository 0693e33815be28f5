/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The run's trace events and summary lines (report.c). */
#ifndef RF_REPORT_H
#define RF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

struct rf_caps;
struct rf_event;
struct rf_landlock;
struct rf_plan;
struct rf_policy;
struct rf_resolved;
struct sandbox;

json_t *report__plan(const struct rf_policy *p, const struct rf_plan *plan,
		     const struct rf_caps *caps);
json_t *report__approximations(const struct rf_landlock *ll);
const char *report__dns_mode(const struct rf_policy *p);
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
/* What ringfence-monitor did to this sandbox (monitor.on_alert), from
 * RF_ACTIONS_DIR: a new object, or NULL when it did nothing. */
json_t *report__monitor_action(const struct sandbox *sb);
/* The sandbox's cgroup froze (cgroup.events): a monitor.action line, once,
 * and a line for humans; it stays frozen for inspection. */
void report__frozen(struct sandbox *sb);
/* Every kernel.deny record, kernel-kept or inferred, passes here: -v
 * prints it (rate-limited) and the exit summary lists the first few. */
void report__deny_human(struct sandbox *sb, const struct rf_event *ev);
/* After the exit summary line. unkept: denials counted but never seen. */
void report__denials_after_summary(const struct sandbox *sb, uint64_t unkept);
/* Read, once at its end, the runs of its observe programs the kernel
 * skipped while the sandbox ran (host-wide: any of them may have been its
 * calls) into sb->obs_skipped; 0 when unknown. */
void report__observe_skipped(struct sandbox *sb);
/* One line on stderr when there were any. */
void report__skipped_human(const struct sandbox *sb);

#endif
