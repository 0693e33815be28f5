// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor and the connection ledger (privileged), each test with
 * a monitor of its own: the pinned flows maps are read only for a consumer
 * (none: no read; a sandbox with monitor.egress_bytes: read); a supervisor
 * killed with SIGKILL mid-upload still has its flow's final counts at the
 * monitor (the reaper hands them over before it purges them), adding up to
 * what the server read; unix peers (the cgroup unix hooks, 6.7+) reach the
 * monitor as Network Activity records valid against the OCSF 1.3 schema.
 */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/un.h>
#include <sys/utsname.h>

#define P_UP 18330      /* the loopback upload server */
#define WAIT_MS 15000

static int srv_fd = -1, srv_live;
static atomic_llong srv_bytes, srv_open;
static pthread_t srv_thread;

/* Accept and read each connection to its end, counting; answer nothing. */
static void *server(void *arg)
{
	static char buf[65536];
	int c;

	(void)arg;
	while ((c = accept(srv_fd, NULL, NULL)) >= 0) {
		ssize_t k;

		atomic_fetch_add(&srv_open, 1);
		while ((k = read(c, buf, sizeof(buf))) > 0)
			atomic_fetch_add(&srv_bytes, k);
		close(c);
		atomic_fetch_sub(&srv_open, 1);
	}
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root() || access("/usr/bin/python3", X_OK))
		return -1;
	srv_fd = h_listen_inet(AF_INET, "127.0.0.1", P_UP, SOCK_STREAM);
	if (srv_fd < 0 || pthread_create(&srv_thread, NULL, server, NULL))
		return -1;
	srv_live = 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (srv_live) {
		shutdown(srv_fd, SHUT_RDWR);
		pthread_join(srv_thread, NULL);
	}
	if (srv_fd >= 0)
		close(srv_fd);
	return 0;
}

#define POLICY(id, unix, monitor)                                                         \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18330\"]"        \
	unix "}" monitor "}"

/* The value of a metric (no labels) in a Prometheus text file; -1: none. */
static long long metric(const char *file, const char *name)
{
	char line[512];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/* Its metrics file written at least once more after now: the value. */
static long long metric_fresh(const char *file, const char *name)
{
	struct stat st;
	time_t t0 = time(NULL);
	int i;

	for (i = 0; i < 100; i++) {
		if (!stat(file, &st) && st.st_mtime > t0)
			break;
		h_sleep_ms(50);
	}
	return metric(file, name);
}

/* A monitor: --interval 200, --metrics-file, and extra (NULL-terminated). */
static pid_t monitor_start(const char *status, const char *metrics, const char *a1,
			   const char *a2)
{
	const char *args[] = { "--interval", "200", "--metrics-file", metrics, a1, a2, NULL };

	return h_monitor_start(status, args, NULL);
}

/* No --activity, no sink, no --record, no monitor.egress_bytes: a sandbox
 * uploading for over a second leaves the ledgers unread; its twin with
 * monitor.egress_bytes has them read while it runs. */
static void flows_read_only_for_a_consumer(void **state)
{
	char *st = h_tempfile("ml-status", NULL), *mf = h_tempfile("ml-metrics", NULL);
	char *cmd = malloc(512);
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	pid_t mon;
	long long polls;

	(void)state;
	snprintf(cmd, 512, "%s upload 127.0.0.1 18330 100000 sleep 1200 upload 127.0.0.1 18330 7",
		 h_sh(h_tool("rf-net")));
	argv[2] = cmd;
	mon = monitor_start(st, mf, NULL, NULL);
	assert_int_equal(h_run(POLICY("ml-quiet", "", ""), NULL, argv, NULL, NULL), 0);
	polls = metric_fresh(mf, "ringfence_monitor_flow_polls_total");
	assert_int_equal(polls, 0);
	/* the twin: a consumer in the policy */
	assert_int_equal(h_run(POLICY("ml-consumer", "",
				      ",\"monitor\":{\"egress_bytes\":100000000}"),
			       NULL, argv, NULL, NULL), 0);
	polls = metric_fresh(mf, "ringfence_monitor_flow_polls_total");
	assert_true(polls >= 2);
	assert_int_equal(h_monitor_stop(mon), 0);
	unlink(st);
	unlink(mf);
	free(st);
	free(mf);
	free(cmd);
}

static long long num(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(b ? json_object_get(o, a) : o, b ? b : a);

	if (!json_is_integer(v))
		fail_msg("%s.%s is not an integer", a, b ? b : "");
	return (long long)json_integer_value(v);
}

static const char *str2(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(b ? json_object_get(o, a) : o, b ? b : a);

	return json_is_string(v) ? json_string_value(v) : "";
}

/* Every record of act valid Network Activity (4001) against the official
 * OCSF 1.3 schema, as tests/ocsf checks them. */
static void ocsf_valid(const char *act)
{
	char check[1024];

	snprintf(check, sizeof(check), "grep '\"class_uid\":4001' %s > %s.net && "
		 "/usr/bin/python3 tests/ocsf/check_alerts.py --absent-ok "
		 "tests/ocsf/recommended-absent-net.txt "
		 "tests/ocsf/network_activity-1.3.0.schema.json %s.net > /dev/null; r=$?; "
		 "rm -f %s.net; exit $r", act, act, act, act);
	assert_int_equal(system(check), 0);
}

/* The sandbox's records of the upload server: bytes sent (their sum),
 * waited for until the final one is there (false: none came). */
static bool upload_records(const char *act, const char *sandbox, long long *ret_sent)
{
	uint64_t deadline = h_now_ms() + WAIT_MS;
	bool final = false;
	json_t *all, *o;
	size_t i;

	while (!final && h_now_ms() < deadline) {
		h_sleep_ms(50);
		all = h_monitor_records(act);
		*ret_sent = 0;
		json_array_foreach(all, i, o) {
			if (num(o, "class_uid", NULL) != 4001 ||
			    strcmp(str2(o, "unmapped", "sandbox"), sandbox) ||
			    num(o, "dst_endpoint", "port") != P_UP)
				continue;
			*ret_sent += num(o, "traffic", "bytes_out");
			final |= json_is_true(json_object_get(json_object_get(o, "unmapped"),
							      "final"));
		}
		json_decref(all);
	}
	return final;
}

/* The supervisor killed (SIGKILL) while its sandbox uploads in chunks:
 * the reaper kills the sandbox and, before it purges the ledger, hands
 * the flow's final counts to the monitor: the records add up to exactly
 * what the server read. */
static void killed_supervisor_final_flow(void **state)
{
	char *st = h_tempfile("ml-status", NULL), *mf = h_tempfile("ml-metrics", NULL);
	char *act = h_tempfile("ml-activity", NULL), *tp = h_tempfile("ml-trace", NULL);
	char *pol = h_tempfile("ml-policy", POLICY("ml-killed", "", ""));
	const char *argv[] = { "/usr/bin/python3", "-c",
		"import socket, time\n"
		"s = socket.create_connection(('127.0.0.1', 18330))\n"
		"while True:\n"
		"    s.sendall(b'k' * 10007)\n"
		"    time.sleep(0.01)\n", NULL };
	long long before = atomic_load(&srv_bytes), got, sent = -1;
	struct h_proc p;
	char *name;
	pid_t mon;
	int i;

	(void)state;
	mon = monitor_start(st, mf, "--activity", act);
	p = h_spawn(pol, tp, NULL, argv);
	name = h_trace_sandbox(tp);
	assert_non_null(name);
	/* mid-transfer: past a few chunks, and still sending */
	for (i = 0; i < 500 && atomic_load(&srv_bytes) - before < 100000; i++)
		h_sleep_ms(10);
	assert_true(atomic_load(&srv_bytes) - before >= 100000);
	assert_int_equal(kill(p.pid, SIGKILL), 0);
	assert_int_equal(h_wait(p, NULL, NULL), 128 + SIGKILL);
	/* the reaper killed the sandbox: its connection ends */
	for (i = 0; i < 500 && atomic_load(&srv_open); i++)
		h_sleep_ms(10);
	assert_int_equal(atomic_load(&srv_open), 0);
	got = atomic_load(&srv_bytes) - before;
	assert_true(upload_records(act, name, &sent));
	assert_int_equal(sent, got);
	/* the trace has no final flow: the supervisor never wrote one */
	assert_int_equal(h_count_events(h_trace(tp), "network.flow"), 0);
	ocsf_valid(act);
	assert_int_equal(h_monitor_stop(mon), 0);
	unlink(st);
	unlink(mf);
	unlink(act);
	unlink(tp);
	unlink(pol);
	free(st);
	free(mf);
	free(act);
	free(tp);
	free(pol);
	free(name);
}

/* Accepts connections on a unix socket until shut down, each read to its
 * end. */
static void *unix_accept(void *arg)
{
	int fd = *(int *)arg, c;
	char b[4096];

	while ((c = accept(fd, NULL, NULL)) >= 0) {
		while (read(c, b, sizeof(b)) > 0)
			;
		close(c);
	}
	return NULL;
}

/* The kernel has cgroup/connect_unix (6.7+): on this host it must. */
static bool unix_hooks(void)
{
	return h_kernel_at_least(6, 7);
}

/* Four connects to a unix socket served outside, one of them writing
 * 5000 bytes: the monitor's records of that peer (named by its path,
 * boundary Localhost) carry four connections and 5000 bytes out (the
 * socket length tracepoints, 6.3+) and validate against OCSF 1.3. */
static void unix_flow_at_the_monitor(void **state)
{
	char *st = h_tempfile("ml-status", NULL), *mf = h_tempfile("ml-metrics", NULL);
	char *act = h_tempfile("ml-activity", NULL), *tp = h_tempfile("ml-trace", NULL);
	char path[96], pol[512], *name;
	const char *argv[12];
	long long conns = 0, out = 0;
	bool final = false;
	json_t *all, *o, *last = NULL;
	pthread_t t;
	uint64_t deadline;
	pid_t mon;
	size_t i;
	int fd, n = 0, k;

	(void)state;
	if (!unix_hooks())
		skip();
	snprintf(path, sizeof(path), "/tmp/rf-mledger-%d.sock", (int)getpid());
	fd = h_listen_unix(path);
	assert_int_equal(pthread_create(&t, NULL, unix_accept, &fd), 0);
	snprintf(pol, sizeof(pol), POLICY("ml-unix", ",\"unix\":[\"%s\"]", ""), path);
	argv[n++] = h_tool("rf-net");
	for (k = 0; k < 3; k++) {
		argv[n++] = "unix";
		argv[n++] = path;
	}
	argv[n++] = "unixio";
	argv[n++] = path;
	argv[n++] = "5000";
	argv[n++] = "0";
	argv[n] = NULL;
	mon = monitor_start(st, mf, "--activity", act);
	assert_int_equal(h_run(pol, tp, argv, NULL, NULL), 0);
	name = h_trace_sandbox(tp);
	assert_non_null(name);
	deadline = h_now_ms() + WAIT_MS;
	while (!final && h_now_ms() < deadline) {
		h_sleep_ms(50);
		all = h_monitor_records(act);
		conns = out = 0;
		json_array_foreach(all, i, o) {
			if (num(o, "class_uid", NULL) != 4001 ||
			    strcmp(str2(o, "unmapped", "sandbox"), name) ||
			    strcmp(str2(o, "dst_endpoint", "name"), path))
				continue;
			conns += num(o, "unmapped", "connections");
			if (json_object_get(o, "traffic"))
				out += num(o, "traffic", "bytes_out");
			final |= json_is_true(json_object_get(json_object_get(o, "unmapped"),
							      "final"));
			json_decref(last);
			last = json_incref(o);
		}
		json_decref(all);
	}
	assert_true(final);
	assert_int_equal(conns, 4);
	assert_int_equal(out, 5000);
	assert_string_equal(str2(last, "connection_info", "protocol_name"), "unix");
	assert_int_equal(num(last, "connection_info", "boundary_id"), 1);
	assert_true(json_is_true(json_object_get(json_object_get(last, "unmapped"),
						 "bytes_counted")));
	assert_int_equal(num(last, "unmapped", "bytes_sent_total"), 5000);
	assert_string_equal(str2(json_object_get(last, "unmapped"), "unix", "socket_type"),
			    "stream");
	ocsf_valid(act);
	json_decref(last);
	assert_int_equal(h_monitor_stop(mon), 0);
	shutdown(fd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(fd);
	unlink(path);
	unlink(st);
	unlink(mf);
	unlink(act);
	unlink(tp);
	free(st);
	free(mf);
	free(act);
	free(tp);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flows_read_only_for_a_consumer),
		cmocka_unit_test(killed_supervisor_final_flow),
		cmocka_unit_test(unix_flow_at_the_monitor),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
