/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The `ringfence run`, `check`, `probe`, `status` and `unload` commands. */
#ifndef RF_RUN_H
#define RF_RUN_H

#include <stdbool.h>
#include "plan/plan.h"
#include "registry.h"

/* Exit statuses of the CLI. */
enum {
	RF_EXIT_NOMEM = 123,     /* ringfence itself is out of memory (ENOMEM,
				  * RLIMIT_AS): the run stopped, all undone */
	RF_EXIT_TRACE = 124,     /* the command ran but its --trace could not be
				  * written whole (disk full, reader gone) */
	RF_EXIT_USAGE = 125,     /* invalid usage or policy: nothing started */
	RF_EXIT_REFUSED = 126,   /* cannot be enforced here / not executable */
	RF_EXIT_NOTFOUND = 127,  /* command not found */
};

struct run_opts {
	const char *policy_path;
	const char *trace_path;
	const char *user;
	char **argv;
	struct rf_plan_opts plan_opts;  /* --require / --prefer */
	const char *cgroup_parent;      /* --cgroup-parent (cgplace.h), or NULL */
	bool keep_running;              /* --keep-running: the command outlives a
					 * killed supervisor (still confined) */
	/* correlation: --label key=value and the W3C TRACEPARENT of the
	 * environment, in the trace, the registry and every alert */
	struct rf_reg_labels labels;
	char traceparent[RF_TRACEPARENT_LEN];
};

struct rf_policy;
struct rf_error;

/* The network-rules step of run without its trace: names resolved, the
 * map entries built, their fit in a sandbox's maps checked (lsm_flags:
 * the plan's), and thrown away. 0 or -errno with e filled (where
 * "refused"); run refuses with RF_EXIT_REFUSED. */
int run__check_netrules(const struct rf_policy *policy, uint32_t lsm_flags, struct rf_error *e);

int cmd_run(const struct run_opts *opts);
int cmd_check(const struct run_opts *opts);
int cmd_probe(void);
int cmd_status(bool json);
int cmd_gc(bool quiet);
int cmd_unload(bool force);

#endif
