/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The `ringfence run`, `check`, `probe`, `status` and `unload` commands. */
#ifndef RF_RUN_H
#define RF_RUN_H

#include <stdbool.h>
#include "plan/plan.h"
#include "registry.h"

/*
 * Exit statuses of the CLI besides the command's own: name, value, what
 * --help says (the man page lists each: tests/build/check_cli_docs.sh).
 */
#define RF_EXITS(X)                                                             \
	/* ENOMEM, RLIMIT_AS: the run stopped, all undone */                    \
	X(NOMEM, 123, "ringfence itself ran out of memory (nothing started or all undone)") \
	/* disk full, reader gone */                                            \
	X(TRACE, 124, "the command ran but its --trace could not be written whole") \
	X(USAGE, 125, "invalid usage or policy (also an unwritable --trace): nothing started") \
	X(REFUSED, 126, "refused: cannot be enforced here, not executable, or not root") \
	X(NOTFOUND, 127, "command not found")

#define RF_EXIT_ENUM_(name, value, text) RF_EXIT_##name = value,
enum { RF_EXITS(RF_EXIT_ENUM_) };

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
int cmd_gc(int verbosity);
int cmd_unload(bool force);

#endif
