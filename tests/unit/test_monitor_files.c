// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* monitor.files: the supervisor's judgement of a path (filewatch__expected)
 * and the unexpected-file alert through the detectors and alert.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "alert.h"
#include "detect.h"
#include "run/filewatch.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)
#define CG 771

struct sink {
	struct rf_alert v[16];
	size_t n;
};

static void collect(const struct rf_alert *a, void *ctx)
{
	struct sink *s = ctx;

	if (s->n < 16)
		s->v[s->n++] = *a;
}

static void feed_sandbox(struct rf_detect *d, uint64_t t)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = t, .type = RF_IN_SANDBOX, .cgroup_id = CG };

	snprintf(si.sandbox, sizeof(si.sandbox), "sb-files");
	snprintf(si.policy_id, sizeof(si.policy_id), "pol");
	si.cgroup_id = CG;
	si.on_alert = RF_RESP_FREEZE;
	in.u.sb = &si;
	detect__input(d, &in);
}

/* The supervisor's record of an unexpected open (filewatch.c). */
static void feed_open(struct rf_detect *d, uint64_t t, uint32_t pid, uint32_t ppid,
		      const char *comm, const char *path, uint32_t need)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_DECISION, .cgroup_id = CG };
	struct rf_event *ev = &in.u.decision;

	ev->kind = RF_EV_DECISION;
	ev->class = RF_CLASS_FILE;
	ev->op = need & RF_ACC_EXEC ? RF_OP_EXEC : RF_OP_FILE_OPEN;
	ev->flags = RF_EVF_UNEXPECTED | RF_EVF_ACCESS;
	ev->pid = ev->tid = pid;
	ev->target_pid = ppid;
	ev->need = need;
	snprintf(ev->comm, sizeof(ev->comm), "%s", comm);
	ev->path_len = (uint32_t)snprintf(ev->path, sizeof(ev->path), "%s", path);
	detect__input(d, &in);
}

static void feed_fork(struct rf_detect *d, uint64_t t, uint32_t pid, uint32_t ppid,
		      const char *comm)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_EXEC, .cgroup_id = CG };

	in.u.proc.pid = in.u.proc.tid = pid;
	in.u.proc.ppid = ppid;
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "%s", comm);
	snprintf(in.u.proc.path, sizeof(in.u.proc.path), "/usr/bin/%s", comm);
	detect__input(d, &in);
}

static void test_expected_paths(void **state)
{
	char *files[] = { "/usr/", "/work/in.txt", "/" "srv/data/" };

	(void)state;
	assert_true(filewatch__expected(files, 3, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(filewatch__expected(files, 3, "/work/in.txt"));
	assert_true(filewatch__expected(files, 3, "/srv/data/a/b"));
	/* a file entry is that file only; a subtree is below its '/' */
	assert_false(filewatch__expected(files, 3, "/work/in.txt.bak"));
	assert_false(filewatch__expected(files, 3, "/work/other"));
	assert_false(filewatch__expected(files, 3, "/usrlocal/x"));
	assert_false(filewatch__expected(files, 3, "/srv/database"));
	assert_false(filewatch__expected(files, 3, "/etc/hostname"));
}

static const struct rf_alert *nth_file_alert(const struct sink *s, enum rf_phase ph, size_t nth)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].rule == RF_RULE_FILES && s->v[i].phase == ph && !nth--)
			return &s->v[i];
	return NULL;
}

/* One alert per path naming the process and its parent; a later write of
 * the same path adds to its access; another path is another alert. */
static void test_unexpected_file_alert(void **state)
{
	static const struct rf_alert_origin og = { "h", "" };
	struct sink s = { .n = 0 };
	const struct rf_alert *a;
	struct rf_detect *d;
	json_t *o, *um;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, T0);
	feed_fork(d, T0 + MS, 300, 1, "python3");
	feed_open(d, T0 + 2 * MS, 301, 300, "cat", "/etc/hostname", RF_ACC_READ);
	a = nth_file_alert(&s, RF_PHASE_OPEN, 0);
	assert_non_null(a);
	assert_string_equal(a->key, "/etc/hostname");
	assert_string_equal(a->dests[0].path, "/etc/hostname");
	assert_int_equal(a->file_access, RF_ACC_READ);
	assert_int_equal(a->proc.pid, 301);
	assert_int_equal(a->proc.ppid, 300);
	assert_true(a->proc.parent_known);
	assert_string_equal(a->proc.parent_name, "python3");
	assert_int_equal(a->response, RF_RESP_FREEZE);
	o = alert__ocsf(a, 1, 0, &og);
	um = json_object_get(o, "unmapped");
	assert_string_equal(json_string_value(json_object_get(um, "rule")), "unexpected-file");
	assert_string_equal(json_string_value(json_object_get(um, "path")), "/etc/hostname");
	assert_string_equal(json_string_value(json_object_get(um, "access")), "read");
	assert_non_null(strstr(json_string_value(json_object_get(o, "message")),
			       "/etc/hostname (read) by cat (pid 301, parent python3 pid 300)"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(
		json_object_get(o, "evidences"), 0), "file"), "path")), "/etc/hostname");
	json_decref(o);
	feed_open(d, T0 + 3 * MS, 301, 300, "cat", "/etc/hostname", RF_ACC_WRITE);
	feed_open(d, T0 + 4 * MS, 302, 300, "tool", "/tmp/x/tool", RF_ACC_EXEC);
	assert_non_null(nth_file_alert(&s, RF_PHASE_OPEN, 1));
	assert_string_equal(nth_file_alert(&s, RF_PHASE_OPEN, 1)->key, "/tmp/x/tool");
	assert_null(nth_file_alert(&s, RF_PHASE_OPEN, 2));
	detect__finish(d, T0 + 10000 * MS);
	a = nth_file_alert(&s, RF_PHASE_CLOSE, 0);
	assert_non_null(a);
	assert_int_equal(a->file_access, RF_ACC_READ | RF_ACC_WRITE);
	assert_int_equal(a->count, 2);
	o = alert__ocsf(a, 2, 0, &og);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "unmapped"),
							       "access")), "read,write");
	json_decref(o);
	detect__free(d);
}

/* Seen before the registry entry: judged when it comes (the sandbox's
 * name and on_alert in the alert). */
static void test_file_before_registry(void **state)
{
	struct sink s = { .n = 0 };
	struct rf_detect *d;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_open(d, T0, 401, 400, "sh", "/etc/passwd", 0);
	assert_null(nth_file_alert(&s, RF_PHASE_OPEN, 0));
	feed_sandbox(d, T0 + MS);
	assert_non_null(nth_file_alert(&s, RF_PHASE_OPEN, 0));
	assert_string_equal(nth_file_alert(&s, RF_PHASE_OPEN, 0)->sandbox, "sb-files");
	assert_int_equal(nth_file_alert(&s, RF_PHASE_OPEN, 0)->file_access, 0);
	detect__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expected_paths),
		cmocka_unit_test(test_unexpected_file_alert),
		cmocka_unit_test(test_file_before_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
