// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The planner. A class the policy confines (or denies by omission) must
 * have a backend that this build implements AND that the probe saw work on
 * this kernel; otherwise the run is refused with every reason, before
 * anything is started. Backends, strongest first per class:
 *   file, exec   bpf-lsm, else landlock
 *   network      cgroup-sock-addr, plus landlock TCP ports as an opt-in layer
 *   unix         bpf-lsm, else cgroup-sock-addr (+ landlock abstract scoping)
 *   process      bpf-lsm, else seccomp; capabilities and landlock scoping as layers
 *   syscalls     seccomp
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "rf_abi.h"

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
	return caps->bpf_lsm_enforcer.ok ? "available" :
	       caps->bpf_lsm.ok ? "available on this kernel, but this build's LSM programs "
				  "did not load" :
	       caps->bpf_lsm.err ? "refused by this kernel" : "not probed";
}

/* The BPF-LSM programs of this build loaded and attached here, and the
 * user did not prefer another backend for this class. */
static bool use_lsm(const struct rf_caps *caps, unsigned int prefer, enum rf_backend other)
{
	return caps->bpf_lsm_enforcer.ok &&
	       (!(prefer & (1u << other)) || (prefer & (1u << RF_BE_BPF_LSM)));
}

/* Longest path the BPF matcher holds (RF_PATH_KEY_LEN - 1 when defined). */
#ifdef RF_PATH_KEY_LEN
#define LSM_PATH_MAX (RF_PATH_KEY_LEN - 1)
#else
#define LSM_PATH_MAX 247
#endif

static const char *long_path(const struct rf_path_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i].path) > LSM_PATH_MAX)
			return l->v[i].path;
	return NULL;
}

/* file and exec: bpf-lsm where this build's LSM programs load, else Landlock. */
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
	if (use_lsm(caps, prefer, RF_BE_LANDLOCK)) {
		const char *lp = c == RF_PC_FILE ?
			(long_path(&p->files_read) ? long_path(&p->files_read) :
						     long_path(&p->files_write)) :
			long_path(&p->exec_paths);

		if (lp) {
			snprintf(why, sizeof(why), "\"%.80s...\" is longer than the %d bytes the "
				 "bpf-lsm path matcher holds", lp, LSM_PATH_MAX);
			plan__refuse(plan, c, why);
			return;
		}
		use(cp, RF_BE_BPF_LSM, 0);
		plan->install.lsm_flags |= c == RF_PC_FILE ? RF_SB_LSM_FILES : RF_SB_LSM_EXEC;
		snprintf(cp->note, sizeof(cp->note), "%s", c == RF_PC_FILE ?
			 "every open by mode, and create, remove, rename, link, truncate, mode, "
			 "owner and times changes, on the kernel's resolved paths" :
			 "every exec (interpreters and execveat included) and every executable "
			 "file mapping; executables without a path are denied");
		return;
	}
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
			 const struct rf_caps *caps, const struct rf_plan_opts *opts)
{
	struct rf_class_plan *cp = &plan->c[RF_PC_PROCESS];
	bool keep = opts && opts->keep_caps;
	bool scope = landlock_ok(caps, 6) && !keep;
	bool lsm = use_lsm(caps, opts ? opts->prefer : 0, RF_BE_SECCOMP);
	size_t off;

	(void)p;
	cp->request = RF_REQ_IMPLICIT;
	cp->required = true;
	plan->install.keep_caps = keep;
	if (lsm) {
		use(cp, RF_BE_BPF_LSM, 0);
		plan->install.lsm_flags |= RF_SB_LSM_PROCESS;
	} else if (keep) {
		plan__refuse(plan, RF_PC_PROCESS, "--keep-caps (test-only) needs bpf-lsm to "
			     "hold the process boundary, and it is not available here");
		return;
	} else if (caps->seccomp.ok) {
		use(cp, RF_BE_SECCOMP, 0);
	} else {
		use(cp, RF_BE_CAPABILITIES, 0);
	}
	/* seccomp stays as a layer under bpf-lsm, except in the test mode that
	 * must show the LSM alone holds. */
	plan->install.seccomp_boundary = caps->seccomp.ok && !keep;
	plan->install.landlock_scope_signal = scope;
	plan->install.landlock |= scope;
	off = (size_t)snprintf(cp->layers, sizeof(cp->layers), "%s",
			       keep ? "capabilities KEPT (--keep-caps test mode)" : "capabilities");
	if (lsm && plan->install.seccomp_boundary)
		off += (size_t)snprintf(cp->layers + off, sizeof(cp->layers) - off, "; seccomp");
	if (scope && off < sizeof(cp->layers))
		snprintf(cp->layers + off, sizeof(cp->layers) - off,
			 "; landlock-abi%d (signal scoping, ptrace confinement)", caps->landlock_abi);
	snprintf(cp->note, sizeof(cp->note),
		 "no_new_privs; %scgroup2 read-only and bpffs absent in its mount namespace; "
		 "own session, no controlling terminal%s%s%s",
		 keep ? "capabilities kept (test mode); " :
			"all capability sets emptied, securebits locked; ",
		 lsm ? "; bpf-lsm: no bpf(), no ptrace of, signals to or /proc/PID/mem access "
		       "to processes outside the sandbox, no mounts, no user namespaces, no "
		       "writes to cgroup files" : "",
		 caps->seccomp.ok && !keep ? "; seccomp: no bpf, ptrace, process_vm_*, mounts, "
		 "namespaces, keyrings, perf, kexec, modules, userfaultfd, io_uring, "
		 "personality, TIOCSTI/TIOCLINUX; non-native syscall ABIs killed" :
		 lsm ? "" : "; NOT covered (no seccomp): bpf, ptrace, mounts, user namespaces",
		 scope ? "; landlock: no signals to, ptrace of or /proc/PID/mem access to "
			 "processes outside the sandbox" :
		 lsm ? "" : "; NOT covered (no landlock ABI 6): signals to same-user processes outside");
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
		/* Dropped for every sandbox, whatever the main backend is. */
		if (b == RF_BE_CAPABILITIES)
			used |= !plan->install.keep_caps;
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
	if (policy->net_unix != RF_CONFINE_UNRESTRICTED &&
	    use_lsm(caps, opts ? opts->prefer : 0, RF_BE_CGROUP_SOCK_ADDR)) {
		struct rf_class_plan *up = &plan->c[RF_PC_UNIX];

		up->request = from_confine(policy->net_unix);
		up->required = true;
		use(up, RF_BE_BPF_LSM, 0);
		plan->install.lsm_flags |= RF_SB_LSM_UNIX;
		snprintf(up->note, sizeof(up->note), "stream connects and datagram sends to "
			 "unix sockets, pathname and abstract, judged on the peer's bound name "
			 "after the kernel resolved it");
	} else {
		plan_sock_class(plan, RF_PC_UNIX, policy->net_unix, &caps->unix_sock_addr);
	}
	/* The programs need a cgroup to key on. */
	if (!caps->cgroup_v2.ok) {
		snprintf(why, sizeof(why), "no usable cgroup2 hierarchy (%s)",
			 caps->cgroup_v2.detail);
		/* Not twice: a class already refused keeps its first reason.
		 * Every BPF backend keys on the sandbox's cgroup. */
		for (int k = 0; k < RF_PC_MAX; k++)
			if (plan->c[k].enforced && (plan->c[k].be == RF_BE_CGROUP_SOCK_ADDR ||
						    plan->c[k].be == RF_BE_BPF_LSM))
				plan__refuse(plan, k, why);
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
	    plan->c[RF_PC_UNIX].be == RF_BE_CGROUP_SOCK_ADDR &&
	    landlock_ok(caps, 6) && !has_abstract_rule(policy)) {
		plan->install.landlock = plan->install.landlock_scope_unix = true;
		snprintf(plan->c[RF_PC_UNIX].layers, sizeof(plan->c[0].layers),
			 "landlock-abi%d (abstract sockets outside the sandbox)",
			 caps->landlock_abi);
	}
	plan_process(plan, policy, caps, opts);
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
