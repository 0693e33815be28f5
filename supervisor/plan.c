// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The planner. A class the policy confines (or denies by omission) must
 * have a backend that this build implements AND that the probe saw work on
 * this kernel; otherwise the run is refused with every reason, before
 * anything is started. Backends, strongest first per class:
 *   file, exec   landlock (bpf-lsm: not in this build yet)
 *   network      cgroup-sock-addr, plus landlock TCP ports as an opt-in layer
 *   unix         cgroup-sock-addr, plus landlock abstract scoping as a layer
 *   process      seccomp + capabilities, plus landlock signal scoping
 *   syscalls     seccomp
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

static const char *const backend_names[RF_BE_MAX] = {
	[RF_BE_NONE] = "", [RF_BE_CGROUP_SOCK_ADDR] = "cgroup-sock-addr",
	[RF_BE_BPF_LSM] = "bpf-lsm", [RF_BE_LANDLOCK] = "landlock",
	[RF_BE_SECCOMP] = "seccomp", [RF_BE_CAPABILITIES] = "capabilities",
};

const char *plan__class_name(enum rf_plan_class c)
{
	return c < RF_PC_MAX ? class_names[c] : "?";
}

const char *plan__backend_name(enum rf_backend b)
{
	return b < RF_BE_MAX ? backend_names[b] : "?";
}

enum rf_backend plan__backend_by_name(const char *name)
{
	int b;

	for (b = 1; b < RF_BE_MAX; b++)
		if (!strcmp(name, backend_names[b]))
			return b;
	return RF_BE_NONE;
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

static void add_reason(struct rf_plan *plan, const char *who, const char *why)
{
	if (plan->n_reasons < RF_PLAN_MAX_REASONS)
		snprintf(plan->reasons[plan->n_reasons++], sizeof(plan->reasons[0]), "%s: %s",
			 who, why);
	plan->ok = false;
}

void plan__refuse(struct rf_plan *plan, enum rf_plan_class c, const char *why)
{
	struct rf_class_plan *cp = &plan->c[c];

	cp->be = RF_BE_NONE;
	cp->backend[0] = 0;
	cp->enforced = false;
	cp->layers[0] = 0;
	snprintf(cp->note, sizeof(cp->note), "%s", why);
	add_reason(plan, class_names[c], why);
}

static void use(struct rf_class_plan *cp, enum rf_backend be, int landlock_abi)
{
	cp->be = be;
	cp->enforced = true;
	if (be == RF_BE_LANDLOCK)
		snprintf(cp->backend, sizeof(cp->backend), "landlock-abi%d", landlock_abi);
	else
		snprintf(cp->backend, sizeof(cp->backend), "%s", backend_names[be]);
}

static bool landlock_ok(const struct rf_caps *caps, int min_abi)
{
	return caps->landlock.ok && caps->landlock_abi >= min_abi;
}

static const char *lsm_state(const struct rf_caps *caps)
{
	return caps->bpf_lsm.ok ? "available on this kernel, its file and exec programs are "
				  "not part of this build" :
	       caps->bpf_lsm.err ? "refused by this kernel" : "not probed";
}

/* file and exec: Landlock (bpf-lsm is not in this build yet). */
static void plan_fs_class(struct rf_plan *plan, enum rf_plan_class c, enum rf_confine confine,
			  const struct rf_policy *p, const struct rf_caps *caps,
			  unsigned int prefer)
{
	struct rf_class_plan *cp = &plan->c[c];
	char why[600];

	cp->request = from_confine(confine);
	if (confine == RF_CONFINE_UNRESTRICTED) {
		snprintf(cp->note, sizeof(cp->note), "unrestricted by the policy: not confined");
		return;
	}
	cp->required = true;
	if (!landlock_ok(caps, 1)) {
		snprintf(why, sizeof(why), "no backend can enforce %s rules here: landlock: %s; "
			 "bpf-lsm: %s", class_names[c], caps->landlock.detail, lsm_state(caps));
		plan__refuse(plan, c, why);
		return;
	}
	if (p->mode == RF_MODE_AUDIT) {
		snprintf(why, sizeof(why), "audit mode needs a backend that can record without "
			 "denying; landlock cannot, and bpf-lsm is %s", lsm_state(caps));
		plan__refuse(plan, c, why);
		return;
	}
	/* Truncation would stay unconfined below ABI 3: broader than asked. */
	if (c == RF_PC_FILE && !landlock_ok(caps, 3)) {
		snprintf(why, sizeof(why), "landlock ABI %d cannot confine truncate(); "
			 "files needs ABI 3 or later", caps->landlock_abi);
		plan__refuse(plan, c, why);
		return;
	}
	use(cp, RF_BE_LANDLOCK, caps->landlock_abi);
	plan->install.landlock = plan->install.landlock_fs = true;
	snprintf(cp->note, sizeof(cp->note), "%s%s%s", c == RF_PC_EXEC ?
		 "execve of the command, scripts' interpreters and ld.so are checked; not "
		 "checked by Landlock: libraries mapped executable by the loader (no mmap "
		 "hook) and executables without a path (a memfd run with execveat)" :
		 "paths must exist when the sandbox starts",
		 prefer & (1u << RF_BE_BPF_LSM) ? "; --prefer bpf-lsm not honoured: bpf-lsm is " : "",
		 prefer & (1u << RF_BE_BPF_LSM) ? lsm_state(caps) : "");
}

/* A class whose backend is a cgroup program. */
static void plan_sock_class(struct rf_plan *plan, enum rf_plan_class c,
			    enum rf_confine confine, const struct rf_backend_probe *probe)
{
	struct rf_class_plan *cp = &plan->c[c];
	char why[600];

	cp->request = from_confine(confine);
	if (confine == RF_CONFINE_UNRESTRICTED) {
		snprintf(cp->note, sizeof(cp->note), "unrestricted by the policy: not confined");
		return;
	}
	cp->required = true;
	if (!probe->ok) {
		snprintf(why, sizeof(why), "cgroup-sock-addr cannot run on this kernel (%s)",
			 probe->detail);
		plan__refuse(plan, c, why);
		return;
	}
	use(cp, RF_BE_CGROUP_SOCK_ADDR, 0);
}

static bool has_abstract_rule(const struct rf_policy *p)
{
	size_t i;

	for (i = 0; i < p->n_unix; i++)
		if (p->unix_rules[i].abstract)
			return true;
	return false;
}

static void plan_process(struct rf_plan *plan, const struct rf_policy *p,
			 const struct rf_caps *caps)
{
	struct rf_class_plan *cp = &plan->c[RF_PC_PROCESS];
	bool scope = landlock_ok(caps, 6);

	(void)p;
	cp->request = RF_REQ_IMPLICIT;
	cp->required = true;
	if (caps->seccomp.ok) {
		use(cp, RF_BE_SECCOMP, 0);
		plan->install.seccomp_boundary = true;
	} else {
		use(cp, RF_BE_CAPABILITIES, 0);
	}
	if (scope) {
		plan->install.landlock = plan->install.landlock_scope_signal = true;
		snprintf(cp->layers, sizeof(cp->layers),
			 "capabilities; landlock-abi%d (signal scoping, ptrace confinement)",
			 caps->landlock_abi);
	} else {
		snprintf(cp->layers, sizeof(cp->layers), "capabilities");
	}
	snprintf(cp->note, sizeof(cp->note),
		 "no_new_privs; all capability sets emptied, securebits locked; cgroup2 "
		 "read-only and bpffs absent in its mount namespace; own session, no "
		 "controlling terminal%s%s",
		 caps->seccomp.ok ? "; seccomp: no bpf, ptrace, process_vm_*, mounts, "
		 "namespaces, keyrings, perf, kexec, modules, userfaultfd, io_uring, "
		 "personality, TIOCSTI/TIOCLINUX; non-native syscall ABIs killed" :
		 "; NOT covered (no seccomp): bpf, ptrace, mounts, user namespaces",
		 scope ? "; landlock: no signals to, ptrace of or /proc/PID/mem access to "
			 "processes outside the sandbox" :
			 "; NOT covered (no landlock ABI 6): signals to same-user processes outside");
}

static void plan_syscalls(struct rf_plan *plan, const struct rf_policy *p,
			  const struct rf_caps *caps)
{
	struct rf_class_plan *cp = &plan->c[RF_PC_SYSCALLS];
	char why[600];

	if (!p->syscalls.present)
		return;
	cp->request = RF_REQ_SET;
	cp->required = true;
	if (p->syscalls.on_violation == RF_VIOLATION_ALERT) {
		/* Detection, not enforcement: the profile is published in the
		 * registry and ringfence-monitor reports calls outside it. */
		cp->required = false;
		snprintf(cp->backend, sizeof(cp->backend), "ringfence-monitor");
		snprintf(cp->note, sizeof(cp->note), "alert: calls outside the profile are "
			 "reported by ringfence-monitor (when it runs), never denied");
		return;
	}
	if (p->mode == RF_MODE_AUDIT) {
		plan__refuse(plan, RF_PC_SYSCALLS, "audit mode: a seccomp allowlist cannot "
			     "record into the trace without denying; remove \"syscalls\" or "
			     "use enforce mode");
		return;
	}
	if (!caps->seccomp.ok) {
		snprintf(why, sizeof(why), "seccomp is not available (%s)", caps->seccomp.detail);
		plan__refuse(plan, RF_PC_SYSCALLS, why);
		return;
	}
	use(cp, RF_BE_SECCOMP, 0);
	plan->install.seccomp_allowlist = true;
	snprintf(cp->note, sizeof(cp->note), "allowlist, EPERM for every other syscall; "
		 "execve, exit and exit_group are always allowed (the launcher execs the "
		 "command after installing the filter, and must exit if that fails)");
}

/* --require: the backend must enforce every class it can serve here. */
static void check_required(struct rf_plan *plan, unsigned int require,
			   const struct rf_caps *caps)
{
	int b, i;

	for (b = 1; b < RF_BE_MAX; b++) {
		char why[600];
		bool used = false;

		if (!(require & (1u << b)))
			continue;
		for (i = 0; i < RF_PC_MAX; i++)
			used |= plan->c[i].be == (enum rf_backend)b;
		if (b == RF_BE_LANDLOCK)
			used |= plan->install.landlock;
		if (used)
			continue;
		if (b == RF_BE_BPF_LSM)
			snprintf(why, sizeof(why), "bpf-lsm enforces nothing here: %s (%s)",
				 lsm_state(caps), caps->bpf_lsm.detail);
		else
			snprintf(why, sizeof(why), "%s enforces no class of this policy on this "
				 "kernel", backend_names[b]);
		add_reason(plan, "--require", why);
	}
}

void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   const struct rf_plan_opts *opts, struct rf_plan *plan)
{
	char why[600];

	memset(plan, 0, sizeof(*plan));
	plan->ok = true;
	plan->install.landlock_abi = caps->landlock_abi;

	plan_fs_class(plan, RF_PC_FILE, policy->files, policy, caps, opts ? opts->prefer : 0);
	plan_fs_class(plan, RF_PC_EXEC, policy->exec, policy, caps, opts ? opts->prefer : 0);
	plan_sock_class(plan, RF_PC_NETWORK, policy->net_connect, &caps->sock_addr);
	plan_sock_class(plan, RF_PC_UNIX, policy->net_unix, &caps->unix_sock_addr);
	/* The programs need a cgroup to key on. */
	if (!caps->cgroup_v2.ok) {
		snprintf(why, sizeof(why), "no usable cgroup2 hierarchy (%s)",
			 caps->cgroup_v2.detail);
		/* Not twice: a class already refused keeps its first reason. */
		if (plan->c[RF_PC_NETWORK].enforced)
			plan__refuse(plan, RF_PC_NETWORK, why);
		if (plan->c[RF_PC_UNIX].enforced)
			plan__refuse(plan, RF_PC_UNIX, why);
	}
	/* Second, independent layers. Audit mode must deny nothing, so no
	 * layer that denies is added then. The kernel asks Landlock about a
	 * connect() before the cgroup hook runs: its TCP-port layer would
	 * refuse unlisted ports first (EACCES) and those denials would never
	 * reach the trace or the monitor. So it is opt-in: --prefer landlock. */
	if (policy->mode == RF_MODE_ENFORCE && plan->c[RF_PC_NETWORK].enforced &&
	    landlock_ok(caps, 4) && opts && (opts->prefer & (1u << RF_BE_LANDLOCK))) {
		plan->install.landlock = plan->install.landlock_net = true;
		snprintf(plan->c[RF_PC_NETWORK].layers, sizeof(plan->c[0].layers),
			 "landlock-abi%d (TCP connect ports; refuses unlisted ports before the "
			 "cgroup hook, with EACCES, unrecorded)", caps->landlock_abi);
	}
	if (policy->mode == RF_MODE_ENFORCE && plan->c[RF_PC_UNIX].enforced &&
	    landlock_ok(caps, 6) && !has_abstract_rule(policy)) {
		plan->install.landlock = plan->install.landlock_scope_unix = true;
		snprintf(plan->c[RF_PC_UNIX].layers, sizeof(plan->c[0].layers),
			 "landlock-abi%d (abstract sockets outside the sandbox)",
			 caps->landlock_abi);
	}
	plan_process(plan, policy, caps);
	plan_syscalls(plan, policy, caps);

	if (policy->limits.present) {
		plan->c[RF_PC_LIMITS].request = RF_REQ_SET;
		plan->c[RF_PC_LIMITS].required = true;
		plan__refuse(plan, RF_PC_LIMITS,
			     "no backend of this build enforces limits yet (cgroup-v2 "
			     "controllers); remove \"limits\" to run without them");
	}
	if (policy->monitor.present) {
		struct rf_class_plan *mp = &plan->c[RF_PC_MONITOR];

		/* Thresholds for alerts, not limits: nothing here is enforced. */
		mp->request = RF_REQ_SET;
		snprintf(mp->backend, sizeof(mp->backend), "ringfence-monitor");
		snprintf(mp->note, sizeof(mp->note), "detection only: thresholds published in "
			 "the sandbox registry for ringfence-monitor (when it runs)");
	}
	if (opts)
		check_required(plan, opts->require, caps);
}

json_t *plan__to_json(const struct rf_plan *plan)
{
	json_t *root = json_object(), *classes = json_object(), *reasons = json_array();
	int i;

	if (!root || !classes || !reasons)
		goto fail;
	for (i = 0; i < RF_PC_MAX; i++) {
		const struct rf_class_plan *cp = &plan->c[i];
		json_t *c = json_pack("{s:s, s:b, s:o, s:b}",
				      "requested", plan__request_name(cp->request),
				      "required", cp->required,
				      "backend", cp->backend[0] ? json_string(cp->backend) :
								  json_null(),
				      "enforced", cp->enforced);

		if (!c)
			goto fail;
		if (cp->layers[0])
			json_object_set_new(c, "layers", json_string(cp->layers));
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
