/* Planner unit tests: the fail-closed logic against stated kernel
 * capabilities (no probing, no kernel). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plan/plan.h"
#include "policy/policy.h"
#include "rf_abi.h"

/* This development host: everything but bpf-lsm. */
static struct rf_caps caps_host(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	c.cgroup_v2.ok = c.sock_addr.ok = c.unix_sock_addr.ok = true;
	c.landlock.ok = c.seccomp.ok = true;
	c.landlock_abi = 7;
	c.bpf_lsm.err = -1;
	snprintf(c.bpf_lsm.detail, sizeof(c.bpf_lsm.detail), "load: Operation not permitted");
	return c;
}

/* A kernel with nothing ringfence can use. */
static struct rf_caps caps_none(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "no cgroup2 to attach to");
	snprintf(c.unix_sock_addr.detail, sizeof(c.unix_sock_addr.detail), "no cgroup2");
	snprintf(c.landlock.detail, sizeof(c.landlock.detail), "landlock_create_ruleset: ENOSYS");
	return c;
}

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err;

	if (policy__load_string(json, &p, &err))
		fail_msg("%s: %s", err.where, err.why);
	return p;
}

/* A refusal of class c (RF_CLASS_MAX: --require) with this code. */
static bool has_reason(const struct rf_plan *plan, enum rf_class c, enum rf_plan_why code)
{
	int i;

	for (i = 0; i < plan->n_reasons; i++)
		if (plan->reasons[i].code == code &&
		    (c == RF_CLASS_MAX || plan->reasons[i].cls == c))
			return true;
	return false;
}

/* Class c lost its backend to a refusal of its own. */
static bool refused(const struct rf_plan *plan, enum rf_class c)
{
	return plan->c[c].note == RF_NOTE_REFUSED && !plan->c[c].enforced &&
	       plan->reasons[plan->c[c].reason].cls == c;
}

#define UNRESTRICTED_FX "\"files\":\"unrestricted\",\"exec\":\"unrestricted\""

static void planner_network_allowlist_uses_cgroup_sock_addr_and_landlock_layer(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[\"127.0.0.1:80\"]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	struct rf_plan_opts prefer = { .prefer = 1u << RF_BE_LANDLOCK };

	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_NET].be, RF_BE_CGROUP_SOCK_ADDR);
	assert_true(plan.c[RF_CLASS_NET].enforced);
	/* the TCP-port layer would hide denials from the trace: opt-in */
	assert_false(plan.install.landlock_net);
	plan__compile(p, &c, &prefer, &plan);
	assert_int_equal(plan.c[RF_CLASS_NET].layers, RF_LAYER_LANDLOCK_TCP);
	assert_true(plan.install.landlock_net);
	/* "unix" absent inside "network": an empty allowlist, still enforced */
	assert_int_equal(plan.c[RF_CLASS_UNIX].request, RF_REQ_ALLOWLIST);
	assert_true(plan.c[RF_CLASS_UNIX].enforced);
	assert_true(plan.install.landlock_scope_unix);
	assert_int_equal(plan.c[RF_CLASS_FILE].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_CLASS_FILE].enforced);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_NONE);
	assert_int_equal(plan.c[RF_CLASS_FILE].note, RF_NOTE_UNRESTRICTED);
	assert_false(plan.install.landlock_fs);
	policy__free(p);
}

/* Omitted files and exec mean deny-all: Landlock enforces them here. */
static void planner_omitted_files_and_exec_go_to_landlock(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].request, RF_REQ_DENY_ALL);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_LANDLOCK);
	assert_int_equal(plan.c[RF_CLASS_EXEC].be, RF_BE_LANDLOCK);
	assert_int_equal(plan.install.landlock_abi, 7);
	assert_int_equal(plan.c[RF_CLASS_FILE].note, RF_NOTE_LANDLOCK_FILE);
	assert_int_equal(plan.c[RF_CLASS_EXEC].note, RF_NOTE_LANDLOCK_EXEC);
	assert_true(plan.install.landlock_fs);
	policy__free(p);
}

/* Without Landlock (or bpf-lsm) the same policy is refused, per class. */
static void planner_refuses_files_and_exec_without_landlock(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.landlock.ok = false;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(plan.c[RF_CLASS_FILE].required);
	assert_false(plan.c[RF_CLASS_FILE].enforced);
	assert_true(has_reason(&plan, RF_CLASS_FILE, RF_WHY_NO_FS_BACKEND));
	assert_true(has_reason(&plan, RF_CLASS_EXEC, RF_WHY_NO_FS_BACKEND));
	assert_true(refused(&plan, RF_CLASS_FILE));
	assert_true(refused(&plan, RF_CLASS_EXEC));
	assert_int_equal(plan.n_reasons, 2);
	policy__free(p);
}

/* Landlock below ABI 3 cannot confine truncate(): broader than asked. */
static void planner_refuses_files_on_landlock_abi_2(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"exec\":\"unrestricted\"}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.landlock_abi = 2;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_FILE, RF_WHY_LANDLOCK_TRUNCATE));
	assert_int_equal(plan.reasons[0].param, 2);
	assert_false(plan.install.landlock_net);       /* ABI 4 */
	assert_false(plan.install.landlock_scope_signal); /* ABI 6 */
	policy__free(p);
}

/* Audit mode must deny nothing: Landlock cannot record without denying,
 * so under it audit needs the observe programs, and Landlock's file rules
 * are left out. */
static void planner_audit_under_landlock_observes_and_adds_no_denying_layer(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\","
				   "\"exec\":\"unrestricted\",\"network\":{\"connect\":[]}}");
	struct rf_policy *q = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\","
				   UNRESTRICTED_FX ",\"network\":{\"connect\":[]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_FILE, RF_WHY_AUDIT_LANDLOCK));
	c.observe.ok = true;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_LANDLOCK);
	assert_int_equal(plan.c[RF_CLASS_FILE].note, RF_NOTE_LANDLOCK_AUDIT);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_AUDIT_INFERRED);
	assert_false(plan.install.landlock_fs);
	/* the process boundary stays: seccomp still refuses, observed */
	assert_true(plan.install.seccomp_boundary);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_INFERRED);
	c.observe.ok = false;
	plan__compile(q, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.install.landlock_net);
	assert_false(plan.install.landlock_scope_unix);
	assert_int_equal(plan.c[RF_CLASS_NET].layers, 0);
	policy__free(p);
	policy__free(q);
}

static void planner_refuses_network_without_sock_addr(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[],\"unix\":\"unrestricted\"}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.sock_addr.ok = false;
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "load: Operation not permitted");
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_NET, RF_WHY_SOCK_ADDR));
	assert_string_equal(plan.reasons[0].detail, "load: Operation not permitted");
	assert_false(plan.c[RF_CLASS_UNIX].required);
	assert_false(plan.install.landlock_net); /* no layer under a refused class */
	policy__free(p);
}

/* A policy that restricts unix sockets on a kernel without the unix
 * hooks is refused; one leaving them unrestricted runs. */
static void planner_unix_needs_connect_unix_hooks(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[\"127.0.0.1:80\"],\"unix\":[\"/run/x.sock\"]}}");
	struct rf_policy *q = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[\"127.0.0.1:80\"],\"unix\":\"unrestricted\"}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.unix_sock_addr.ok = false;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_UNIX, RF_WHY_SOCK_ADDR));
	assert_int_equal(plan.n_reasons, 1);
	plan__compile(q, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_UNIX].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_CLASS_UNIX].enforced);
	policy__free(p);
	policy__free(q);
}

/* An allowed abstract name: no abstract scoping layer (it would cut it). */
static void planner_no_abstract_scoping_when_an_abstract_name_is_allowed(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"unix\":[\"@bus\"]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.install.landlock_scope_unix);
	policy__free(p);
}

static void planner_refuses_without_cgroup2(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX "}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.cgroup_v2.ok = false;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_NET, RF_WHY_NO_CGROUP2));
	assert_true(has_reason(&plan, RF_CLASS_UNIX, RF_WHY_NO_CGROUP2));
	/* in the order the plan lists classes */
	assert_int_equal(plan.reasons[0].cls, RF_CLASS_NET);
	policy__free(p);
}

/* The process boundary: seccomp where the kernel has it, with Landlock
 * signal scoping from ABI 6; capabilities alone otherwise, and the gaps
 * are named. */
static void planner_process_boundary_by_capability(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":\"unrestricted\"}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].be, RF_BE_SECCOMP);
	assert_true(plan.install.seccomp_boundary);
	assert_true(plan.install.landlock_scope_signal);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].layers,
			 RF_LAYER_CAPABILITIES | RF_LAYER_LANDLOCK_SCOPE_SIGNAL);
	c.seccomp.ok = false;
	c.landlock_abi = 5;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].be, RF_BE_CAPABILITIES);
	assert_false(plan.install.seccomp_boundary);
	assert_false(plan.install.landlock_scope_signal);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].layers, RF_LAYER_CAPABILITIES);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].note, RF_NOTE_PROCESS);
	policy__free(p);
}

static void assert_note(const struct rf_plan *plan, enum rf_class c, const char *want);

static void planner_syscalls_go_to_seccomp_alert_to_monitor_audit_refused(void **state)
{
	struct rf_policy *deny = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				      "\"syscalls\":{\"allow\":[\"read\"]}}");
	struct rf_policy *alert = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				       "\"syscalls\":{\"allow\":[\"read\"],\"on_violation\":\"alert\"}}");
	struct rf_policy *audit = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\","
				       UNRESTRICTED_FX ",\"syscalls\":{\"allow\":[\"read\"]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(deny, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_SYSCALLS].be, RF_BE_SECCOMP);
	assert_int_equal(plan.c[RF_CLASS_SYSCALLS].note, RF_NOTE_SYSCALLS_SECCOMP);
	assert_true(plan.install.seccomp_allowlist);
	/* alert: accepted, reported by the monitor, never called enforced */
	plan__compile(alert, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.install.seccomp_allowlist);
	assert_false(plan.c[RF_CLASS_SYSCALLS].enforced);
	assert_int_equal(plan.c[RF_CLASS_SYSCALLS].be, RF_BE_MONITOR);
	assert_int_equal(plan.c[RF_CLASS_SYSCALLS].note, RF_NOTE_SYSCALLS_ALERT);
	/* with the observe programs: the profile goes into the listener's
	 * filter in both modes (alert: let through, reported) */
	c.observe.ok = true;
	plan__compile(alert, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_true(plan.install.seccomp_allowlist);
	assert_true(plan.install.seccomp_notify);
	assert_false(plan.c[RF_CLASS_SYSCALLS].enforced);
	assert_note(&plan, RF_CLASS_SYSCALLS, "alert: calls outside the profile are reported by "
		    "ringfence-monitor (when it runs), never denied; the supervisor's seccomp "
		    "listener answers calls outside the profile and traces and publishes the "
		    "first of each syscall for ringfence-monitor");
	plan__compile(deny, &c, NULL, &plan);
	assert_true(plan.install.seccomp_allowlist);
	assert_true(plan.install.seccomp_notify);
	c.observe.ok = false;
	plan__compile(audit, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_SYSCALLS, RF_WHY_SYSCALLS_AUDIT));
	c.seccomp.ok = false;
	plan__compile(deny, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_SYSCALLS, RF_WHY_NO_SECCOMP));
	policy__free(deny);
	policy__free(alert);
	policy__free(audit);
}

/* Monitor thresholds are detection, not enforcement: accepted, and
 * never reported as enforced. */
static void planner_monitor_thresholds_are_accepted_not_enforced(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"monitor\":{\"pids\":5}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.c[RF_CLASS_MONITOR].enforced);
	assert_false(plan.c[RF_CLASS_MONITOR].required);
	assert_int_equal(plan.c[RF_CLASS_MONITOR].be, RF_BE_MONITOR);
	assert_int_equal(plan.c[RF_CLASS_MONITOR].note, RF_NOTE_MONITOR);
	policy__free(p);
}

/* Every class refused at once, on a kernel with nothing: one reason each. */
static void planner_lists_each_refused_class_once(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"limits\":{\"pids\":10},"
				   "\"syscalls\":{\"allow\":[\"read\"]},\"monitor\":{\"pids\":5}}");
	struct rf_caps c = caps_none();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_int_equal(plan.n_reasons, 6); /* file exec network unix syscalls limits */
	policy__free(p);
}

/* This host's hybrid cgroup2: wall clock, output and scratch are held by
 * the supervisor and tmpfs; memory, pids and cpu are refused, one reason
 * each, naming the missing controller. */
static void planner_limits_per_limit_backends(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"wall_seconds\":5,\"output_bytes\":1000,"
				   "\"scratch\":{\"path\":\"/tmp\",\"size_mb\":8}}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;
	json_t *o, *l;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_true(plan.c[RF_CLASS_LIMITS].enforced);
	assert_true(plan.c[RF_CLASS_LIMITS].required);
	assert_int_equal(plan.limits[RF_LIMIT_WALL].be, RF_BE_SUPERVISOR);
	assert_int_equal(plan.limits[RF_LIMIT_OUTPUT].be, RF_BE_SUPERVISOR);
	assert_int_equal(plan.limits[RF_LIMIT_SCRATCH].be, RF_BE_TMPFS);
	assert_int_equal(plan.limits[RF_LIMIT_SCRATCH].value, 8);
	assert_false(plan.limits[RF_LIMIT_MEMORY].set);
	plan__backend_text(&plan, RF_CLASS_LIMITS, text, sizeof(text));
	assert_string_equal(text, "supervisor, tmpfs");
	o = plan__to_json(&plan);
	l = json_object_get(json_object_get(json_object_get(o, "classes"), "limits"), "limits");
	assert_int_equal(json_object_size(l), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(l, "output_bytes"),
							      "backend")), "supervisor");
	json_decref(o);
	policy__free(p);

	p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
		 "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
		 "\"limits\":{\"memory_mb\":64,\"pids\":10,\"cpu_percent\":20,\"wall_seconds\":1}}");
	c.cgroup_ctrl[RF_LIMIT_PIDS].ok = true;
	snprintf(c.cgroup_ctrl[RF_LIMIT_MEMORY].detail, sizeof(c.cgroup_ctrl[0].detail),
		 "the memory controller is not in the cgroup2 hierarchy at /c");
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_false(plan.c[RF_CLASS_LIMITS].enforced);
	assert_int_equal(plan.n_reasons, 2);      /* memory and cpu; pids is there */
	assert_true(plan.limits[RF_LIMIT_PIDS].enforced);
	assert_true(plan.limits[RF_LIMIT_WALL].enforced);
	assert_false(plan.limits[RF_LIMIT_MEMORY].enforced);
	assert_int_equal(plan.limits[RF_LIMIT_MEMORY].reason, 0);
	assert_int_equal(plan.limits[RF_LIMIT_CPU].reason, 1);
	plan__reason_text(&plan, 0, text, sizeof(text));
	assert_string_equal(text, "limits: memory_mb: cgroup-v2-memory cannot be enforced here: "
			    "the memory controller is not in the cgroup2 hierarchy at /c; remove "
			    "it to run without it");
	/* The class's note is its first refusal. */
	plan__note_text(&plan, RF_CLASS_LIMITS, text, RF_PLAN_NOTE_LEN);
	assert_true(strstr(text, "memory_mb: cgroup-v2-memory cannot be enforced here") == text);
	/* Without cgroup2 at all, the limits that need it say so. */
	c.cgroup_v2.ok = false;
	snprintf(c.cgroup_v2.detail, sizeof(c.cgroup_v2.detail), "find a cgroup2 mount: ENOENT");
	plan__compile(p, &c, NULL, &plan);
	assert_true(has_reason(&plan, RF_CLASS_LIMITS, RF_WHY_LIMIT_NO_CGROUP2));
	policy__free(p);
}

/* --require cgroup-v2-pids holds only where pids is enforced. */
static void planner_limits_require(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"pids\":10}}");
	struct rf_plan_opts o = { .require = 1u << RF_BE_CGROUP_PIDS };
	struct rf_caps c = caps_host();
	struct rf_plan plan;

	(void)state;
	c.cgroup_ctrl[RF_LIMIT_PIDS].ok = true;
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	o.require = 1u << RF_BE_SUPERVISOR;
	plan__compile(p, &c, &o, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_MAX, RF_WHY_REQUIRE_UNUSED));
	policy__free(p);
}

/* A limit refused after planning (the scratch directory is missing). */
static void planner_limits_refused_later(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"wall_seconds\":3,"
				   "\"scratch\":{\"path\":\"/nope\",\"size_mb\":1}}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	plan__refuse_limit(&plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_PATH, 0, "/nope");
	assert_false(plan.ok);
	assert_false(plan.c[RF_CLASS_LIMITS].enforced);
	assert_false(plan.limits[RF_LIMIT_SCRATCH].enforced);
	assert_true(plan.limits[RF_LIMIT_WALL].enforced);
	plan__note_text(&plan, RF_CLASS_LIMITS, text, RF_PLAN_NOTE_LEN);
	assert_string_equal(text, "scratch: \"/nope\" is not a directory");
	plan__backend_text(&plan, RF_CLASS_LIMITS, text, sizeof(text));
	assert_string_equal(text, "");
	policy__free(p);
}

/* The VM's kernel: BPF-LSM works, the cgroup unix hooks do not. */
static struct rf_caps caps_lsm(void)
{
	struct rf_caps c = caps_host();

	c.bpf_lsm.ok = c.bpf_lsm_enforcer.ok = true;
	c.bpf_lsm.err = 0;
	c.unix_sock_addr.ok = false;
	return c;
}

static void planner_bpf_lsm_takes_file_exec_unix_process(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":{\"unix\":[\"/run/x\"]}}");
	struct rf_caps c = caps_lsm();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_BPF_LSM);
	assert_int_equal(plan.c[RF_CLASS_EXEC].be, RF_BE_BPF_LSM);
	assert_int_equal(plan.c[RF_CLASS_UNIX].be, RF_BE_BPF_LSM);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].be, RF_BE_BPF_LSM);
	assert_int_equal(plan.c[RF_CLASS_NET].be, RF_BE_CGROUP_SOCK_ADDR);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].layers, RF_LAYER_CAPABILITIES | RF_LAYER_SECCOMP |
							  RF_LAYER_LANDLOCK_SCOPE_SIGNAL);
	assert_int_equal(plan.install.lsm_flags, RF_SB_LSM_FILES | RF_SB_LSM_EXEC |
						 RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS);
	assert_false(plan.install.landlock_fs);
	assert_true(plan.install.seccomp_boundary); /* still a layer */
	policy__free(p);
}

/* The sandbox's flags in the kernel's map come from the planner: the
 * classes the BPF-LSM judges, audit mode, unconfined network or unix, and
 * what the observe programs watch (none when they are not there). */
static void planner_sandbox_flags(void **state)
{
	enum caps_kind { HOST, HOST_OBSERVE, HOST_LL_LOG, LSM };
	static const struct {
		const char *name;
		enum caps_kind caps;
		const char *policy;      /* after {"version":1,"id":"a", */
		uint32_t want, want_unobserved;
	} cases[] = {
		{ "deny-all on landlock", HOST, "}",
		  RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY, 0 },
		/* audit on landlock needs the observe programs: the listener too */
		{ "audit on landlock", HOST_OBSERVE, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS, RF_SB_AUDIT },
		{ "nothing confined", HOST, UNRESTRICTED_FX ",\"network\":\"unrestricted\"}",
		  RF_SB_NET_UNRESTRICTED | RF_SB_UNIX_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_NET_UNRESTRICTED | RF_SB_UNIX_UNRESTRICTED },
		{ "connect unrestricted, unix confined", HOST,
		  UNRESTRICTED_FX ",\"network\":{\"connect\":\"unrestricted\",\"unix\":[]}}",
		  RF_SB_NET_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY, RF_SB_NET_UNRESTRICTED },
		{ "unix unrestricted, connect confined", HOST,
		  UNRESTRICTED_FX ",\"network\":{\"connect\":[],\"unix\":\"unrestricted\"}}",
		  RF_SB_UNIX_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY, RF_SB_UNIX_UNRESTRICTED },
		{ "the listener answers the boundary", HOST_OBSERVE, "}", RF_SB_OBSERVE_PATHS, 0 },
		{ "landlock logs its own denials", HOST_LL_LOG, "}", 0, 0 },
		{ "audit, landlock logging", HOST_LL_LOG, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS, RF_SB_AUDIT },
		{ "bpf-lsm judges", LSM, "\"network\":{\"unix\":[\"/run/x\"]}}",
		  RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS |
			  RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS },
		{ "bpf-lsm, audit", LSM, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX |
			  RF_SB_LSM_PROCESS | RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_AUDIT | RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX |
			  RF_SB_LSM_PROCESS },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_caps c = cases[i].caps == LSM ? caps_lsm() : caps_host();
		char json[512];
		struct rf_policy *p;
		struct rf_plan plan;
		uint32_t got, got_unobserved;

		c.observe.ok = cases[i].caps == HOST_OBSERVE || cases[i].caps == HOST_LL_LOG;
		c.landlock_audit_log = cases[i].caps == HOST_LL_LOG;
		snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\"%s%s",
			 cases[i].policy[0] == '}' ? "" : ",", cases[i].policy);
		p = load(json);
		plan__compile(p, &c, NULL, &plan);
		if (!plan.ok)
			fail_msg("%s: the plan is refused", cases[i].name);
		got = plan__sandbox_flags(&plan, p, true);
		got_unobserved = plan__sandbox_flags(&plan, p, false);
		policy__free(p);
		if (got != cases[i].want || got_unobserved != cases[i].want_unobserved)
			fail_msg("%s: flags 0x%x (unobserved 0x%x), want 0x%x (0x%x)",
				 cases[i].name, got, got_unobserved, cases[i].want,
				 cases[i].want_unobserved);
	}
}

/* Issue 13: other processes' scheduling and routing options go to the
 * seccomp layer only where no BPF-LSM program judges them, and what
 * neither can close there is a gap of the plan. */
static void planner_net_task_holes_and_gaps_by_backend(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":"
				   "{\"connect\":[\"[::1]:1\"],\"unix\":[]}}");
	struct rf_policy *open_net = load("{\"version\":1,\"id\":\"a\",\"network\":"
					  "{\"connect\":\"unrestricted\",\"unix\":[]}}");
	struct rf_caps host = caps_host(), lsm = caps_lsm();
	struct rf_plan plan;

	(void)state;
	host.ipv6_rthdr2 = lsm.ipv6_rthdr2 = true;
	plan__compile(p, &host, NULL, &plan);
	assert_true(plan.install.seccomp_task_targets);
	assert_true(plan.install.seccomp_net_opts);
	assert_true(plan.gaps & (1ull << RF_GAP_NET_RTHDR_CMSG));
	assert_false(plan.gaps & (1ull << RF_GAP_PROCESS_SIGIO));   /* Landlock scoping */
	host.ipv6_rthdr2 = false;                                   /* no MIP6: no gap */
	host.landlock_abi = 5;                                      /* no signal scoping */
	plan__compile(p, &host, NULL, &plan);
	assert_false(plan.gaps & (1ull << RF_GAP_NET_RTHDR_CMSG));
	assert_true(plan.gaps & (1ull << RF_GAP_PROCESS_SIGIO));
	plan__compile(open_net, &host, NULL, &plan);
	assert_true(plan.install.seccomp_task_targets);
	assert_false(plan.install.seccomp_net_opts);
	plan__compile(p, &lsm, NULL, &plan);
	assert_false(plan.install.seccomp_task_targets);
	assert_false(plan.install.seccomp_net_opts);
	assert_false(plan.gaps & ((1ull << RF_GAP_NET_RTHDR_CMSG) | (1ull << RF_GAP_PROCESS_SIGIO)));
	policy__free(p);
	policy__free(open_net);
}

/* bpf-lsm can record without denying: audit mode is fine with it. */
static void planner_bpf_lsm_allows_audit_mode(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\"}");
	struct rf_caps c = caps_lsm();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_BPF_LSM);
	policy__free(p);
}

static void planner_bpf_lsm_refuses_paths_longer_than_its_matcher(void **state)
{
	char json[1024], path[300];
	struct rf_policy *p;
	struct rf_caps c = caps_lsm();
	struct rf_plan plan;

	(void)state;
	memset(path, 'a', 250);
	path[0] = '/';
	path[250] = 0;
	snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\",\"exec\":\"unrestricted\","
		 "\"files\":{\"read\":[\"%s\"]}}", path);
	p = load(json);
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_FILE, RF_WHY_LSM_PATH_TOO_LONG));
	assert_int_equal(plan.reasons[0].param, RF_PATH_MAX);
	assert_int_equal(strlen(plan.reasons[0].detail), 80); /* only its start is shown */
	policy__free(p);
}

static void planner_prefer_landlock_over_bpf_lsm_for_files(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_lsm();
	struct rf_plan_opts o = { .prefer = 1u << RF_BE_LANDLOCK };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].be, RF_BE_LANDLOCK);
	assert_true(plan.install.landlock_fs);
	assert_false(plan.install.lsm_flags & RF_SB_LSM_FILES);
	policy__free(p);
}

/* --keep-caps is a test mode for proving the LSM boundary alone: refused
 * without bpf-lsm; with it, no seccomp or landlock layer is added. */
static void planner_keep_caps_needs_bpf_lsm(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps host = caps_host(), lsm = caps_lsm();
	struct rf_plan_opts o = { .keep_caps = true };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &host, &o, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_PROCESS, RF_WHY_KEEP_CAPS));
	plan__compile(p, &lsm, &o, &plan);
	assert_true(plan.ok);
	assert_true(plan.install.keep_caps);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].layers, RF_LAYER_CAPABILITIES_KEPT);
	assert_false(plan.install.seccomp_boundary);
	assert_false(plan.install.landlock_scope_signal);
	policy__free(p);
}

/* --require: refused unless that backend enforces something here. */
static void planner_require_refuses_an_unavailable_backend(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_host();
	struct rf_plan_opts o = { .require = 1u << RF_BE_BPF_LSM };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &o, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_MAX, RF_WHY_REQUIRE_LSM));
	assert_int_equal(plan.n_reasons, 1);
	o.require = (1u << RF_BE_LANDLOCK) | (1u << RF_BE_SECCOMP) |
		    (1u << RF_BE_CGROUP_SOCK_ADDR);
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	c.landlock.ok = false;
	plan__compile(p, &c, &o, &plan);
	assert_true(has_reason(&plan, RF_CLASS_MAX, RF_WHY_REQUIRE_UNUSED));
	assert_int_equal(plan.reasons[plan.n_reasons - 1].param, RF_BE_LANDLOCK);
	policy__free(p);
}

static void planner_backend_names_round_trip(void **state)
{
	int b;

	(void)state;
	for (b = 1; b < RF_BE_MAX; b++)
		if (b != RF_BE_MONITOR)
			assert_int_equal(names__backend_by_name(names__backend(b)), b);
	assert_int_equal(names__backend_by_name("apparmor"), RF_BE_NONE);
	/* the monitor detects: it cannot be required or preferred */
	assert_int_equal(names__backend_by_name("ringfence-monitor"), RF_BE_NONE);
}

static void planner_json_names_every_class(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_none();
	struct rf_plan plan;
	json_t *o, *classes;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	o = plan__to_json(&plan);
	assert_non_null(o);
	classes = json_object_get(o, "classes");
	assert_int_equal(json_object_size(classes), RF_CLASS_MAX);
	assert_true(json_is_null(json_object_get(json_object_get(classes, "file"), "backend")));
	assert_false(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_array_size(json_object_get(o, "reasons")), (size_t)plan.n_reasons);
	json_decref(o);
	policy__free(p);
}

/* ---- rendering: today's exact text, pinned (plan_text.c) ---------------- */

static void text_of_reason(const struct rf_plan_reason *r, enum rf_lsm_state lsm, char *buf,
			   size_t len)
{
	static struct rf_plan plan;

	memset(&plan, 0, sizeof(plan));
	plan.lsm_state = lsm;
	plan.reasons[0] = *r;
	plan.n_reasons = 1;
	plan__reason_text(&plan, 0, buf, len);
}

/* Enforce mode: how each class's decisions are seen, per backend. */
static void planner_says_how_each_class_is_observed(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"o\",\"network\":{\"connect\":[]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;
	json_t *j;

	(void)state;
	c.observe.ok = true;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_INFERRED);
	assert_int_equal(plan.c[RF_CLASS_EXEC].observed, RF_OBSV_INFERRED);
	assert_int_equal(plan.c[RF_CLASS_NET].observed, RF_OBSV_KERNEL);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_INFERRED);
	assert_true(plan.install.landlock_fs);
	j = plan__to_json(&plan);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(j, "classes"), "file"), "observed")), "inferred");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(j, "classes"), "network"), "observed")), "kernel");
	json_decref(j);
	/* without the observe programs nothing records Landlock's refusals */
	c.observe.ok = false;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_NONE);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_NONE);
	assert_string_equal(plan__observed_text(RF_OBSV_AUDIT_INFERRED), "inferred-audit");
	assert_string_equal(plan__observed_text(RF_OBSV_KERNEL_AUDIT), "kernel-audit");
	/* Landlock logs its own denials (audit on, ABI 7+): the note says so */
	c.observe.ok = true;
	c.landlock_audit_log = true;
	plan__compile(p, &c, NULL, &plan);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_KERNEL_AUDIT);
	assert_int_equal(plan.c[RF_CLASS_EXEC].observed, RF_OBSV_KERNEL_AUDIT);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_INFERRED);
	{
		char note[RF_PLAN_NOTE_LEN];

		plan__note_text(&plan, RF_CLASS_FILE, note, sizeof(note));
		assert_non_null(strstr(note, "Landlock logs each one to the kernel's audit"));
	}
	policy__free(p);
}

static void planner_text_every_refusal(void **state)
{
	static const struct {
		enum rf_class cls;
		enum rf_plan_why code;
		int param;
		const char *detail;
		enum rf_lsm_state lsm;
		const char *text;
	} cases[] = {
		{ RF_CLASS_FILE, RF_WHY_LSM_PATH_TOO_LONG, RF_PATH_MAX, "/aaa", 0,
		  "file: \"/aaa...\" is longer than the 247 bytes the bpf-lsm path matcher holds" },
		{ RF_CLASS_EXEC, RF_WHY_NO_FS_BACKEND, 0, "landlock_create_ruleset: ENOSYS",
		  RF_LSM_REFUSED, "exec: no backend can enforce exec rules here: landlock: "
		  "landlock_create_ruleset: ENOSYS; bpf-lsm: refused by this kernel" },
		{ RF_CLASS_FILE, RF_WHY_AUDIT_LANDLOCK, 0, "", RF_LSM_NOT_LOADED,
		  "file: audit mode needs a backend that can record without denying; landlock "
		  "cannot, bpf-lsm is available on this kernel, but this build's LSM programs "
		  "did not load, and the observe programs that would record accesses for landlock "
		  "are not available" },
		{ RF_CLASS_FILE, RF_WHY_LANDLOCK_TRUNCATE, 2, "", 0,
		  "file: landlock ABI 2 cannot confine truncate(); files needs ABI 3 or later" },
		{ RF_CLASS_NET, RF_WHY_SOCK_ADDR, 0, "load: Operation not permitted", 0,
		  "network: cgroup-sock-addr cannot run on this kernel (load: Operation not "
		  "permitted)" },
		{ RF_CLASS_UNIX, RF_WHY_NO_CGROUP2, 0, "no cgroup2 mount", 0,
		  "unix: no usable cgroup2 hierarchy (no cgroup2 mount)" },
		{ RF_CLASS_PROCESS, RF_WHY_KEEP_CAPS, 0, "", 0,
		  "process: --keep-caps (test-only) needs bpf-lsm to hold the process boundary, "
		  "and it is not available here" },
		{ RF_CLASS_SYSCALLS, RF_WHY_SYSCALLS_AUDIT, 0, "", 0,
		  "syscalls: audit mode: a seccomp allowlist cannot record into the trace without "
		  "denying; remove \"syscalls\" or use enforce mode" },
		{ RF_CLASS_SYSCALLS, RF_WHY_NO_SECCOMP, 0, "prctl: EINVAL", 0,
		  "syscalls: seccomp is not available (prctl: EINVAL)" },
		{ RF_CLASS_LIMITS, RF_WHY_NO_CONTROLLER, RF_LIMIT_MEMORY,
		  "the memory controller is not in the cgroup2 hierarchy at /c (its "
		  "cgroup.controllers: hugetlb)", 0,
		  "limits: memory_mb: cgroup-v2-memory cannot be enforced here: the memory "
		  "controller is not in the cgroup2 hierarchy at /c (its cgroup.controllers: "
		  "hugetlb); remove it to run without it" },
		{ RF_CLASS_LIMITS, RF_WHY_LIMIT_NO_CGROUP2, RF_LIMIT_PIDS, "no cgroup2 mount", 0,
		  "limits: pids: no usable cgroup2 hierarchy (no cgroup2 mount)" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_PATH, -ENOENT, "/nope", 0,
		  "limits: scratch: \"/nope\" cannot be used as a mount point: No such file or "
		  "directory" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_CWD, 0, "/tmp/job", 0,
		  "limits: scratch: the working directory \"/tmp/job\" lies inside the scratch "
		  "path, which the command sees as an empty tmpfs: start it from outside (from the "
		  "scratch path itself it starts in the empty tmpfs)" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_CWD, -ENOENT, "", 0,
		  "limits: scratch: the working directory cannot be placed against the scratch "
		  "path: No such file or directory" },
		{ RF_CLASS_MAX, RF_WHY_REQUIRE_LSM, RF_BE_BPF_LSM, "load: EPERM", RF_LSM_NOT_PROBED,
		  "--require: bpf-lsm enforces nothing here: not probed (load: EPERM)" },
		{ RF_CLASS_MAX, RF_WHY_REQUIRE_UNUSED, RF_BE_LANDLOCK, "", 0,
		  "--require: landlock enforces no class of this policy on this kernel" },
		{ RF_CLASS_SYSCALLS, RF_WHY_SECCOMP_BUILD, -ENOMEM, "", 0,
		  "syscalls: building the seccomp filters: Cannot allocate memory" },
		{ RF_CLASS_PROCESS, RF_WHY_SECCOMP_BUILD, -EPERM, "seccomp_load", 0,
		  "process: seccomp_load: Operation not permitted" },
		{ RF_CLASS_EXEC, RF_WHY_LANDLOCK_ENTRY, 0, "$.exec[0] \"/x\": does not exist", 0,
		  "exec: $.exec[0] \"/x\": does not exist" },
		{ RF_CLASS_FILE, RF_WHY_LANDLOCK_BUILD, -EPERM, "", 0,
		  "file: building the Landlock ruleset: Operation not permitted" },
		{ RF_CLASS_FILE, RF_WHY_STRICT_GAPS, 0, "file.xattr, file.attr", 0,
		  "file: --strict: the backend leaves known gaps (file.xattr, file.attr; "
		  "see \"gaps\")" },
	};
	bool seen[RF_WHY_MAX] = { false };
	char text[RF_PLAN_REASON_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_plan_reason r = { .cls = cases[i].cls, .code = cases[i].code,
					    .param = cases[i].param };

		snprintf(r.detail, sizeof(r.detail), "%s", cases[i].detail);
		text_of_reason(&r, cases[i].lsm, text, sizeof(text));
		assert_string_equal(text, cases[i].text);
		seen[cases[i].code] = true;
	}
	for (i = 0; i < RF_WHY_MAX; i++)
		assert_true(seen[i]);
}

/* A refused class's note is its reason without the class. */
static void planner_text_refused_note_and_refusal_lines(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"limits\":{\"pids\":10}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;

	(void)state;
	c.landlock.ok = false;
	snprintf(c.landlock.detail, sizeof(c.landlock.detail), "ENOSYS");
	plan__compile(p, &c, NULL, &plan);
	assert_int_equal(plan.n_reasons, 3);
	plan__note_text(&plan, RF_CLASS_EXEC, text, RF_PLAN_NOTE_LEN);
	assert_string_equal(text, "no backend can enforce exec rules here: landlock: ENOSYS; "
			    "bpf-lsm: refused by this kernel");
	plan__reason_text(&plan, 0, text, sizeof(text));
	assert_string_equal(text, "file: no backend can enforce file rules here: landlock: "
			    "ENOSYS; bpf-lsm: refused by this kernel");
	plan__backend_text(&plan, RF_CLASS_FILE, text, sizeof(text));
	assert_string_equal(text, "");
	policy__free(p);
}

static void assert_note(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__note_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

static void assert_layers(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__layers_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

static void assert_backend(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__backend_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

#define PROC_HEAD "no_new_privs; all capability sets emptied, securebits locked; cgroup2 " \
	"read-only and bpffs absent in its mount namespace; own session, no controlling terminal"
#define PROC_LSM "; bpf-lsm: no bpf(), no ptrace of, signals to or /proc/PID/mem access to " \
	"processes outside the sandbox, no mounts, no user namespaces, no writes to cgroup files"
#define PROC_SECCOMP "; seccomp: no bpf, ptrace, process_vm_*, mounts, namespaces, keyrings, " \
	"perf, kexec, modules, userfaultfd, io_uring, personality, TIOCSTI/TIOCLINUX; " \
	"non-native syscall ABIs killed"
#define PROC_LANDLOCK "; landlock: no signals to, ptrace of or /proc/PID/mem access to " \
	"processes outside the sandbox"

#define UNSEEN "denials: not traced (Landlock records none and the observe programs do " \
	"not load here)"
#define SEEN "denials: Landlock records none unless the kernel's audit is on; ringfence " \
	"infers them from watched syscalls that failed with EACCES or EPERM (attribution " \
	"inferred), so a refusal through a syscall it does not watch is not traced"

static void planner_text_landlock_host(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":{\"connect\":[]},"
				   "\"syscalls\":{\"allow\":[\"read\"]},\"monitor\":{\"pids\":5}}");
	struct rf_caps c = caps_host();
	struct rf_plan_opts o = { .prefer = (1u << RF_BE_LANDLOCK) | (1u << RF_BE_BPF_LSM) };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	assert_backend(&plan, RF_CLASS_FILE, "landlock-abi7");
	assert_backend(&plan, RF_CLASS_NET, "cgroup-sock-addr");
	assert_backend(&plan, RF_CLASS_PROCESS, "seccomp");
	assert_backend(&plan, RF_CLASS_MONITOR, "ringfence-monitor");
	assert_backend(&plan, RF_CLASS_LIMITS, "");
	assert_note(&plan, RF_CLASS_FILE, "paths must exist when the sandbox starts; " UNSEEN
		    "; --prefer bpf-lsm not honoured: bpf-lsm is refused by this kernel");
	assert_note(&plan, RF_CLASS_EXEC, "execve of the command, scripts' interpreters and "
		    "ld.so are checked; not checked by Landlock: libraries mapped executable by "
		    "the loader (no mmap hook) and executables without a path (a memfd run with "
		    "execveat); " UNSEEN "; --prefer bpf-lsm not honoured: bpf-lsm is refused by "
		    "this kernel");
	/* Where the observe programs load, the gap is said the other way. */
	c.observe.ok = true;
	plan__compile(p, &c, &o, &plan);
	assert_note(&plan, RF_CLASS_FILE, "paths must exist when the sandbox starts; " SEEN
		    "; --prefer bpf-lsm not honoured: bpf-lsm is refused by this kernel");
	c.observe.ok = false;
	plan__compile(p, &c, &o, &plan);
	assert_note(&plan, RF_CLASS_NET, "");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD PROC_SECCOMP PROC_LANDLOCK);
	assert_note(&plan, RF_CLASS_SYSCALLS, "allowlist, EPERM for every other syscall; execve, "
		    "exit and exit_group are always allowed (the launcher execs the command after "
		    "installing the filter, and must exit if that fails); refused calls are not in "
		    "the trace (seccomp records none); ringfence-monitor reports them (when it runs)");
	assert_note(&plan, RF_CLASS_MONITOR, "detection only: thresholds published in the "
		    "sandbox registry for ringfence-monitor (when it runs)");
	assert_layers(&plan, RF_CLASS_NET, "landlock-abi7 (TCP connect ports; refuses unlisted "
		      "ports before the cgroup hook, with EACCES, unrecorded)");
	assert_layers(&plan, RF_CLASS_UNIX, "landlock-abi7 (abstract sockets outside the sandbox)");
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities; landlock-abi7 (signal scoping, "
		      "ptrace confinement)");
	policy__free(p);
}

static void planner_text_bpf_lsm_and_bare_kernels(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":{\"unix\":[]},"
				   "\"syscalls\":{\"allow\":[\"read\"],\"on_violation\":\"alert\"}}");
	struct rf_policy *free_fs = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
					 "\"network\":\"unrestricted\"}");
	struct rf_caps lsm = caps_lsm(), bare = caps_host();
	struct rf_plan_opts keep = { .keep_caps = true };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &lsm, NULL, &plan);
	assert_note(&plan, RF_CLASS_FILE, "every open by mode, and create, remove, rename, link, "
		    "truncate, mode, owner and times changes, on the kernel's resolved paths");
	assert_note(&plan, RF_CLASS_EXEC, "every exec (interpreters and execveat included) and "
		    "every executable file mapping; executables without a path are denied");
	assert_note(&plan, RF_CLASS_UNIX, "stream connects and datagram sends to unix sockets, "
		    "pathname and abstract, judged on the peer's bound name after the kernel "
		    "resolved it");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD PROC_LSM PROC_SECCOMP PROC_LANDLOCK);
	assert_note(&plan, RF_CLASS_SYSCALLS, "alert: calls outside the profile are reported by "
		    "ringfence-monitor (when it runs), never denied; not reported here: the "
		    "supervisor's seccomp listener needs the observe programs (only "
		    "ringfence-monitor --record sees the calls)");
	assert_backend(&plan, RF_CLASS_SYSCALLS, "ringfence-monitor");
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities; seccomp; landlock-abi7 (signal "
		      "scoping, ptrace confinement)");
	plan__compile(p, &lsm, &keep, &plan);
	assert_note(&plan, RF_CLASS_PROCESS, "no_new_privs; capabilities kept (test mode); cgroup2 "
		    "read-only and bpffs absent in its mount namespace; own session, no "
		    "controlling terminal" PROC_LSM);
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities KEPT (--keep-caps test mode)");
	bare.seccomp.ok = false;
	bare.landlock_abi = 5;
	plan__compile(free_fs, &bare, NULL, &plan);
	assert_note(&plan, RF_CLASS_FILE, "unrestricted by the policy: not confined");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD "; NOT covered (no seccomp): bpf, ptrace, "
		    "mounts, user namespaces; NOT covered (no landlock ABI 6): signals to same-user "
		    "processes outside");
	assert_backend(&plan, RF_CLASS_PROCESS, "capabilities");
	policy__free(p);
	policy__free(free_fs);
}

#define GAP(g) (1ull << RF_GAP_##g)

/* Landlock's holes: what seccomp closes, the rest listed as gaps, which
 * depend on the policy (a write rule) and the kernel (MFD_NOEXEC_SEAL). */
static void planner_gaps_follow_backend_policy_and_kernel(void **state)
{
	struct rf_policy *rw = load("{\"version\":1,\"id\":\"a\",\"files\":{\"read\":[\"/usr/\"],"
				    "\"write\":[\"/tmp/\"]},\"exec\":[\"/usr/\"]}");
	struct rf_policy *ro = load("{\"version\":1,\"id\":\"a\",\"files\":{\"read\":[\"/usr/\"]},"
				    "\"exec\":[\"/usr/\"]}");
	struct rf_policy *open = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				      "\"exec\":\"unrestricted\"}");
	struct rf_caps c = caps_host(), l = caps_lsm();
	struct rf_plan plan;
	json_t *j;

	(void)state;
	c.memfd_noexec_seal = true;
	plan__compile(rw, &c, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(FILE_XATTR) | GAP(FILE_ATTR) | GAP(EXEC_MMAP) |
					    GAP(EXEC_ANON_CODE));
	assert_false(plan.install.seccomp_fs_meta);
	assert_true(plan.install.seccomp_fs_ioctl && plan.install.seccomp_memfd_noexec);
	j = plan__to_json(&plan);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(j, "gaps"), 0), "gap")), "file.xattr");
	json_decref(j);

	plan__compile(ro, &c, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(EXEC_MMAP) | GAP(EXEC_ANON_CODE));
	assert_true(plan.install.seccomp_fs_meta);

	c.memfd_noexec_seal = false;
	plan__compile(ro, &c, NULL, &plan);
	assert_true(plan.gaps & GAP(EXEC_MEMFD));
	assert_false(plan.install.seccomp_memfd_noexec);

	plan__compile(rw, &l, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(EXEC_ANON_CODE));
	assert_false(plan.install.seccomp_fs_ioctl || plan.install.seccomp_fs_meta);

	plan__compile(open, &c, NULL, &plan);
	assert_int_equal(plan.gaps, 0);
	/* --strict: refused, one reason per class with gaps, naming them. */
	{
		struct rf_plan_opts o = { .strict = true };
		char t[RF_PLAN_REASON_LEN];

		plan__compile(open, &c, &o, &plan);
		assert_true(plan.ok);
		plan__compile(rw, &l, &o, &plan);
		assert_false(plan.ok);
		assert_int_equal(plan.n_reasons, 1);
		plan__reason_text(&plan, 0, t, sizeof(t));
		assert_string_equal(t, "exec: --strict: the backend leaves known gaps "
				       "(exec.anon-code; see \"gaps\")");
	}
	/* A refused class takes its gaps with it. */
	plan__compile(rw, &c, NULL, &plan);
	plan__refuse(&plan, RF_CLASS_FILE, RF_WHY_LANDLOCK_ENTRY, 0, "x");
	assert_int_equal(plan.gaps, GAP(EXEC_MMAP) | GAP(EXEC_MEMFD) | GAP(EXEC_ANON_CODE));
	policy__free(rw);
	policy__free(ro);
	policy__free(open);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planner_network_allowlist_uses_cgroup_sock_addr_and_landlock_layer),
		cmocka_unit_test(planner_omitted_files_and_exec_go_to_landlock),
		cmocka_unit_test(planner_refuses_files_and_exec_without_landlock),
		cmocka_unit_test(planner_refuses_files_on_landlock_abi_2),
		cmocka_unit_test(planner_audit_under_landlock_observes_and_adds_no_denying_layer),
		cmocka_unit_test(planner_says_how_each_class_is_observed),
		cmocka_unit_test(planner_refuses_network_without_sock_addr),
		cmocka_unit_test(planner_unix_needs_connect_unix_hooks),
		cmocka_unit_test(planner_no_abstract_scoping_when_an_abstract_name_is_allowed),
		cmocka_unit_test(planner_refuses_without_cgroup2),
		cmocka_unit_test(planner_process_boundary_by_capability),
		cmocka_unit_test(planner_syscalls_go_to_seccomp_alert_to_monitor_audit_refused),
		cmocka_unit_test(planner_monitor_thresholds_are_accepted_not_enforced),
		cmocka_unit_test(planner_lists_each_refused_class_once),
		cmocka_unit_test(planner_require_refuses_an_unavailable_backend),
		cmocka_unit_test(planner_bpf_lsm_takes_file_exec_unix_process),
		cmocka_unit_test(planner_net_task_holes_and_gaps_by_backend),
		cmocka_unit_test(planner_sandbox_flags),
		cmocka_unit_test(planner_bpf_lsm_allows_audit_mode),
		cmocka_unit_test(planner_bpf_lsm_refuses_paths_longer_than_its_matcher),
		cmocka_unit_test(planner_prefer_landlock_over_bpf_lsm_for_files),
		cmocka_unit_test(planner_keep_caps_needs_bpf_lsm),
		cmocka_unit_test(planner_gaps_follow_backend_policy_and_kernel),
		cmocka_unit_test(planner_backend_names_round_trip),
		cmocka_unit_test(planner_json_names_every_class),
		cmocka_unit_test(planner_text_every_refusal),
		cmocka_unit_test(planner_text_refused_note_and_refusal_lines),
		cmocka_unit_test(planner_limits_per_limit_backends),
		cmocka_unit_test(planner_limits_require),
		cmocka_unit_test(planner_limits_refused_later),
		cmocka_unit_test(planner_text_landlock_host),
		cmocka_unit_test(planner_text_bpf_lsm_and_bare_kernels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
