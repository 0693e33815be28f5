// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor's start and stop as steps (monitor/setup.c, privileged):
 * a monitor runs its steps in table order and, stopped, undoes them in
 * reverse; a step failed on purpose (RINGFENCE_TEST_HOOKS=1
 * RINGFENCE_TEST_FAIL_STEP) ends it with status 1 and the step's error,
 * after undoing exactly the steps done before it, last first. The order
 * is read from RINGFENCE_TIMINGS=1's lines ("timing: step NAME", "timing:
 * undo NAME"), which the step engine prints for each step it runs.
 */
#include "harness.h"

/* monitor/setup.c's table: the name, and whether the step has an undo
 * (the engine times only the undos it runs). */
static const struct {
	const char *name;
	bool undo;
} steps[] = {
	{ "boundary", false }, { "lock", true }, { "origin", false }, { "output", true },
	{ "sinks", true }, { "activity", true },
	{ "recent", true }, { "detectors", true }, { "flows", true }, { "record", true },
	{ "metrics-http", true }, { "sandbox-table", true }, { "sensors", true },
	{ "cgroups", false }, { "registry", true }, { "scan", false }, { "attach", false },
	{ "decisions", true }, { "loop", true }, { "start", false },
};
#define N_STEPS (sizeof(steps) / sizeof(steps[0]))

static char *tmpdir_path, *st_path, *out_path, *rec_path, *state_path;
static int metrics_port;

static int setup(void **state)
{
	char tmpl[] = "/tmp/rf-mon-steps-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	tmpdir_path = strdup(tmpl);
	assert_true(asprintf(&st_path, "%s/status.json", tmpl) > 0);
	assert_true(asprintf(&out_path, "%s/alerts.ndjson", tmpl) > 0);
	assert_true(asprintf(&rec_path, "%s/record.ndjson", tmpl) > 0);
	assert_true(asprintf(&state_path, "%s/state.json", tmpl) > 0);
	metrics_port = 19900 + (int)(getpid() % 90);
	return 0;
}

static int teardown(void **state)
{
	char cmd[700];

	(void)state;
	if (tmpdir_path && !getenv("KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir_path);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir_path);
	}
	return 0;
}

/* In the child: the timings on, the step to fail (NULL: none), and a
 * watchdog, so a monitor that hangs instead of failing fails the test. */
static int child_env(void *arg)
{
	const char *fail = arg;

	alarm(30);
	if (setenv("RINGFENCE_TIMINGS", "1", 1))
		return -1;
	if (fail && (setenv("RINGFENCE_TEST_HOOKS", "1", 1) ||
		     setenv("RINGFENCE_TEST_FAIL_STEP", fail, 1)))
		return -1;
	return 0;
}

/* Every stage the monitor has: output, record, metrics (file and HTTP),
 * state, status. */
static struct h_proc start(const char *fail)
{
	static char port[32];
	const char *argv[] = { h_monitor_bin(), "--status", st_path, "--output", out_path,
			       "--record", rec_path, "--state", state_path, "--metrics", port,
			       "--interval", "200", NULL };

	snprintf(port, sizeof(port), "127.0.0.1:%d", metrics_port);
	unlink(st_path);
	return h_start(argv, child_env, (void *)fail);
}

/* The names after "timing: KIND " in err, in order, up to max. */
static size_t timed(const char *err, const char *kind, const char **ret, size_t max,
		    char *buf, size_t buf_len)
{
	char pat[32];
	const char *p = err;
	size_t n = 0, used = 0;

	snprintf(pat, sizeof(pat), "timing: %s ", kind);
	while ((p = strstr(p, pat)) && n < max) {
		size_t len;

		p += strlen(pat);
		len = strcspn(p, ":\n");
		assert_true(used + len + 1 <= buf_len);
		memcpy(buf + used, p, len);
		buf[used + len] = 0;
		ret[n++] = buf + used;
		used += len + 1;
	}
	return n;
}

/* The undos err shows are those of steps[0..done), with an undo, last first. */
static void assert_undone(const char *err, size_t done)
{
	const char *undos[N_STEPS];
	char buf[1024];
	size_t n = timed(err, "undo", undos, N_STEPS, buf, sizeof(buf)), k = 0;

	while (done-- > 0) {
		if (!steps[done].undo)
			continue;
		assert_true(k < n);
		assert_string_equal(undos[k], steps[done].name);
		k++;
	}
	assert_int_equal(n, k);
}

static void test_steps_in_order_undone_in_reverse(void **state)
{
	struct h_proc p = start(NULL);
	const char *ran[N_STEPS + 1];
	char *err, buf[1024];
	size_t n, i;
	int status, tries;

	(void)state;
	for (tries = 0; tries < 300 && access(st_path, R_OK); tries++)
		h_sleep_ms(50);
	assert_int_equal(access(st_path, R_OK), 0);     /* it runs: the loop wrote a status */
	kill(p.pid, SIGTERM);
	status = h_wait(p, NULL, &err);
	assert_int_equal(status, 0);
	n = timed(err, "step", ran, N_STEPS + 1, buf, sizeof(buf));
	assert_int_equal(n, N_STEPS);
	for (i = 0; i < N_STEPS; i++)
		assert_string_equal(ran[i], steps[i].name);
	assert_undone(err, N_STEPS);
	/* the record's undo closed its file complete: a header at least */
	{
		struct stat st;

		assert_int_equal(stat(rec_path, &st), 0);
		assert_true(st.st_size > 0);
	}
	free(err);
}

static void test_each_step_fails_cleanly(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_STEPS; i++) {
		struct h_proc p = start(steps[i].name);
		char *err, want[96];
		int status = h_wait(p, NULL, &err);

		fprintf(stderr, "# step %s failed: exit %d\n", steps[i].name, status);
		assert_int_equal(status, 1);
		snprintf(want, sizeof(want), "step %s failed on purpose", steps[i].name);
		assert_non_null(strstr(err, want));
		/* only the steps before it are undone; "loop" owes its undo from
		 * before it runs (fds made before one failed) */
		assert_undone(err, !strcmp(steps[i].name, "loop") ? i + 1 : i);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_in_order_undone_in_reverse),
		cmocka_unit_test(test_each_step_fails_cleanly),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, teardown);
}
