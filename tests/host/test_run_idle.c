/*
 * Host integration tests of an idle supervisor: while its command sleeps
 * the supervisor is not woken at all (its context switches are counted in
 * /proc, not timed), its resident set is at most 2 MB, and the limits it
 * holds still end the run: the wall clock (a timerfd) and the output
 * budget (the relay pipe wakes it).
 */
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <time.h>

#define OPEN "\"files\":\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\""

static int setup(void **state)
{
	(void)state;
	return harness_require_root();
}

/* Voluntary plus involuntary context switches of every thread of pid. */
static long switches(pid_t pid)
{
	char dir[64], path[320], line[256];
	struct dirent *de;
	long sum = 0, v;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
				sum += v;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* The supervisor's command has started: a child process exists. */
static bool has_child(pid_t pid)
{
	char path[96], buf[256];
	FILE *f;
	bool any;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	any = fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9';
	fclose(f);
	return any;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0)
		;
}

/* VmRSS of pid in kB, -1 when unreadable. */
static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Wakeups of a supervisor over 3 s while `sleep` runs under policy_json,
 * after it settled (its resident set then in *ret_rss); the run then ends
 * by its wall_seconds (6). */
static long idle_wakeups(const char *policy_json, char **ret_err, long *ret_rss)
{
	char *pol = h_tempfile("idlepol", policy_json);
	const char *argv[] = { "sleep", "60", NULL };
	struct h_proc p = h_spawn(pol, NULL, NULL, argv);
	long before, after;
	int i;

	for (i = 0; i < 100 && !has_child(p.pid); i++)
		sleep_ms(50);
	assert_true(has_child(p.pid));
	sleep_ms(1500);
	before = switches(p.pid);
	sleep_ms(3000);
	after = switches(p.pid);
	*ret_rss = rss_kb(p.pid);
	assert_true(before >= 0 && after >= before);
	/* wall_seconds still ends it, from the idle wait */
	assert_int_equal(h_wait(p, NULL, ret_err), 137);
	assert_non_null(strstr(*ret_err, "limit wall_seconds=6 reached"));
	unlink(pol);
	free(pol);
	return after - before;
}

/* Nothing in the kernel records for an unrestricted sandbox: the
 * supervisor sleeps until the deadline. */
static void idle_supervisor_is_never_woken(void **state)
{
	char *err = NULL;
	long n, rss = -1;

	(void)state;
	n = idle_wakeups("{\"version\":1,\"id\":\"idle\"," OPEN ",\"limits\":{\"wall_seconds\":6}}",
			 &err, &rss);
	printf("# idle supervisor (unrestricted): %ld context switches in 3 s, RSS %ld kB\n",
	       n, rss);
	assert_int_equal(n, 0);
	assert_true(rss > 0 && rss <= 2048);
	free(err);
}

/* A confined sandbox's samples are read every 100 ms only while its
 * command runs: asleep, the reads back off to one a second at most (its
 * failed path syscalls are observed), so at most 4 in the 3 s, not 30. */
static void confined_idle_supervisor_backs_off(void **state)
{
	char *err = NULL;
	long n, rss = -1;

	(void)state;
	n = idle_wakeups("{\"version\":1,\"id\":\"idle2\",\"files\":{\"read\":[\"/\"],"
			 "\"write\":[\"/tmp/\"]},\"exec\":\"unrestricted\","
			 "\"network\":{\"connect\":[\"127.0.0.1:9\"]},\"limits\":{\"wall_seconds\":6}}", &err, &rss);
	printf("# idle supervisor (confined): %ld context switches in 3 s, RSS %ld kB\n", n, rss);
	assert_true(n <= 4);
	free(err);
}

/* After idling, output wakes the relay: the budget is delivered exactly. */
static void output_budget_after_idle(void **state)
{
	char *trace = h_tempfile("idletrace", NULL), *out = NULL, *err = NULL;
	const char *argv[] = { "/bin/sh", "-c", "sleep 2; yes", NULL };
	json_t *t;

	(void)state;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"idle3\"," OPEN
			       ",\"limits\":{\"output_bytes\":1000}}", trace, argv, &out, &err), 137);
	assert_int_equal(strlen(out), 1000);
	assert_non_null(strstr(err, "limit output_bytes=1000 reached"));
	t = h_trace(trace);
	assert_int_equal(h_count_events(t, "limit.exceeded"), 1);
	json_decref(t);
	unlink(trace);
	free(trace);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_supervisor_is_never_woken),
		cmocka_unit_test(confined_idle_supervisor_backs_off),
		cmocka_unit_test(output_budget_after_idle),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
