/*
 * Host tests of the run's steps and their undos: each step of `ringfence
 * run` fails in turn (RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_FAIL_STEP) and
 * nothing is left behind: no sandbox cgroup, no registry file, no map
 * entry; the exit status is the step's and stderr has one line. A
 * supervisor killed while waiting leaves its sandbox to the next run's
 * stale-sandbox collection.
 */
#include "harness.h"
#include "leaks.h"

#include <dirent.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "rf_abi.h"

#define STEPS_POLICY                                                              \
	"{\"version\":1,\"id\":\"steps\",\"files\":\"unrestricted\","             \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18190\"," \
	"\"[::1]:18190\"],\"unix\":[\"@rf-steps\"]}}"

static const struct {
	const char *name;
	int exit;
} steps[] = {
	{ "policy", 125 }, { "user", 125 }, { "plan", 125 }, { "trace", 125 },
	{ "admit", 126 }, { "env", 126 }, { "network-rules", 126 }, { "enforcer", 126 },
	{ "reaper", 126 }, { "cgroup", 126 }, { "limits", 126 }, { "maps", 126 },
	{ "registry", 126 }, { "dns-gate", 126 }, { "launch", 126 }, { "dns-serve", 126 },
	{ "wait", 126 },
};

static int setup(void **state)
{
	const char *argv[] = { "/bin/true", NULL };

	(void)state;
	if (harness_require_root())
		return -1;
	/* The pinned set exists from here on, so the maps can be read. */
	return h_run(STEPS_POLICY, NULL, argv, NULL, NULL) == 0 ? 0 : -1;
}

static int run_failing(const char *step, const char *hooks, const char *const *argv,
		       char **ret_err)
{
	int rc;

	setenv("RINGFENCE_TEST_FAIL_STEP", step, 1);
	if (hooks)
		setenv("RINGFENCE_TEST_HOOKS", hooks, 1);
	rc = h_run(STEPS_POLICY, NULL, argv, NULL, ret_err);
	unsetenv("RINGFENCE_TEST_FAIL_STEP");
	unsetenv("RINGFENCE_TEST_HOOKS");
	return rc;
}

/* Every step fails in turn: its exit status, one line, nothing left. */
static void each_failing_step_leaves_nothing(void **state)
{
	const char *argv[] = { "/bin/sleep", "3", NULL };
	struct h_idset before, after;
	char want[128], *err = NULL;
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		h_map_ids(&before);
		assert_int_equal(run_failing(steps[i].name, "1", argv, &err), steps[i].exit);
		snprintf(want, sizeof(want), "RINGFENCE_TEST_FAIL_STEP: step %s failed on purpose",
			 steps[i].name);
		if (!strstr(err, want) || h_lines(err) != 1)
			fail_msg("step %s: stderr is not the one line: %s", steps[i].name, err);
		free(err);
		if (h_count_cgroups("steps-"))
			fail_msg("step %s: a sandbox cgroup is left", steps[i].name);
		if (h_count_prefixed(RF_REGISTRY_DIR, "steps-"))
			fail_msg("step %s: a registry file is left", steps[i].name);
		h_map_ids(&after);
		for (k = 0; k < after.n; k++)
			if (!h_idset_has(&before, after.id[k]))
				fail_msg("step %s: map entries of cgroup %llu are left",
					 steps[i].name, (unsigned long long)after.id[k]);
	}
}

/* The failure is test-only: without RINGFENCE_TEST_HOOKS=1 it is ignored. */
static void fail_step_needs_the_hooks_gate(void **state)
{
	const char *argv[] = { "/bin/true", NULL };

	(void)state;
	assert_int_equal(run_failing("cgroup", NULL, argv, NULL), 0);
	assert_int_equal(run_failing("cgroup", "yes", argv, NULL), 0);
	assert_int_equal(run_failing("cgroup", "1", argv, NULL), 126);
}

static int run_check(const char *policy)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s check --policy %s >/dev/null 2>&1", h_sh(h_ringfence()), policy);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* check runs the run's own steps up to the plan, and no further. */
static void check_runs_the_steps_up_to_the_plan(void **state)
{
	char *policy = h_tempfile("policy", STEPS_POLICY);

	(void)state;
	setenv("RINGFENCE_TEST_HOOKS", "1", 1);
	setenv("RINGFENCE_TEST_FAIL_STEP", "plan", 1);
	assert_int_equal(run_check(policy), 125);
	setenv("RINGFENCE_TEST_FAIL_STEP", "trace", 1);
	assert_int_equal(run_check(policy), 0);
	unsetenv("RINGFENCE_TEST_FAIL_STEP");
	unsetenv("RINGFENCE_TEST_HOOKS");
	unlink(policy);
	free(policy);
}

/* SIGKILL the supervisor and its reaper while it waits: the cgroup, map
 * entries and registry file stay, and the next run's stale collection
 * removes them. (With the reaper alive it removes them: test_run_crash.) */
static void killed_supervisor_is_collected_by_the_next_run(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	const char *ok[] = { "/bin/true", NULL };
	char *policy = h_tempfile("policy", STEPS_POLICY), cgpath[4096];
	struct h_idset ids;
	struct stat st;
	struct h_proc p = h_spawn(policy, NULL, NULL, argv);
	json_t *reg;
	uint64_t cgid;
	int status;

	(void)state;
	reg = h_wait_registered("steps-");
	cgid = (uint64_t)json_integer_value(json_object_get(reg, "cgroup_id"));
	snprintf(cgpath, sizeof(cgpath), "%s",
		 json_string_value(json_object_get(reg, "cgroup_path")));
	json_decref(reg);
	assert_true(h_reaper_of(p.pid) > 0);
	assert_int_equal(kill(h_reaper_of(p.pid), SIGKILL), 0);
	usleep(50 * 1000);
	assert_int_equal(kill(p.pid, SIGKILL), 0);
	assert_int_equal(waitpid(p.pid, &status, 0), p.pid);
	/* the sleep still holds the pipes: do not read them to the end */
	close(p.out_fd);
	close(p.err_fd);

	assert_int_equal(stat(cgpath, &st), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "steps-"), 1);
	h_map_ids(&ids);
	assert_true(h_idset_has(&ids, cgid));

	assert_int_equal(h_run(STEPS_POLICY, NULL, ok, NULL, NULL), 0);
	assert_true(stat(cgpath, &st) < 0);
	assert_int_equal(h_count_cgroups("steps-"), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "steps-"), 0);
	h_map_ids(&ids);
	assert_false(h_idset_has(&ids, cgid));
	unlink(policy);
	free(policy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_failing_step_leaves_nothing),
		cmocka_unit_test(fail_step_needs_the_hooks_gate),
		cmocka_unit_test(check_runs_the_steps_up_to_the_plan),
		cmocka_unit_test(killed_supervisor_is_collected_by_the_next_run),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, NULL);
}
