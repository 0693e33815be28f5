// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* run/oci_state.c: the runtime's state JSON and config.json as the OCI hook
 * reads them; every bad field refused naming it (cmocka, no root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "run/oci.h"
#include "policy/policy.h"

#define STATE(extra) "{\"ociVersion\":\"1.0.2\",\"id\":\"abc123\",\"status\":\"creating\"," \
		     "\"pid\":42,\"bundle\":\"/b\"" extra "}"

static void test_state_ok(void **s)
{
	struct oci_state st;
	struct rf_error e = { 0 };

	(void)s;
	assert_int_equal(oci__parse_state(STATE(",\"annotations\":{\"" RF_OCI_ANNOTATION
						"\":\"/p.json\",\"x\":\"y\"}"), &st, &e), 0);
	assert_string_equal(st.id, "abc123");
	assert_string_equal(st.status, "creating");
	assert_int_equal(st.pid, 42);
	assert_string_equal(st.bundle, "/b");
	assert_string_equal(st.policy, "/p.json");
	/* poststop: no pid, no annotations */
	assert_int_equal(oci__parse_state("{\"id\":\"a\",\"status\":\"stopped\",\"bundle\":\"/b\"}",
					  &st, &e), 0);
	assert_int_equal(st.pid, 0);
	assert_string_equal(st.policy, "");
}

static void refused(const char *text, int err, const char *where)
{
	struct oci_state st;
	struct rf_error e = { 0 };

	assert_int_equal(oci__parse_state(text, &st, &e), err);
	assert_string_equal(e.where, where);
}

static void test_state_bad(void **s)
{
	(void)s;
	refused("[]", -EINVAL, "state");
	refused("{", -EINVAL, "state");
	refused("{\"status\":\"creating\",\"bundle\":\"/b\"}", -EINVAL, "id");
	refused("{\"id\":\"../x\",\"status\":\"creating\",\"bundle\":\"/b\"}", -EINVAL, "id");
	refused("{\"id\":\"a/b\",\"status\":\"creating\",\"bundle\":\"/b\"}", -EINVAL, "id");
	refused("{\"id\":\"a\",\"status\":1,\"bundle\":\"/b\"}", -EINVAL, "status");
	refused("{\"id\":\"a\",\"status\":\"creating\",\"bundle\":\"b\"}", -EINVAL, "bundle");
	refused(STATE(",\"pid\":-1"), -EINVAL, "pid");
	refused("{\"id\":\"a\",\"status\":\"creating\",\"bundle\":\"/b\",\"pid\":\"1\"}", -EINVAL, "pid");
	refused(STATE(",\"annotations\":[]"), -EINVAL, "annotations");
	refused(STATE(",\"annotations\":{\"" RF_OCI_ANNOTATION "\":7}"), -EINVAL,
		RF_OCI_ANNOTATION);
}

static void test_state_long_id(void **s)
{
	char text[512], id[200];

	(void)s;
	memset(id, 'a', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	snprintf(text, sizeof(text), "{\"id\":\"%s\",\"status\":\"creating\",\"bundle\":\"/b\"}", id);
	refused(text, -E2BIG, "id");
}

static void test_config(void **s)
{
	struct oci_state st;
	struct rf_error e = { 0 };
	json_t *c = json_loads("{\"linux\":{\"cgroupsPath\":\"/x/y\",\"seccomp\":{}},"
			       "\"annotations\":{\"" RF_OCI_ANNOTATION "\":\"/from-config\"},"
			       "\"process\":{\"capabilities\":{\"bounding\":[\"CAP_KILL\","
			       "\"CAP_NET_ADMIN\"]}}}", 0, NULL);

	(void)s;
	memset(&st, 0, sizeof(st));
	assert_int_equal(oci__parse_config(c, &st, &e), 0);
	assert_true(st.has_cgroups_path);
	assert_true(st.runtime_seccomp);
	/* the state had none: config.json's annotation counts */
	assert_string_equal(st.policy, "/from-config");
	assert_string_equal(oci__dangerous_cap(st.caps_bounding), "CAP_NET_ADMIN");
	json_decref(c);

	c = json_loads("{\"process\":{\"capabilities\":{\"bounding\":[\"CAP_KILL\",\"CAP_CHOWN\"]}}}",
		       0, NULL);
	memset(&st, 0, sizeof(st));
	assert_int_equal(oci__parse_config(c, &st, &e), 0);
	assert_false(st.has_cgroups_path);
	assert_null(oci__dangerous_cap(st.caps_bounding));
	json_decref(c);

	c = json_loads("{\"process\":{\"capabilities\":{\"bounding\":[1]}}}", 0, NULL);
	assert_int_equal(oci__parse_config(c, &st, &e), -EINVAL);
	assert_string_equal(e.where, "config.json: process.capabilities.bounding");
	json_decref(c);
}

static void test_dangerous(void **s)
{
	(void)s;
	assert_null(oci__dangerous_cap(0));
	assert_string_equal(oci__dangerous_cap(1ull << CAP_SYS_ADMIN), "CAP_SYS_ADMIN");
	assert_string_equal(oci__dangerous_cap(1ull << CAP_BPF), "CAP_BPF");
	assert_null(oci__dangerous_cap(1ull << CAP_NET_BIND_SERVICE));
}

#define SYS_POLICY(list) "{\"version\":1,\"id\":\"s\",\"syscalls\":{\"allow\":[" list "]}}"

static json_t *profile_of(const char *policy_text)
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };
	json_t *prof = NULL;

	assert_int_equal(policy__load_string(policy_text, &p, &e), 0);
	assert_int_equal(oci_seccomp__profile(p, &prof, &e), 0);
	policy__free(p);
	return prof;
}

/* The allowlist filter's rules: listed names, execve/exit/exit_group
 * added as run adds them, clone3 ENOSYS, default EPERM, native only. */
static void test_seccomp_profile(void **s)
{
	json_t *p = profile_of(SYS_POLICY("\"read\", \"write\""));
	json_t *allow = json_object_get(json_array_get(json_object_get(p, "syscalls"), 0), "names");
	json_t *c3 = json_array_get(json_object_get(p, "syscalls"), 1);
	char *names = json_dumps(allow, JSON_COMPACT);

	(void)s;
	assert_string_equal(json_string_value(json_object_get(p, "defaultAction")), "SCMP_ACT_ERRNO");
	assert_int_equal(json_integer_value(json_object_get(p, "defaultErrnoRet")), EPERM);
	assert_int_equal(json_array_size(json_object_get(p, "architectures")), 1);
	assert_string_equal(names, "[\"read\",\"write\",\"execve\",\"exit_group\",\"exit\"]");
	assert_string_equal(json_string_value(json_array_get(json_object_get(c3, "names"), 0)),
			    "clone3");
	assert_int_equal(json_integer_value(json_object_get(c3, "errnoRet")), ENOSYS);
	assert_int_equal(json_array_size(json_object_get(p, "syscalls")), 2);
	free(names);
	json_decref(p);
}

static void test_seccomp_profile_refused(void **s)
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };
	json_t *prof = NULL;

	(void)s;
	assert_int_equal(policy__load_string("{\"version\":1,\"id\":\"n\"}", &p, &e), 0);
	assert_int_equal(oci_seccomp__profile(p, &prof, &e), -EINVAL);
	assert_string_equal(e.where, "$.syscalls");
	assert_null(prof);
	policy__free(p);
	assert_int_equal(policy__load_string("{\"version\":1,\"id\":\"a\",\"syscalls\":{\"allow\":"
					     "[\"read\"],\"on_violation\":\"alert\"}}", &p, &e), 0);
	assert_int_equal(oci_seccomp__profile(p, &prof, &e), -EINVAL);
	assert_string_equal(e.where, "$.syscalls");
	policy__free(p);
}

static bool holds(json_t *want, const char *runtime, char *why, size_t len)
{
	json_t *r = json_loads(runtime, 0, NULL);
	bool ok;

	assert_non_null(r);
	ok = oci_seccomp__holds(r, want, why, len);
	json_decref(r);
	return ok;
}

/* A runtime's profile holds the policy's when it lets nothing more through. */
static void test_seccomp_holds(void **s)
{
	json_t *want = profile_of(SYS_POLICY("\"read\", \"write\", \"getpid\""));
	char *self = json_dumps(want, 0), why[256];
	const char *arch = json_string_value(json_array_get(json_object_get(want,
							     "architectures"), 0));
	char text[512];

	(void)s;
	assert_true(holds(want, self, why, sizeof(why)));
	/* narrower, other refusing actions, its own arch named: still holds */
	snprintf(text, sizeof(text), "{\"defaultAction\":\"SCMP_ACT_KILL_PROCESS\","
		 "\"architectures\":[\"%s\"],\"syscalls\":[{\"names\":[\"read\"],\"action\":"
		 "\"SCMP_ACT_ALLOW\"},{\"names\":[\"mkdir\"],\"action\":\"SCMP_ACT_ERRNO\"}]}", arch);
	assert_true(holds(want, text, why, sizeof(why)));
	assert_false(holds(want, "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}", why, sizeof(why)));
	assert_non_null(strstr(why, "SCMP_ACT_ALLOW"));
	assert_false(holds(want, "{\"syscalls\":[]}", why, sizeof(why)));
	assert_false(holds(want, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":"
			   "[\"read\",\"mkdir\"],\"action\":\"SCMP_ACT_ALLOW\"}]}", why, sizeof(why)));
	assert_non_null(strstr(why, "lets mkdir through"));
	/* a call let through by a log, a listener or a tracer counts as let through */
	assert_false(holds(want, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":"
			   "[\"ptrace\"],\"action\":\"SCMP_ACT_NOTIFY\"}]}", why, sizeof(why)));
	assert_false(holds(want, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":"
			   "[\"bpf\"],\"action\":\"SCMP_ACT_LOG\"}]}", why, sizeof(why)));
	assert_false(holds(want, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":"
			   "[\"SCMP_ARCH_X86\"]}", why, sizeof(why)));
	assert_non_null(strstr(why, "SCMP_ARCH_X86"));
	free(self);
	json_decref(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_ok),
		cmocka_unit_test(test_state_bad),
		cmocka_unit_test(test_state_long_id),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_dangerous),
		cmocka_unit_test(test_seccomp_profile),
		cmocka_unit_test(test_seccomp_profile_refused),
		cmocka_unit_test(test_seccomp_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
