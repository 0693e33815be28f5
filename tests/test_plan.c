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

static struct rf_caps caps_all(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	c.cgroup_v2.ok = c.sock_addr.ok = c.unix_sock_addr.ok = true;
	c.landlock.ok = c.seccomp.ok = true;
	c.landlock_abi = 7;
	snprintf(c.bpf_lsm.detail, sizeof(c.bpf_lsm.detail), "EPERM");
	return c;
}

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err;

	assert_int_equal(policy__load_string(json, &p, &err), 0);
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

static void planner_network_allowlist_uses_cgroup_sock_addr(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[\"127.0.0.1:80\"]}}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.n_reasons, 0);
	assert_string_equal(plan.c[RF_PC_NETWORK].backend, "cgroup-sock-addr");
	assert_true(plan.c[RF_PC_NETWORK].enforced);
	/* "unix" absent inside "network": an empty allowlist, still enforced */
	assert_int_equal(plan.c[RF_PC_UNIX].request, RF_REQ_ALLOWLIST);
	assert_true(plan.c[RF_PC_UNIX].enforced);
	assert_int_equal(plan.c[RF_PC_FILE].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_PC_FILE].enforced);
	assert_null(plan.c[RF_PC_FILE].backend);
	policy__free(p);
}

/* Omitted files and exec mean deny-all; this build cannot enforce them,
 * so the plan refuses with one reason per class. */
static void planner_refuses_omitted_files_and_exec(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_int_equal(plan.c[RF_PC_FILE].request, RF_REQ_DENY_ALL);
	assert_true(plan.c[RF_PC_FILE].required);
	assert_false(plan.c[RF_PC_FILE].enforced);
	assert_true(has_reason(&plan, "file: "));
	assert_true(has_reason(&plan, "exec: "));
	/* network omitted: deny-all, enforceable */
	assert_int_equal(plan.c[RF_PC_NETWORK].request, RF_REQ_DENY_ALL);
	assert_true(plan.c[RF_PC_NETWORK].enforced);
	assert_int_equal(plan.n_reasons, 2);
	policy__free(p);
}

static void planner_refuses_network_without_sock_addr(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":{\"connect\":[],\"unix\":\"unrestricted\"}}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	c.sock_addr.ok = false;
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "load: Operation not permitted");
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, "network: cgroup-sock-addr cannot run"));
	assert_non_null(strstr(plan.reasons[0], "Operation not permitted"));
	assert_false(plan.c[RF_PC_UNIX].required);
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
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	c.unix_sock_addr.ok = false;
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, "unix: "));
	assert_int_equal(plan.n_reasons, 1);
	plan__compile(q, &c, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_PC_UNIX].request, RF_REQ_UNRESTRICTED);
	assert_false(plan.c[RF_PC_UNIX].enforced);
	policy__free(p);
	policy__free(q);
}

static void planner_refuses_without_cgroup2(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX "}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	c.cgroup_v2.ok = false;
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, "network: no usable cgroup2"));
	assert_true(has_reason(&plan, "unix: no usable cgroup2"));
	policy__free(p);
}

/* Fields validated now but enforced by later work are refused, never
 * silently ignored; every reason is listed, not just the first. */
static void planner_refuses_limits_syscalls_monitor_listing_all(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"limits\":{\"pids\":10},"
				   "\"syscalls\":{\"allow\":[\"read\"]},"
				   "\"monitor\":{\"pids\":5}}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_int_equal(plan.n_reasons, 5); /* file, exec, limits, syscalls, monitor */
	assert_true(has_reason(&plan, "limits: "));
	assert_true(has_reason(&plan, "syscalls: "));
	assert_true(has_reason(&plan, "monitor: "));
	policy__free(p);
}

/* Every class refused at once, on a kernel with nothing: one reason each. */
static void planner_lists_each_refused_class_once(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"limits\":{\"pids\":10},"
				   "\"syscalls\":{\"allow\":[\"read\"]},\"monitor\":{\"pids\":5}}");
	struct rf_caps c;
	struct rf_plan plan;

	(void)state;
	memset(&c, 0, sizeof(c));
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "no cgroup2 to attach to");
	snprintf(c.unix_sock_addr.detail, sizeof(c.unix_sock_addr.detail), "no cgroup2");
	plan__compile(p, &c, &plan);
	assert_false(plan.ok);
	assert_int_equal(plan.n_reasons, 7); /* file exec network unix limits syscalls monitor */
	policy__free(p);
}

static void planner_everything_unrestricted_confines_nothing_but_process(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				   "\"network\":\"unrestricted\"}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;
	int i;

	(void)state;
	c.sock_addr.ok = c.unix_sock_addr.ok = c.cgroup_v2.ok = false;
	plan__compile(p, &c, &plan);
	assert_true(plan.ok);
	for (i = 0; i < RF_PC_MAX; i++)
		if (i != RF_PC_PROCESS)
			assert_false(plan.c[i].enforced);
	assert_string_equal(plan.c[RF_PC_PROCESS].backend, "capabilities");
	policy__free(p);
}

static void planner_json_names_every_class(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_all();
	struct rf_plan plan;
	json_t *o, *classes;

	(void)state;
	plan__compile(p, &c, &plan);
	o = plan__to_json(&plan);
	assert_non_null(o);
	classes = json_object_get(o, "classes");
	assert_int_equal(json_object_size(classes), RF_PC_MAX);
	assert_true(json_is_null(json_object_get(json_object_get(classes, "file"), "backend")));
	assert_false(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_array_size(json_object_get(o, "reasons")), 2);
	json_decref(o);
	policy__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planner_network_allowlist_uses_cgroup_sock_addr),
		cmocka_unit_test(planner_refuses_omitted_files_and_exec),
		cmocka_unit_test(planner_refuses_network_without_sock_addr),
		cmocka_unit_test(planner_unix_needs_connect_unix_hooks),
		cmocka_unit_test(planner_refuses_without_cgroup2),
		cmocka_unit_test(planner_refuses_limits_syscalls_monitor_listing_all),
		cmocka_unit_test(planner_lists_each_refused_class_once),
		cmocka_unit_test(planner_everything_unrestricted_confines_nothing_but_process),
		cmocka_unit_test(planner_json_names_every_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
