// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The planner. A class the policy confines (or denies by omission) must
 * have a backend that this build implements AND that the probe saw work on
 * this kernel; otherwise the run is refused with every reason, before
 * anything is started. Backends, strongest first per class:
 *   file, exec   bpf-lsm, else landlock (audit mode: its rules left out, and
 *                accesses observed by observe.bpf.c)
 *   network      cgroup-sock-addr, plus landlock TCP ports as an opt-in layer
 *   unix         bpf-lsm, else cgroup-sock-addr (+ landlock abstract scoping)
 *   process      bpf-lsm, else seccomp; capabilities and landlock scoping as layers
 *   syscalls     seccomp
 *   limits       per limit: cgroup-v2-memory/-pids/-cpu (the controller must
 *                be in the cgroup2 hierarchy), supervisor (wall clock,
 *                output), tmpfs (scratch)
 * The plan holds codes and numbers; plan_text.c words them.
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "rf_abi.h"

static enum rf_request from_confine(enum rf_confine c)
{
	switch (c) {
	case RF_CONFINE_DENY_ALL: return RF_REQ_DENY_ALL;
	case RF_CONFINE_ALLOWLIST: return RF_REQ_ALLOWLIST;
	case RF_CONFINE_UNRESTRICTED: return RF_REQ_UNRESTRICTED;
	}
	return RF_REQ_DENY_ALL;
}

static struct rf_plan_reason *add_reason(struct rf_plan *plan, enum rf_class c,
					 enum rf_plan_why code, int param, const char *detail)
{
	struct rf_plan_reason *r;

	plan->ok = false;
	if (plan->n_reasons >= RF_PLAN_MAX_REASONS)
		return NULL;
	r = &plan->reasons[plan->n_reasons++];
	r->cls = c;
	r->code = code;
	r->param = param;
	snprintf(r->detail, sizeof(r->detail), "%s", detail ? detail : "");
	return r;
}

void plan__refuse(struct rf_plan *plan, enum rf_class c, enum rf_plan_why code, int param,
		  const char *detail)
{
	struct rf_class_plan *cp = &plan->c[c];
	struct rf_plan_reason *r = add_reason(plan, c, code, param, detail);
	int g;

	/* No backend, no backend's gaps. */
	for (g = 0; g < RF_GAP_MAX; g++)
		if (plan__gap_class(g) == c)
			plan->gaps &= ~(1ull << g);
	cp->be = RF_BE_NONE;
	cp->enforced = false;
	cp->layers = 0;
	cp->note = r ? RF_NOTE_REFUSED : RF_NOTE_NONE;
	cp->reason = r ? (int)(r - plan->reasons) : 0;
}

static void use(struct rf_class_plan *cp, enum rf_backend be, enum rf_plan_note note)
{
	cp->be = be;
	cp->enforced = true;
	cp->note = note;
}

static bool landlock_ok(const struct rf_caps *caps, int min_abi)
{
	return caps->landlock.ok && caps->landlock_abi >= min_abi;
}

static enum rf_lsm_state lsm_state(const struct rf_caps *caps)
{
	return caps->bpf_lsm_enforcer.ok ? RF_LSM_AVAILABLE :
	       caps->bpf_lsm.ok ? RF_LSM_NOT_LOADED :
	       caps->bpf_lsm.err ? RF_LSM_REFUSED : RF_LSM_NOT_PROBED;
}

/* The BPF-LSM programs of this build loaded and attached here, and the
 * user did not prefer another backend for this class. */
static bool use_lsm(const struct rf_caps *caps, unsigned int prefer, enum rf_backend other)
{
	return caps->bpf_lsm_enforcer.ok &&
	       (!(prefer & (1u << other)) || (prefer & (1u << RF_BE_BPF_LSM)));
}

static const char *long_path(const struct rf_path_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i].path) > RF_PATH_MAX)
			return l->v[i].path;
	return NULL;
}

/* The class as the policy asks it; NULL when it is not confined. */
static struct rf_class_plan *confined(struct rf_plan *plan, enum rf_class c,
				      enum rf_confine confine)
{
	struct rf_class_plan *cp = &plan->c[c];

	cp->request = from_confine(confine);
	if (confine == RF_CONFINE_UNRESTRICTED) {
		cp->note = RF_NOTE_UNRESTRICTED;
		return NULL;
	}
	cp->required = true;
	return cp;
}

static void add_gap(struct rf_plan *plan, enum rf_gap g)
{
	plan->gaps |= 1ull << g;
}

/* What Landlock leaves open in a confined class (enforce mode), and what
 * the boundary seccomp filter closes of it. A seccomp refusal cannot tell
 * a file in the write area from one outside, so metadata changes are
 * refused only when nothing may be written anyway. */
static void landlock_holes(struct rf_plan *plan, enum rf_class c, const struct rf_policy *p,
			   const struct rf_caps *caps)
{
	if (!caps->seccomp.ok) {
		add_gap(plan, c == RF_CLASS_FILE ? RF_GAP_FILE_XATTR : RF_GAP_EXEC_MEMFD);
		if (c == RF_CLASS_FILE)
			add_gap(plan, RF_GAP_FILE_ATTR);
	} else if (c == RF_CLASS_FILE) {
		plan->install.seccomp_fs_ioctl = true;
		plan->install.seccomp_fs_meta = p->files_write.n == 0;
		plan->install.ro_tree = p->files_write.n && caps->mount_setattr;
		if (p->files_write.n && !caps->mount_setattr) {
			add_gap(plan, RF_GAP_FILE_XATTR);
			add_gap(plan, RF_GAP_FILE_ATTR);
		}
	} else {
		plan->install.seccomp_memfd_noexec = caps->memfd_noexec_seal;
		if (!caps->memfd_noexec_seal)
			add_gap(plan, RF_GAP_EXEC_MEMFD);
	}
	if (c == RF_CLASS_EXEC) {
		add_gap(plan, RF_GAP_EXEC_MMAP);
		add_gap(plan, RF_GAP_EXEC_ANON_CODE);
		/* The exec tracepoint alone (once per exec on the host), also
		 * where Landlock logs its own denials and no syscall is watched. */
		plan->install.loader_kill = caps->observe.ok && !plan->observe_off;
		if (!plan->install.loader_kill)
			add_gap(plan, RF_GAP_EXEC_LOADER);
	}
}

/* memory.deny_write_execute (enforce mode): the kernel's W^X where it has
 * it (6.3+), else the boundary filter's rules; either way no code can be
 * copied into memory and run, so exec.anon-code is closed. */
static void plan_memory(struct rf_plan *plan, const struct rf_policy *p,
			const struct rf_caps *caps)
{
	struct rf_class_plan *cp = &plan->c[RF_CLASS_EXEC];

	if (!p->memory.deny_write_execute || p->mode != RF_MODE_ENFORCE)
		return;
	if (caps->mdwe) {
		plan->install.mdwe = true;
		cp->layers |= RF_LAYER_MDWE;
	} else if (plan->install.seccomp_boundary) {
		plan->install.seccomp_wx = true;
		cp->layers |= RF_LAYER_SECCOMP_WX;
	} else {
		return;  /* nothing holds it: the gap stays listed */
	}
	plan->gaps &= ~(1ull << RF_GAP_EXEC_ANON_CODE);
}

/* file and exec: bpf-lsm where this build's LSM programs load, else Landlock. */
static void plan_fs_class(struct rf_plan *plan, enum rf_class c, enum rf_confine confine,
			  const struct rf_policy *p, const struct rf_caps *caps,
			  unsigned int prefer)
{
	struct rf_class_plan *cp = confined(plan, c, confine);
	char lp[RF_PLAN_DETAIL_LEN];

	if (!cp)
		return;
	if (use_lsm(caps, prefer, RF_BE_LANDLOCK)) {
		const char *l = c == RF_CLASS_FILE ?
			(long_path(&p->files_read) ? long_path(&p->files_read) :
						     long_path(&p->files_write)) :
			long_path(&p->exec_paths);

		if (l) {
			/* Only its start is ever shown. */
			snprintf(lp, sizeof(lp), "%.80s", l);
			plan__refuse(plan, c, RF_WHY_LSM_PATH_TOO_LONG, RF_PATH_MAX, lp);
			return;
		}
		use(cp, RF_BE_BPF_LSM, c == RF_CLASS_FILE ? RF_NOTE_LSM_FILE : RF_NOTE_LSM_EXEC);
		cp->observed = RF_OBSV_KERNEL;
		if (c == RF_CLASS_EXEC)
			add_gap(plan, RF_GAP_EXEC_ANON_CODE);
		plan->install.lsm_flags |= c == RF_CLASS_FILE ? RF_SB_LSM_FILES : RF_SB_LSM_EXEC;
		return;
	}
	if (!landlock_ok(caps, 1)) {
		plan__refuse(plan, c, RF_WHY_NO_FS_BACKEND, 0, caps->landlock.detail);
		return;
	}
	/* Audit: Landlock cannot record without denying, so its file rules
	 * are left out and the observe programs report every access. */
	if (p->mode == RF_MODE_AUDIT && (!caps->observe.ok || plan->observe_off)) {
		plan__refuse(plan, c, RF_WHY_AUDIT_LANDLOCK, 0,
			     plan->observe_off ? "--no-observe turns them off" :
						 caps->observe.detail);
		return;
	}
	/* Truncation would stay unconfined below ABI 3: broader than asked. */
	if (c == RF_CLASS_FILE && !landlock_ok(caps, 3)) {
		plan__refuse(plan, c, RF_WHY_LANDLOCK_TRUNCATE, caps->landlock_abi, NULL);
		return;
	}
	if (p->mode == RF_MODE_AUDIT) {
		use(cp, RF_BE_LANDLOCK, RF_NOTE_LANDLOCK_AUDIT);
		cp->observed = RF_OBSV_AUDIT_INFERRED;
		return;
	}
	use(cp, RF_BE_LANDLOCK, c == RF_CLASS_EXEC ? RF_NOTE_LANDLOCK_EXEC : RF_NOTE_LANDLOCK_FILE);
	/* Landlock's own log, read from the audit socket, needs no syscall
	 * tracepoint (which slows every task on the host). */
	cp->observed = caps->landlock_audit_log ? RF_OBSV_KERNEL_AUDIT :
		       caps->observe.ok && !plan->observe_off ? RF_OBSV_INFERRED : RF_OBSV_NONE;
	plan->install.landlock = plan->install.landlock_fs = true;
	landlock_holes(plan, c, p, caps);
}

/* A class whose backend is a cgroup program. */
static void plan_sock_class(struct rf_plan *plan, enum rf_class c,
			    enum rf_confine confine, const struct rf_backend_probe *probe)
{
	struct rf_class_plan *cp = confined(plan, c, confine);

	if (!cp)
		return;
	if (!probe->ok) {
		plan__refuse(plan, c, RF_WHY_SOCK_ADDR, 0, probe->detail);
		return;
	}
	use(cp, RF_BE_CGROUP_SOCK_ADDR, RF_NOTE_NONE);
	cp->observed = RF_OBSV_KERNEL;
}

static bool has_abstract_rule(const struct rf_policy *p)
{
	size_t i;

	for (i = 0; i < p->n_unix; i++)
		if (p->unix_rules[i].abstract)
			return true;
	return false;
}

static void plan_process(struct rf_plan *plan, const struct rf_caps *caps,
			 const struct rf_plan_opts *opts)
{
	struct rf_class_plan *cp = &plan->c[RF_CLASS_PROCESS];
	bool keep = opts && opts->keep_caps;
	bool scope = landlock_ok(caps, 6) && !keep;
	bool lsm = use_lsm(caps, opts ? opts->prefer : 0, RF_BE_SECCOMP);

	cp->request = RF_REQ_IMPLICIT;
	cp->required = true;
	plan->install.keep_caps = keep;
	if (lsm) {
		use(cp, RF_BE_BPF_LSM, RF_NOTE_PROCESS);
		plan->install.lsm_flags |= RF_SB_LSM_PROCESS;
	} else if (keep) {
		plan__refuse(plan, RF_CLASS_PROCESS, RF_WHY_KEEP_CAPS, 0, NULL);
		return;
	} else {
		use(cp, caps->seccomp.ok ? RF_BE_SECCOMP : RF_BE_CAPABILITIES, RF_NOTE_PROCESS);
	}
	/* seccomp stays as a layer under bpf-lsm, except in the test mode that
	 * must show the LSM alone holds. */
	plan->install.seccomp_boundary = caps->seccomp.ok && !keep;
	/* The supervisor sees the boundary's refusals from its seccomp
	 * listener (publishing them needs the BPF programs the observe probe
	 * proved); no syscall tracepoint for them. */
	plan->install.seccomp_notify = plan->install.seccomp_boundary && caps->observe.ok;
	/* Where the BPF-LSM programs do not judge them (and record each). */
	plan->install.seccomp_task_targets = plan->install.seccomp_boundary && !lsm;
	plan->install.landlock_scope_signal = scope;
	plan->install.landlock |= scope;
	cp->layers = keep ? RF_LAYER_CAPABILITIES_KEPT : RF_LAYER_CAPABILITIES;
	if (lsm && plan->install.seccomp_boundary)
		cp->layers |= RF_LAYER_SECCOMP;
	if (scope)
		cp->layers |= RF_LAYER_LANDLOCK_SCOPE_SIGNAL;
	/* The seccomp filter refuses before any LSM hook runs: what it
	 * refuses is only ever inferred, under bpf-lsm too. */
	cp->observed = lsm ? RF_OBSV_KERNEL :
		       plan->install.seccomp_boundary && caps->observe.ok ? RF_OBSV_INFERRED :
									    RF_OBSV_NONE;
}

static void plan_syscalls(struct rf_plan *plan, const struct rf_policy *p,
			  const struct rf_caps *caps)
{
	struct rf_class_plan *cp = &plan->c[RF_CLASS_SYSCALLS];

	if (!p->syscalls.present)
		return;
	cp->request = RF_REQ_SET;
	cp->required = true;
	if (p->syscalls.on_violation == RF_VIOLATION_ALERT) {
		/* Detection, not enforcement: the profile is published in the
		 * registry and ringfence-monitor reports calls outside it, which
		 * the supervisor's seccomp listener lets through and publishes
		 * (sandbox_seccomp.c, notify.c) where the observe programs load. */
		cp->required = false;
		cp->be = RF_BE_MONITOR;
		cp->note = RF_NOTE_SYSCALLS_ALERT;
		plan->install.seccomp_allowlist = caps->seccomp.ok && caps->observe.ok;
		plan->install.seccomp_notify |= plan->install.seccomp_allowlist;
		return;
	}
	if (p->mode == RF_MODE_AUDIT) {
		plan__refuse(plan, RF_CLASS_SYSCALLS, RF_WHY_SYSCALLS_AUDIT, 0, NULL);
		return;
	}
	if (!caps->seccomp.ok) {
		plan__refuse(plan, RF_CLASS_SYSCALLS, RF_WHY_NO_SECCOMP, 0, caps->seccomp.detail);
		return;
	}
	use(cp, RF_BE_SECCOMP, RF_NOTE_SYSCALLS_SECCOMP);
	plan->install.seccomp_allowlist = true;
	/* refusals answered and published by the listener, as the boundary's */
	plan->install.seccomp_notify |= caps->observe.ok;
}

/* Each limit has its own backend; the class is enforced when all are, and
 * refused (with one reason per limit) when any is not. */
enum rf_backend plan__limit_backend(enum rf_limit l)
{
	static const enum rf_backend be[RF_LIMIT_MAX] = {
		[RF_LIMIT_MEMORY] = RF_BE_CGROUP_MEMORY, [RF_LIMIT_PIDS] = RF_BE_CGROUP_PIDS,
		[RF_LIMIT_CPU] = RF_BE_CGROUP_CPU, [RF_LIMIT_WALL] = RF_BE_SUPERVISOR,
		[RF_LIMIT_OUTPUT] = RF_BE_SUPERVISOR, [RF_LIMIT_SCRATCH] = RF_BE_TMPFS,
		/* the cgroup_skb programs drop the sends; the supervisor watches
		 * io.stat's write bytes */
		[RF_LIMIT_EGRESS] = RF_BE_CGROUP_SOCK_ADDR, [RF_LIMIT_DISK_WRITE] = RF_BE_SUPERVISOR,
	};

	return (unsigned int)l < RF_LIMIT_MAX ? be[l] : RF_BE_NONE;
}

/* Limit i loses its backend for reason r (NULL: the reasons are full). */
static void refuse_limit(struct rf_plan *plan, int i, struct rf_plan_reason *r)
{
	struct rf_class_plan *cp = &plan->c[RF_CLASS_LIMITS];
	struct rf_limit_plan *lp = &plan->limits[i];

	lp->enforced = false;
	lp->reason = r ? (int)(r - plan->reasons) : -1;
	if (cp->enforced && r) {
		cp->note = RF_NOTE_REFUSED;
		cp->reason = lp->reason;
	}
	cp->enforced = false;
}

void plan__refuse_limit(struct rf_plan *plan, enum rf_limit l, enum rf_plan_why code,
			int param, const char *detail)
{
	refuse_limit(plan, l, add_reason(plan, RF_CLASS_LIMITS, code, param, detail));
}

static void plan_limits(struct rf_plan *plan, const struct rf_limits *l,
			const struct rf_caps *caps)
{
	const struct rf_opt_u64 *v[RF_LIMIT_MAX] = {
		[RF_LIMIT_MEMORY] = &l->memory_mb, [RF_LIMIT_PIDS] = &l->pids,
		[RF_LIMIT_CPU] = &l->cpu_percent, [RF_LIMIT_WALL] = &l->wall_seconds,
		[RF_LIMIT_OUTPUT] = &l->output_bytes, [RF_LIMIT_EGRESS] = &l->egress_bytes,
		[RF_LIMIT_DISK_WRITE] = &l->disk_write_mb,
	};
	struct rf_class_plan *cp = &plan->c[RF_CLASS_LIMITS];
	int i;

	if (!l->present)
		return;
	cp->request = RF_REQ_SET;
	cp->required = true;
	cp->enforced = true;
	cp->note = RF_NOTE_LIMITS;
	for (i = 0; i < RF_LIMIT_MAX; i++) {
		struct rf_limit_plan *lp = &plan->limits[i];
		const struct rf_backend_probe *probe = i <= RF_LIMIT_CPU ?
			&caps->cgroup_ctrl[i] : i == RF_LIMIT_DISK_WRITE ? &caps->cgroup_io : NULL;
		struct rf_plan_reason *r = NULL;

		lp->set = i == RF_LIMIT_SCRATCH ? l->scratch.set : v[i]->set;
		lp->value = i == RF_LIMIT_SCRATCH ? l->scratch.size_mb : v[i] ? v[i]->v : 0;
		lp->reason = -1;
		if (!lp->set)
			continue;
		lp->be = plan__limit_backend(i);
		lp->enforced = true;
		if (probe && !caps->cgroup_v2.ok)
			r = add_reason(plan, RF_CLASS_LIMITS, RF_WHY_LIMIT_NO_CGROUP2, i,
				       caps->cgroup_v2.detail);
		else if (probe && !probe->ok)
			r = add_reason(plan, RF_CLASS_LIMITS, RF_WHY_NO_CONTROLLER, i,
				       probe->detail);
		if (probe && (!caps->cgroup_v2.ok || !probe->ok))
			refuse_limit(plan, i, r);
		if (i == RF_LIMIT_EGRESS)
			add_gap(plan, RF_GAP_LIMITS_EGRESS_UNIX);
		if (i == RF_LIMIT_DISK_WRITE)
			add_gap(plan, RF_GAP_LIMITS_DISK_WRITEBACK);
		/* the budget is the cgroup_skb egress program's */
		if (i == RF_LIMIT_EGRESS && !caps->sock_addr.ok)
			refuse_limit(plan, i, add_reason(plan, RF_CLASS_LIMITS, RF_WHY_NO_CONTROLLER,
							 i, caps->sock_addr.detail));
	}
}

/* --require: the backend must enforce every class it can serve here. */
static void check_required(struct rf_plan *plan, unsigned int require,
			   const struct rf_caps *caps)
{
	int b, i;

	for (b = 1; b < RF_BE_MAX; b++) {
		bool used = false;

		if (!(require & (1u << b)))
			continue;
		for (i = 0; i < RF_CLASS_MAX; i++)
			used |= plan->c[i].be == (enum rf_backend)b;
		for (i = 0; i < RF_LIMIT_MAX; i++)
			used |= plan->limits[i].enforced && plan->limits[i].be == (enum rf_backend)b;
		if (b == RF_BE_LANDLOCK)
			used |= plan->install.landlock;
		/* Dropped for every sandbox, whatever the main backend is. */
		if (b == RF_BE_CAPABILITIES)
			used |= !plan->install.keep_caps;
		if (used)
			continue;
		if (b == RF_BE_BPF_LSM)
			add_reason(plan, RF_CLASS_MAX, RF_WHY_REQUIRE_LSM, b, caps->bpf_lsm.detail);
		else
			add_reason(plan, RF_CLASS_MAX, RF_WHY_REQUIRE_UNUSED, b, NULL);
	}
}

/* --strict: each class with known gaps is refused, naming them. The
 * class keeps its backend (the gaps stay listed): the plan is not ok. */
static void refuse_gaps(struct rf_plan *plan)
{
	char ids[RF_PLAN_DETAIL_LEN];
	int k, g;

	for (k = 0; k < RF_CLASS_MAX; k++) {
		enum rf_class c = names__class_order[k];
		size_t off = 0;

		ids[0] = 0;
		for (g = 0; g < RF_GAP_MAX; g++)
			if ((plan->gaps & (1ull << g)) && plan__gap_class(g) == c &&
			    off < sizeof(ids))
				off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%s",
							off ? ", " : "", plan__gap_id(g));
		if (ids[0])
			add_reason(plan, c, RF_WHY_STRICT_GAPS, 0, ids);
	}
}

static bool has_pathname_rule(const struct rf_policy *p)
{
	for (size_t i = 0; i < p->n_unix; i++)
		if (!p->unix_rules[i].abstract)
			return true;
	return false;
}

/* unix: bpf-lsm judges the peer's resolved name where it loads, else the
 * cgroup hooks. */
static void plan_unix(struct rf_plan *plan, const struct rf_policy *policy,
		      const struct rf_caps *caps, unsigned int prefer)
{
	struct rf_class_plan *up;

	if (policy->net_unix == RF_CONFINE_UNRESTRICTED ||
	    !use_lsm(caps, prefer, RF_BE_CGROUP_SOCK_ADDR)) {
		plan_sock_class(plan, RF_CLASS_UNIX, policy->net_unix, &caps->unix_sock_addr);
		return;
	}
	up = confined(plan, RF_CLASS_UNIX, policy->net_unix);
	use(up, RF_BE_BPF_LSM, RF_NOTE_LSM_UNIX);
	up->observed = RF_OBSV_KERNEL;
	plan->install.lsm_flags |= RF_SB_LSM_UNIX;
	/* BPF-LSM judges the socket a sandboxed client reaches as it was
	 * bound; a client outside is judged by nothing, so no socket, symlink
	 * or directory of the sandbox's is put at an allowed pathname or on
	 * its way (unix.rebind closed; lsm.bpf.c unix_name_op). */
	if (has_pathname_rule(policy))
		plan->install.lsm_flags |= RF_SB_LSM_UNIX_NAMES;
}

/* Bounded work for huge policies: past it, assume they meet. */
#define RF_UNIX_WRITE_PAIRS_MAX 1000000u


/* ...and a directory on the way to one: w holds a directory of the name
 * below its own root (or lies below an allowed subtree), which a rename
 * can bring in with an outside socket in it. */
static bool unix_dir_in_write(const struct rf_policy *p, const struct rf_path_rule *w)
{
	size_t i, n = strlen(w->path);

	if (!w->subtree)
		return false;
	for (i = 0; i < p->n_unix; i++) {
		const struct rf_unix_rule *u = &p->unix_rules[i];

		if (u->abstract)
			continue;
		if ((!strncmp(u->name, w->path, n) && strchr(u->name + n, '/')) ||
		    (u->subtree && !strncmp(w->path, u->name, strlen(u->name))))
			return true;
	}
	return false;
}

/* What the write rules reach of the allowed unix pathnames: none (no
 * pathname), all (files unrestricted, or past the bounded work for huge
 * policies: assume they meet), or some: names (a write rule holds an
 * allowed name) and, when ret_dirs, dirs (a directory on the way to one). */
enum unix_writes { UNIX_WRITES_NONE, UNIX_WRITES_ALL, UNIX_WRITES_SOME };

static enum unix_writes unix_writes(const struct rf_policy *p, bool *ret_names, bool *ret_dirs)
{
	const struct rf_path_list *w = &p->files_write;
	bool paths = false;
	size_t i, k;

	*ret_names = false;
	if (ret_dirs)
		*ret_dirs = false;
	for (i = 0; i < p->n_unix; i++)
		paths |= !p->unix_rules[i].abstract;
	if (!paths)
		return UNIX_WRITES_NONE;
	if (p->files == RF_CONFINE_UNRESTRICTED ||
	    (size_t)p->n_unix * w->n > RF_UNIX_WRITE_PAIRS_MAX)
		return UNIX_WRITES_ALL;
	for (k = 0; k < w->n; k++) {
		*ret_names |= policy__unix_name_in_write(p, &w->v[k]);
		if (ret_dirs)
			*ret_dirs |= unix_dir_in_write(p, &w->v[k]);
	}
	return UNIX_WRITES_SOME;
}

/*
 * Could the sandbox make an allowed unix name (a link, a rename, a
 * symlink, a directory moved) for a socket it did not bind? The cgroup
 * hooks judge the name as written. Where files are on Landlock, the write
 * rules that hold such a name make no sockets nor symlinks (rename, link
 * and symlink need MAKE_SOCK / MAKE_SYM on the name's directory); a
 * directory renamed there stays possible. What stays is a gap.
 */
static void plan_unix_names(struct rf_plan *plan, const struct rf_policy *p)
{
	const struct rf_class_plan *fp = &plan->c[RF_CLASS_FILE];
	bool names, dirs;

	switch (unix_writes(p, &names, &dirs)) {
	case UNIX_WRITES_NONE:
		return;
	case UNIX_WRITES_ALL:
		add_gap(plan, RF_GAP_UNIX_RENAME);
		add_gap(plan, RF_GAP_UNIX_RENAME_DIR);
		add_gap(plan, RF_GAP_UNIX_REBIND);
		return;
	case UNIX_WRITES_SOME:
		break;
	}
	if (names && fp->be == RF_BE_LANDLOCK && fp->enforced)
		plan->install.landlock_unix_names = true;
	else if (names) {
		add_gap(plan, RF_GAP_UNIX_RENAME);
		add_gap(plan, RF_GAP_UNIX_REBIND);
	}
	/* A directory renamed in from another write rule crosses a mount
	 * (EXDEV), so one below an allowed subtree is no way in; the ones on
	 * the way to a name are pinned at start (run/unixpin.h). */
	if (dirs && fp->be == RF_BE_LANDLOCK && fp->enforced && plan->install.ro_tree)
		plan->install.unix_pins = true;
	else if (dirs)
		add_gap(plan, RF_GAP_UNIX_RENAME_DIR);
}

/* A socket another process made comes in over a unix socket to a process
 * outside: one the sandbox may connect to (an allowed name, or any), or one
 * it holds on fd 0-2 (known at run time only). A peer outside that the
 * sandbox cannot reach would have to find the sandbox's own listener, i.e.
 * be an accomplice, which could send the bytes itself. */
static bool socket_may_come_in(const struct rf_policy *p, const struct rf_plan_opts *o)
{
	return p->net_unix == RF_CONFINE_UNRESTRICTED || p->n_unix || (o && o->stdio_unix);
}

/* The connection ledger's unix peers (issue 22): counted where the kernel
 * has a way (caps->unix_bytes) and, before 6.7, the observe programs run
 * for this sandbox; a sandbox that can reach a unix peer (audit mode lets
 * every one through) is told when none is (on 6.7+ under --no-observe
 * their connections still are, their bytes null: limits.egress-unix). */
bool plan__unix_reach(const struct rf_plan *plan, const struct rf_policy *p)
{
	return p->net_unix == RF_CONFINE_UNRESTRICTED || p->n_unix || p->mode == RF_MODE_AUDIT ||
	       plan->stdio_unix;
}

static void plan_ledger_unix(struct rf_plan *plan, const struct rf_policy *p,
			     const struct rf_caps *caps)
{
	bool reach = plan__unix_reach(plan, p);
	bool counted = caps->unix_bytes == RF_UNIX_BYTES_TP ? caps->unix_sock_addr.ok :
		       caps->unix_bytes == RF_UNIX_BYTES_FEXIT && caps->observe.ok &&
		       !plan->observe_off;

	if (reach && !counted)
		add_gap(plan, RF_GAP_LEDGER_UNIX);
}

/* Second, independent layers. Audit mode must deny nothing, so no layer
 * that denies is added then. The kernel asks Landlock about a connect()
 * before the cgroup hook runs: its TCP-port layer would refuse unlisted
 * ports first (EACCES) and those denials would never reach the trace or
 * the monitor. So it is opt-in: --prefer landlock. */
/* Which way the names of network.connect are enforced: in the plan. */
static void plan_net_dns(struct rf_plan *plan, const struct rf_policy *policy)
{
	struct rf_class_plan *cp = &plan->c[RF_CLASS_NET];
	size_t i;

	if (cp->note != RF_NOTE_NONE || policy->net_connect != RF_CONFINE_ALLOWLIST)
		return;
	for (i = 0; i < policy->n_connect; i++)
		if (policy->connect[i].kind == RF_HOST_NAME) {
			cp->note = policy->dns.mode == RF_DNS_ONCE ? RF_NOTE_NET_DNS_ONCE :
								     RF_NOTE_NET_DNS_GATE;
			return;
		}
}

static void plan_net_layers(struct rf_plan *plan, const struct rf_policy *policy,
			    const struct rf_caps *caps, unsigned int prefer)
{
	const struct rf_class_plan *up = &plan->c[RF_CLASS_UNIX];

	if (policy->mode != RF_MODE_ENFORCE)
		return;
	if (plan->c[RF_CLASS_NET].enforced && landlock_ok(caps, 4) &&
	    (prefer & (1u << RF_BE_LANDLOCK))) {
		plan->install.landlock = plan->install.landlock_net = true;
		plan->c[RF_CLASS_NET].layers = RF_LAYER_LANDLOCK_TCP;
	}
	if (up->enforced && up->be == RF_BE_CGROUP_SOCK_ADDR && landlock_ok(caps, 6) &&
	    !has_abstract_rule(policy)) {
		plan->install.landlock = plan->install.landlock_scope_unix = true;
		plan->c[RF_CLASS_UNIX].layers = RF_LAYER_LANDLOCK_SCOPE_UNIX;
	}
}

void plan__landlock_unlogged(struct rf_plan *plan, const struct rf_caps *caps)
{
	enum rf_class c;

	for (c = RF_CLASS_FILE; c <= RF_CLASS_EXEC; c++)
		if (plan->c[c].observed == RF_OBSV_KERNEL_AUDIT)
			plan->c[c].observed = caps->observe.ok && !plan->observe_off ?
						      RF_OBSV_INFERRED : RF_OBSV_NONE;
}

/* A write entry that reaches /tmp itself: creating any name in the
 * host's shared /tmp. One for a directory below it (a place the caller
 * made) does not: that directory is the point, and a private /tmp would
 * hide it. */
static bool writes_tmp(const struct rf_policy *p)
{
	for (size_t i = 0; p->files == RF_CONFINE_ALLOWLIST && i < p->files_write.n; i++) {
		const struct rf_path_rule *w = &p->files_write.v[i];

		if (w->subtree && (!strcmp(w->path, "/") || !strcmp(w->path, "/tmp/")))
			return true;
	}
	return false;
}

static void plan_private(struct rf_plan *plan, const struct rf_policy *p)
{
	struct rf_plan_private *v = &plan->priv;

	if (p->limits.scratch.set && !strcmp(p->limits.scratch.path, "/tmp")) {
		v->tmp = false;
		v->tmp_why = RF_TMP_WHY_SCRATCH;
	} else if (p->files_tmp != RF_TMP_AUTO) {
		v->tmp = p->files_tmp == RF_TMP_PRIVATE;
		v->tmp_why = RF_TMP_WHY_POLICY;
	} else {
		v->tmp = writes_tmp(p);
		v->tmp_why = v->tmp ? RF_TMP_WHY_WRITE : RF_TMP_WHY_NO_WRITE;
	}
}

void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   const struct rf_plan_opts *opts, struct rf_plan *plan)
{
	unsigned int prefer = opts ? opts->prefer : 0;
	int k;

	memset(plan, 0, sizeof(*plan));
	plan->ok = true;
	plan->prefer = prefer;
	plan->lsm_state = lsm_state(caps);
	plan->install.landlock_abi = caps->landlock_abi;
	plan->observe_off = opts && opts->no_observe;
	plan->stdio_unix = opts && opts->stdio_unix;

	plan_fs_class(plan, RF_CLASS_FILE, policy->files, policy, caps, prefer);
	plan_fs_class(plan, RF_CLASS_EXEC, policy->exec, policy, caps, prefer);
	plan_sock_class(plan, RF_CLASS_NET, policy->net_connect, &caps->sock_addr);
	plan_net_dns(plan, policy);
	plan_unix(plan, policy, caps, prefer);
	/* The programs need a cgroup to key on. Not twice: a class already
	 * refused keeps its first reason. Every BPF backend keys on the
	 * sandbox's cgroup. */
	for (k = 0; k < RF_CLASS_MAX && !caps->cgroup_v2.ok; k++) {
		enum rf_class c = names__class_order[k];

		if (plan->c[c].enforced && (plan->c[c].be == RF_BE_CGROUP_SOCK_ADDR ||
					    plan->c[c].be == RF_BE_BPF_LSM))
			plan__refuse(plan, c, RF_WHY_NO_CGROUP2, 0, caps->cgroup_v2.detail);
	}
	plan_net_layers(plan, policy, caps, prefer);
	plan_process(plan, caps, opts);
	/* Routing-header options refused while the network is confined (not
	 * in audit mode, which denies nothing). */
	plan->install.seccomp_net_opts = plan->install.seccomp_task_targets &&
					 plan->c[RF_CLASS_NET].enforced &&
					 policy->mode == RF_MODE_ENFORCE;
	if (policy->mode == RF_MODE_ENFORCE && plan->c[RF_CLASS_UNIX].enforced &&
	    plan->c[RF_CLASS_UNIX].be == RF_BE_CGROUP_SOCK_ADDR)
		plan_unix_names(plan, policy);
	/* What neither seccomp nor Landlock can close here. */
	if (policy->mode == RF_MODE_ENFORCE && plan->c[RF_CLASS_PROCESS].be != RF_BE_BPF_LSM) {
		if (plan->c[RF_CLASS_NET].enforced && caps->ipv6_rthdr2)
			add_gap(plan, RF_GAP_NET_RTHDR_CMSG);
		if ((plan->c[RF_CLASS_NET].enforced || policy->limits.egress_bytes.set) &&
		    socket_may_come_in(policy, opts))
			add_gap(plan, RF_GAP_NET_PASSED_SOCKET);
		if (!plan->install.landlock_scope_signal)
			add_gap(plan, RF_GAP_PROCESS_SIGIO);
	}
	plan_syscalls(plan, policy, caps);
	plan_memory(plan, policy, caps);

	plan_limits(plan, &policy->limits, caps);
	plan_ledger_unix(plan, policy, caps);
	plan_private(plan, policy);
	if (policy->monitor.present) {
		struct rf_class_plan *mp = &plan->c[RF_CLASS_MONITOR];

		/* Thresholds for alerts, not limits: nothing here is enforced. */
		mp->request = RF_REQ_SET;
		mp->be = RF_BE_MONITOR;
		mp->note = RF_NOTE_MONITOR;
		if (policy->monitor.has_files)
			add_gap(plan, RF_GAP_MONITOR_FILES_UNSEEN);
	}
	if (opts)
		check_required(plan, opts->require, caps);
	if (opts && opts->strict)
		refuse_gaps(plan);
}
