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

static struct h_mon mon;
static char work[] = "/var/tmp/rf-files-work-XXXXXX", other[] = "/var/tmp/rf-files-other-XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (harness_require_root() || access("/etc/hostname", R_OK))
		return -1;
	if (!mkdtemp(work) || !mkdtemp(other))
		return -1;
	h_mon_init(&mon, "files", false);
	h_mon_start(&mon, NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	h_mon_done(&mon);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", work, other);
	return system(cmd) == 0 ? 0 : -1;
}

struct file_want {
	const char *path, *access;
};

static bool file_is(json_t *rec, const void *arg)
{
	const struct file_want *w = arg;

	return !strcmp(h_rec_str(rec, "unmapped", "path"), w->path) &&
	       strstr(h_rec_str(rec, "unmapped", "access"), w->access);
}

/* The first record of sandbox's unexpected-file alert for path whose
 * access has want ("": any; the first record may say "open" and a later
 * one "read" too: the read comes after the open), waited for; NULL after
 * H_MON_WAIT_MS. */
static json_t *wait_file_alert(const char *sandbox, const char *path, const char *want)
{
	struct file_want w = { path, want };

	return h_mon_wait(mon.out, "unexpected-file", sandbox, file_is, &w);
}

#define FILES_POLICY(id, on_alert)                                                       \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":\"unrestricted\","                         \
	"\"monitor\":{\"files\":[\"/usr/\",\"/etc/ld.so.cache\",\"%s/\"],"                \
	"\"on_alert\":\"" on_alert "\"}}"

/* A sandbox of policy fmt (the work directory put in) running sh -c cmd. */
static struct h_bg bg_start(const char *fmt, const char *cmd)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	char policy[1024];

	snprintf(policy, sizeof(policy), fmt, work);
	return h_bg_start(policy, argv);
}

/* Its exit status; its sandbox.exit in *ret_exit (the caller frees *ret_trace). */
static int bg_end(struct h_bg *b, json_t **ret_trace, json_t **ret_exit)
{
	int rc = h_bg_end(b, NULL, ret_trace, NULL);

	*ret_exit = h_event(*ret_trace, "sandbox.exit", 0);
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
	struct h_bg b, t;
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
	assert_string_equal(h_rec_str(um, "access", NULL), "read");
	assert_true(json_integer_value(json_object_get(um, "pid")) > 1);
	assert_true(json_integer_value(json_object_get(um, "parent_pid")) > 1);
	assert_string_equal(h_rec_str(a, "severity", NULL), "Medium");
	assert_non_null(strstr(h_rec_str(a, "message", NULL), "/etc/hostname (read) by cat (pid "));
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
	sel = h_mon_select(mon.out, "unexpected-file", t.name);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	/* the live records against the official OCSF schema */
	snprintf(check, sizeof(check), "/usr/bin/python3 tests/ocsf/check_alerts.py --project "
		 "schemas/alert.schema.json --absent-ok tests/ocsf/recommended-absent.txt "
		 "tests/ocsf/detection_finding-1.3.0.schema.json %s > /dev/null", mon.out);
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
	struct h_bg b;
	json_t *a, *resp, *tr, *ex, *ma;

	(void)state;
	snprintf(mark, sizeof(mark), "%s/mark", work);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "cat /etc/hostname; sleep 20; touch %s", mark);
	b = bg_start(FILES_POLICY("mon-files-kill", "kill"), cmd);
	a = wait_file_alert(b.name, "/etc/hostname", "");
	assert_non_null(a);
	assert_string_equal(h_rec_str(json_object_get(a, "unmapped"), "phase", NULL), "open");
	resp = json_object_get(json_object_get(a, "unmapped"), "response");
	assert_string_equal(h_rec_str(resp, "on_alert", NULL), "kill");
	assert_string_equal(h_rec_str(resp, "result", NULL), "killed");
	assert_string_equal(h_rec_str(a, "disposition", NULL), "Blocked");
	assert_int_equal(bg_end(&b, &tr, &ex), 128 + SIGKILL);
	assert_int_equal(access(mark, F_OK), -1);
	ma = json_object_get(ex, "monitor_action");
	assert_non_null(ma);
	assert_string_equal(h_rec_str(ma, "rule", NULL), "unexpected-file");
	assert_string_equal(h_rec_str(ma, "result", NULL), "killed");
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
