// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Alert records: OCSF Detection Finding shape, one per rule (cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "alert.h"

#define BOOT_TO_REAL 1795000000000000000LL  /* 2026-11-18T... */

static const struct rf_alert_origin origin = { "build-7", "0123456789abcdef0123456789abcdef" };

static struct rf_alert base(enum rf_rule rule, const char *key)
{
	struct rf_alert a;

	memset(&a, 0, sizeof(a));
	a.rule = rule;
	a.phase = RF_PHASE_OPEN;
	snprintf(a.uid, sizeof(a.uid), "rf-0123456789abcdef");
	snprintf(a.key, sizeof(a.key), "%s", key);
	a.time_ns = 5000000000ULL;
	a.first_ns = 4000000000ULL;
	a.last_ns = 4500000000ULL;
	a.count = 7;
	a.suppressed = 0;
	snprintf(a.sandbox, sizeof(a.sandbox), "demo-1b93999c");
	snprintf(a.policy_id, sizeof(a.policy_id), "demo");
	a.cgroup_id = 23604;
	a.has_proc = true;
	a.proc.pid = 15034;
	snprintf(a.proc.name, sizeof(a.proc.name), "rf-net");
	snprintf(a.proc.path, sizeof(a.proc.path), "/usr/bin/rf-net");
	a.proc.ppid = 15000;
	a.proc.parent_known = true;
	snprintf(a.proc.parent_name, sizeof(a.proc.parent_name), "sh");
	a.unit = "events";
	return a;
}

static json_t *get(json_t *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		char *end;
		long idx = strtol(tok, &end, 10);

		o = *end ? json_object_get(o, tok) : json_array_get(o, (size_t)idx);
	}
	return o;
}

/* What every record has, whatever the rule. */
static void check_common(json_t *o, uint64_t seq)
{
	const char *dt;

	assert_int_equal(json_integer_value(get(o, "class_uid")), 2004);
	assert_int_equal(json_integer_value(get(o, "category_uid")), 2);
	assert_int_equal(json_integer_value(get(o, "type_uid")),
			 200400 + json_integer_value(get(o, "activity_id")));
	assert_int_equal(json_integer_value(get(o, "metadata.sequence")), (json_int_t)seq);
	assert_string_equal(json_string_value(get(o, "metadata.product.name")), "ringfence-monitor");
	assert_string_equal(json_string_value(get(o, "metadata.version")), RF_OCSF_VERSION);
	assert_int_equal(json_integer_value(get(o, "time")), (BOOT_TO_REAL + 5000000000LL) / 1000000);
	dt = json_string_value(get(o, "time_dt"));
	assert_non_null(dt);
	assert_int_equal(strlen(dt), 24);   /* 2026-11-18T19:33:25.000Z */
	assert_int_equal(dt[10], 'T');
	assert_int_equal(dt[23], 'Z');
	assert_true(json_integer_value(get(o, "severity_id")) >= 1);
	assert_non_null(json_string_value(get(o, "severity")));
	assert_non_null(json_string_value(get(o, "finding_info.uid")));
	assert_non_null(json_string_value(get(o, "finding_info.title")));
	assert_string_equal(json_string_value(get(o, "finding_info.analytic.type")), "Rule");
	assert_int_equal(json_integer_value(get(o, "start_time")),
			 (BOOT_TO_REAL + 4000000000LL) / 1000000);
	assert_int_equal(json_integer_value(get(o, "end_time")),
			 (BOOT_TO_REAL + 4500000000LL) / 1000000);
	assert_true(json_is_array(get(o, "evidences")));
	assert_true(json_array_size(get(o, "evidences")) >= 1);
	assert_true(json_is_object(get(o, "unmapped")));
	assert_non_null(json_string_value(get(o, "message")));
}

static void test_burst_record(void **state)
{
	struct rf_alert a = base(RF_RULE_DENY_BURST, "network");
	json_t *o;

	(void)state;
	a.window_ms = 1000;
	a.threshold = 10;
	a.unit = "denials";
	snprintf(a.verdict, sizeof(a.verdict), "denied");
	a.n_dests = 2;
	snprintf(a.dests[0].key, sizeof(a.dests[0].key), "127.0.0.1:9/tcp");
	a.dests[0].family = AF_INET;
	snprintf(a.dests[0].address, sizeof(a.dests[0].address), "127.0.0.1");
	a.dests[0].port = 9;
	snprintf(a.dests[0].protocol, sizeof(a.dests[0].protocol), "tcp");
	a.dests[0].protocol_num = 6;
	a.dests[0].count = 5;
	snprintf(a.dests[1].key, sizeof(a.dests[1].key), "unix:/run/x.sock");
	a.dests[1].family = AF_UNIX;
	snprintf(a.dests[1].path, sizeof(a.dests[1].path), "/run/x.sock");
	a.dests[1].count = 2;
	o = alert__ocsf(&a, 3, BOOT_TO_REAL, &origin);
	assert_non_null(o);
	check_common(o, 3);
	assert_int_equal(json_integer_value(get(o, "activity_id")), 1);
	assert_string_equal(json_string_value(get(o, "finding_info.analytic.uid")), "rf-deny-burst");
	assert_int_equal(json_integer_value(get(o, "count")), 7);
	assert_string_equal(json_string_value(get(o, "evidences.0.container.uid")), "demo-1b93999c");
	assert_int_equal(json_integer_value(get(o, "evidences.0.process.pid")), 15034);
	assert_string_equal(json_string_value(get(o, "evidences.0.process.file.path")),
			    "/usr/bin/rf-net");
	assert_int_equal(json_integer_value(get(o, "evidences.0.process.parent_process.pid")), 15000);
	assert_string_equal(json_string_value(get(o, "evidences.0.process.parent_process.name")),
			    "sh");
	assert_string_equal(json_string_value(get(o, "evidences.0.dst_endpoint.ip")), "127.0.0.1");
	assert_int_equal(json_integer_value(get(o, "evidences.0.dst_endpoint.port")), 9);
	assert_string_equal(json_string_value(get(o, "evidences.1.file.path")), "/run/x.sock");
	assert_int_equal(json_integer_value(get(o, "unmapped.cgroup_id")), 23604);
	assert_int_equal(json_integer_value(get(o, "unmapped.window_ms")), 1000);
	assert_int_equal(json_integer_value(get(o, "unmapped.threshold")), 10);
	assert_int_equal(json_integer_value(get(o, "unmapped.destinations.1.count")), 2);
	/* OCSF 1.3 profiles and fields the official schema wants */
	assert_int_equal(json_integer_value(get(o, "action_id")), 2);
	assert_int_equal(json_integer_value(get(o, "disposition_id")), 2);
	assert_null(get(o, "status_id"));
	assert_string_equal(json_string_value(get(o, "metadata.profiles.3")), "security_control");
	assert_string_equal(json_string_value(get(o, "device.hostname")), "build-7");
	assert_string_equal(json_string_value(get(o, "device.uid")),
			    "0123456789abcdef0123456789abcdef");
	assert_string_equal(json_string_value(get(o, "finding_info.uid")),
			    "0123456789abcdef0123456789abcdef-rf-0123456789abcdef");
	assert_int_equal(strlen(json_string_value(get(o, "metadata.uid"))), 36);
	assert_int_equal(json_integer_value(get(o, "evidences.0.connection_info.protocol_num")), 6);
	assert_string_equal(json_string_value(get(o, "evidences.0.process.sandbox")),
			    "demo-1b93999c");
	assert_int_equal(json_integer_value(get(o, "evidences.0.process.file.type_id")), 1);
	assert_int_equal(json_integer_value(get(o, "evidences.1.file.type_id")), 5);
	assert_null(get(o, "metadata.labels"));
	assert_null(get(o, "metadata.correlation_uid"));
	json_decref(o);

	/* a refused socket has no destination; a mkdir names a folder;
	 * labels and the traceparent reach the metadata */
	memset(&a.dests[0], 0, sizeof(a.dests[0]));
	a.dests[0].family = AF_INET;
	snprintf(a.dests[0].protocol, sizeof(a.dests[0].protocol), "sctp");
	a.dests[0].protocol_num = 132;
	a.dests[1].family = 0;
	a.dests[1].dir = true;
	a.n_labels = 2;
	snprintf(a.labels[0], sizeof(a.labels[0]), "job=ci-42");
	snprintf(a.labels[1], sizeof(a.labels[1]), "tool=fetch");
	snprintf(a.traceparent, sizeof(a.traceparent),
		 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
	o = alert__ocsf(&a, 4, BOOT_TO_REAL, &origin);
	assert_null(get(o, "evidences.0.dst_endpoint"));
	assert_int_equal(json_integer_value(get(o, "evidences.0.connection_info.protocol_num")), 132);
	assert_int_equal(json_integer_value(get(o, "evidences.1.file.type_id")), 2);
	assert_string_equal(json_string_value(get(o, "evidences.1.file.type")), "Folder");
	assert_string_equal(json_string_value(get(o, "metadata.labels.1")), "tool=fetch");
	assert_string_equal(json_string_value(get(o, "metadata.correlation_uid")),
			    "4bf92f3577b34da6a3ce929d0e0e4736");
	assert_string_equal(json_string_value(get(o, "unmapped.traceparent")), a.traceparent);
	json_decref(o);
}

static void test_syscall_record(void **state)
{
	struct rf_alert a = base(RF_RULE_SYSCALL, "getcpu");
	json_t *o;

	(void)state;
	snprintf(a.syscall, sizeof(a.syscall), "getcpu");
	a.syscall_nr = 309;
	a.phase = RF_PHASE_CLOSE;
	a.close_reason = "quiet";
	o = alert__ocsf(&a, 9, BOOT_TO_REAL, &origin);
	check_common(o, 9);
	assert_int_equal(json_integer_value(get(o, "activity_id")), 3);
	/* the consumer sets the status; this one succeeded: detected, not blocked */
	assert_null(get(o, "status_id"));
	assert_int_equal(json_integer_value(get(o, "action_id")), 1);
	assert_int_equal(json_integer_value(get(o, "disposition_id")), 15);
	assert_int_equal(json_integer_value(get(o, "severity_id")), 4);
	assert_string_equal(json_string_value(get(o, "evidences.0.api.operation")), "getcpu");
	assert_string_equal(json_string_value(get(o, "unmapped.syscall")), "getcpu");
	assert_int_equal(json_integer_value(get(o, "unmapped.syscall_nr")), 309);
	assert_true(json_is_false(get(o, "unmapped.refused")));
	assert_null(get(o, "unmapped.errno"));
	assert_null(get(o, "evidences.0.api.response"));
	assert_string_equal(json_string_value(get(o, "unmapped.close_reason")), "quiet");
	assert_non_null(strstr(json_string_value(get(o, "message")), "getcpu"));
	json_decref(o);
}

/* A refused first call: Critical, says so in the text, unmapped and api. */
static void test_syscall_refused_record(void **state)
{
	struct rf_alert a = base(RF_RULE_SYSCALL, "ptrace");
	json_t *o;

	(void)state;
	snprintf(a.syscall, sizeof(a.syscall), "ptrace");
	a.syscall_nr = 101;
	a.syscall_err = 1;      /* EPERM */
	a.refused = true;
	o = alert__ocsf(&a, 3, BOOT_TO_REAL, &origin);
	check_common(o, 3);
	assert_int_equal(json_integer_value(get(o, "severity_id")), 5);
	assert_string_equal(json_string_value(get(o, "severity")), "Critical");
	assert_true(json_is_true(get(o, "unmapped.refused")));
	assert_string_equal(json_string_value(get(o, "unmapped.errno")), "EPERM");
	assert_int_equal(json_integer_value(get(o, "evidences.0.api.response.code")), 1);
	assert_string_equal(json_string_value(get(o, "evidences.0.api.response.error")), "EPERM");
	assert_non_null(strstr(json_string_value(get(o, "message")), "ptrace (101) outside the "
			       "policy's profile, refused with EPERM, by rf-net"));
	json_decref(o);
	/* failed otherwise: the errno, not refused, High */
	a.syscall_err = 2;
	a.refused = false;
	o = alert__ocsf(&a, 4, BOOT_TO_REAL, &origin);
	assert_int_equal(json_integer_value(get(o, "severity_id")), 4);
	assert_true(json_is_false(get(o, "unmapped.refused")));
	assert_string_equal(json_string_value(get(o, "unmapped.errno")), "ENOENT");
	assert_non_null(strstr(json_string_value(get(o, "message")), "failed with ENOENT"));
	json_decref(o);
}

static void test_resource_record(void **state)
{
	struct rf_alert a = base(RF_RULE_RESOURCE, "memory");
	json_t *o;

	(void)state;
	a.has_proc = false;
	a.value = 170000000;
	a.threshold = 64ULL << 20;
	a.unit = "bytes";
	a.phase = RF_PHASE_UPDATE;
	o = alert__ocsf(&a, 1, BOOT_TO_REAL, &origin);
	check_common(o, 1);
	assert_int_equal(json_integer_value(get(o, "activity_id")), 2);
	assert_int_equal(json_integer_value(get(o, "unmapped.value")), 170000000);
	assert_int_equal(json_integer_value(get(o, "unmapped.threshold")), 64 << 20);
	assert_string_equal(json_string_value(get(o, "unmapped.unit")), "bytes");
	assert_string_equal(json_string_value(get(o, "evidences.0.container.uid")), "demo-1b93999c");
	assert_null(get(o, "evidences.0.process"));
	json_decref(o);
}

static void test_lost_record(void **state)
{
	struct rf_alert a = base(RF_RULE_LOST, "kernel-decisions");
	json_t *o;

	(void)state;
	a.sandbox[0] = 0;
	a.policy_id[0] = 0;
	a.cgroup_id = 0;
	a.has_proc = false;
	a.lost_total = 4318;
	a.before_start = true;
	o = alert__ocsf(&a, 2, BOOT_TO_REAL, &origin);
	check_common(o, 2);
	assert_int_equal(json_integer_value(get(o, "unmapped.lost_total")), 4318);
	assert_true(json_is_true(get(o, "unmapped.before_start")));
	assert_string_equal(json_string_value(get(o, "unmapped.hop")), "kernel-decisions");
	assert_string_equal(json_string_value(get(o, "evidences.0.data.hop")), "kernel-decisions");
	assert_null(get(o, "unmapped.sandbox"));
	json_decref(o);
}

/* Sandboxes shed from a full table: a host-wide finding of its own kind. */
static void test_shed_record(void **state)
{
	struct rf_alert a = base(RF_RULE_SHED, "sandboxes");
	json_t *o;

	(void)state;
	a.sandbox[0] = 0;
	a.policy_id[0] = 0;
	a.cgroup_id = 0;
	a.has_proc = false;
	a.count = 3;
	a.capacity = 64;
	a.shed_total = 5;
	snprintf(a.last_shed, sizeof(a.last_shed), "demo-00000001");
	a.phase = RF_PHASE_CLOSE;
	a.close_reason = "quiet";
	o = alert__ocsf(&a, 3, BOOT_TO_REAL, &origin);
	check_common(o, 3);
	assert_string_equal(json_string_value(get(o, "finding_info.title")), "Sandbox table full");
	assert_string_equal(json_string_value(get(o, "finding_info.analytic.uid")), "rf-table-shed");
	assert_int_equal(json_integer_value(get(o, "severity_id")), 4);
	assert_string_equal(json_string_value(get(o, "unmapped.rule")), "table-shed");
	assert_string_equal(json_string_value(get(o, "unmapped.table")), "sandboxes");
	assert_int_equal(json_integer_value(get(o, "unmapped.capacity")), 64);
	assert_int_equal(json_integer_value(get(o, "unmapped.shed_total")), 5);
	assert_string_equal(json_string_value(get(o, "unmapped.last_shed")), "demo-00000001");
	assert_int_equal(json_integer_value(get(o, "evidences.0.data.shed")), 3);
	assert_non_null(strstr(json_string_value(get(o, "message")), "3 live sandboxes shed"));
	assert_null(get(o, "unmapped.sandbox"));
	json_decref(o);
}

/* One line, valid JSON, newline-terminated, key order stable. */
static void test_line(void **state)
{
	struct rf_alert a = base(RF_RULE_FAILED_OPS, "file");
	char *l1 = alert__line(&a, 1, BOOT_TO_REAL, &origin), *l2 = alert__line(&a, 1, BOOT_TO_REAL, &origin);
	json_t *o;

	(void)state;
	assert_non_null(l1);
	assert_string_equal(l1, l2);
	assert_int_equal(l1[strlen(l1) - 1], '\n');
	assert_null(strchr(l1, '\n') + 1 == l1 + strlen(l1) ? NULL : "two lines");
	o = json_loads(l1, 0, NULL);
	assert_non_null(o);
	assert_int_equal(strncmp(l1, "{\"metadata\"", 11), 0);
	json_decref(o);
	free(l1);
	free(l2);
}

static void test_format_ms(void **state)
{
	char buf[48];

	(void)state;
	alert__format_ms(0, buf, sizeof(buf));
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	alert__format_ms(1795949335316LL, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-29T10:48:55.316Z");
}

/* 32 hex digits into 16 bytes; false if it is not that. */
static bool unhex16(const char *s, unsigned char *ret)
{
	int i;

	if (strlen(s) != 32)
		return false;
	for (i = 0; i < 16; i++)
		if (sscanf(s + 2 * i, "%2hhx", &ret[i]) != 1)
			return false;
	return true;
}

/* The device uid is the machine id made app-specific, computed here again
 * by another implementation (OpenSSL's HMAC) of systemd's definition
 * (sd_id128_get_machine_app_specific: HMAC-SHA256 keyed by the machine id
 * over the app id, its first half as a v4 UUID); the machine id itself is
 * in no field of an alert. Skipped on a host without /etc/machine-id. */
static void test_device_uid(void **state)
{
	struct rf_alert_origin og;
	struct rf_alert a = base(RF_RULE_DENY_BURST, "net");
	char machine[64] = "", want[33];
	unsigned char key[16], app[16], mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	json_t *o;
	char *line;
	FILE *f = fopen("/etc/machine-id", "re");
	int i;

	(void)state;
	if (f) {
		if (!fgets(machine, sizeof(machine), f))
			machine[0] = 0;
		fclose(f);
	}
	machine[strcspn(machine, "\n")] = 0;
	if (!unhex16(machine, key))
		skip();
	assert_true(unhex16(RF_MON_APP_ID_STR, app));
	assert_non_null(HMAC(EVP_sha256(), key, sizeof(key), app, sizeof(app), mac, &mac_len));
	assert_int_equal(mac_len, 32);
	mac[6] = (mac[6] & 0x0f) | 0x40;   /* UUID version 4 */
	mac[8] = (mac[8] & 0x3f) | 0x80;   /* variant DCE */
	for (i = 0; i < 16; i++)
		snprintf(want + 2 * i, 3, "%02x", mac[i]);

	alert__origin_local(&og);
	assert_string_equal(og.device_uid, want);
	assert_string_not_equal(og.device_uid, machine);

	o = alert__ocsf(&a, 1, BOOT_TO_REAL, &og);
	assert_non_null(o);
	assert_string_equal(json_string_value(get(o, "device.uid")), want);
	line = json_dumps(o, JSON_COMPACT);
	assert_non_null(line);
	assert_null(strstr(line, machine));
	assert_non_null(strstr(json_string_value(get(o, "finding_info.uid")), want));
	free(line);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_record),
		cmocka_unit_test(test_syscall_record),
		cmocka_unit_test(test_syscall_refused_record),
		cmocka_unit_test(test_resource_record),
		cmocka_unit_test(test_lost_record),
		cmocka_unit_test(test_shed_record),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_format_ms),
		cmocka_unit_test(test_device_uid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
