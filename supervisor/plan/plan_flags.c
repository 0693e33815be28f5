// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sandbox's flags in the kernel's map (rf_sandbox.flags), decided from
 * the plan and the policy: a leaf of the planner, pure. */
#include "plan.h"

bool plan__observed_class(const struct rf_plan *plan, enum rf_class c)
{
	const struct rf_class_plan *cp = &plan->c[c];

	return cp->request != RF_REQ_UNRESTRICTED && cp->request != RF_REQ_ABSENT &&
	       (cp->be == RF_BE_LANDLOCK || cp->be == RF_BE_SECCOMP);
}

/* Its denials are inferred from failed syscalls: not when Landlock logs
 * them itself (read from the kernel's audit), which needs no tracepoint. */
static bool inferred_paths(const struct rf_plan *plan, enum rf_class c)
{
	return plan__observed_class(plan, c) && plan->c[c].observed != RF_OBSV_KERNEL_AUDIT;
}

bool plan__tracepoints(const struct rf_plan *plan)
{
	return !plan->observe_off &&
	       (inferred_paths(plan, RF_CLASS_FILE) || inferred_paths(plan, RF_CLASS_EXEC) ||
		(plan->install.seccomp_boundary && !plan->install.seccomp_notify));
}

bool plan__exec_tracepoint(const struct rf_plan *plan)
{
	return !plan->observe_off && plan->install.loader_kill;
}

static uint32_t observe_flags(const struct rf_plan *plan, const struct rf_policy *p)
{
	uint32_t f = 0;

	if (inferred_paths(plan, RF_CLASS_FILE) || inferred_paths(plan, RF_CLASS_EXEC)) {
		f |= RF_SB_OBSERVE_PATHS;
		if (p->mode == RF_MODE_AUDIT)
			f |= RF_SB_OBSERVE_ACCESS;
	}
	/* The filter refuses before any LSM runs: under bpf-lsm too. A
	 * notifying boundary's refusals come from its listener instead. */
	if (plan->install.seccomp_boundary && !plan->install.seccomp_notify)
		f |= RF_SB_OBSERVE_BOUNDARY;
	return f;
}

uint32_t plan__sandbox_flags(const struct rf_plan *plan, const struct rf_policy *p,
			     bool observing)
{
	uint32_t f = plan->install.lsm_flags;

	if (p->mode == RF_MODE_AUDIT)
		f |= RF_SB_AUDIT;
	if (p->net_connect == RF_CONFINE_UNRESTRICTED)
		f |= RF_SB_NET_UNRESTRICTED;
	if (p->net_unix == RF_CONFINE_UNRESTRICTED)
		f |= RF_SB_UNIX_UNRESTRICTED;
	if (observing && plan__tracepoints(plan))
		f |= observe_flags(plan, p);
	/* the exec tracepoint alone: once per exec, not per syscall */
	if (observing && plan__exec_tracepoint(plan))
		f |= RF_SB_OBSERVE_LOADER;
	return f;
}
