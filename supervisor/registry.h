/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Live sandboxes, one JSON file each under /run/ringfence/sandboxes/. */
#ifndef RF_REGISTRY_H
#define RF_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "policy.h"

#include "paths.h"

struct rf_registry_entry {
	char sandbox[128];
	char policy_id[64];
	char digest[65];
	char mode[16];
	char cgroup_path[4096];
	uint64_t cgroup_id;
	pid_t supervisor_pid;
	uint64_t supervisor_start;  /* /proc/PID/stat starttime: pid reuse guard */
	pid_t child_pid;
	char started[64];           /* RFC 3339 */
	/* Written, not read back: what ringfence-monitor needs from the
	 * policy ("monitor" thresholds, the "syscalls" profile). */
	const struct rf_policy *policy;
};

/* Written atomically (temp file + rename): readers never see half. */
int registry__add(const struct rf_registry_entry *e);
int registry__remove(const char *sandbox);
/* Every entry; *ret_v owned by the caller (free). */
int registry__list(struct rf_registry_entry **ret_v, size_t *ret_n);
/* Its supervisor still runs (same pid and start time). */
bool registry__supervisor_alive(const struct rf_registry_entry *e);
/* Start time of a process, from /proc/PID/stat; 0 when unknown. */
uint64_t registry__proc_start(pid_t pid);

#endif
