/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * monitor.on_alert, in the live monitor only (a --replay acts on
 * nothing): on an alert's first record, "freeze" freezes the sandbox's
 * cgroup (cgroup.freeze, core in cgroup v2) and leaves it for inspection;
 * "kill" freezes it, records its process tree, then kills it
 * (cgroup.kill). The result goes into the alert (rf_alert.responded ...)
 * and, for its supervisor's exit report, into RF_ACTIONS_DIR (monaction.h).
 */
#ifndef RF_MON_RESPOND_H
#define RF_MON_RESPOND_H

#include "rollup.h"

/* How long a freeze may take before it counts as failed. */
#define RF_RESPOND_FREEZE_MS 1000

/* Act on a's sandbox (its cgroup at cgroup_path) as a->response says,
 * when a is the first record of a detection (not the monitor's health);
 * a->responded and the result are filled. actions_dir: where the
 * supervisor looks (NULL: RF_ACTIONS_DIR). */
void respond__act(struct rf_alert *a, const char *cgroup_path, const char *actions_dir);

/* The cgroup's processes as "pid ppid comm; ..." (at most len bytes). */
void respond__tree(const char *cgroup_path, char *buf, size_t len);

#endif
