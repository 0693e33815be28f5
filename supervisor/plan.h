/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Policy -> least-privilege plan, fail closed against what the kernel can do. */
#ifndef RF_PLAN_H
#define RF_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "policy.h"
#include "probe.h"

enum rf_plan_class {
	RF_PC_FILE = 0,
	RF_PC_EXEC,
	RF_PC_NETWORK,
	RF_PC_UNIX,
	RF_PC_PROCESS,
	RF_PC_LIMITS,
	RF_PC_SYSCALLS,
	RF_PC_MONITOR,
	RF_PC_MAX,
};

/* Enforcement backends ringfence knows by name (--require, --prefer). */
enum rf_backend {
	RF_BE_NONE = 0,
	RF_BE_CGROUP_SOCK_ADDR,
	RF_BE_BPF_LSM,
	RF_BE_LANDLOCK,
	RF_BE_SECCOMP,
	RF_BE_CAPABILITIES,
	RF_BE_MAX,
};

/* What the policy asks of one class. */
enum rf_request {
	RF_REQ_ABSENT = 0,        /* nothing asked (limits, syscalls, monitor) */
	RF_REQ_DENY_ALL,          /* class omitted: deny everything */
	RF_REQ_ALLOWLIST,
	RF_REQ_UNRESTRICTED,      /* explicit opt-out: not confined */
	RF_REQ_SET,               /* limits/syscalls/monitor given */
	RF_REQ_IMPLICIT,          /* the process boundary: always */
};

struct rf_class_plan {
	enum rf_request request;
	bool required;            /* must be enforced for the run to start */
	enum rf_backend be;       /* RF_BE_NONE: none */
	char backend[32];         /* "landlock-abi7", "cgroup-sock-addr", "" */
	bool enforced;            /* the backend enforces it on this kernel */
	char layers[160];         /* independent extra layers, e.g. "landlock-abi7 (TCP ports)" */
	char note[600];           /* why not, or what it does not cover */
};

/* What the plan asks of the launcher beyond the BPF maps. */
struct rf_plan_install {
	bool landlock;            /* build and apply a Landlock ruleset */
	bool landlock_fs;         /* it handles files + exec */
	bool landlock_net;        /* TCP connect ports (ABI 4+) */
	bool landlock_scope_unix; /* abstract unix scoping (ABI 6+) */
	bool landlock_scope_signal;
	int landlock_abi;
	bool seccomp_boundary;    /* the process-boundary filter */
	bool seccomp_allowlist;   /* the syscalls policy */
	uint32_t lsm_flags;       /* RF_SB_LSM_*: classes the BPF-LSM programs judge */
	bool keep_caps;           /* test-only --keep-caps */
};

#define RF_PLAN_MAX_REASONS (2 * RF_PC_MAX + RF_BE_MAX)

struct rf_plan {
	struct rf_class_plan c[RF_PC_MAX];
	struct rf_plan_install install;
	bool ok;                  /* every required class has a backend */
	char reasons[RF_PLAN_MAX_REASONS][700]; /* refusals, "class: why" */
	int n_reasons;
};

/* --require / --prefer: bit masks of 1u << enum rf_backend. */
struct rf_plan_opts {
	unsigned int require;
	unsigned int prefer;
	bool keep_caps;           /* test-only: the child keeps its capabilities */
};

const char *plan__class_name(enum rf_plan_class c);
const char *plan__request_name(enum rf_request r);
const char *plan__backend_name(enum rf_backend b);
/* The backend of a --require/--prefer name, or RF_BE_NONE. */
enum rf_backend plan__backend_by_name(const char *name);

/* Pure: no I/O. Fills plan from the policy, the probed capabilities and
 * the user's --require/--prefer (opts may be NULL). */
void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   const struct rf_plan_opts *opts, struct rf_plan *ret_plan);

/* A refusal found after planning (e.g. a Landlock entry that cannot be
 * expressed): the class loses its backend, the plan is no longer ok. */
void plan__refuse(struct rf_plan *plan, enum rf_plan_class c, const char *why);

/* {"ok":..,"classes":{..},"reasons":[..]}; NULL on allocation failure. */
json_t *plan__to_json(const struct rf_plan *plan);

#endif
