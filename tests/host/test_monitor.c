// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor against real sandboxes (privileged). One monitor runs
 * for the whole suite (--output to a temp file); each test starts real
 * sandboxes with build/ringfence and the tools, then waits (generous
 * timeout) for the alerts it expects and counts them exactly. The latency
 * from a cause to its first alert record is printed, not asserted.
 */
#include <poll.h>
#include <time.h>
#include "harness.h"
#include "backends/enforcer.h"
#include "rf_abi.h"

static struct h_mon mon;
static char *mon_rec, *replay_src, *mon_metrics;
static int metrics_port;
static char *profile_json;      /* recorded for the benign workload */

/* The suite's monitor (h_mon_start) also recording, with metrics. */
static void start_monitor(void)
{
	char port[64];
	const char *args[] = { "--record", mon_rec, "--metrics-file", mon_metrics,
			       "--metrics", port, NULL };

	snprintf(port, sizeof(port), "127.0.0.1:%d", metrics_port);
	h_mon_start(&mon, args);
}

static json_t *records(void)
{
	return h_monitor_records(mon.out);
}

static long long rec_int(json_t *o, const char *a, const char *b)
{
	return json_integer_value(b ? json_object_get(json_object_get(o, a), b) :
				      json_object_get(o, a));
}

static size_t distinct_uids(json_t *sel)
{
	size_t i, j, n = 0;

	for (i = 0; i < json_array_size(sel); i++) {
		const char *u = h_rec_str(json_array_get(sel, i), "finding_info", "uid");
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= !strcmp(u, h_rec_str(json_array_get(sel, j), "finding_info", "uid"));
		n += !seen;
	}
	return n;
}

static json_t *last_phase(json_t *sel, const char *phase)
{
	size_t i;

	for (i = json_array_size(sel); i > 0; i--)
		if (!strcmp(h_rec_str(json_array_get(sel, i - 1), "unmapped", "phase"), phase))
			return json_array_get(sel, i - 1);
	return NULL;
}

static bool in_phase(json_t *rec, const void *phase)
{
	return !strcmp(h_rec_str(rec, "unmapped", "phase"), phase);
}

/* Wait until a record of rule/sandbox in phase (NULL any) exists; the
 * time it took, or -1. */
static long wait_for(const char *rule, const char *sandbox, const char *phase, uint64_t t0)
{
	json_t *o = h_mon_wait(mon.out, rule, sandbox, phase ? in_phase : NULL, phase);
	long took = o ? (long)(h_now_ms() - t0) : -1;

	json_decref(o);
	return took;
}

/* Run a policy (JSON text) with argv; the sandbox name from the trace. */
static char *run_sandbox(const char *policy, const char *const *argv, char **ret_out)
{
	char *trace = h_tempfile("montrace", NULL), *name;
	json_t *tr, *plan;

	h_run(policy, trace, argv, ret_out, NULL);
	tr = h_trace(trace);
	plan = h_event(tr, "sandbox.plan", 0);
	assert_non_null(plan);
	name = strdup(json_string_value(json_object_get(plan, "sandbox")));
	json_decref(tr);
	unlink(trace);
	free(trace);
	return name;
}

static int open_or_fail(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* A background sandbox that must exit 0: its stdout in *ret_out (NULL:
 * not wanted). */
static void bg_end(struct h_bg *b, char **ret_out)
{
	assert_int_equal(h_bg_end(b, ret_out, NULL, NULL), 0);
	free(b->name);
}

static uint64_t kernel_ringbuf_lost(void)
{
	struct rf_enforcer *enf = NULL;
	uint64_t v = 0;

	assert_int_equal(enforcer__open_pinned(&enf), 0);
	assert_int_equal(enforcer__stat(enf, RF_STAT_RINGBUF_LOST, &v), 0);
	enforcer__close(enf);
	return v;
}

static int setup(void **state)
{
	(void)state;
	h_mon_init(&mon, "host", false);
	assert_true(asprintf(&mon_rec, "%s/record.ndjson", mon.dir) > 0);
	replay_src = mon_rec;
	assert_true(asprintf(&mon_metrics, "%s/metrics.prom", mon.dir) > 0);
	metrics_port = 19000 + (int)(getpid() % 900);
	/* Pin this build's programs first: replacing a stale set (another
	 * build's) later would reset the kernel counters under the monitor. */
	{
		const char *warm[] = { "/bin/true", NULL };

		h_run("{\"version\":1,\"id\":\"mon-warm\",\"files\":\"unrestricted\","
		      "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}", NULL, warm,
		      NULL, NULL);
	}
	start_monitor();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (h_mon_done(&mon))
		fprintf(stderr, "could not remove the monitor's directory\n");
	free(profile_json);
	return 0;
}

/* 50 denied connects in a second: one alert, count 50, not 50 alerts. */
static void test_burst_one_alert(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-burst\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18080\"],"
		"\"unix\":[]},\"monitor\":{\"deny_burst\":{\"count\":10,\"window_ms\":1000}}}";
	const char *argv[] = { h_tool("rf-net"), "burst", "50", "127.0.0.1", "9", NULL };
	struct h_bg b = h_bg_start(policy, argv);
	const char *name = b.name;
	uint64_t t0 = b.t0;
	json_t *all, *sel, *close;
	char *out;
	long lat;

	(void)state;
	lat = wait_for("deny-burst", name, "open", t0);
	assert_true(lat >= 0);
	fprintf(stderr, "# latency deny-burst: %ld ms from start of the sandbox\n", lat);
	assert_true(wait_for("deny-burst", name, "close", t0) >= 0);
	all = records();
	sel = h_rec_select(all, "deny-burst", name);
	assert_int_equal(distinct_uids(sel), 1);
	close = last_phase(sel, "close");
	assert_int_equal(rec_int(close, "count", NULL), 50);
	assert_int_equal(rec_int(close, "unmapped", "threshold"), 10);
	assert_int_equal(rec_int(close, "unmapped", "window_ms"), 1000);
	assert_string_equal(h_rec_str(close, "unmapped", "key"), "network");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(json_object_get(close, "evidences"), 0), "dst_endpoint"), "ip")),
		"127.0.0.1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(json_object_get(close, "evidences"), 0), "container"), "uid")), name);
	/* nothing else about this sandbox */
	json_decref(sel);
	sel = h_rec_select(all, "", name);
	assert_int_equal(distinct_uids(sel), 1);
	json_decref(sel);
	json_decref(all);
	bg_end(&b, &out);
	assert_non_null(strstr(out, "EPERM=50"));
	free(out);
}

/* --label and TRACEPARENT: in the trace's first line, the registry (the
 * monitor's record of it) and every alert of the sandbox. */
static void test_labels_reach_alerts(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-label\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]},"
		"\"monitor\":{\"deny_burst\":{\"count\":10,\"window_ms\":1000}}}";
	const char *tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
	const char *extra[] = { "--label", "job=ci-42", "--label", "tool.call=fetch 7", NULL };
	const char *argv[] = { h_tool("rf-net"), "burst", "30", "127.0.0.1", "9", NULL };
	char *pol = h_tempfile("monpol", policy), *trace = h_tempfile("montrace", NULL);
	char *out, *first, *rec, name[160] = "";
	json_t *all, *sel, *open, *md, *o;
	struct h_proc p;
	uint64_t t0 = h_now_ms();
	bool found;
	int i;

	(void)state;
	setenv("TRACEPARENT", tp, 1);
	p = h_spawn(pol, trace, extra, argv);
	unsetenv("TRACEPARENT");
	assert_int_equal(h_wait(p, &out, NULL), 0);
	free(out);
	first = h_read_all(open_or_fail(trace));
	first[strcspn(first, "\n")] = 0;
	o = json_loads(first, 0, NULL);
	assert_non_null(o);
	snprintf(name, sizeof(name), "%s", json_string_value(json_object_get(o, "sandbox")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "labels"),
							      "tool.call")), "fetch 7");
	assert_string_equal(json_string_value(json_object_get(o, "traceparent")), tp);
	json_decref(o);
	free(first);
	assert_true(wait_for("deny-burst", name, "open", t0) >= 0);
	all = records();
	sel = h_rec_select(all, "deny-burst", name);
	open = json_array_get(sel, 0);
	md = json_object_get(open, "metadata");
	assert_string_equal(json_string_value(json_array_get(json_object_get(md, "labels"), 0)),
			    "job=ci-42");
	assert_string_equal(json_string_value(json_array_get(json_object_get(md, "labels"), 1)),
			    "tool.call=fetch 7");
	assert_string_equal(json_string_value(json_object_get(md, "correlation_uid")),
			    "4bf92f3577b34da6a3ce929d0e0e4736");
	assert_string_equal(h_rec_str(open, "unmapped", "traceparent"), tp);
	json_decref(sel);
	json_decref(all);
	/* the monitor had them from the registry entry */
	for (i = 0, found = false; i < 40 && !found; i++) {
		rec = h_read_all(open_or_fail(mon_rec));     /* flushed every interval */
		found = strstr(rec, "\"labels\":{\"job\":\"ci-42\",\"tool.call\":\"fetch 7\"},"
			       "\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-") != NULL;
		free(rec);
		if (!found)
			h_sleep_ms(200);
	}
	assert_true(found);
	unlink(pol);
	unlink(trace);
	free(pol);
	free(trace);
}

/* The "syscalls" profile the monitor recorded for one run of argv under
 * a policy with id (its replay --profile), once the recording has it all. */
static char *record_profile_of(const char *id, const char *const *argv)
{
	const char *args[] = { h_monitor_bin(), "--replay", mon_rec, "--profile", id, NULL };
	char policy[512], *name, *out, *prof = NULL, *last = NULL;
	struct h_proc p;
	int pipefd[2], i;

	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"%s\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}", id);
	name = run_sandbox(policy, argv, NULL);
	free(name);
	/* the record is flushed every interval */
	for (i = 0; i < 30 && !prof; i++) {
		h_sleep_ms(600);  /* more than --interval: a flush between reads */
		assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
		p.pid = fork();
		if (p.pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			/* quiet until the recording holds the run */
			dup2(pipefd[1], 1);
			dup2(null, 2);
			execv(args[0], (char *const *)args);
			_exit(99);
		}
		close(pipefd[1]);
		p.out_fd = pipefd[0];
		out = h_read_all(p.out_fd);
		waitpid(p.pid, NULL, 0);
		/* Whole once two reads a flush apart agree: syscalls are
		 * recorded as they return, so a child's exit_group can be in
		 * the record before its parent's sleep has returned. */
		if (last && !strcmp(out, last) && strstr(out, "\"allow\":[\"") &&
		    strstr(out, "exit_group"))
			prof = out;
		else {
			free(last);
			last = out;
		}
	}
	free(last);
	assert_non_null(prof);
	prof[strcspn(prof, "\n")] = 0;
	return prof;
}

/* Record a profile for the benign workload (ordinary work). */
static void record_profile(void)
{
	const char *argv[] = { h_tool("rf-load"), "work", "sleep", "300", "work", NULL };

	profile_json = record_profile_of("mon-learn", argv);
}

/* A syscall outside the profile: exactly one alert, naming it. */
static void test_unexpected_syscall(void **state)
{
	const char *argv[] = { h_tool("rf-load"), "work", "sleep", "300", "syscall", "getcpu",
			       "sleep", "500", NULL };
	char policy[8192], *out;
	const char *name;
	struct h_bg b;
	json_t *all, *sel, *open;
	long lat;

	(void)state;
	if (!profile_json)
		record_profile();
	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"mon-sys\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
		 "\"syscalls\":%s}", profile_json);
	assert_null(strstr(profile_json, "\"getcpu\""));
	b = h_bg_start(policy, argv);
	name = b.name;
	lat = wait_for("unexpected-syscall", name, "open", b.t0);
	assert_true(lat >= 0);
	fprintf(stderr, "# latency unexpected-syscall: %ld ms from the start of the sandbox, "
		"whose getcpu comes about 300 ms in\n", lat);
	assert_true(wait_for("unexpected-syscall", name, "close", b.t0) >= 0);
	all = records();
	sel = h_rec_select(all, "unexpected-syscall", name);
	assert_int_equal(distinct_uids(sel), 1);
	open = last_phase(sel, "open");
	assert_string_equal(h_rec_str(open, "unmapped", "syscall"), "getcpu");
	assert_int_equal(rec_int(open, "count", NULL), 1);
	/* it ran: not refused, High */
	assert_true(json_is_false(json_object_get(json_object_get(open, "unmapped"), "refused")));
	assert_null(json_object_get(json_object_get(open, "unmapped"), "errno"));
	assert_int_equal(rec_int(open, "severity_id", NULL), 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(open, "evidences"), 0), "process"), "file"), "path")),
		h_tool("rf-load"));
	json_decref(sel);
	sel = h_rec_select(all, "", name);
	assert_int_equal(distinct_uids(sel), 1);
	json_decref(sel);
	json_decref(all);
	bg_end(&b, &out);
	assert_non_null(strstr(out, "syscall getcpu ok"));
	free(out);
}

/* Unexpected-syscall alerts of sandbox that have closed: wait until n have
 * (or the deadline), then a little longer for any that should not be. */
static json_t *wait_closed_syscall_alerts(const char *sandbox, size_t n)
{
	uint64_t deadline = h_now_ms() + H_MON_WAIT_MS;
	json_t *all = NULL, *sel = NULL;

	for (;;) {
		size_t i, closed = 0;
		json_t *o;

		json_decref(sel);
		json_decref(all);
		all = records();
		sel = h_rec_select(all, "unexpected-syscall", sandbox);
		json_array_foreach(sel, i, o)
			closed += !strcmp(h_rec_str(o, "unmapped", "phase"), "close");
		if (closed >= n || h_now_ms() >= deadline)
			break;
		h_sleep_ms(50);
	}
	json_decref(sel);
	json_decref(all);
	h_sleep_ms(1500);     /* past the linger: anything more would show now */
	all = records();
	sel = h_rec_select(all, "unexpected-syscall", sandbox);
	json_decref(all);
	return sel;
}

/* ptrace, bpf and unshare(CLONE_NEWUSER), outside an alert profile that has
 * gettid: the boundary's seccomp filter refuses each with EPERM before
 * sys_enter, and the monitor still raises exactly one alert for each,
 * refused and Critical; the allowed twin gettid raises none. */
static void test_refused_syscalls(void **state)
{
	const char *twin[] = { h_tool("rf-sys"), "gettid", NULL };
	const char *argv[] = { h_tool("rf-sys"), "gettid", "ptrace", "bpf", "unshare_user",
			       "ptrace", "gettid", NULL };
	static const char *const refused[] = { "ptrace", "bpf", "unshare" };
	char policy[8192], *prof, *out, *name;
	json_t *sel, *o;
	size_t i, k;
	uint64_t t0;

	(void)state;
	prof = record_profile_of("mon-sys-twin", twin);
	assert_non_null(strstr(prof, "\"gettid\""));
	for (k = 0; k < 3; k++) {
		char q[32];

		snprintf(q, sizeof(q), "\"%s\"", refused[k]);
		assert_null(strstr(prof, q));
	}
	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"mon-refused\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
		 "\"syscalls\":%s}", prof);
	t0 = h_now_ms();
	name = run_sandbox(policy, argv, &out);
	/* refused inside the sandbox, by the boundary */
	assert_string_equal(h_result(out, "ptrace"), "EPERM");
	assert_string_equal(h_result(out, "bpf"), "EPERM");
	assert_string_equal(h_result(out, "unshare_user"), "EPERM");
	assert_string_equal(h_result(out, "gettid"), "ok");
	sel = wait_closed_syscall_alerts(name, 3);
	fprintf(stderr, "# refused syscalls: %zu alert records for %s within %llu ms\n",
		json_array_size(sel), name, (unsigned long long)(h_now_ms() - t0));
	assert_int_equal(distinct_uids(sel), 3);
	for (k = 0; k < 3; k++) {
		size_t opens = 0;

		json_array_foreach(sel, i, o) {
			if (strcmp(h_rec_str(o, "unmapped", "syscall"), refused[k]) ||
			    strcmp(h_rec_str(o, "unmapped", "phase"), "open"))
				continue;
			opens++;
			assert_true(json_is_true(json_object_get(json_object_get(o, "unmapped"),
								 "refused")));
			assert_string_equal(h_rec_str(o, "unmapped", "errno"), "EPERM");
			assert_int_equal(rec_int(o, "severity_id", NULL), 5);
			assert_int_equal(rec_int(o, "count", NULL), 1);
			assert_non_null(strstr(json_string_value(json_object_get(o, "message")),
					       "refused with EPERM"));
		}
		assert_int_equal(opens, 1);
	}
	json_array_foreach(sel, i, o)
		assert_string_not_equal(h_rec_str(o, "unmapped", "syscall"), "gettid");
	json_decref(sel);
	free(out);
	free(name);
	free(prof);
}

/* Ordinary work under a profile recorded for it: no alert at all. */
static void test_benign_no_alert(void **state)
{
	const char *argv[] = { h_tool("rf-load"), "work", "sleep", "300", "work", NULL };
	char policy[8192], *name;
	json_t *all, *sel;

	(void)state;
	if (!profile_json)
		record_profile();
	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"mon-benign\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{\"connect\":"
		 "[\"127.0.0.1:18080\"],\"unix\":[]},\"syscalls\":%s,\"monitor\":{\"pids\":64,"
		 "\"memory_mb\":256,\"cpu_percent\":190}}", profile_json);
	name = run_sandbox(policy, argv, NULL);
	/* past the sample interval, the linger and the sandbox's end */
	h_sleep_ms(3000);
	all = records();
	sel = h_rec_select(all, "", name);
	if (json_array_size(sel)) {
		char *s = json_dumps(sel, JSON_INDENT(1));

		fail_msg("false positives for %s: %s", name, s);
	}
	json_decref(sel);
	json_decref(all);
	free(name);
}

/* Run a policy (JSON text) with argv: the sandbox name and its
 * sandbox.exit line (*ret_exit, the caller's to decref). */
static char *run_sandbox_exit(const char *policy, const char *const *argv, json_t **ret_exit)
{
	char *trace = h_tempfile("montrace", NULL), *name;
	json_t *tr;

	h_run(policy, trace, argv, NULL, NULL);
	tr = h_trace(trace);
	name = strdup(json_string_value(json_object_get(h_event(tr, "sandbox.plan", 0),
							"sandbox")));
	*ret_exit = json_incref(h_event(tr, "sandbox.exit", 0));
	assert_non_null(*ret_exit);
	json_decref(tr);
	unlink(trace);
	free(trace);
	return name;
}

/*
 * Under Landlock a failed syscall is only a candidate: 30 opens of a file
 * the policy allows that fail EACCES (mode 000; the sandbox has no
 * CAP_DAC_OVERRIDE) and 30 refused connects to an allowed, closed port
 * raise nothing on a live monitor; 30 opens the policy refuses raise one
 * failed-ops alert that counts 30.
 */
static void test_inferred_allowed_failures_no_burst(void **state)
{
	char dir[512], locked[600], secret[600], policy[2048], port[16];
	const char *rd_ok[64], *rd_no[64];
	const char *net[] = { h_tool("rf-net"), "burst", "30", "127.0.0.1", port, NULL };
	char *name_ok, *name_net, *name_no;
	json_t *ex, *all, *sel, *cl;
	int i, fd, lfd;
	uint64_t t0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/inferred", mon.dir);
	snprintf(locked, sizeof(locked), "%s/data/locked", dir);
	snprintf(secret, sizeof(secret), "%s/secret/s", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(mon.dir, 0755), 0);
	snprintf(policy, sizeof(policy), "%s/data", dir);
	assert_int_equal(mkdir(policy, 0755), 0);
	snprintf(policy, sizeof(policy), "%s/secret", dir);
	assert_int_equal(mkdir(policy, 0755), 0);
	fd = open(locked, O_WRONLY | O_CREAT, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = open(secret, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	/* a port nothing listens on: bound, never listening */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);

		assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
		assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
		snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	}
	rd_ok[0] = rd_no[0] = h_tool("rf-fs");
	for (i = 0; i < 30; i++) {
		rd_ok[1 + 2 * i] = rd_no[1 + 2 * i] = "read";
		rd_ok[2 + 2 * i] = locked;
		rd_no[2 + 2 * i] = secret;
	}
	rd_ok[61] = rd_no[61] = NULL;
	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"mon-inferred\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/data/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"%s\",\"%s\"],"
		 "\"network\":{\"connect\":[\"127.0.0.1:%s\"],\"unix\":[]},"
		 "\"monitor\":{\"deny_burst\":{\"count\":10,\"window_ms\":1000}}}",
		 dir, h_tool("rf-fs"), h_tool("rf-net"), port);
	t0 = h_now_ms();
	name_ok = run_sandbox_exit(policy, rd_ok, &ex);
	/* the kernel saw 30 failures; the policy allows every one */
	assert_int_equal(rec_int(ex, "inferred_not_policy", NULL), 30);
	assert_int_equal(rec_int(ex, "denials_inferred", "file"), 0);
	json_decref(ex);
	name_net = run_sandbox_exit(policy, net, &ex);
	assert_int_equal(rec_int(ex, "denials_total", NULL), 0);
	json_decref(ex);
	name_no = run_sandbox_exit(policy, rd_no, &ex);
	assert_int_equal(rec_int(ex, "denials_inferred", "file"), 30);
	assert_int_equal(rec_int(ex, "verdicts_unpublished", NULL), 0);
	/* the kernel's count of its observe programs' skipped runs is there */
	assert_true(json_is_integer(json_object_get(ex, "observe_skipped")));
	json_decref(ex);
	close(lfd);
	/* the refused twin: one alert counting all 30, then closed */
	assert_true(wait_for("failed-ops", name_no, "close", t0) >= 0);
	all = records();
	sel = h_rec_select(all, "failed-ops", name_no);
	assert_int_equal(distinct_uids(sel), 1);
	cl = last_phase(sel, "close");
	assert_int_equal(rec_int(cl, "count", NULL), 30);
	assert_string_equal(h_rec_str(cl, "unmapped", "key"), "file");
	json_decref(sel);
	/* nothing at all for the allowed failures */
	sel = h_rec_select(all, "", name_ok);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	sel = h_rec_select(all, "", name_net);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	json_decref(all);
	free(name_ok);
	free(name_net);
	free(name_no);
}

/* 100 processes against a pids threshold of 50. */
static void test_forks_spike(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-forks\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":\"unrestricted\",\"monitor\":{\"pids\":50}}";
	const char *argv[] = { h_tool("rf-load"), "forks", "100", "2000", NULL };
	struct h_bg b = h_bg_start(policy, argv);
	const char *name = b.name;
	json_t *all, *sel, *o;
	size_t i, n = 0;
	long peak = 0;
	long lat = wait_for("resource-spike", name, "open", b.t0);

	(void)state;
	assert_true(lat >= 0);
	fprintf(stderr, "# latency resource-spike (pids): %ld ms from the start of the sandbox "
		"(sampled every 500 ms)\n", lat);
	/* The opening record has the count of the sample that crossed the
	 * threshold (forks may still be under way); the closing one has the
	 * episode's peak. */
	assert_true(wait_for("resource-spike", name, "close", b.t0) >= 0);
	all = records();
	sel = h_rec_select(all, "resource-spike", name);
	json_array_foreach(sel, i, o) {
		if (strcmp(h_rec_str(o, "unmapped", "key"), "pids"))
			continue;
		n++;
		assert_true(rec_int(o, "unmapped", "value") > 50);
		if (rec_int(o, "unmapped", "value") > peak)
			peak = rec_int(o, "unmapped", "value");
		assert_int_equal(rec_int(o, "unmapped", "threshold"), 50);
	}
	assert_true(n >= 2);
	assert_true(peak >= 100);
	json_decref(sel);
	json_decref(all);
	bg_end(&b, NULL);
}

/* 160 MiB resident against a memory threshold of 64 MiB. */
static void test_memory_spike(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-mem\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":\"unrestricted\",\"monitor\":"
		"{\"memory_mb\":64}}";
	const char *argv[] = { h_tool("rf-load"), "mem", "160", "2000", NULL };
	struct h_bg b = h_bg_start(policy, argv);
	const char *name = b.name;
	json_t *all, *sel, *o, *last = NULL;
	size_t i;
	long lat = wait_for("resource-spike", name, "open", b.t0);

	(void)state;
	assert_true(lat >= 0);
	fprintf(stderr, "# latency resource-spike (memory): %ld ms from the start of the "
		"sandbox\n", lat);
	assert_true(wait_for("resource-spike", name, "close", b.t0) >= 0);
	all = records();
	sel = h_rec_select(all, "resource-spike", name);
	json_array_foreach(sel, i, o)
		if (!strcmp(h_rec_str(o, "unmapped", "key"), "memory"))
			last = o;
	assert_non_null(last);
	assert_true(rec_int(last, "unmapped", "value") >= 128LL << 20);
	assert_int_equal(rec_int(last, "unmapped", "threshold"), 64LL << 20);
	assert_string_equal(h_rec_str(last, "unmapped", "unit"), "bytes");
	json_decref(sel);
	json_decref(all);
	bg_end(&b, NULL);
}

/* The monitor stalls, a sandbox floods: the lost-events alert's total is
 * the kernel's counter. */
static void test_lost_events_match_kernel(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-flood\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}";
	/* more than the 16 MiB ring buffer holds (about 42,000 records) */
	const char *argv[] = { h_tool("rf-net"), "burst", "60000", "127.0.0.1", "9", NULL };
	uint64_t deadline, kernel = 0, seen = 0;
	char *name, status[64];
	FILE *f;
	long hwm = 0;

	(void)state;
	assert_int_equal(kill(mon.pid, SIGSTOP), 0);
	name = run_sandbox(policy, argv, NULL);
	assert_int_equal(kill(mon.pid, SIGCONT), 0);
	free(name);
	deadline = h_now_ms() + H_MON_WAIT_MS;
	while (h_now_ms() < deadline) {
		json_t *all = records(), *sel = h_rec_select(all, "lost-events", ""), *o;
		size_t i;

		kernel = kernel_ringbuf_lost();
		seen = 0;
		json_array_foreach(sel, i, o)
			if (!strcmp(h_rec_str(o, "unmapped", "hop"), "kernel-decisions") &&
			    (uint64_t)rec_int(o, "unmapped", "lost_total") > seen)
				seen = (uint64_t)rec_int(o, "unmapped", "lost_total");
		json_decref(sel);
		json_decref(all);
		if (seen && seen == kernel)
			break;
		h_sleep_ms(100);
	}
	fprintf(stderr, "# lost events: kernel counter %llu, reported %llu\n",
		(unsigned long long)kernel, (unsigned long long)seen);
	assert_true(kernel > 0);
	assert_int_equal(seen, kernel);
	/* a flood stays within the memory bound */
	snprintf(status, sizeof(status), "/proc/%d/status", (int)mon.pid);
	f = fopen(status, "r");
	assert_non_null(f);
	while (f && fgets(status, sizeof(status), f))
		if (sscanf(status, "VmHWM: %ld", &hwm) == 1)
			break;
	fclose(f);
	fprintf(stderr, "# monitor peak RSS %ld KiB\n", hwm);
	assert_true(hwm > 0 && hwm < 128 * 1024);
}

/* A sandboxed process can neither signal, ptrace nor read the monitor. */
static void test_boundary(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-bound\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}";
	char pid[16], *out, *name;
	const char *argv[] = { h_tool("rf-load"), "signal", pid, "ptrace", pid, "readmem", pid,
			       NULL };

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)mon.pid);
	name = run_sandbox(policy, argv, &out);
	assert_string_not_equal(h_result(out, "signal"), "ok");
	assert_string_not_equal(h_result(out, "ptrace"), "ok");
	assert_string_not_equal(h_result(out, "readmem"), "ok");
	assert_int_equal(kill(mon.pid, 0), 0);
	fprintf(stderr, "# from a sandbox: %s", out);
	free(out);
	free(name);
}

/* Prometheus' own linter accepts the exposition text (Debian's prometheus). */
static void promtool_check(const char *text)
{
	const char *promtool = h_env("PROMTOOL", "/usr/bin/promtool");
	char cmd[512], path[] = "/tmp/rf-mon-prom-XXXXXX";
	int fd;

	if (access(promtool, X_OK)) {
		fprintf(stderr, "# promtool check skipped (%s missing)\n", promtool);
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s check metrics < %s", promtool, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

static void test_metrics(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)metrics_port) };
	const char *req = "GET /metrics HTTP/1.0\r\n\r\n";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char *body, *file;
	const char *bad[] = { h_monitor_bin(), "--metrics", "0.0.0.0:9464", NULL };
	struct h_proc p;
	int st, i;

	(void)state;
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof(in)), 0);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	body = h_read_all(fd);
	assert_non_null(strstr(body, "HTTP/1.0 200 OK"));
	assert_non_null(strstr(body, "ringfence_monitor_events_total{source=\"decision\"}"));
	assert_non_null(strstr(body, "ringfence_monitor_alerts_total{rule=\"deny-burst\"}"));
	assert_non_null(strstr(body, "ringfence_monitor_lost_events_total{hop=\"kernel-decisions\"}"));
	assert_non_null(strstr(body, "ringfence_monitor_sandboxes "));
	/* the bursts of the tests before: denials by class, verdict, backend */
	assert_non_null(strstr(body, "ringfence_monitor_denials_total{class=\"network\","
			       "verdict=\"denied\",backend=\"cgroup-sock-addr\"} "));
	assert_non_null(strstr(body, "\nprocess_cpu_seconds_total "));
	assert_non_null(strstr(body, "\nprocess_resident_memory_bytes "));
	assert_non_null(strstr(body, "\nprocess_start_time_seconds "));
	assert_non_null(strstr(body, "\nprocess_open_fds "));
	promtool_check(strstr(body, "\r\n\r\n") + 4);
	free(body);
	/* HEAD: 200, the body's length, no body */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof(in)), 0);
	req = "HEAD /metrics HTTP/1.0\r\n\r\n";
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	body = h_read_all(fd);
	assert_non_null(strstr(body, "HTTP/1.0 200 OK"));
	assert_null(strstr(body, "Content-Length: 0\r\n"));
	assert_non_null(strstr(body, "Content-Length: "));
	assert_string_equal(strstr(body, "\r\n\r\n"), "\r\n\r\n");
	free(body);
	file = NULL;
	for (i = 0; i < 50 && !file; i++) {
		int f = open(mon_metrics, O_RDONLY);

		if (f >= 0)
			file = h_read_all(f);
		else
			h_sleep_ms(100);
	}
	assert_non_null(file);
	assert_non_null(strstr(file, "# TYPE ringfence_monitor_events_total counter"));
	promtool_check(file);
	free(file);
	/* not loopback: a usage error */
	p.pid = fork();
	if (p.pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 2);
		execv(bad[0], (char *const *)bad);
		_exit(99);
	}
	assert_int_equal(waitpid(p.pid, &st, 0), p.pid);
	assert_int_equal(WEXITSTATUS(st), 125);
}

static void test_top_once(void **state)
{
	const char *args[] = { h_monitor_bin(), "--top", "--once", "--status", mon.status, NULL };
	int pipefd[2], st;
	pid_t pid;
	char *out;

	(void)state;
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(pipefd[1]);
	out = h_read_all(pipefd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(out, "SANDBOX"));
	assert_non_null(strstr(out, "Recent alerts"));
	assert_non_null(strstr(out, "lost-events"));
	free(out);
}

/* Log rotation: the file renamed, SIGHUP, new records in a new file. */
static void test_sighup_reopen(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-rotate\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]},"
		"\"monitor\":{\"deny_burst\":{\"count\":5,\"window_ms\":1000}}}";
	const char *argv[] = { h_tool("rf-net"), "burst", "20", "127.0.0.1", "9", NULL };
	char *rotated, *name;
	struct stat st;
	uint64_t t0;

	(void)state;
	assert_true(asprintf(&rotated, "%s.1", mon.out) > 0);
	assert_int_equal(rename(mon.out, rotated), 0);
	assert_int_equal(kill(mon.pid, SIGHUP), 0);
	h_sleep_ms(300);
	assert_int_equal(stat(mon.out, &st), 0);    /* reopened: created again */
	t0 = h_now_ms();
	name = run_sandbox(policy, argv, NULL);
	assert_true(wait_for("deny-burst", name, "open", t0) >= 0);
	assert_int_equal(kill(mon.pid, 0), 0);
	free(name);
	free(rotated);
}

/* A monitor that was down reports, on restart, what was lost meanwhile. */
static void test_restart_reports_lost(void **state)
{
	const char *policy = "{\"version\":1,\"id\":\"mon-down\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}";
	/* more than the 16 MiB ring buffer holds */
	const char *argv[] = { h_tool("rf-net"), "burst", "60000", "127.0.0.1", "9", NULL };
	uint64_t before, after, deadline;
	long long count = -1;
	char *name;

	(void)state;
	assert_int_equal(h_monitor_stop(mon.pid), 0);    /* SIGTERM: exit 0 */
	mon.pid = -1;
	before = kernel_ringbuf_lost();
	name = run_sandbox(policy, argv, NULL);
	free(name);
	after = kernel_ringbuf_lost();
	assert_true(after > before);
	unlink(mon.out);
	/* keep the first run's recording for the replay test */
	assert_true(asprintf(&mon_rec, "%s/record2.ndjson", mon.dir) > 0);
	start_monitor();
	deadline = h_now_ms() + H_MON_WAIT_MS;
	while (h_now_ms() < deadline && count < 0) {
		json_t *all = records(), *sel = h_rec_select(all, "lost-events", ""), *o;
		size_t i;

		json_array_foreach(sel, i, o)
			if (json_is_true(json_object_get(json_object_get(o, "unmapped"),
							  "before_start")))
				count = rec_int(o, "count", NULL);
		json_decref(sel);
		json_decref(all);
		h_sleep_ms(50);
	}
	fprintf(stderr, "# lost while down: kernel %llu -> %llu, reported %lld\n",
		(unsigned long long)before, (unsigned long long)after, count);
	assert_int_equal(count, (long long)(after - before));
}

/* The recorded inputs, replayed twice: identical alerts. */
static void test_replay_identical(void **state)
{
	char *o1, *o2, *a, *b;
	int i, fd;

	(void)state;
	assert_true(asprintf(&o1, "%s/replay1.ndjson", mon.dir) > 0);
	assert_true(asprintf(&o2, "%s/replay2.ndjson", mon.dir) > 0);
	assert_int_equal(h_monitor_stop(mon.pid), 0);
	mon.pid = -1;
	for (i = 0; i < 2; i++) {
		const char *args[] = { h_monitor_bin(), "--replay", replay_src, "--output",
				       i ? o2 : o1, NULL };
		int st;
		pid_t pid = fork();

		if (pid == 0) {
			execv(args[0], (char *const *)args);
			_exit(99);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	fd = open(o1, O_RDONLY);
	assert_true(fd >= 0);
	a = h_read_all(fd);
	fd = open(o2, O_RDONLY);
	assert_true(fd >= 0);
	b = h_read_all(fd);
	assert_true(strlen(a) > 0);
	assert_non_null(strstr(a, "\"rf-deny-burst\""));
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(o1);
	free(o2);
}

/* Every record written validates against the official OCSF 1.3.0 schema
 * (compiled in tests/ocsf/) and schemas/alert.schema.json. */
static void test_schema(void **state)
{
	char cmd[2048];
	const char *py = h_env("PYTHON", "/usr/bin/python3");

	(void)state;
	if (access("tests/ocsf/check_alerts.py", R_OK) || access(py, X_OK)) {
		fprintf(stderr, "# schema check skipped (tests/ocsf or %s missing)\n", py);
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s tests/ocsf/check_alerts.py --project "
		 "schemas/alert.schema.json --absent-ok tests/ocsf/recommended-absent.txt "
		 "tests/ocsf/detection_finding-1.3.0.schema.json %s/replay1.ndjson %s",
		 py, mon.dir, mon.out);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_one_alert),
		cmocka_unit_test(test_labels_reach_alerts),
		cmocka_unit_test(test_unexpected_syscall),
		cmocka_unit_test(test_refused_syscalls),
		cmocka_unit_test(test_benign_no_alert),
		cmocka_unit_test(test_inferred_allowed_failures_no_burst),
		cmocka_unit_test(test_forks_spike),
		cmocka_unit_test(test_memory_spike),
		cmocka_unit_test(test_lost_events_match_kernel),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_top_once),
		cmocka_unit_test(test_sighup_reopen),
		cmocka_unit_test(test_restart_reports_lost),
		cmocka_unit_test(test_replay_identical),
		cmocka_unit_test(test_schema),
	};

	if (harness_require_root())
		return 0;
	if (access(h_monitor_bin(), X_OK)) {
		fprintf(stderr, "SKIP: %s not built\n", h_monitor_bin());
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
