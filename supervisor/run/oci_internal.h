/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What oci.c's steps hold, shared with the keeper (oci_keep.c). */
#ifndef RF_OCI_INTERNAL_H
#define RF_OCI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "cgroup.h"
#include "oci.h"
#include "plan/plan.h"
#include "plan/probe.h"
#include "registry.h"
#include "steps.h"

struct rf_addr_rule;
struct rf_resolved;
struct rf_net_entry;
struct rf_enforcer;
struct rf_dnsgate;

struct oci_hook {
	struct oci_state st;
	char name[128];                 /* the sandbox: RF_OCI_PREFIX + id */
	struct rf_policy *policy;
	struct rf_caps caps;
	struct rf_plan plan;
	struct rf_addr_rule *rules;
	size_t n_rules;
	struct rf_resolved *resolved;
	size_t n_resolved;
	struct rf_net_entry *entries;
	size_t n_entries;
	int parent_fd;
	struct rf_enforcer *enf;
	struct rf_cgroup cg;
	uint64_t cgid;
	bool placed;                    /* cg is ours (MOUNT/ringfence), not the runtime's */
	int start_lock;
	struct rf_registry_entry reg;
	struct rf_dnsgate *gate;
	json_t *runtime_seccomp;        /* config.json linux.seccomp, NULL when none */
	bool syscalls_by_runtime;       /* it holds the policy's syscalls allowlist */
};

/* The keeper step: a process of its own (its own session, stdio on
 * /dev/null) that takes over the sandbox, serves its DNS gate, and
 * releases the map entries, the registry file and a cgroup it made once
 * the container's cgroup is empty or SIGTERM comes (the poststop hook).
 * Returns once it is ready; then the hook must undo nothing. */
int oci_keep__start(void *ctx, struct rf_step_error *e);

/* poststop: tell the keeper of sandbox name to release it and wait for
 * that; if it is gone, release what it left (gc__sandbox). 0 or 1. */
int oci_keep__stop(const char *name);

#endif
