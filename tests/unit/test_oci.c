// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* run/oci_state.c: the runtime's state JSON and config.json as the OCI hook
 * reads them; every bad field refused naming it (cmocka, no root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "run/oci.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_ok),
		cmocka_unit_test(test_state_bad),
		cmocka_unit_test(test_state_long_id),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_dangerous),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
