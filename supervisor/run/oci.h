/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ringfence oci-hook`: an OCI runtime hook (createRuntime and poststop,
 * installed as a hooks.d file, dist/oci/) that puts a container under the
 * policy its annotation names (RF_OCI_ANNOTATION), by the same planner,
 * rules, pinned programs, pool slots and registry as `ringfence run`, keyed
 * by the container's cgroup. The runtime's state JSON comes on stdin.
 */
#ifndef RF_OCI_H
#define RF_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "error.h"

#define RF_OCI_ANNOTATION "run.ringfence.policy"
#define RF_OCI_PREFIX "oci-"            /* the sandbox name: oci-<container id> */
#define RF_OCI_STATE_MAX (256 * 1024)   /* the state and config.json read at most */

/* What the hook needs of the runtime's state and the bundle's config.json. */
struct oci_state {
	char id[112];                   /* the container id (runtime-spec: any string;
					 * here [A-Za-z0-9_.-]) */
	char status[16];                /* "creating" (createRuntime), "stopped" (poststop) */
	int pid;
	char bundle[4096];
	char policy[4096];              /* the annotation's value, "" when absent */
	bool has_cgroups_path;          /* config.json linux.cgroupsPath is set */
	bool runtime_seccomp;           /* config.json linux.seccomp is set */
	uint64_t caps_bounding;         /* process.capabilities.bounding, 1 << CAP_* */
};

/* Parse the state text (and the bundle's config.json when load_config):
 * 0, or -EINVAL/-ENOENT/-E2BIG with e naming the field or file. Pure but
 * for reading config.json: the unit tests feed it text. */
int oci__parse_state(const char *text, struct oci_state *ret, struct rf_error *e);
int oci__parse_config(json_t *config, struct oci_state *st, struct rf_error *e);

/* Capabilities a container must not hold where no BPF-LSM program guards
 * the process boundary: with any of them it could detach the cgroup
 * programs, or reach past them. NULL when none of caps, else the first's name. */
const char *oci__dangerous_cap(uint64_t caps);

/* The command: 0 done, RF_EXIT_USAGE for bad input, RF_EXIT_REFUSED when
 * the policy cannot be enforced for this container (the runtime then does
 * not start it). */
int cmd_oci_hook(void);

/* The policy's syscalls allowlist as an OCI seccomp profile (oci_seccomp.c):
 * the supervisor's allowlist filter's rules, default SCMP_ACT_ERRNO
 * (EPERM), the native architecture only. 0, or -EINVAL with e naming the
 * field when the policy has no "deny" allowlist. */
struct rf_policy;
int oci_seccomp__profile(const struct rf_policy *policy, json_t **ret, struct rf_error *e);
/* A runtime's linux.seccomp lets through nothing the profile refuses: its
 * default refuses, it lists no other architecture, and every name an
 * entry lets through (ALLOW, LOG, NOTIFY, TRACE) the profile allows. Else
 * false with why. */
bool oci_seccomp__holds(json_t *runtime, json_t *profile, char *why, size_t len);
/* `ringfence oci-seccomp --policy FILE`: the profile on stdout; 0, or
 * RF_EXIT_USAGE (the error on stderr). */
int cmd_oci_seccomp(const char *policy_path);

#endif
