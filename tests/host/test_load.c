/*
 * Host load tests (issue 14): LOAD_N short runs, LOAD_PAR at a time, each
 * with its own allowlist, each checking inside its sandbox that its allowed
 * port connects and a neighbour's port is EPERM; then 0 wrong decisions,
 * every trace's totals matching its kernel.deny lines, and nothing left.
 * Then LOAD_LIVE sandboxes alive at once, all listed by `status --json`
 * (timed, reported, not asserted), killed, and nothing left.
 * Defaults: 1000 runs 16 at a time, 500 live (env LOAD_N, LOAD_PAR,
 * LOAD_LIVE change them).
 */
#include "harness.h"
#include "leaks.h"

#include <dirent.h>
#include <poll.h>
#include <time.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "rf_abi.h"

#define PORT0 18400
#define NPORTS 4

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : def;
}

/* stdout of a ringfence subcommand (whole). */
static char *run_cmd(const char *sub, int *ret_status)
{
	char cmd[700];
	size_t len = 0, cap = 1 << 16, n;
	char *buf = malloc(cap);
	FILE *f;
	int st;

	assert_non_null(buf);
	snprintf(cmd, sizeof(cmd), "%s %s", h_sh(h_ringfence()), sub);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf + len, 1, cap - 1 - len, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = 0;
	st = pclose(f);
	*ret_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return buf;
}

/* Nothing of the sandboxes named prefix* is left (no cgroup, registry file,
 * or map key beyond those in before) and gc has nothing to do. */
static void assert_no_leaks(const char *prefix, const struct h_idset *before)
{
	struct h_idset after = { 0 };
	char *gc;
	size_t k;
	int st;

	gc = run_cmd("gc", &st);
	assert_int_equal(st, 0);
	if (gc[0])
		fail_msg("gc found something left:\n%s", gc);
	free(gc);
	assert_int_equal(h_count_cgroups(prefix), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, prefix), 0);
	h_map_ids(&after);
	for (k = 0; k < after.n; k++)
		if (!h_idset_has(before, after.id[k]))
			fail_msg("map keys of cgroup id %llu are left",
				 (unsigned long long)after.id[k]);
}

/* Accept and close whatever completed: the backlogs never fill. */
static void drain(const int *l)
{
	int i, c;

	for (i = 0; i < NPORTS; i++)
		while ((c = accept4(l[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
			close(c);
}

struct slot {
	struct h_proc p;
	int run;
	char *policy;
	char *trace;
};

static void start_run(struct slot *s, int i)
{
	char json[512], port[2][8];
	int allow = PORT0 + i % NPORTS, deny = PORT0 + (i + 1) % NPORTS;

	/* the allowed port is one of a few; the 10.77.x.y address makes every
	 * run's allowlist its own */
	snprintf(json, sizeof(json),
		 "{\"version\":1,\"id\":\"load\",\"files\":\"unrestricted\","
		 "\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:%d\","
		 "\"10.77.%d.%d:443\"]}}",
		 allow, i / 256, i % 256);
	snprintf(port[0], sizeof(port[0]), "%d", allow);
	snprintf(port[1], sizeof(port[1]), "%d", deny);
	{
		const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", port[0],
				       "tcp", "127.0.0.1", port[1], NULL };

		s->policy = h_tempfile("policy", json);
		s->trace = h_tempfile("trace", NULL);
		s->run = i;
		s->p = h_spawn(s->policy, s->trace, NULL, argv);
	}
}

struct tally {
	int wrong, bad_exit, bad_trace;
};

/* One finished run: its decisions and its trace's totals. */
static void check_run(struct slot *s, int st, struct tally *t)
{
	char *out = h_read_all(s->p.out_fd), *err = h_read_all(s->p.err_fd), want[2][64];
	int allow = PORT0 + s->run % NPORTS, deny = PORT0 + (s->run + 1) % NPORTS;
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	json_t *trace, *ex;
	long total, lines, not_in;

	snprintf(want[0], sizeof(want[0]), "tcp 127.0.0.1:%d", allow);
	snprintf(want[1], sizeof(want[1]), "tcp 127.0.0.1:%d", deny);
	if (rc) {
		t->bad_exit++;
		print_message("run %d: exit %d: %s\n", s->run, rc, err);
	} else if (strcmp(h_result(out, want[0]), "ok") ||
		   strcmp(h_result(out, want[1]), "EPERM")) {
		t->wrong++;
		print_message("run %d: wrong decision:\n%s", s->run, out);
	}
	trace = h_trace(s->trace);
	ex = h_event(trace, "sandbox.exit", 0);
	total = ex ? (long)json_integer_value(json_object_get(ex, "denials_total")) : -1;
	not_in = ex ? (long)json_integer_value(json_object_get(ex, "denials_not_in_trace")) : -1;
	lines = (long)h_count_events(trace, "kernel.deny");
	/* exactly the one denied connect, counted and written */
	if (!ex || total != lines + not_in || total != 1 ||
	    json_integer_value(json_object_get(json_object_get(ex, "denials"), "network")) != 1) {
		t->bad_trace++;
		print_message("run %d: trace totals %ld, kernel.deny lines %ld, not in trace %ld\n",
			      s->run, total, lines, not_in);
	}
	json_decref(trace);
	unlink(s->policy);
	unlink(s->trace);
	free(s->policy);
	free(s->trace);
	free(out);
	free(err);
	s->p.pid = 0;
}

static void concurrent_short_runs(void **state)
{
	int n = env_int("LOAD_N", 1000), par = env_int("LOAD_PAR", 16);
	int l[NPORTS], i, started = 0, done = 0, k, st;
	struct slot *slots = calloc((size_t)par, sizeof(*slots));
	struct tally t = { 0 };
	struct h_idset before = { 0 };
	double t0;

	(void)state;
	assert_non_null(slots);
	for (i = 0; i < NPORTS; i++) {
		l[i] = h_listen_inet(AF_INET, "127.0.0.1", PORT0 + i, SOCK_STREAM);
		fcntl(l[i], F_SETFL, O_NONBLOCK);
	}
	h_map_ids(&before);
	t0 = now_s();
	while (done < n) {
		pid_t pid;

		for (k = 0; k < par && started < n; k++)
			if (!slots[k].p.pid)
				start_run(&slots[k], started++);
		drain(l);
		pid = waitpid(-1, &st, 0);
		assert_true(pid > 0);
		for (k = 0; k < par && slots[k].p.pid != pid; k++)
			;
		if (k == par)
			continue;
		check_run(&slots[k], st, &t);
		done++;
	}
	print_message("%d runs, %d at a time, in %.1f s: %d wrong decisions, %d bad exits, "
		      "%d traces whose totals do not match\n",
		      n, par, now_s() - t0, t.wrong, t.bad_exit, t.bad_trace);
	assert_int_equal(t.wrong, 0);
	assert_int_equal(t.bad_exit, 0);
	assert_int_equal(t.bad_trace, 0);
	assert_no_leaks("load-", &before);
	for (i = 0; i < NPORTS; i++)
		close(l[i]);
	free(slots);
}

/* The registry files of the live sandboxes (name live-*) whose command runs. */
static int registered_running(void)
{
	char path[600];
	struct dirent *de;
	DIR *d = opendir(RF_REGISTRY_DIR);
	int n = 0;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		json_t *o;

		if (strncmp(de->d_name, "live-", 5) || len < 5 ||
		    strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", RF_REGISTRY_DIR, de->d_name);
		o = json_load_file(path, 0, NULL);
		n += o && json_integer_value(json_object_get(o, "pid")) > 0;
		json_decref(o);
	}
	if (d)
		closedir(d);
	return n;
}

/* Sandboxes named live-* in `status --json`. */
static int status_lists(const char *json_text)
{
	json_error_t e;
	json_t *o = json_loads(json_text, 0, &e), *arr;
	size_t i;
	int n = 0;

	if (!o)
		fail_msg("status --json is not JSON: %s", e.text);
	arr = json_is_array(o) ? o : json_object_get(o, "sandboxes");
	assert_true(json_is_array(arr));
	for (i = 0; i < json_array_size(arr); i++) {
		const char *name =
			json_string_value(json_object_get(json_array_get(arr, i), "sandbox"));

		n += name && !strncmp(name, "live-", 5);
	}
	json_decref(o);
	return n;
}

static void live_sandboxes(void **state)
{
	int m = env_int("LOAD_LIVE", 500), i, st, listed = 0, tries;
	const char *argv[] = { "/bin/sleep", "600", NULL };
	char *policy = h_tempfile("policy",
				  "{\"version\":1,\"id\":\"live\",\"files\":\"unrestricted\","
				  "\"exec\":\"unrestricted\",\"network\":{\"connect\":"
				  "[\"127.0.0.1:18400\"]}}");
	struct h_proc *p = calloc((size_t)m, sizeof(*p));
	struct h_idset before = { 0 };
	double t0, t_start, t_status, t_stop;
	char *out;

	(void)state;
	assert_non_null(p);
	h_map_ids(&before);
	t0 = now_s();
	for (i = 0; i < m; i++) {
		p[i] = h_spawn(policy, NULL, NULL, argv);
		/* nothing reads them until the end; the supervisor writes nothing */
		close(p[i].out_fd);
	}
	for (tries = 0; tries < 1200 && registered_running() < m; tries++)
		usleep(100 * 1000);
	t_start = now_s() - t0;
	assert_int_equal(registered_running(), m);
	assert_int_equal(h_count_cgroups("live-"), m);

	t0 = now_s();
	out = run_cmd("status --json", &st);
	t_status = now_s() - t0;
	assert_int_equal(st, 0);
	listed = status_lists(out);
	free(out);

	t0 = now_s();
	for (i = 0; i < m; i++)
		assert_int_equal(kill(p[i].pid, SIGTERM), 0);
	for (i = 0; i < m; i++) {
		char *err = h_read_all(p[i].err_fd);

		assert_int_equal(waitpid(p[i].pid, &st, 0), p[i].pid);
		/* the sandbox ended with its supervisor: not exit 0 */
		assert_true(!WIFEXITED(st) || WEXITSTATUS(st) != 0);
		free(err);
	}
	t_stop = now_s() - t0;
	print_message("%d live sandboxes: all running after %.1f s; `status --json` listed %d "
		      "in %.3f s; all stopped in %.1f s\n",
		      m, t_start, listed, t_status, t_stop);
	assert_int_equal(listed, m);
	assert_no_leaks("live-", &before);
	unlink(policy);
	free(policy);
	free(p);
}

static int setup(void **state)
{
	const char *argv[] = { "/bin/true", NULL };

	(void)state;
	if (harness_require_root())
		return -1;
	/* commands outliving a supervisor are re-parented here, not lost */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return h_run("{\"version\":1,\"id\":\"load-setup\",\"files\":\"unrestricted\","
		     "\"exec\":\"unrestricted\",\"network\":{\"connect\":[]}}",
		     NULL, argv, NULL, NULL) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_short_runs),
		cmocka_unit_test(live_sandboxes),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
