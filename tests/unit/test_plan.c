/* Planner unit tests: the fail-closed logic against stated kernel
 * capabilities (no probing, no kernel). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plan.h"
#include "policy.h"
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

static bool has_reason(const struct rf_plan *plan, const char *prefix)
{
	int i;

	for (i = 0; i < plan->n_reasons; i++)
		if (!strncmp(plan->reasons[i], prefix, strlen(prefix)))
			return true;
	return false;
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
	assert_string_equal(plan.c[RF_PC_NETWORK].backend, "cgroup-sock-addr");
	assert_true(plan.c[RF_PC_NETWORK].enforced);
	/* the TCP-port layer would hide denials from the trace: opt-in */
	assert_false(plan.install.landlock_net);
	plan__compile(p, &c, &prefer, &plan);
	assert_non_null(strstr(plan.c[RF_PC_NETWORK].layers, "landlock-abi7"));
	assert_true(plan.install.landlock_net);
	/* "unix" absent inside "network": an empty allowlist, still enforced */
	assert_int_equal(plan.c[RF_PC_UNIX].request, RF_REQ_ALLOWLIST);
	assert_true(plan.c[RF_PC_UNIX].enforced);
	assert_true(plan.install.landlock_scope_unix);
	assert_int_equal(plan.c[RF_PC_FILE].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_PC_FILE].enforced);
	assert_string_equal(plan.c[RF_PC_FILE].backend, "");
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
	assert_int_equal(plan.c[RF_PC_FILE].request, RF_REQ_DENY_ALL);
	assert_string_equal(plan.c[RF_PC_FILE].backend, "landlock-abi7");
	assert_string_equal(plan.c[RF_PC_EXEC].backend, "landlock-abi7");
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
	assert_true(plan.c[RF_PC_FILE].required);
	assert_false(plan.c[RF_PC_FILE].enforced);
	assert_true(has_reason(&plan, "file: "));
	assert_true(has_reason(&plan, "exec: "));
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
	assert_true(has_reason(&plan, "file: landlock ABI 2 cannot confine truncate()"));
	assert_false(plan.install.landlock_net);       /* ABI 4 */
	assert_false(plan.install.landlock_scope_signal); /* ABI 6 */
	policy__free(p);
}

/* Audit mode must deny nothing: Landlock cannot record without denying. */
static void planner_audit_refuses_landlock_and_adds_no_denying_layer(void **state)
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
	assert_true(has_reason(&plan, "file: audit mode"));
	plan__compile(q, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.install.landlock_net);
	assert_false(plan.install.landlock_scope_unix);
	assert_string_equal(plan.c[RF_PC_NETWORK].layers, "");
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
	assert_true(has_reason(&plan, "network: cgroup-sock-addr cannot run"));
	assert_non_null(strstr(plan.reasons[0], "Operation not permitted"));
	assert_false(plan.c[RF_PC_UNIX].required);
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
	assert_true(has_reason(&plan, "unix: "));
	assert_int_equal(plan.n_reasons, 1);
	plan__compile(q, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_PC_UNIX].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_PC_UNIX].enforced);
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
	assert_true(has_reason(&plan, "network: no usable cgroup2"));
	assert_true(has_reason(&plan, "unix: no usable cgroup2"));
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
	assert_string_equal(plan.c[RF_PC_PROCESS].backend, "seccomp");
	assert_true(plan.install.seccomp_boundary);
	assert_true(plan.install.landlock_scope_signal);
	assert_non_null(strstr(plan.c[RF_PC_PROCESS].layers, "signal scoping"));
	c.seccomp.ok = false;
	c.landlock_abi = 5;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_string_equal(plan.c[RF_PC_PROCESS].backend, "capabilities");
	assert_false(plan.install.seccomp_boundary);
	assert_false(plan.install.landlock_scope_signal);
	assert_non_null(strstr(plan.c[RF_PC_PROCESS].note, "NOT covered (no seccomp)"));
	policy__free(p);
}

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
	assert_string_equal(plan.c[RF_PC_SYSCALLS].backend, "seccomp");
	assert_true(plan.install.seccomp_allowlist);
	/* alert: accepted, reported by the monitor, never called enforced */
	plan__compile(alert, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_false(plan.install.seccomp_allowlist);
	assert_false(plan.c[RF_PC_SYSCALLS].enforced);
	assert_string_equal(plan.c[RF_PC_SYSCALLS].backend, "ringfence-monitor");
	plan__compile(audit, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, "syscalls: audit mode"));
	c.seccomp.ok = false;
	plan__compile(deny, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, "syscalls: seccomp is not available"));
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
	assert_false(plan.c[RF_PC_MONITOR].enforced);
	assert_false(plan.c[RF_PC_MONITOR].required);
	assert_string_equal(plan.c[RF_PC_MONITOR].backend, "ringfence-monitor");
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
	assert_string_equal(plan.c[RF_PC_FILE].backend, "bpf-lsm");
	assert_string_equal(plan.c[RF_PC_EXEC].backend, "bpf-lsm");
	assert_string_equal(plan.c[RF_PC_UNIX].backend, "bpf-lsm");
	assert_string_equal(plan.c[RF_PC_PROCESS].backend, "bpf-lsm");
	assert_string_equal(plan.c[RF_PC_NETWORK].backend, "cgroup-sock-addr");
	assert_int_equal(plan.install.lsm_flags, RF_SB_LSM_FILES | RF_SB_LSM_EXEC |
						 RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS);
	assert_false(plan.install.landlock_fs);
	assert_true(plan.install.seccomp_boundary); /* still a layer */
	policy__free(p);
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
	assert_string_equal(plan.c[RF_PC_FILE].backend, "bpf-lsm");
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
	assert_true(has_reason(&plan, "file: \"/aaa"));
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
	assert_string_equal(plan.c[RF_PC_FILE].backend, "landlock-abi7");
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
	assert_true(has_reason(&plan, "process: --keep-caps"));
	plan__compile(p, &lsm, &o, &plan);
	assert_true(plan.ok);
	assert_true(plan.install.keep_caps);
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
	assert_true(has_reason(&plan, "--require: bpf-lsm enforces nothing here"));
	assert_int_equal(plan.n_reasons, 1);
	o.require = (1u << RF_BE_LANDLOCK) | (1u << RF_BE_SECCOMP) |
		    (1u << RF_BE_CGROUP_SOCK_ADDR);
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	c.landlock.ok = false;
	plan__compile(p, &c, &o, &plan);
	assert_true(has_reason(&plan, "--require: landlock"));
	policy__free(p);
}

static void planner_backend_names_round_trip(void **state)
{
	int b;

	(void)state;
	for (b = 1; b < RF_BE_MAX; b++)
		assert_int_equal(plan__backend_by_name(plan__backend_name(b)), b);
	assert_int_equal(plan__backend_by_name("apparmor"), RF_BE_NONE);
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
	assert_int_equal(json_object_size(classes), RF_PC_MAX);
	assert_true(json_is_null(json_object_get(json_object_get(classes, "file"), "backend")));
	assert_false(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_array_size(json_object_get(o, "reasons")), (size_t)plan.n_reasons);
	json_decref(o);
	policy__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planner_network_allowlist_uses_cgroup_sock_addr_and_landlock_layer),
		cmocka_unit_test(planner_omitted_files_and_exec_go_to_landlock),
		cmocka_unit_test(planner_refuses_files_and_exec_without_landlock),
		cmocka_unit_test(planner_refuses_files_on_landlock_abi_2),
		cmocka_unit_test(planner_audit_refuses_landlock_and_adds_no_denying_layer),
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
		cmocka_unit_test(planner_bpf_lsm_allows_audit_mode),
		cmocka_unit_test(planner_bpf_lsm_refuses_paths_longer_than_its_matcher),
		cmocka_unit_test(planner_prefer_landlock_over_bpf_lsm_for_files),
		cmocka_unit_test(planner_keep_caps_needs_bpf_lsm),
		cmocka_unit_test(planner_backend_names_round_trip),
		cmocka_unit_test(planner_json_names_every_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
