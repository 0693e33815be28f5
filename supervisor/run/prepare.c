// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Everything a run or a check does before anything exists on the host:
 * load the policy, pick the probe, build the user-space backends (Landlock
 * ruleset, seccomp filters) that can still refuse the plan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launch/launch.h"
#include "log.h"
#include "prepare.h"
#include "sandbox.h"
#include "backends/seccomp_cache.h"

/* Every invalid entry, one a line: a person fixes them all in one go. */
static void print_policy_errors(const char *path, const struct rf_policy_errors *all)
{
	size_t i;

	rf_err("policy %s: %zu%s invalid entries:", path, all->n, all->truncated ? "+" : "");
	for (i = 0; i < all->n; i++) {
		char line[sizeof(all->v[i].where) + sizeof(all->v[i].why) + sizeof(all->v[i].hint)];

		fprintf(stderr, "ringfence:   - %s\n", rf_error_str(&all->v[i], line, sizeof(line)));
	}
	if (all->truncated)
		fprintf(stderr, "ringfence:   (stopped after %d; fix these and check again)\n",
			RF_POLICY_ERRORS_MAX);
}

int prepare__load_policy(const char *path, struct rf_policy **ret, struct rf_error *e)
{
	struct rf_policy_errors *all = malloc(sizeof(*all));   /* set by the load */
	char outer[sizeof(e->where)];
	int err;

	if (!all)
		return rf_error_set(e, -ENOMEM, "policy", "out of memory");
	err = policy__load_file_all(path, ret, e, all);
	if (err && all->n > 1) {
		print_policy_errors(path, all);
		e->why[0] = '\0';           /* reported above */
	} else if (err) {
		snprintf(outer, sizeof(outer), "policy %s", path);
		rf_error_wrap(e, outer);
	}
	free(all);
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
	 * tried, so the strongest backend is used wherever it exists. The
	 * audit's status decides only how Landlock's file and exec denials
	 * are observed (plan.c): read only when one of those is confined,
	 * and an answer "off" of the last 30 s reused (probe.c says why that
	 * observes every denial still). */
	(void)o;
	return RF_PROBE_LSM |
	       (p->files != RF_CONFINE_UNRESTRICTED || p->exec != RF_CONFINE_UNRESTRICTED ?
		RF_PROBE_AUDIT | RF_PROBE_AUDIT_REUSE_OFF : 0);
}

/* Started from below the scratch path, the command's cwd would be the
 * host's directory the tmpfs hides (reachable through "."): refused. The
 * scratch path itself is fine: the launcher moves it into the tmpfs. */
static void prepare_scratch_cwd(struct rf_plan *plan, const char *sp)
{
	char cwd[RF_PLAN_DETAIL_LEN];
	int r = launch__cwd_within(sp, cwd, sizeof(cwd));

	if (r < 0)
		plan__refuse_limit(plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_CWD, r, cwd);
	else if (r == 2)
		plan__refuse_limit(plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_CWD, 0, cwd);
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
		else
			prepare_scratch_cwd(plan, sp);
		if (!plan->ok)
			return 0;
	}
	/* A private /tmp hides the host's: a cwd below it would be that
	 * hidden directory (/tmp itself is entered: the launcher). By default
	 * such a command keeps the host's /tmp, where its files are; one the
	 * policy asks a private /tmp for is refused. */
	if (plan->priv.tmp) {
		char cwd[RF_PLAN_DETAIL_LEN];
		int r = launch__cwd_within("/tmp", cwd, sizeof(cwd));

		if (r == 2 && plan->priv.tmp_why == RF_TMP_WHY_WRITE) {
			plan->priv.tmp = false;
			plan->priv.tmp_why = RF_TMP_WHY_CWD;
		} else if (r < 0 || r == 2) {
			plan__refuse(plan, RF_CLASS_FILE, RF_WHY_TMP_CWD, r < 0 ? r : 0, cwd);
		}
		if (!plan->ok)
			return 0;
	}
	if (in->seccomp_boundary || in->seccomp_allowlist) {
		unsigned int holes = (in->seccomp_fs_meta ? RF_SECCOMP_HOLE_FS_META : 0) |
				     (in->seccomp_fs_ioctl ? RF_SECCOMP_HOLE_FS_IOCTL : 0) |
				     (in->seccomp_memfd_noexec ? RF_SECCOMP_HOLE_MEMFD : 0) |
				     (in->seccomp_net_opts ? RF_SECCOMP_HOLE_NET_OPTS : 0) |
				     (in->seccomp_task_targets ? RF_SECCOMP_HOLE_TASKS : 0) |
				     (in->seccomp_wx ? RF_SECCOMP_HOLE_WX : 0);

		err = seccomp_cache__build_notify(p, in->seccomp_boundary, holes,
						  in->seccomp_notify, sc, &be);
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
			.private_tmp = plan->priv.tmp,
			.unix_names = in->landlock_unix_names,
		};

		be = (struct rf_error){ 0 };
		err = sandbox_landlock__build(p, &lo, ll, &be);
		rf_error_str(&be, why, sizeof(why));
		if (err == -EINVAL && ll->n_refusals) {
			/* Every entry Landlock cannot take, one reason each. */
			for (size_t i = 0; i < ll->n_refusals; i++)
				plan__refuse(plan, ll->refusals[i].cls, RF_WHY_LANDLOCK_ENTRY, 0,
					     ll->refusals[i].text);
		} else if (err == -EINVAL) {
			plan__refuse(plan, ll->refused_class, RF_WHY_LANDLOCK_ENTRY, 0, why);
		} else if (err) {
			plan__refuse(plan, lo.fs ? RF_CLASS_FILE : RF_CLASS_PROCESS,
				     RF_WHY_LANDLOCK_BUILD, err, why);
		}
	}
	return 0;
}
