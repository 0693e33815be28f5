// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The monitor's rule table (monitor/rules.h) against what it feeds: every
 * row well-formed, the severities and OCSF outcomes alerts carry, and the
 * places outside the code that list the rules (schemas/alert.schema.json,
 * docs/trace-and-alerts.md) naming exactly the table's rules. Run from
 * the source tree's root (make unit does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "alert.h"
#include "rules.h"

static void test_rows(void **state)
{
	int r, k;

	(void)state;
	for (r = 0; r < RF_RULE_MAX; r++) {
		const struct rf_rule_info *ri = rf_rule_info((enum rf_rule)r);

		assert_non_null(ri);
		assert_true(ri->id[0] && ri->name[0]);
		assert_true(ri->severity >= RF_SEV_INFO && ri->severity <= RF_SEV_CRITICAL);
		assert_true(ri->severity_alt >= RF_SEV_INFO && ri->severity_alt <= RF_SEV_CRITICAL);
		assert_true(ri->alt != RF_ALT_NONE || ri->severity_alt == ri->severity);
		for (k = 0; k < r; k++) {
			assert_string_not_equal(rf_rule_id((enum rf_rule)k), ri->id);
			assert_string_not_equal(rf_rule_name((enum rf_rule)k), ri->name);
		}
	}
	assert_null(rf_rule_info(RF_RULE_MAX));
	assert_string_equal(rf_rule_id(RF_RULE_MAX), "unknown");
	assert_string_equal(rf_severity_caption(RF_SEV_HIGH), "High");
	assert_string_equal(rf_severity_short(RF_SEV_CRITICAL), "critical");
	assert_string_equal(rf_severity_caption(99), "Unknown");
	assert_string_equal(rf_phase_activity(RF_PHASE_CLOSE), "Close");
}

static int severity_of(enum rf_rule rule, const char *key, bool refused)
{
	struct rf_alert a = { .rule = rule, .refused = refused };

	snprintf(a.key, sizeof(a.key), "%s", key);
	return rf_alert_severity(&a);
}

/* The severities alerts had before the table, per rule and condition. */
static void test_severities(void **state)
{
	(void)state;
	assert_int_equal(severity_of(RF_RULE_DENY_BURST, "network", false), 3);
	assert_int_equal(severity_of(RF_RULE_FAILED_OPS, "file", false), 3);
	assert_int_equal(severity_of(RF_RULE_SYSCALL, "ptrace", false), 4);
	assert_int_equal(severity_of(RF_RULE_SYSCALL, "ptrace", true), 5);
	assert_int_equal(severity_of(RF_RULE_RESOURCE, "memory", false), 3);
	assert_int_equal(severity_of(RF_RULE_RESOURCE, "memory-rise", false), 2);
	assert_int_equal(severity_of(RF_RULE_RESOURCE, "memory_mb-cap", false), 3);
	assert_int_equal(severity_of(RF_RULE_LOST, "output", false), 3);
	assert_int_equal(severity_of(RF_RULE_SHED, "sandboxes", false), 4);
	assert_int_equal(severity_of(RF_RULE_MAX, "x", false), 1);
}

/* action_id / disposition_id of a rule's record (verdict "denied" or not,
 * refused or not). */
static void outcome_of(enum rf_rule rule, const char *verdict, bool refused, int *ret_action,
		       int *ret_disp)
{
	struct rf_alert a = { .rule = rule, .refused = refused, .unit = "events" };
	struct rf_alert_origin og = { .hostname = "h" };
	json_t *o;

	snprintf(a.key, sizeof(a.key), "k");
	snprintf(a.verdict, sizeof(a.verdict), "%s", verdict);
	o = alert__ocsf(&a, 1, 0, &og);
	assert_non_null(o);
	*ret_action = (int)json_integer_value(json_object_get(o, "action_id"));
	*ret_disp = (int)json_integer_value(json_object_get(o, "disposition_id"));
	json_decref(o);
}

static void test_control_outcomes(void **state)
{
	static const struct {
		enum rf_rule rule;
		const char *verdict;
		bool refused;
		int action, disposition;
	} want[] = {
		{ RF_RULE_DENY_BURST, "denied", false, 2, 2 },
		{ RF_RULE_DENY_BURST, "audited", false, 1, 15 },
		{ RF_RULE_FAILED_OPS, "denied", false, 2, 2 },
		{ RF_RULE_SYSCALL, "", true, 2, 2 },
		{ RF_RULE_SYSCALL, "", false, 1, 15 },
		{ RF_RULE_RESOURCE, "", false, 1, 15 },
		{ RF_RULE_LOST, "", false, 0, 17 },
		{ RF_RULE_SHED, "", false, 0, 17 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int action, disp;

		outcome_of(want[i].rule, want[i].verdict, want[i].refused, &action, &disp);
		assert_int_equal(action, want[i].action);
		assert_int_equal(disp, want[i].disposition);
	}
}

/* The first "enum" under a key named key, depth first. */
static json_t *find_enum(json_t *j, const char *key)
{
	const char *k;
	json_t *v, *e;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if (!strcmp(k, key) && json_is_array(json_object_get(v, "enum")))
				return json_object_get(v, "enum");
			if ((e = find_enum(v, key)))
				return e;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((e = find_enum(v, key)))
				return e;
	}
	return NULL;
}

/* unmapped.rule and finding_info.analytic.uid list the table's rules, in
 * its order. */
static void test_schema_lists_the_rules(void **state)
{
	json_t *schema = json_load_file("schemas/alert.schema.json", 0, NULL);
	json_t *rules, *uids;
	char uid[64];
	int r;

	(void)state;
	assert_non_null(schema);
	rules = find_enum(schema, "rule");
	uids = find_enum(schema, "uid");
	assert_non_null(rules);
	assert_non_null(uids);
	assert_int_equal(json_array_size(rules), RF_RULE_MAX);
	assert_int_equal(json_array_size(uids), RF_RULE_MAX);
	for (r = 0; r < RF_RULE_MAX; r++) {
		snprintf(uid, sizeof(uid), "rf-%s", rf_rule_id((enum rf_rule)r));
		assert_string_equal(json_string_value(json_array_get(rules, (size_t)r)),
				    rf_rule_id((enum rf_rule)r));
		assert_string_equal(json_string_value(json_array_get(uids, (size_t)r)), uid);
	}
	json_decref(schema);
}

/* The detectors' table in the alerts documentation has a row per rule. */
static void test_docs_list_the_rules(void **state)
{
	FILE *f = fopen("docs/trace-and-alerts.md", "re");
	char *text = NULL, row[80];
	size_t len = 0;
	int r;

	(void)state;
	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	for (r = 0; r < RF_RULE_MAX; r++) {
		snprintf(row, sizeof(row), "\n| `rf-%s`", rf_rule_id((enum rf_rule)r));
		if (!strstr(text, row))
			fail_msg("docs/trace-and-alerts.md has no detector row %s", row + 1);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_severities),
		cmocka_unit_test(test_control_outcomes),
		cmocka_unit_test(test_schema_lists_the_rules),
		cmocka_unit_test(test_docs_list_the_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
