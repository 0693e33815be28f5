// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * monitor.files (privileged): a sandbox whose monitor.files lists /usr/
 * and its work directory opens files elsewhere that its policy allows
 * (/etc/hostname read, a file of another directory written): an
 * unexpected-file alert naming each path, the process, its parent and the
 * access, valid OCSF; its twin, which opens only under the expected
 * paths, none (and its trace shows the watch saw its opens); on_alert
 * "kill" ends a sandbox before its mark. One monitor runs for the suite.
 */
#include "harness.h"

#define WAIT_MS 15000

static pid_t mon_pid = -1;
static char *mon_out, *mon_status, *mon_state;
static char work[] = "/var/tmp/rf-files-work-XXXXXX", other[] = "/var/tmp/rf-files-other-XXXXXX";

static int setup(void **state)
{
	const char *args[16];
	int n = 0;

	(void)state;
	if (harness_require_root() || access("/etc/hostname", R_OK))
		return -1;
	if (!mkdtemp(work) || !mkdtemp(other))
		return -1;
	mon_out = h_tempfile("files-alerts", NULL);
	mon_status = h_tempfile("files-status", NULL);
	mon_state = h_tempfile("files-state", NULL);
	args[n++] = "--output";
	args[n++] = mon_out;
	args[n++] = "--state";
	args[n++] = mon_state;
	args[n++] = "--interval";
	args[n++] = "500";
	args[n++] = "--linger-ms";
	args[n++] = "1000";
	args[n] = NULL;
	mon_pid = h_monitor_start(mon_status, args, NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	h_monitor_stop(mon_pid);
	unlink(mon_out);
	unlink(mon_status);
	unlink(mon_state);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", work, other);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *str2(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(b ? json_object_get(o, a) : o, b ? b : a);

	return json_is_string(v) ? json_string_value(v) : "";
}

/* The alert records of rule for one sandbox. */
static json_t *select_of(const char *sandbox, const char *rule)
{
	json_t *all = h_monitor_records(mon_out), *sel = json_array(), *o;
	size_t i;

	json_array_foreach(all, i, o)
		if (!strcmp(str2(o, "unmapped", "sandbox"), sandbox) &&
		    !strcmp(str2(o, "unmapped", "rule"), rule))
			json_array_append(sel, o);
	json_decref(all);
	return sel;
}

/* The first record of sandbox's unexpected-file alert for path whose
 * access has want ("": any; the first record may say "open" and a later
 * one "read" too: the read comes after the open), waited for; NULL after
 * WAIT_MS. */
static json_t *wait_file_alert(const char *sandbox, const char *path, const char *want)
{
	uint64_t deadline = h_now_ms() + WAIT_MS;

	while (h_now_ms() < deadline) {
		json_t *sel = select_of(sandbox, "unexpected-file"), *o, *found = NULL;
		size_t i;

		json_array_foreach(sel, i, o)
			if (!found && !strcmp(str2(o, "unmapped", "path"), path) &&
			    strstr(str2(o, "unmapped", "access"), want))
				found = json_incref(o);
		json_decref(sel);
		if (found)
			return found;
		h_sleep_ms(20);
	}
	return NULL;
}

#define FILES_POLICY(id, on_alert)                                                       \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":\"unrestricted\","                         \
	"\"monitor\":{\"files\":[\"/usr/\",\"/etc/ld.so.cache\",\"%s/\"],"                \
	"\"on_alert\":\"" on_alert "\"}}"

struct bg {
	struct h_proc p;
	char *policy, *trace, *name;
};

/* A sandbox of policy fmt (the work directory put in) running sh -c cmd,
 * its name from the trace's first line. */
static struct bg bg_start(const char *fmt, const char *cmd)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	char policy[1024];
	struct bg b = { 0 };

	snprintf(policy, sizeof(policy), fmt, work);
	b.trace = h_tempfile("files-trace", NULL);
	b.policy = h_tempfile("files-policy", policy);
	b.p = h_spawn(b.policy, b.trace, NULL, argv);
	b.name = h_trace_sandbox(b.trace);
	assert_non_null(b.name);
	return b;
}

/* Its exit status; its sandbox.exit in *ret_exit (the caller frees *ret_trace). */
static int bg_end(struct bg *b, json_t **ret_trace, json_t **ret_exit)
{
	int rc = h_wait(b->p, NULL, NULL);

	*ret_trace = h_trace(b->trace);
	*ret_exit = h_event(*ret_trace, "sandbox.exit", 0);
	unlink(b->policy);
	unlink(b->trace);
	free(b->policy);
	free(b->trace);
	return rc;
}

static json_int_t watch_count(json_t *ex, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(ex, "files_watch"), key));
}

/* /etc/hostname read and a file of another directory written: an alert
 * for each, with its access and process; the twin reads only under /usr/
 * and its work directory: the watch saw its opens, no alert. */
static void unexpected_paths_named_twin_silent(void **state)
{
	char cmd[512], twin_cmd[512], written[300], in[300], check[1024];
	struct bg b, t;
	json_t *a, *w, *um, *tr, *ex, *sel;

	(void)state;
	snprintf(in, sizeof(in), "%s/in.txt", work);
	{
		FILE *f = fopen(in, "w");

		assert_non_null(f);
		fputs("expected\n", f);
		fclose(f);
	}
	snprintf(written, sizeof(written), "%s/w.txt", other);
	snprintf(cmd, sizeof(cmd), "cat /etc/hostname %s; echo x > %s", in, written);
	snprintf(twin_cmd, sizeof(twin_cmd), "wc -c %s /usr/share/common-licenses/GPL-3", in);
	b = bg_start(FILES_POLICY("mon-files", "alert"), cmd);
	assert_int_equal(bg_end(&b, &tr, &ex), 0);
	assert_true(watch_count(ex, "unexpected") >= 2);
	assert_true(watch_count(ex, "sent") >= 2);
	json_decref(tr);
	a = wait_file_alert(b.name, "/etc/hostname", "read");
	assert_non_null(a);
	um = json_object_get(a, "unmapped");
	assert_string_equal(str2(um, "access", NULL), "read");
	assert_true(json_integer_value(json_object_get(um, "pid")) > 1);
	assert_true(json_integer_value(json_object_get(um, "parent_pid")) > 1);
	assert_string_equal(str2(a, "severity", NULL), "Medium");
	assert_non_null(strstr(str2(a, "message", NULL), "/etc/hostname (read) by cat (pid "));
	w = wait_file_alert(b.name, written, "write");
	assert_non_null(w);
	json_decref(a);
	json_decref(w);
	/* the twin: only expected paths */
	t = bg_start(FILES_POLICY("mon-files-twin", "alert"), twin_cmd);
	assert_int_equal(bg_end(&t, &tr, &ex), 0);
	assert_true(watch_count(ex, "events") >= 3);   /* it watched: in.txt, GPL-3, libc */
	assert_int_equal(watch_count(ex, "unexpected"), 0);
	json_decref(tr);
	h_sleep_ms(700);
	sel = select_of(t.name, "unexpected-file");
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	/* the live records against the official OCSF schema */
	snprintf(check, sizeof(check), "/usr/bin/python3 tests/ocsf/check_alerts.py --project "
		 "schemas/alert.schema.json --absent-ok tests/ocsf/recommended-absent.txt "
		 "tests/ocsf/detection_finding-1.3.0.schema.json %s > /dev/null", mon_out);
	assert_int_equal(system(check), 0);
	unlink(written);
	free(b.name);
	free(t.name);
}

/* on_alert "kill": the alert says killed, the run ends with SIGKILL before
 * its mark, sandbox.exit names the action. */
static void on_alert_kill_ends_the_sandbox(void **state)
{
	char cmd[512], mark[300];
	struct bg b;
	json_t *a, *resp, *tr, *ex, *ma;

	(void)state;
	snprintf(mark, sizeof(mark), "%s/mark", work);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "cat /etc/hostname; sleep 20; touch %s", mark);
	b = bg_start(FILES_POLICY("mon-files-kill", "kill"), cmd);
	a = wait_file_alert(b.name, "/etc/hostname", "");
	assert_non_null(a);
	assert_string_equal(str2(json_object_get(a, "unmapped"), "phase", NULL), "open");
	resp = json_object_get(json_object_get(a, "unmapped"), "response");
	assert_string_equal(str2(resp, "on_alert", NULL), "kill");
	assert_string_equal(str2(resp, "result", NULL), "killed");
	assert_string_equal(str2(a, "disposition", NULL), "Blocked");
	assert_int_equal(bg_end(&b, &tr, &ex), 128 + SIGKILL);
	assert_int_equal(access(mark, F_OK), -1);
	ma = json_object_get(ex, "monitor_action");
	assert_non_null(ma);
	assert_string_equal(str2(ma, "rule", NULL), "unexpected-file");
	assert_string_equal(str2(ma, "result", NULL), "killed");
	json_decref(tr);
	json_decref(a);
	free(b.name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unexpected_paths_named_twin_silent),
		cmocka_unit_test(on_alert_kill_ends_the_sandbox),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
