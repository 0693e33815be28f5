// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The planner. A class the policy confines (or denies by omission) must
 * have a backend that this build implements AND that the probe saw load
 * and attach on this kernel; otherwise the run is refused with every
 * reason, before anything is started.
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"

static const char *const class_names[RF_PC_MAX] = {
	[RF_PC_FILE] = "file",       [RF_PC_EXEC] = "exec",
	[RF_PC_NETWORK] = "network", [RF_PC_UNIX] = "unix",
	[RF_PC_PROCESS] = "process", [RF_PC_LIMITS] = "limits",
	[RF_PC_SYSCALLS] = "syscalls", [RF_PC_MONITOR] = "monitor",
};

const char *plan__class_name(enum rf_plan_class c)
{
	return c < RF_PC_MAX ? class_names[c] : "?";
}

const char *plan__request_name(enum rf_request r)
{
	switch (r) {
	case RF_REQ_ABSENT: return "absent";
	case RF_REQ_DENY_ALL: return "deny-all";
	case RF_REQ_ALLOWLIST: return "allowlist";
	case RF_REQ_UNRESTRICTED: return "unrestricted";
	case RF_REQ_SET: return "set";
	case RF_REQ_IMPLICIT: return "implicit";
	}
	return "?";
}

static enum rf_request from_confine(enum rf_confine c)
{
	switch (c) {
	case RF_CONFINE_DENY_ALL: return RF_REQ_DENY_ALL;
	case RF_CONFINE_ALLOWLIST: return RF_REQ_ALLOWLIST;
	case RF_CONFINE_UNRESTRICTED: return RF_REQ_UNRESTRICTED;
	}
	return RF_REQ_DENY_ALL;
}

static void refuse(struct rf_plan *plan, enum rf_plan_class c, const char *why)
{
	struct rf_class_plan *cp = &plan->c[c];

	cp->backend = NULL;
	cp->enforced = false;
	plan->ok = false;
	snprintf(cp->note, sizeof(cp->note), "%s", why);
	if (plan->n_reasons < (int)(sizeof(plan->reasons) / sizeof(plan->reasons[0])))
		snprintf(plan->reasons[plan->n_reasons++], sizeof(plan->reasons[0]), "%s: %s",
			 class_names[c], why);
}

/* A class whose only backend here would be a kernel program. */
static void plan_kernel_class(struct rf_plan *plan, enum rf_plan_class c,
			      enum rf_confine confine, const char *backend,
			      const struct rf_backend_probe *probe)
{
	struct rf_class_plan *cp = &plan->c[c];
	char why[512];

	cp->request = from_confine(confine);
	if (confine == RF_CONFINE_UNRESTRICTED) {
		snprintf(cp->note, sizeof(cp->note), "unrestricted by the policy: not confined");
		return;
	}
	cp->required = true;
	if (!probe->ok) {
		snprintf(why, sizeof(why), "%s cannot run on this kernel (%s)", backend,
			 probe->detail);
		refuse(plan, c, why);
		return;
	}
	cp->backend = backend;
	cp->enforced = true;
}

/* file and exec: this build has no backend for them yet; say exactly
 * what the kernel would offer so the refusal is actionable. */
static void plan_unimplemented(struct rf_plan *plan, enum rf_plan_class c,
			       enum rf_confine confine, const struct rf_caps *caps)
{
	struct rf_class_plan *cp = &plan->c[c];
	char why[512];

	cp->request = from_confine(confine);
	if (confine == RF_CONFINE_UNRESTRICTED) {
		snprintf(cp->note, sizeof(cp->note), "unrestricted by the policy: not confined");
		return;
	}
	cp->required = true;
	snprintf(why, sizeof(why),
		 "no backend of this build enforces %s rules (bpf-lsm on this kernel: %s; "
		 "landlock on this kernel: %s); set \"%s\": \"unrestricted\" to run unconfined",
		 class_names[c], caps->bpf_lsm.ok ? "available" :
				 caps->bpf_lsm.err ? "refused" : "not probed",
		 caps->landlock.ok ? "available" : "refused",
		 c == RF_PC_FILE ? "files" : "exec");
	refuse(plan, c, why);
}

void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   struct rf_plan *plan)
{
	struct rf_class_plan *cp;

	memset(plan, 0, sizeof(*plan));
	plan->ok = true;

	plan_unimplemented(plan, RF_PC_FILE, policy->files, caps);
	plan_unimplemented(plan, RF_PC_EXEC, policy->exec, caps);
	plan_kernel_class(plan, RF_PC_NETWORK, policy->net_connect, "cgroup-sock-addr",
			  &caps->sock_addr);
	plan_kernel_class(plan, RF_PC_UNIX, policy->net_unix, "cgroup-sock-addr",
			  &caps->unix_sock_addr);
	/* The programs need a cgroup to key on. */
	if (!caps->cgroup_v2.ok) {
		char why[512];

		snprintf(why, sizeof(why), "no usable cgroup2 hierarchy (%s)",
			 caps->cgroup_v2.detail);
		/* Not twice: a class already refused keeps its first reason. */
		if (plan->c[RF_PC_NETWORK].enforced)
			refuse(plan, RF_PC_NETWORK, why);
		if (plan->c[RF_PC_UNIX].enforced)
			refuse(plan, RF_PC_UNIX, why);
	}

	/* Always applied by the launcher; what it does not cover is said. */
	cp = &plan->c[RF_PC_PROCESS];
	cp->request = RF_REQ_IMPLICIT;
	cp->required = true;
	cp->backend = "capabilities";
	cp->enforced = true;
	snprintf(cp->note, sizeof(cp->note),
		 "no_new_privs; effective, permitted, inheritable, ambient and bounding "
		 "capability sets emptied; securebits locked; cgroup2 mount read-only. "
		 "Not covered without bpf-lsm or seccomp: ptrace of and signals to "
		 "same-user processes outside the sandbox, unprivileged user namespaces");

	if (policy->limits.present) {
		plan->c[RF_PC_LIMITS].request = RF_REQ_SET;
		plan->c[RF_PC_LIMITS].required = true;
		refuse(plan, RF_PC_LIMITS,
		       "no backend of this build enforces limits yet (cgroup-v2 controllers); "
		       "remove \"limits\" to run without them");
	}
	if (policy->syscalls.present) {
		plan->c[RF_PC_SYSCALLS].request = RF_REQ_SET;
		plan->c[RF_PC_SYSCALLS].required = true;
		refuse(plan, RF_PC_SYSCALLS,
		       "no backend of this build enforces a syscall allowlist yet (seccomp); "
		       "remove \"syscalls\" to run without it");
	}
	if (policy->monitor.present) {
		plan->c[RF_PC_MONITOR].request = RF_REQ_SET;
		plan->c[RF_PC_MONITOR].required = true;
		refuse(plan, RF_PC_MONITOR,
		       "this build has no ringfence-monitor to apply the thresholds; "
		       "remove \"monitor\" to run without it");
	}
}

json_t *plan__to_json(const struct rf_plan *plan)
{
	json_t *root = json_object(), *classes = json_object(), *reasons = json_array();
	int i;

	if (!root || !classes || !reasons)
		goto fail;
	for (i = 0; i < RF_PC_MAX; i++) {
		const struct rf_class_plan *cp = &plan->c[i];
		json_t *c = json_pack("{s:s, s:b, s:s?, s:b}",
				      "requested", plan__request_name(cp->request),
				      "required", cp->required,
				      "backend", cp->backend,
				      "enforced", cp->enforced);

		if (!c)
			goto fail;
		if (!cp->backend)
			json_object_set_new(c, "backend", json_null());
		if (cp->note[0])
			json_object_set_new(c, "note", json_string(cp->note));
		json_object_set_new(classes, class_names[i], c);
	}
	for (i = 0; i < plan->n_reasons; i++)
		json_array_append_new(reasons, json_string(plan->reasons[i]));
	json_object_set_new(root, "ok", json_boolean(plan->ok));
	json_object_set_new(root, "classes", classes);
	json_object_set_new(root, "reasons", reasons);
	return root;
fail:
	json_decref(root);
	json_decref(classes);
	json_decref(reasons);
	return NULL;
}
