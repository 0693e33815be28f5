/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Policy -> least-privilege plan, fail closed against what the kernel can do. */
#ifndef RF_PLAN_H
#define RF_PLAN_H

#include <stdbool.h>
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
	const char *backend;      /* NULL: none */
	bool enforced;            /* the backend enforces it on this kernel */
	char note[512];           /* why not, or what it does not cover */
};

struct rf_plan {
	struct rf_class_plan c[RF_PC_MAX];
	bool ok;                  /* every required class has a backend */
	char reasons[2 * RF_PC_MAX][600]; /* refusals, "class: why" */
	int n_reasons;
};

const char *plan__class_name(enum rf_plan_class c);
const char *plan__request_name(enum rf_request r);

/* Pure: no I/O. Fills plan from the policy and the probed capabilities. */
void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   struct rf_plan *ret_plan);

/* {"ok":..,"classes":{..},"reasons":[..]}; NULL on allocation failure. */
json_t *plan__to_json(const struct rf_plan *plan);

#endif
