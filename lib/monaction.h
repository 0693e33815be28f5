/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What ringfence-monitor did to a sandbox on an alert (monitor.on_alert
 * "freeze" or "kill"), told to its supervisor: one JSON file per sandbox
 * under RF_ACTIONS_DIR, written by the monitor (atomically, before it
 * acts, and again with the result) and read by the supervisor for its
 * exit report, which removes it. Nothing flows the other way: the monitor
 * reads nothing a sandbox can write.
 */
#ifndef RF_MONACTION_H
#define RF_MONACTION_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

struct rf_mon_action {
	char action[8];                 /* "freeze" or "kill" */
	char rule[32];                  /* the alert's rule id */
	char alert_uid[48];             /* the alert's finding uid */
	char result[96];                /* "pending", "frozen", "killed", or why not */
	bool ok;
	char process_tree[512];         /* kill: "pid ppid comm; ..." before the kill */
	int64_t time_ms;                /* wall clock of the action */
};

/* dir/<sandbox>.json; dir created (0755) when missing. 0 or -errno. */
int monaction__write(const char *dir, const char *sandbox, const struct rf_mon_action *a);
/* The action as JSON (a new object; NULL on ENOMEM). */
json_t *monaction__to_json(const struct rf_mon_action *a);
/* Read dir/<sandbox>.json: 0, -ENOENT (no action), -EINVAL. */
int monaction__read(const char *dir, const char *sandbox, struct rf_mon_action *ret);
void monaction__remove(const char *dir, const char *sandbox);

#endif
