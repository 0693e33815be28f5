// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Everything a run or a check does before anything exists on the host:
 * load the policy, pick the probe, build the user-space backends (Landlock
 * ruleset, seccomp filters) that can still refuse the plan.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "sandbox.h"

int prepare__load_policy(const char *path, struct rf_policy **ret, struct rf_error *e)
{
	char outer[sizeof(e->where)];
	int err;

	err = policy__load_file(path, ret, e);
	if (err) {
		snprintf(outer, sizeof(outer), "policy %s", path);
		rf_error_wrap(e, outer);
	}
	return err;
}

void prepare__print_refusal(const struct rf_plan *plan)
{
	int i;

	rf_err("refused: this policy cannot be enforced on this kernel (%d reason%s):",
	       plan->n_reasons, plan->n_reasons == 1 ? "" : "s");
	for (i = 0; i < plan->n_reasons; i++) {
		char line[RF_PLAN_REASON_LEN];

		plan__reason_text(plan, i, line, sizeof(line));
		fprintf(stderr, "ringfence:   - %s\n", line);
	}
}

unsigned int prepare__probe_flags(const struct rf_policy *p, const struct rf_plan_opts *o)
{
	/* bpf-lsm would serve the process boundary of every sandbox: always
	 * tried, so the strongest backend is used wherever it exists. */
	(void)p;
	(void)o;
	return RF_PROBE_LSM;
}

/*
 * The backends that are built in user space before the child exists:
 * the Landlock ruleset (needs every path to exist: an entry it cannot
 * express refuses the plan) and the seccomp filters (an unknown syscall
 * name is a policy error). Returns 0, or -EINVAL with e filled (a policy
 * error). A Landlock refusal lands in the plan.
 */
int prepare__backends(const struct rf_policy *p, struct rf_plan *plan,
		      struct rf_landlock *ll, struct rf_seccomp *sc, struct rf_error *e)
{
	const struct rf_plan_install *in = &plan->install;
	struct rf_error be = { 0 };   /* a backend's refusal, kept in the plan */
	char why[700] = "";
	int err;

	ll->ruleset_fd = -1;
	if (!plan->ok)
		return 0;
	/* The tmpfs goes over an existing directory (resolved now, and again
	 * by the launcher's mount). */
	if (plan->limits[RF_LIMIT_SCRATCH].set) {
		struct stat st;
		const char *sp = p->limits.scratch.path;

		if (stat(sp, &st) < 0)
			plan__refuse_limit(plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_PATH, -errno, sp);
		else if (!S_ISDIR(st.st_mode))
			plan__refuse_limit(plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_PATH, 0, sp);
		if (!plan->ok)
			return 0;
	}
	if (in->seccomp_boundary || in->seccomp_allowlist) {
		err = sandbox_seccomp__build_notify(p, in->seccomp_boundary, in->seccomp_notify,
						    sc, &be);
		if (err == -EINVAL) {
			*e = be;
			return rf_error_wrap(e, "policy");
		}
		if (err) {
			rf_error_str(&be, why, sizeof(why));
			plan__refuse(plan, in->seccomp_allowlist ? RF_CLASS_SYSCALLS : RF_CLASS_PROCESS,
				     RF_WHY_SECCOMP_BUILD, err, why);
			return 0;
		}
	}
	if (in->landlock) {
		struct rf_landlock_opts lo = {
			.abi = in->landlock_abi,
			.fs = in->landlock_fs,
			.net_connect = in->landlock_net,
			.scope_abstract_unix = in->landlock_scope_unix,
			.scope_signal = in->landlock_scope_signal,
			.approximate = p->approximate,
		};

		be = (struct rf_error){ 0 };
		err = sandbox_landlock__build(p, &lo, ll, &be);
		rf_error_str(&be, why, sizeof(why));
		if (err == -EINVAL)
			plan__refuse(plan, ll->refused_class, RF_WHY_LANDLOCK_ENTRY, 0, why);
		else if (err)
			plan__refuse(plan, lo.fs ? RF_CLASS_FILE : RF_CLASS_PROCESS,
				     RF_WHY_LANDLOCK_BUILD, err, why);
	}
	return 0;
}
