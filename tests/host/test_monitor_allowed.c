// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor on what sandboxes were allowed to do (privileged): the
 * DNS gate's queries as DNS Activity records and the dns-tunnel rule
 * (dnsmasq on 127.0.0.1:5398 answering every name under tunnel.test),
 * monitor.exec's unexpected programs, and monitor.on_alert "kill" and
 * "freeze" ending or holding a real sandbox; the connection ledger's flows
 * as Network Activity records (exact: what a loopback server read) and the
 * egress-volume rule (monitor.egress_bytes), ending an upload with on_alert
 * "kill". Each detection has its twin that must stay silent. One monitor
 * runs for the suite.
 */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>

#define DNS_PORT "5398"

#define P_UP 18320      /* the loopback upload server */

static pid_t dnsmasq = -1;
static struct h_mon mon;
static int srv_fd = -1;
static atomic_llong srv_bytes;
static pthread_t srv_thread;

/* Accept and read to the end, counting; answer nothing. */
static void *server(void *arg)
{
	static char buf[65536];
	int c;

	(void)arg;
	while ((c = accept(srv_fd, NULL, NULL)) >= 0) {
		ssize_t k;

		while ((k = read(c, buf, sizeof(buf))) > 0)
			atomic_fetch_add(&srv_bytes, k);
		close(c);
	}
	return NULL;
}

static int start_dnsmasq(void)
{
	static const char *const recs[] = { "--address=/tunnel.test/127.77.1.1", NULL };

	dnsmasq = h_dnsmasq_start(atoi(DNS_PORT), recs);
	return dnsmasq > 0 ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root() || access("/usr/sbin/dnsmasq", X_OK) ||
	    access("/usr/bin/python3", X_OK) || access("/usr/bin/git", X_OK))
		return -1;
	if (start_dnsmasq())
		return -1;
	srv_fd = h_listen_inet(AF_INET, "127.0.0.1", P_UP, SOCK_STREAM);
	if (srv_fd < 0 || pthread_create(&srv_thread, NULL, server, NULL))
		return -1;
	h_mon_init(&mon, "allowed", true);
	h_mon_start(&mon, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_mon_done(&mon);
	if (srv_fd >= 0) {
		shutdown(srv_fd, SHUT_RDWR);
		pthread_join(srv_thread, NULL);
		close(srv_fd);
	}
	if (dnsmasq > 0) {
		kill(dnsmasq, SIGTERM);
		waitpid(dnsmasq, NULL, 0);
	}
	return 0;
}

/* The first alert record of rule for sandbox, waited for; NULL after
 * H_MON_WAIT_MS. */
static json_t *wait_alert(const char *sandbox, const char *rule)
{
	return h_mon_wait(mon.out, rule, sandbox, NULL, NULL);
}

/* Every line of the trace valid against schemas/trace.schema.json
 * (monitor.action and sandbox.exit's monitor_action included). */
static void trace_valid(const char *path)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c 'import json, sys\n"
		 "from jsonschema import Draft202012Validator as V\n"
		 "v = V(json.load(open(\"schemas/trace.schema.json\")))\n"
		 "bad = [e.message[:200] for l in open(sys.argv[1]) for e in v.iter_errors(json.loads(l))]\n"
		 "bad and print(*bad[:5], sep=\"\\n\")\nsys.exit(1 if bad else 0)' %s", h_sh(path));
	assert_int_equal(system(cmd), 0);
}

/* Wait for it to end, its trace checked: its exit status; its trace in
 * *ret_trace. */
static int bg_end(struct h_bg *b, json_t **ret_trace)
{
	return h_bg_end(b, NULL, ret_trace, trace_valid);
}

static int run_named(const char *policy_json, const char *const *argv, char **ret_name)
{
	struct h_bg b = h_bg_start(policy_json, argv);
	json_t *tr;
	int rc = bg_end(&b, &tr);

	json_decref(tr);
	*ret_name = b.name;
	return rc;
}

#define TUNNEL_POLICY(id, count)                                                         \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"*.tunnel.test:18300\"],"   \
	"\"dns\":{\"upstream\":[\"127.0.0.1:" DNS_PORT "\"]}},"                           \
	"\"monitor\":{\"dns_names\":{\"count\":" count ",\"window_ms\":60000}}}"

/* N lookups of distinct names under tunnel.test, through the gate. */
static char *lookups(int n, const char *prefix)
{
	char *cmd = malloc(512);

	snprintf(cmd, 512, "seq %d | sed 's/.*/udp 192.0.2.53 53 %s&.tunnel.test/' | "
		 "xargs %s", n, prefix, h_sh(h_tool("rf-dns")));
	return cmd;
}

/* 200 distinct names under an allowed wildcard: one dns-tunnel alert, and
 * a DNS Activity record of every query; its twin (50 names, threshold
 * 100) none. */
static void dns_tunnel_200_names(void **state)
{
	char *cmd = lookups(200, "x"), *twin_cmd = lookups(50, "y"), *name, *twin;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const char *twin_argv[] = { "/bin/sh", "-c", twin_cmd, NULL };
	json_t *a, *sel, *o;
	size_t i, n_query = 0;
	char check[1024];

	(void)state;
	assert_int_equal(run_named(TUNNEL_POLICY("mon-tunnel", "100"), argv, &name), 0);
	assert_int_equal(run_named(TUNNEL_POLICY("mon-tunnel-twin", "100"), twin_argv, &twin), 0);
	a = wait_alert(name, "dns-tunnel");
	assert_non_null(a);
	assert_string_equal(h_rec_str(a, "unmapped", "signal"), "distinct-names");
	assert_string_equal(h_rec_str(a, "unmapped", "suffix"), "tunnel.test");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "unmapped"),
							    "distinct_names")), 101);
	json_decref(a);
	/* every query of the sandbox is an activity record, none a finding
	 * (beside them: the ledger's Network Activity of its datagrams to
	 * the gate) */
	h_sleep_ms(600);
	sel = h_mon_select(mon.activity, "", name);
	json_array_foreach(sel, i, o) {
		json_int_t c = json_integer_value(json_object_get(o, "class_uid"));

		assert_true(c == 4003 || c == 4001);
		n_query += c == 4003 && !strcmp(h_rec_str(o, "disposition", NULL), "Allowed") &&
			   strstr(h_rec_str(o, "query", "hostname"), ".tunnel.test");
	}
	assert_int_equal(n_query, 200);
	json_decref(sel);
	sel = h_mon_select(mon.out, "dns-tunnel", twin);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	sel = h_mon_select(mon.activity, "", twin);
	n_query = 0;
	json_array_foreach(sel, i, o)
		n_query += json_integer_value(json_object_get(o, "class_uid")) == 4003;
	assert_int_equal(n_query, 50);
	json_decref(sel);
	/* the live records against the official schema too */
	snprintf(check, sizeof(check), "grep '\"class_uid\":4003' %s > %s.dns && "
		 "/usr/bin/python3 tests/ocsf/check_alerts.py --absent-ok "
		 "tests/ocsf/recommended-absent-dns.txt tests/ocsf/dns_activity-1.3.0.schema.json "
		 "%s.dns > /dev/null; r=$?; rm -f %s.dns; exit $r", mon.activity, mon.activity, mon.activity,
		 mon.activity);
	assert_int_equal(system(check), 0);
	free(cmd);
	free(twin_cmd);
	free(name);
	free(twin);
}

#define EXEC_POLICY(id, programs, on_alert)                                              \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":\"unrestricted\","                         \
	"\"monitor\":{\"exec\":[" programs "],\"on_alert\":\"" on_alert "\"}}"

/* python3 runs git, then (when not stopped) sleeps and leaves a mark. */
static char *git_then_mark(char *mark)
{
	char *py = malloc(512);

	snprintf(py, 512, "import subprocess, time\nsubprocess.run(['git', '--version'], "
		 "stdout=subprocess.DEVNULL)\ntime.sleep(20)\nopen('%s', 'w').close()\n", mark);
	return py;
}

/* git run by a sandbox whose monitor.exec lists only python3: an alert
 * naming git and its parent; the twin that lists git too: none. */
static void unexpected_program_named_with_parent(void **state)
{
	const char *py = "import subprocess\nsubprocess.run(['git', '--version'], "
			 "stdout=subprocess.DEVNULL)\n";
	const char *argv[] = { "/usr/bin/python3", "-c", py, NULL };
	char *name, *twin;
	json_t *a, *sel, *um;

	(void)state;
	assert_int_equal(run_named(EXEC_POLICY("mon-exec", "\"python3\"", "alert"), argv,
				   &name), 0);
	assert_int_equal(run_named(EXEC_POLICY("mon-exec-twin", "\"python3\",\"git\"", "alert"),
				   argv, &twin), 0);
	a = wait_alert(name, "unexpected-exec");
	assert_non_null(a);
	um = json_object_get(a, "unmapped");
	/* as python found it on PATH (/bin or /usr/bin) */
	assert_true(strlen(h_rec_str(um, "program", NULL)) > 4);
	assert_string_equal(strrchr(h_rec_str(um, "program", NULL), '/'), "/git");
	assert_string_equal(h_rec_str(um, "parent_name", NULL), "python3");
	assert_string_equal(h_rec_str(a, "disposition", NULL), "Detected");
	json_decref(a);
	h_sleep_ms(600);
	sel = h_mon_select(mon.out, "unexpected-exec", name);
	/* git only: python3 is expected (one alert: open, maybe close) */
	assert_true(json_array_size(sel) >= 1);
	json_decref(sel);
	sel = h_mon_select(mon.out, "unexpected-exec", twin);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	free(name);
	free(twin);
}

static int64_t ms_of_rfc3339(const char *s)
{
	struct tm tm = { 0 };
	long ns = 0;

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d.%ldZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ns) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + ns / 1000000;
}

/* on_alert "kill": the alert says killed, the sandbox ends with SIGKILL
 * before its mark, and its supervisor's report names the action; the
 * action follows the alert's detection and precedes the run's end. */
static void on_alert_kill_ends_the_sandbox(void **state)
{
	char *mark = h_tempfile("allowed-mark", NULL), *py;
	const char *argv[4] = { "/usr/bin/python3", "-c", NULL, NULL };
	struct h_bg b;
	json_t *a, *tr, *ex, *ma, *resp;
	int rc;

	(void)state;
	unlink(mark);
	py = git_then_mark(mark);
	argv[2] = py;
	b = h_bg_start(EXEC_POLICY("mon-kill", "\"python3\"", "kill"), argv);
	a = wait_alert(b.name, "unexpected-exec");
	assert_non_null(a);
	resp = json_object_get(json_object_get(a, "unmapped"), "response");
	assert_string_equal(h_rec_str(resp, "on_alert", NULL), "kill");
	assert_true(json_is_true(json_object_get(resp, "performed")));
	assert_string_equal(h_rec_str(resp, "result", NULL), "killed");
	assert_non_null(strstr(h_rec_str(resp, "process_tree", NULL), "python3"));
	assert_string_equal(h_rec_str(a, "disposition", NULL), "Blocked");
	rc = bg_end(&b, &tr);
	assert_int_equal(rc, 128 + SIGKILL);
	assert_int_equal(access(mark, F_OK), -1);      /* it never got there */
	ex = h_event(tr, "sandbox.exit", 0);
	assert_non_null(ex);
	assert_int_equal(json_integer_value(json_object_get(ex, "signal")), SIGKILL);
	ma = json_object_get(ex, "monitor_action");
	assert_non_null(ma);
	assert_string_equal(h_rec_str(ma, "action", NULL), "kill");
	assert_string_equal(h_rec_str(ma, "rule", NULL), "unexpected-exec");
	assert_string_equal(h_rec_str(ma, "result", NULL), "killed");
	/* ordering: detected, then acted, then the run ended */
	assert_true(json_integer_value(json_object_get(a, "start_time")) <=
		    json_integer_value(json_object_get(ma, "time_ms")));
	assert_true(json_integer_value(json_object_get(ma, "time_ms")) <=
		    ms_of_rfc3339(h_rec_str(ex, "ts", NULL)) + 1);
	json_decref(tr);
	json_decref(a);
	unlink(mark);
	free(mark);
	free(py);
	free(b.name);
}

/* The cgroup path of a live sandbox, from its registry file. */
static char *cgroup_of(const char *sandbox)
{
	char path[512];
	json_t *o;
	char *cg;

	snprintf(path, sizeof(path), "/run/ringfence/sandboxes/%s.json", sandbox);
	o = json_load_file(path, 0, NULL);
	assert_non_null(o);
	cg = strdup(h_rec_str(o, "cgroup_path", NULL));
	json_decref(o);
	return cg;
}

static bool trace_has(const char *path, const char *event)
{
	json_t *tr = h_trace(path);
	bool has = h_event(tr, event, 0) != NULL;

	json_decref(tr);
	return has;
}

/* on_alert "freeze": the sandbox stays, frozen (its mark never comes),
 * its supervisor says so while it waits (monitor.action) and in its exit
 * report once the test ends the frozen group. */
static void on_alert_freeze_holds_the_sandbox(void **state)
{
	char *mark = h_tempfile("allowed-mark", NULL), *py, *cg, file[600], buf[256] = "";
	const char *argv[4] = { "/usr/bin/python3", "-c", NULL, NULL };
	struct h_bg b;
	json_t *a, *tr, *ex, *ma, *ev, *resp;
	int i, fd;

	(void)state;
	unlink(mark);
	py = git_then_mark(mark);
	argv[2] = py;
	b = h_bg_start(EXEC_POLICY("mon-freeze", "\"python3\"", "freeze"), argv);
	a = wait_alert(b.name, "unexpected-exec");
	assert_non_null(a);
	resp = json_object_get(json_object_get(a, "unmapped"), "response");
	assert_string_equal(h_rec_str(resp, "result", NULL), "frozen");
	assert_string_equal(h_rec_str(a, "disposition", NULL), "Isolated");
	cg = cgroup_of(b.name);
	snprintf(file, sizeof(file), "%s/cgroup.events", cg);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_non_null(strstr(buf, "frozen 1"));
	for (i = 0; i < 500 && !trace_has(b.trace, "monitor.action"); i++)
		h_sleep_ms(10);
	assert_true(trace_has(b.trace, "monitor.action"));
	assert_int_equal(waitpid(b.p.pid, NULL, WNOHANG), 0);  /* still there */
	/* the inspector ends it */
	snprintf(file, sizeof(file), "%s/cgroup.kill", cg);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1", 1), 1);
	close(fd);
	assert_int_equal(bg_end(&b, &tr), 128 + SIGKILL);
	assert_int_equal(access(mark, F_OK), -1);
	ev = h_event(tr, "monitor.action", 0);
	assert_string_equal(h_rec_str(ev, "action", NULL), "freeze");
	assert_true(json_is_true(json_object_get(ev, "frozen")));
	ex = h_event(tr, "sandbox.exit", 0);
	ma = json_object_get(ex, "monitor_action");
	assert_non_null(ma);
	assert_string_equal(h_rec_str(ma, "action", NULL), "freeze");
	assert_string_equal(h_rec_str(ma, "result", NULL), "frozen");
	json_decref(tr);
	json_decref(a);
	unlink(mark);
	free(mark);
	free(py);
	free(cg);
	free(b.name);
}

#define EGRESS_POLICY(id, bytes, on_alert)                                                \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18320\"]},"        \
	"\"monitor\":{\"egress_bytes\":" bytes ",\"egress_window_ms\":5000,"               \
	"\"on_alert\":\"" on_alert "\"}}"

static long long num(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(b ? json_object_get(o, a) : o, b ? b : a);

	if (!json_is_integer(v))
		fail_msg("%s.%s is not an integer", a, b ? b : "");
	return (long long)json_integer_value(v);
}

/* The sandbox's Network Activity records of the upload server, waited for
 * until a final one is there: bytes sent (the records' sum), their number
 * in *ret_n; the records checked against the official OCSF schema. */
static long long flow_records(const char *sandbox, size_t *ret_n)
{
	uint64_t deadline = h_now_ms() + H_MON_WAIT_MS;
	long long sent = 0, total = -1;
	char check[1024];
	json_t *sel, *o;
	size_t i, n = 0;
	bool final = false;

	while (!final && h_now_ms() < deadline) {
		h_sleep_ms(50);
		sel = h_mon_select(mon.activity, "", sandbox);
		sent = 0;
		n = 0;
		json_array_foreach(sel, i, o) {
			if (num(o, "class_uid", NULL) != 4001 ||
			    num(o, "dst_endpoint", "port") != P_UP)
				continue;
			n++;
			sent += num(o, "traffic", "bytes_out");
			total = num(o, "unmapped", "bytes_sent_total");
			final |= json_is_true(json_object_get(json_object_get(o, "unmapped"),
							      "final"));
		}
		json_decref(sel);
	}
	assert_true(final);
	assert_int_equal(sent, total);
	snprintf(check, sizeof(check), "grep '\"class_uid\":4001' %s > %s.net && "
		 "/usr/bin/python3 tests/ocsf/check_alerts.py --absent-ok "
		 "tests/ocsf/recommended-absent-net.txt "
		 "tests/ocsf/network_activity-1.3.0.schema.json %s.net > /dev/null; r=$?; "
		 "rm -f %s.net; exit $r", mon.activity, mon.activity, mon.activity, mon.activity);
	assert_int_equal(system(check), 0);
	*ret_n = n;
	return sent;
}

/* Under the threshold (60 kB of 100 kB within 5 s): no alert; the
 * Network Activity records of the upload add up to exactly what the
 * server read and the supervisor's sandbox.exit says it sent. */
static void egress_under_threshold_flows_exact(void **state)
{
	char *cmd = malloc(512), *name;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	long long before = atomic_load(&srv_bytes), sent;
	struct h_bg b;
	json_t *tr, *ex, *sel;
	size_t n;

	(void)state;
	snprintf(cmd, 512, "%s upload 127.0.0.1 18320 60001 && %s upload 127.0.0.1 18320 17",
		 h_sh(h_tool("rf-net")), h_sh(h_tool("rf-net")));
	argv[2] = cmd;
	b = h_bg_start(EGRESS_POLICY("mon-egress-under", "100000", "kill"), argv);
	assert_int_equal(bg_end(&b, &tr), 0);
	name = b.name;
	assert_int_equal(atomic_load(&srv_bytes) - before, 60018);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_non_null(ex);
	assert_int_equal(num(ex, "bytes_sent", NULL), 60018);
	sent = flow_records(name, &n);
	assert_int_equal(sent, 60018);
	assert_true(n >= 1);
	h_sleep_ms(600);
	sel = h_mon_select(mon.out, "egress-volume", name);
	assert_int_equal(json_array_size(sel), 0);
	json_decref(sel);
	json_decref(tr);
	free(cmd);
	free(name);
}

/* Over it (2 MB, then a long sleep): an egress-volume alert naming the
 * sandbox, the destination, the bytes and the window; on_alert "kill"
 * ends the sandbox before its sleep is over, and its records still add
 * up to what the server read. */
static void egress_over_threshold_alert_kills(void **state)
{
	char *mark = h_tempfile("allowed-mark", NULL), *cmd = malloc(1024);
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	long long before = atomic_load(&srv_bytes), got;
	struct h_bg b;
	json_t *a, *tr, *ex, *ma, *um, *resp;
	size_t n;

	(void)state;
	unlink(mark);
	snprintf(cmd, 1024, "%s upload 127.0.0.1 18320 2000000 && sleep 20 && touch %s",
		 h_sh(h_tool("rf-net")), h_sh(mark));
	argv[2] = cmd;
	b = h_bg_start(EGRESS_POLICY("mon-egress-over", "100000", "kill"), argv);
	a = wait_alert(b.name, "egress-volume");
	assert_non_null(a);
	um = json_object_get(a, "unmapped");
	assert_true(num(um, "bytes", NULL) > 100000);
	assert_int_equal(num(um, "threshold", NULL), 100000);
	assert_int_equal(num(um, "window_ms", NULL), 5000);
	assert_string_equal(h_rec_str(um, "destination", NULL), "127.0.0.1:18320/tcp");
	resp = json_object_get(um, "response");
	assert_string_equal(h_rec_str(resp, "result", NULL), "killed");
	assert_int_equal(bg_end(&b, &tr), 128 + SIGKILL);
	assert_int_equal(access(mark, F_OK), -1);      /* its sleep never ended */
	ex = h_event(tr, "sandbox.exit", 0);
	ma = json_object_get(ex, "monitor_action");
	assert_non_null(ma);
	assert_string_equal(h_rec_str(ma, "rule", NULL), "egress-volume");
	/* detected, then acted, then the run ended (the figure, for the
	 * report: alert to the end of the run) */
	assert_true(num(a, "time", NULL) <= num(ma, "time_ms", NULL));
	fprintf(stderr, "# egress-volume: alert %lld ms, kill %lld ms, run end %lld ms\n",
		num(a, "time", NULL), num(ma, "time_ms", NULL),
		(long long)ms_of_rfc3339(h_rec_str(ex, "ts", NULL)));
	got = atomic_load(&srv_bytes) - before;
	assert_int_equal(got, 2000000);
	assert_int_equal(flow_records(b.name, &n), got);
	json_decref(tr);
	json_decref(a);
	unlink(mark);
	free(mark);
	free(cmd);
	free(b.name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dns_tunnel_200_names),
		cmocka_unit_test(unexpected_program_named_with_parent),
		cmocka_unit_test(on_alert_kill_ends_the_sandbox),
		cmocka_unit_test(on_alert_freeze_holds_the_sandbox),
		cmocka_unit_test(egress_under_threshold_flows_exact),
		cmocka_unit_test(egress_over_threshold_alert_kills),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
