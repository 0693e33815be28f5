// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The monitor keeps up with the host whatever the backlog (privileged).
 * Short sandboxes make denials while no monitor runs; a monitor then
 * started with a small sandbox table (RINGFENCE_MONITOR_TEST_MAX_SANDBOXES,
 * test only) must drop the dead from its table, and still alert on every
 * new sandbox that bursts. A second case fills the table with live idle
 * sandboxes: the oldest idle go, counted and alerted, and a new sandbox's
 * burst still alerts.
 */
#include "harness.h"

#define WAIT_MS 20000
#define TABLE 64
#define DEAD 150
#define BURSTERS 20
#define PARALLEL 6

static char *tmpdir_path, *mon_out, *mon_status, *mon_metrics;
static pid_t mon_pid = -1;

/* A monitor with a table of `table` sandboxes (0: its default). */
static pid_t start_monitor(int table)
{
	const char *args[] = { "--output", mon_out, "--state", "", "--metrics-file", mon_metrics,
			       "--interval", "250", "--linger-ms", "1000", NULL };
	static char env[96];

	unlink(mon_out);
	snprintf(env, sizeof(env), "RINGFENCE_MONITOR_TEST_MAX_SANDBOXES=%d", table);
	return h_monitor_start(mon_status, args, table ? env : NULL);
}

static void stop_monitor(void)
{
	if (mon_pid <= 0)
		return;
	assert_int_equal(h_monitor_stop(mon_pid), 0);
	mon_pid = -1;
}

/* The monitor's --top snapshot (rewritten every interval). */
static json_t *status(void)
{
	return json_load_file(mon_status, 0, NULL);
}

static long long table_field(json_t *st, const char *k)
{
	return json_integer_value(json_object_get(json_object_get(st, "table"), k));
}

/* Decisions the monitor consumed so far (its metrics file). */
static long long metric(const char *name)
{
	char line[512];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen(mon_metrics, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	fclose(f);
	return v;
}

/* Wait until the snapshot's table says entries <= max and a metric reaches
 * at least min (NULL: none); false on timeout. */
static bool wait_table(long long max_entries, const char *name, long long min)
{
	uint64_t deadline = h_now_ms() + WAIT_MS;

	while (h_now_ms() < deadline) {
		json_t *st = status();
		bool ok = st && table_field(st, "entries") <= max_entries &&
			  (!name || metric(name) >= min);

		json_decref(st);
		if (ok)
			return true;
		h_sleep_ms(100);
	}
	return false;
}

static json_t *records(void)
{
	return h_monitor_records(mon_out);
}

static const char *um_str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(json_object_get(o, "unmapped"), k));

	return s ? s : "";
}

/* Distinct alerts (finding uids) of a rule, for one sandbox or any (NULL). */
static size_t n_alerts(json_t *all, const char *rule, const char *sandbox)
{
	size_t i, j, n = 0;
	json_t *o, *p;

	json_array_foreach(all, i, o) {
		const char *uid = json_string_value(json_object_get(json_object_get(o,
						     "finding_info"), "uid"));
		bool seen = false;

		if (strcmp(um_str(o, "rule"), rule) || (sandbox && strcmp(um_str(o, "sandbox"), sandbox)))
			continue;
		for (j = 0; j < i && !seen; j++) {
			p = json_array_get(all, j);
			seen = !strcmp(um_str(p, "rule"), rule) &&
			       !strcmp(uid, json_string_value(json_object_get(json_object_get(p,
				       "finding_info"), "uid")));
		}
		n += !seen;
	}
	return n;
}

/* The sandbox name, once the trace's first line says it. */
static char *trace_sandbox(const char *trace)
{
	char *name = h_trace_sandbox(trace);

	assert_non_null(name);
	return name;
}

struct sbx {
	struct h_proc p;
	char *trace, *name;
};

static void sbx_start(struct sbx *s, const char *policy, const char *const *argv, bool named)
{
	s->trace = named ? h_tempfile("bltrace", NULL) : NULL;
	s->p = h_spawn(policy, s->trace, NULL, argv);
	s->name = named ? trace_sandbox(s->trace) : NULL;
}

static void sbx_end(struct sbx *s, const char *expect)
{
	char *out = NULL;

	assert_int_equal(h_wait(s->p, &out, NULL), 0);
	if (expect && !strstr(out, expect))
		fail_msg("rf-net said %s, expected %s", out, expect);
	free(out);
	if (s->trace) {
		unlink(s->trace);
		free(s->trace);
	}
	s->trace = NULL;
}

static const char *deny_all = "{\"version\":1,\"id\":\"mon-backlog\",\"files\":\"unrestricted\","
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}";

/* n short sandboxes, PARALLEL at a time, each making one denied connect. */
static void dead_sandboxes(const char *policy, int n)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "9", NULL };
	struct sbx s[PARALLEL];
	int done = 0, k;

	while (done < n) {
		int batch = n - done < PARALLEL ? n - done : PARALLEL;

		for (k = 0; k < batch; k++)
			sbx_start(&s[k], policy, argv, false);
		for (k = 0; k < batch; k++)
			sbx_end(&s[k], "EPERM");
		done += batch;
	}
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/rf-mon-backlog-XXXXXX";
	const char *warm[] = { "/bin/true", NULL };

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	tmpdir_path = strdup(tmpl);
	assert_true(asprintf(&mon_out, "%s/alerts.ndjson", tmpl) > 0);
	assert_true(asprintf(&mon_status, "%s/status.json", tmpl) > 0);
	assert_true(asprintf(&mon_metrics, "%s/metrics.prom", tmpl) > 0);
	h_run("{\"version\":1,\"id\":\"mon-warm\",\"files\":\"unrestricted\","
	      "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}", NULL, warm, NULL, NULL);
	/* Drain what earlier suites left in the pinned ring buffer, so that
	 * this test's backlog is its own (and fits). */
	mon_pid = start_monitor(0);
	h_sleep_ms(1500);
	stop_monitor();
	return 0;
}

static int teardown(void **state)
{
	char cmd[700];

	(void)state;
	if (mon_pid > 0) {
		kill(mon_pid, SIGKILL);
		waitpid(mon_pid, NULL, 0);
	}
	if (tmpdir_path && !getenv("KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir_path);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir_path);
	}
	return 0;
}

/* The observed failure, scaled down: 150 dead sandboxes' denials wait in
 * the ring buffer for a monitor with a table of 64; it drops them from
 * the table (their cgroups are gone) without shedding anything, and 20
 * new sandboxes of 30 denied connects each all alert. */
static void test_backlog_of_the_dead(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "burst", "30", "127.0.0.1", "9", NULL };
	char *policy = h_tempfile("blpolicy", deny_all);
	struct sbx s[BURSTERS];
	uint64_t t0 = h_now_ms(), deadline;
	json_t *all, *st;
	size_t n = 0;
	int k;

	(void)state;
	dead_sandboxes(policy, DEAD);
	fprintf(stderr, "# %d dead sandboxes made in %llu ms\n", DEAD,
		(unsigned long long)(h_now_ms() - t0));
	t0 = h_now_ms();
	mon_pid = start_monitor(TABLE);
	/* every dead one's denial consumed, and none of them left in the table */
	assert_true(wait_table(0, "ringfence_monitor_cgroups_gone_total", DEAD));
	assert_true(metric("ringfence_monitor_events_total{source=\"decision\"}") >= DEAD);
	fprintf(stderr, "# backlog consumed and the table empty after %llu ms\n",
		(unsigned long long)(h_now_ms() - t0));
	st = status();
	assert_int_equal(table_field(st, "capacity"), TABLE);
	assert_int_equal(table_field(st, "shed"), 0);
	assert_true(table_field(st, "cgroups_gone") >= DEAD);
	json_decref(st);

	for (k = 0; k < BURSTERS; k++)
		sbx_start(&s[k], policy, argv, true);
	t0 = h_now_ms();
	deadline = t0 + WAIT_MS;
	while (h_now_ms() < deadline) {
		all = records();
		for (k = 0, n = 0; k < BURSTERS; k++)
			n += n_alerts(all, "deny-burst", s[k].name) == 1;
		json_decref(all);
		if (n == BURSTERS)
			break;
		h_sleep_ms(100);
	}
	fprintf(stderr, "# %zu of %d burst alerts after %llu ms\n", n, BURSTERS,
		(unsigned long long)(h_now_ms() - t0));
	assert_int_equal(n, BURSTERS);
	for (k = 0; k < BURSTERS; k++) {
		sbx_end(&s[k], "EPERM=30");
		free(s[k].name);
	}
	/* They end; the table empties again; nothing was shed or lost. */
	assert_true(wait_table(0, NULL, 0));
	all = records();
	assert_int_equal(n_alerts(all, "table-shed", NULL), 0);
	json_decref(all);
	assert_int_equal(metric("ringfence_monitor_sandboxes_shed_total"), 0);
	assert_int_equal(metric("ringfence_monitor_lost_events_total{hop=\"monitor-tables\"}"), 0);
	assert_int_equal(metric("ringfence_monitor_sandbox_table_capacity"), TABLE);
	stop_monitor();
	unlink(policy);
	free(policy);
}

/* A table truly full of live sandboxes: 12 idle ones in a table of 8. The
 * oldest idle are shed (counted, one table-shed alert for the burst), and a
 * new sandbox that bursts is still watched and alerts. */
static void test_full_of_live(void **state)
{
	const char *idle[] = { h_tool("rf-net"), "sleep", "12000", NULL };
	const char *burst[] = { h_tool("rf-net"), "burst", "30", "127.0.0.1", "9", NULL };
	char *policy = h_tempfile("blpolicy", deny_all);
	struct sbx s[12], b;
	uint64_t deadline, t0 = h_now_ms();
	long long shed, entries;
	json_t *all, *st;
	int k;

	(void)state;
	mon_pid = start_monitor(8);
	for (k = 0; k < 12; k++) {
		sbx_start(&s[k], policy, idle, true);
		h_sleep_ms(50);   /* an order of age */
	}
	fprintf(stderr, "# 12 idle sandboxes started in %llu ms\n",
		(unsigned long long)(h_now_ms() - t0));
	h_sleep_ms(1000);
	sbx_start(&b, policy, burst, true);
	deadline = h_now_ms() + WAIT_MS;
	while (h_now_ms() < deadline) {
		all = records();
		k = (int)n_alerts(all, "deny-burst", b.name);
		json_decref(all);
		if (k)
			break;
		h_sleep_ms(100);
	}
	assert_int_equal(k, 1);
	sbx_end(&b, "EPERM=30");
	/* the snapshot is rewritten every interval */
	deadline = h_now_ms() + WAIT_MS;
	do {
		st = status();
		shed = table_field(st, "shed");
		entries = table_field(st, "entries");
		json_decref(st);
	} while (shed < 5 && h_now_ms() < deadline && (h_sleep_ms(100), true));
	fprintf(stderr, "# table of 8, 13 live sandboxes: %lld shed\n", shed);
	assert_true(shed >= 5);     /* 4 to register the 12, 1 for the burster */
	assert_true(entries <= 8);
	for (k = 0; k < 12; k++) {
		sbx_end(&s[k], NULL);
		free(s[k].name);
	}
	free(b.name);
	/* They all ended: the table empties, the shedding alert closes, and
	 * its count is every entry shed. */
	assert_true(wait_table(0, NULL, 0));
	h_sleep_ms(1500);     /* --linger-ms 1000 */
	all = records();
	shed = metric("ringfence_monitor_sandboxes_shed_total");
	assert_true(n_alerts(all, "table-shed", NULL) >= 1);
	{
		long long sum = 0, total = -1;
		json_t *o;
		size_t i;

		json_array_foreach(all, i, o) {
			json_t *um = json_object_get(o, "unmapped");

			if (strcmp(um_str(o, "rule"), "table-shed") ||
			    strcmp(um_str(o, "phase"), "close"))
				continue;
			sum += json_integer_value(json_object_get(o, "count"));
			total = json_integer_value(json_object_get(um, "shed_total"));
			assert_int_equal(json_integer_value(json_object_get(um, "capacity")), 8);
		}
		fprintf(stderr, "# table-shed alerts: %zu, counts %lld, metric %lld\n",
			n_alerts(all, "table-shed", NULL), sum, shed);
		assert_int_equal(sum, shed);
		assert_int_equal(total, shed);
	}
	json_decref(all);
	stop_monitor();
	unlink(policy);
	free(policy);
}

/* Every record written validates against the official OCSF 1.3.0 schema
 * (compiled in tests/ocsf/) and schemas/alert.schema.json. */
static void schema_check(const char *path)
{
	char cmd[2048];
	const char *py = h_env("PYTHON", "/usr/bin/python3");

	if (access("tests/ocsf/check_alerts.py", R_OK) || access(py, X_OK)) {
		fprintf(stderr, "# schema check skipped (tests/ocsf or %s missing)\n", py);
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s tests/ocsf/check_alerts.py --project "
		 "schemas/alert.schema.json --absent-ok tests/ocsf/recommended-absent.txt "
		 "tests/ocsf/detection_finding-1.3.0.schema.json %s", py, path);
	assert_int_equal(system(cmd), 0);
}

static void test_full_of_live_schema(void **state)
{
	(void)state;
	schema_check(mon_out);      /* the last monitor's output: table-shed records */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backlog_of_the_dead),
		cmocka_unit_test(test_full_of_live),
		cmocka_unit_test(test_full_of_live_schema),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, teardown);
}
