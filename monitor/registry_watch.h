/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Follows the sandbox registry (/run/ringfence/sandboxes/<sandbox>.json,
 * written atomically by the supervisor) with inotify. A full scan at start
 * picks up sandboxes already running; an inotify overflow rescans.
 */
#ifndef RF_MON_REGISTRY_WATCH_H
#define RF_MON_REGISTRY_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "input.h"
#include "registry.h"

/* What the registry says besides the detectors' input. */
struct rf_reg_extra {
	pid_t supervisor_pid;
	uint64_t supervisor_start;
	pid_t child_pid;
};

struct rf_reg_ops {
	/* A sandbox appeared or its file was rewritten. */
	void (*add)(const struct rf_sandbox_info *si, const struct rf_reg_extra *x, void *ctx);
	/* Its file went away. */
	void (*remove)(const char *sandbox, uint64_t cgroup_id, void *ctx);
	void *ctx;
};

struct rf_regwatch;

/* dir: the registry (created if missing). 0 or -errno. */
int regwatch__open(const char *dir, struct rf_regwatch **ret);
void regwatch__close(struct rf_regwatch *w);
int regwatch__fd(const struct rf_regwatch *w);
/* Compare the directory with what is known: adds and removes. */
int regwatch__scan(struct rf_regwatch *w, const struct rf_reg_ops *ops);
/* Drain inotify and report the changes. */
int regwatch__process(struct rf_regwatch *w, const struct rf_reg_ops *ops);
size_t regwatch__count(const struct rf_regwatch *w);

/* One registry file, read by lib/registry. si is filled (allow list
 * allocated: clear it even on failure). 0, -ENOENT, -EFBIG, -EINVAL, -ENOMEM. */
int regwatch__parse_file(const char *path, struct rf_sandbox_info *si, struct rf_reg_extra *x);
int regwatch__parse_json(const char *text, struct rf_sandbox_info *si, struct rf_reg_extra *x);
/* An entry as the detectors see it: thresholds 0 where absent, a deny
 * burst without a window gets 1000 ms; the allow list copied (clear si even
 * on failure). x may be NULL. 0 or -ENOMEM. */
int regwatch__info(const struct rf_registry_entry *e, struct rf_sandbox_info *si,
		   struct rf_reg_extra *x);

#endif
