// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Record format round trip, replay determinism, registry files, metrics,
 * output queue (cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "alert.h"
#include "detect.h"
#include "metrics.h"
#include "output.h"
#include "record.h"
#include "registry_watch.h"
#include "replay.h"
#include "table.h"

#define MS 1000000ULL
#define T0 (500ULL * 1000 * MS)

static char *tmpfile_path(const char *tag)
{
	char *p = NULL;
	int fd;

	assert_true(asprintf(&p, "/tmp/rf-mon-test-%s-XXXXXX", tag) > 0);
	fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* A recording with every kind of input: a burst, a syscall outside the
 * profile, a memory spike, lost events, lineage. */
static char *write_recording(void)
{
	static const char *allow[] = { "read", "write" };
	struct rf_record_header h = { .boot_to_real_ns = 1795000000000000000LL, .ticks = false,
				      .tick_ms = 250 };
	struct rf_sandbox_info si = { 0 };
	struct rf_recorder *r;
	struct rf_input in;
	char *path = tmpfile_path("rec");
	int i;

	h.defaults.burst_count = 20;
	h.defaults.burst_window_ms = 1000;
	h.defaults.linger_ms = 2000;
	h.defaults.update_ms = 10000;
	assert_int_equal(record__open(path, &h, &r), 0);
	snprintf(si.sandbox, sizeof(si.sandbox), "rec-sb");
	snprintf(si.policy_id, sizeof(si.policy_id), "rec-pol");
	snprintf(si.cgroup_path, sizeof(si.cgroup_path), "/sys/fs/cgroup/ringfence/rec-sb");
	si.cgroup_id = 77;
	si.burst_count = 10;
	si.burst_window_ms = 1000;
	si.memory_mb = 64;
	si.has_profile = true;
	si.alert_only = true;
	si.allow = (char **)allow;
	si.n_allow = 2;
	memset(&in, 0, sizeof(in));
	in.t_ns = T0;
	in.type = RF_IN_SANDBOX;
	in.cgroup_id = 77;
	in.u.sb = &si;
	assert_int_equal(record__write(r, &in), 0);

	memset(&in, 0, sizeof(in));
	in.t_ns = T0 + MS;
	in.type = RF_IN_EXEC;
	in.cgroup_id = 77;
	in.u.proc.pid = 900;
	in.u.proc.ppid = 899;
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "curl");
	snprintf(in.u.proc.path, sizeof(in.u.proc.path), "/usr/bin/curl");
	assert_int_equal(record__write(r, &in), 0);

	for (i = 0; i < 50; i++) {
		memset(&in, 0, sizeof(in));
		in.t_ns = T0 + 10 * MS + (uint64_t)i * 5 * MS;
		in.type = RF_IN_DECISION;
		in.cgroup_id = 77;
		in.u.decision.ts_boot_ns = in.t_ns;
		in.u.decision.cgroup_id = 77;
		in.u.decision.kind = RF_EV_DECISION;
		in.u.decision.seq = (uint64_t)i;
		in.u.decision.pid = 900;
		in.u.decision.class = RF_CLASS_NET;
		in.u.decision.op = RF_OP_CONNECT4;
		in.u.decision.verdict = RF_VERDICT_DENIED;
		in.u.decision.reason = RF_REASON_PORT;
		in.u.decision.family = AF_INET;
		in.u.decision.port = 9;
		in.u.decision.protocol = 6;
		inet_pton(AF_INET, "127.0.0.1", in.u.decision.addr);
		snprintf(in.u.decision.comm, sizeof(in.u.decision.comm), "curl");
		assert_int_equal(record__write(r, &in), 0);
	}
	memset(&in, 0, sizeof(in));
	in.t_ns = T0 + 400 * MS;
	in.type = RF_IN_SYSCALL;
	in.cgroup_id = 77;
	in.u.proc.pid = 900;
	in.u.proc.nr = 101;
	in.u.proc.err = 1;      /* refused (EPERM): carried through the recording */
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "curl");
	snprintf(in.u.proc.name, sizeof(in.u.proc.name), "ptrace");
	assert_int_equal(record__write(r, &in), 0);
	in.t_ns = T0 + 401 * MS;
	in.u.proc.nr = 0;
	in.u.proc.err = 0;
	snprintf(in.u.proc.name, sizeof(in.u.proc.name), "read");
	assert_int_equal(record__write(r, &in), 0);

	for (i = 1; i <= 4; i++) {
		memset(&in, 0, sizeof(in));
		in.t_ns = T0 + (uint64_t)i * 1000 * MS;
		in.type = RF_IN_SAMPLE;
		in.cgroup_id = 77;
		in.u.sample.cpu_ns = (uint64_t)i * 100 * MS;
		in.u.sample.mem_bytes = i == 3 ? 200ULL << 20 : 10ULL << 20;
		in.u.sample.procs = 2;
		in.u.sample.procs_peak = 2;
		assert_int_equal(record__write(r, &in), 0);
	}
	memset(&in, 0, sizeof(in));
	in.t_ns = T0 + 4500 * MS;
	in.type = RF_IN_LOST;
	in.u.lost.hop = RF_HOP_KERNEL_DECISIONS;
	in.u.lost.count = 42;
	in.u.lost.before_start = true;
	assert_int_equal(record__write(r, &in), 0);
	memset(&in, 0, sizeof(in));
	in.t_ns = T0 + 5000 * MS;
	in.type = RF_IN_SANDBOX_END;
	in.cgroup_id = 77;
	assert_int_equal(record__write(r, &in), 0);
	record__close(r);
	return path;
}

static void test_round_trip(void **state)
{
	struct rf_input in, back;
	struct rf_sandbox_info si;
	json_t *o;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.t_ns = 123;
	in.type = RF_IN_DECISION;
	in.cgroup_id = 9;
	in.u.decision.ts_boot_ns = 123;
	in.u.decision.cgroup_id = 9;
	in.u.decision.kind = RF_EV_DECISION;
	in.u.decision.class = RF_CLASS_UNIX;
	in.u.decision.op = RF_OP_CONNECT_UNIX;
	in.u.decision.verdict = RF_VERDICT_AUDITED;
	in.u.decision.family = AF_UNIX;
	in.u.decision.protocol = 1;
	in.u.decision.pid = 5;
	in.u.decision.tid = 6;
	in.u.decision.seq = 17;
	snprintf(in.u.decision.path, sizeof(in.u.decision.path), "@abstract");
	in.u.decision.path_len = 9;
	snprintf(in.u.decision.comm, sizeof(in.u.decision.comm), "x");
	o = record__to_json(&in);
	assert_non_null(o);
	assert_int_equal(record__from_json(o, &back, &si), 0);
	json_decref(o);
	assert_memory_equal(&in.u.decision, &back.u.decision, sizeof(in.u.decision));
	assert_int_equal(back.t_ns, 123);
	assert_int_equal(back.cgroup_id, 9);

	o = json_loads("{\"t\":1,\"type\":\"bogus\"}", 0, NULL);
	assert_int_equal(record__from_json(o, &back, &si), -EINVAL);
	json_decref(o);
	o = json_loads("{\"t\":1,\"type\":\"lost\",\"hop\":\"nowhere\",\"count\":1}", 0, NULL);
	assert_int_equal(record__from_json(o, &back, &si), -EINVAL);
	json_decref(o);
}

/* The same file replayed twice: byte-identical alerts. */
static void test_replay_deterministic(void **state)
{
	struct rf_detect_opts none = { 0 };
	char *rec = write_recording(), *out1 = tmpfile_path("out1"), *out2 = tmpfile_path("out2");
	char *a, *b, *p;
	size_t lines = 0;

	(void)state;
	unlink(out1);
	unlink(out2);
	assert_int_equal(replay__run(rec, out1, NULL, &none, NULL), 0);
	assert_int_equal(replay__run(rec, out2, NULL, &none, NULL), 0);
	a = slurp(out1);
	b = slurp(out2);
	assert_string_equal(a, b);
	for (p = a; *p; p++)
		lines += *p == '\n';
	/* burst open+close, syscall open+close, memory open+close, lost open+close */
	assert_int_equal(lines, 8);
	assert_non_null(strstr(a, "\"analytic\":{\"uid\":\"rf-deny-burst\""));
	assert_non_null(strstr(a, "\"syscall\":\"ptrace\""));
	assert_non_null(strstr(a, "\"syscall_nr\":101,\"refused\":true,\"outcome\":\"refused\","
				  "\"source\":\"syscall-sensor\",\"errno\":\"EPERM\""));
	assert_null(strstr(a, "\"syscall\":\"read\""));
	assert_non_null(strstr(a, "\"resource\":\"memory\""));
	assert_non_null(strstr(a, "\"lost_total\":42"));
	assert_non_null(strstr(a, "\"count\":50"));
	assert_non_null(strstr(a, "\"path\":\"/usr/bin/curl\""));
	free(a);
	free(b);
	unlink(rec);
	unlink(out1);
	unlink(out2);
	free(rec);
	free(out1);
	free(out2);
}

static void test_replay_bad_files(void **state)
{
	struct rf_detect_opts none = { 0 };
	char *bad = tmpfile_path("bad"), *out = tmpfile_path("out");
	FILE *f;

	(void)state;
	f = fopen(bad, "w");
	fputs("{\"not\":\"a header\"}\n", f);
	fclose(f);
	assert_int_equal(replay__run(bad, out, NULL, &none, NULL), 1);
	f = fopen(bad, "w");
	fputs("{\"ringfence_monitor_record\":1}\nnot json\n", f);
	fclose(f);
	assert_int_equal(replay__run(bad, out, NULL, &none, NULL), 1);
	assert_int_equal(replay__run("/nonexistent/rec", out, NULL, &none, NULL), 1);
	unlink(bad);
	unlink(out);
	free(bad);
	free(out);
}

static void count_ticks(const struct rf_input *in, void *ctx)
{
	if (in->type == RF_IN_TICK)
		(*(uint64_t *)ctx)++;
}

/* Found by fuzzing: a record whose time jumps by a century replayed one
 * tick per tick_ms across the gap, practically forever. */
static void test_replay_time_jump_is_bounded(void **state)
{
	char *rec = tmpfile_path("jump");
	struct rf_error err = { 0 };
	uint64_t ticks = 0;
	FILE *f;

	(void)state;
	f = fopen(rec, "w");
	fputs("{\"ringfence_monitor_record\":1,\"tick_ms\":1}\n"
	      "{\"t\":1,\"type\":\"tick\"}\n"
	      "{\"t\":4000000000000000000,\"type\":\"tick\"}\n", f);
	fclose(f);
	assert_int_equal(replay__file(rec, 0, NULL, count_ticks, &ticks, &err), 0);
	assert_true(ticks > 1000);          /* the gap's start is replayed tick by tick */
	assert_true(ticks <= 100002);       /* and the rest skipped */
	f = fopen(rec, "w");
	fputs("{\"ringfence_monitor_record\":1,\"tick_ms\":18446744073709}\n", f);
	fclose(f);
	assert_int_not_equal(replay__file(rec, 0, NULL, count_ticks, &ticks, &err), 0);
	assert_non_null(strstr(err.why, "tick_ms"));
	assert_non_null(strstr(err.where, ":1"));     /* the header's line */
	unlink(rec);
	free(rec);
}

static void test_registry_parse(void **state)
{
	struct rf_sandbox_info si;
	struct rf_reg_extra x;

	(void)state;
	assert_int_equal(regwatch__parse_json(
		"{\"sandbox\":\"a-1\",\"policy_id\":\"a\",\"cgroup_path\":\"/cg/ringfence/a-1\","
		"\"cgroup_id\":42,\"supervisor_pid\":10,\"supervisor_start\":99,\"pid\":11,"
		"\"monitor\":{\"deny_burst\":{\"count\":50,\"window_ms\":2000},\"memory_mb\":900},"
		"\"syscalls\":{\"allow\":[\"write\",\"read\"],\"on_violation\":\"alert\"}}", &si, &x), 0);
	assert_string_equal(si.sandbox, "a-1");
	assert_int_equal(si.cgroup_id, 42);
	assert_int_equal(si.burst_count, 50);
	assert_int_equal(si.burst_window_ms, 2000);
	assert_int_equal(si.memory_mb, 900);
	assert_int_equal(si.cpu_percent, 0);
	assert_true(si.has_profile);
	assert_true(si.alert_only);
	assert_int_equal(si.n_allow, 2);
	assert_int_equal(x.supervisor_pid, 10);
	assert_int_equal(x.child_pid, 11);
	rf_sandbox_info_clear(&si);
	/* no monitor section, no profile: defaults apply */
	assert_int_equal(regwatch__parse_json("{\"sandbox\":\"b\",\"cgroup_id\":1,\"monitor\":{}}",
					      &si, &x), 0);
	assert_false(si.has_profile);
	assert_int_equal(si.burst_count, 0);
	rf_sandbox_info_clear(&si);
	assert_int_equal(regwatch__parse_json("{\"sandbox\":\"c\"}", &si, &x), -EINVAL);
	rf_sandbox_info_clear(&si);
	assert_int_equal(regwatch__parse_json("[1]", &si, &x), -EINVAL);
	rf_sandbox_info_clear(&si);
}

struct seen {
	int adds, removes;
	char last[128];
};

static void on_add(const struct rf_sandbox_info *si, const struct rf_reg_extra *x, void *ctx)
{
	struct seen *s = ctx;

	(void)x;
	s->adds++;
	snprintf(s->last, sizeof(s->last), "%s", si->sandbox);
}

static void on_remove(const char *sandbox, uint64_t cgid, void *ctx)
{
	struct seen *s = ctx;

	(void)cgid;
	s->removes++;
	snprintf(s->last, sizeof(s->last), "%s", sandbox);
}

/* The watch: files renamed into place are added, unlinked ones removed,
 * exchanged ones reloaded, temp files ignored; a rescan finds what is there. */
static void test_registry_watch(void **state)
{
	char dir[] = "/tmp/rf-mon-reg-XXXXXX", path[256], tmp[256];
	struct seen s = { 0 };
	struct rf_reg_ops ops = { .add = on_add, .remove = on_remove, .ctx = &s };
	struct rf_regwatch *w;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/old-1.json", dir);
	f = fopen(path, "w");
	fputs("{\"sandbox\":\"old-1\",\"cgroup_id\":5}", f);
	fclose(f);
	assert_int_equal(regwatch__open(dir, &w), 0);
	assert_int_equal(regwatch__scan(w, &ops), 0);
	assert_int_equal(s.adds, 1);
	assert_string_equal(s.last, "old-1");

	snprintf(tmp, sizeof(tmp), "%s/new-2.json.tmp", dir);
	snprintf(path, sizeof(path), "%s/new-2.json", dir);
	f = fopen(tmp, "w");
	fputs("{\"sandbox\":\"new-2\",\"cgroup_id\":6}", f);
	fclose(f);
	assert_int_equal(regwatch__process(w, &ops), 0);
	assert_int_equal(s.adds, 1);    /* the temp file is not an entry */
	assert_int_equal(rename(tmp, path), 0);
	assert_int_equal(regwatch__process(w, &ops), 0);
	assert_int_equal(s.adds, 2);
	assert_string_equal(s.last, "new-2");
	assert_int_equal(regwatch__count(w), 2);
	/* the supervisor's update (lib/registry.c): the new file exchanged
	 * in, the old one removed under the temp name: a reload, no removal */
	f = fopen(tmp, "w");
	fputs("{\"sandbox\":\"new-2\",\"cgroup_id\":6,\"pid\":77}", f);
	fclose(f);
	assert_int_equal(renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE), 0);
	assert_int_equal(unlink(tmp), 0);
	assert_int_equal(regwatch__process(w, &ops), 0);
	assert_int_equal(s.removes, 0);
	assert_int_equal(regwatch__count(w), 2);
	unlink(path);
	assert_int_equal(regwatch__process(w, &ops), 0);
	assert_int_equal(s.removes, 1);
	assert_string_equal(s.last, "new-2");
	snprintf(path, sizeof(path), "%s/old-1.json", dir);
	unlink(path);
	assert_int_equal(regwatch__scan(w, &ops), 0);
	assert_int_equal(s.removes, 2);
	regwatch__close(w);
	rmdir(dir);
}

static void test_metrics_addr(void **state)
{
	struct sockaddr_in6 sa;
	unsigned int len;
	char why[512];

	(void)state;
	assert_int_equal(metrics__parse_addr("127.0.0.1:9464", &sa, &len, why, sizeof(why)), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(metrics__parse_addr("[::1]:9464", &sa, &len, why, sizeof(why)), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(metrics__parse_addr("localhost:80", &sa, &len, why, sizeof(why)), 0);
	assert_int_equal(metrics__parse_addr("0.0.0.0:9464", &sa, &len, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a loopback"));
	assert_int_equal(metrics__parse_addr("[::]:9464", &sa, &len, why, sizeof(why)), -EINVAL);
	assert_int_equal(metrics__parse_addr("10.0.0.1:9464", &sa, &len, why, sizeof(why)), -EINVAL);
	assert_int_equal(metrics__parse_addr("127.0.0.1", &sa, &len, why, sizeof(why)), -EINVAL);
	assert_int_equal(metrics__parse_addr("127.0.0.1:0", &sa, &len, why, sizeof(why)), -EINVAL);
	assert_int_equal(metrics__parse_addr("127.0.0.1:70000", &sa, &len, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(metrics__parse_addr("example.com:80", &sa, &len, why, sizeof(why)),
			 -EINVAL);
}

/* The textfile is 0644 whatever the umask (the unit's UMask=0077):
 * node_exporter reads it as another user. Written twice: a file already
 * there keeps the mode too. */
static void test_metrics_file_mode(void **state)
{
	char *path = tmpfile_path("prom");
	mode_t old = umask(0077);
	struct stat st;
	int i;

	(void)state;
	unlink(path);
	for (i = 0; i < 2; i++) {
		assert_int_equal(metrics__write_file(path, "x 1\n"), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, RF_METRICS_FILE_MODE);
		assert_int_equal(RF_METRICS_FILE_MODE, 0644);
	}
	umask(old);
	unlink(path);
	free(path);
}

static void test_metrics_render(void **state)
{
	struct rf_metrics m = { 0 };
	char *t;

	(void)state;
	m.events[RF_EVSRC_DECISION] = 50;
	m.alerts[RF_RULE_DENY_BURST] = 1;
	m.lost[RF_HOP_KERNEL_DECISIONS] = 4318;
	m.sandboxes = 3;
	t = metrics__render(&m);
	assert_non_null(t);
	assert_non_null(strstr(t, "ringfence_monitor_events_total{source=\"decision\"} 50\n"));
	assert_non_null(strstr(t, "ringfence_monitor_alerts_total{rule=\"deny-burst\"} 1\n"));
	assert_non_null(strstr(t,
		"ringfence_monitor_lost_events_total{hop=\"kernel-decisions\"} 4318\n"));
	assert_non_null(strstr(t, "ringfence_monitor_sandboxes 3\n"));
	assert_non_null(strstr(t, "# TYPE ringfence_monitor_events_total counter\n"));
	assert_null(strstr(t, "pid=\""));     /* low cardinality */
	free(t);
}

/* Prometheus' own linter accepts the text (skipped without Debian's
 * prometheus package: `make deps` installs it). */
static void promtool_check(const char *path)
{
	char cmd[512];

	if (access("/usr/bin/promtool", X_OK)) {
		fprintf(stderr, "# promtool check skipped (/usr/bin/promtool missing)\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "/usr/bin/promtool check metrics < %s", path);
	assert_int_equal(system(cmd), 0);
}

/* --replay --metrics-file: the replay's counters, denials by class,
 * verdict and backend, alerts by rule; no process_* of the replay. */
static void test_replay_metrics_file(void **state)
{
	struct rf_detect_opts none = { 0 };
	char *rec = write_recording(), *out = tmpfile_path("mout"), *mf = tmpfile_path("prom");
	char *t;

	(void)state;
	assert_int_equal(replay__run(rec, out, NULL, &none, mf), 0);
	t = slurp(mf);
	assert_non_null(strstr(t, "ringfence_monitor_denials_total{class=\"network\","
			       "verdict=\"denied\",backend=\"cgroup-sock-addr\"} 50\n"));
	assert_non_null(strstr(t, "ringfence_monitor_alerts_total{rule=\"deny-burst\"} 1\n"));
	assert_non_null(strstr(t, "ringfence_monitor_alerts_total{rule=\"resource-spike\"} 1\n"));
	assert_non_null(strstr(t, "ringfence_monitor_lost_events_total{hop=\"kernel-decisions\"} 42\n"));
	assert_null(strstr(t, "process_cpu_seconds_total"));
	promtool_check(mf);
	free(t);
	/* an unwritable metrics file fails the replay */
	assert_int_equal(replay__run(rec, out, NULL, &none, "/nonexistent/dir/m.prom"), 1);
	unlink(rec);
	unlink(out);
	unlink(mf);
	free(rec);
	free(out);
	free(mf);
}

/* Backends of decisions: the cgroup hooks, BPF-LSM, inferred denials. */
static void test_decision_backend(void **state)
{
	struct rf_event ev = { .class = RF_CLASS_NET, .op = RF_OP_SOCK_CREATE };

	(void)state;
	assert_int_equal(metrics__decision_backend(&ev), RF_BE_CGROUP_SOCK_ADDR);
	ev.class = RF_CLASS_UNIX;
	ev.op = RF_OP_UNIX_CONNECT_LSM;
	assert_int_equal(metrics__decision_backend(&ev), RF_BE_BPF_LSM);
	ev.class = RF_CLASS_FILE;
	ev.op = RF_OP_FILE_OPEN;
	assert_int_equal(metrics__decision_backend(&ev), RF_BE_BPF_LSM);
	ev.flags = RF_EVF_INFERRED;
	assert_int_equal(metrics__decision_backend(&ev), RF_BE_LANDLOCK);
	ev.class = RF_CLASS_PROCESS;
	ev.op = RF_OP_MOUNT;
	assert_int_equal(metrics__decision_backend(&ev), RF_BE_SECCOMP);
}

static char *http_body(void *ctx);

/* One request to the metrics server, driven in this process. */
static char *http_ask(struct rf_http *h, int port, const char *req, const struct rf_metrics *m)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), i;
	char *buf = calloc(1, 65536);
	size_t len = 0;
	ssize_t n;

	assert_non_null(buf);
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof(in)), 0);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	for (i = 0; i < 100; i++) {
		http__process(h, http_body, (void *)m);
		n = recv(fd, buf + len, 65535 - len, MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n > 0)
			len += (size_t)n;
		else
			usleep(10000);
	}
	close(fd);
	return buf;
}

static char *http_body(void *ctx)
{
	return metrics__render(ctx);
}

/* GET and HEAD on /metrics (HEAD: 200, the length, no body); others 404. */
static void test_metrics_http(void **state)
{
	struct rf_metrics m = { 0 };
	struct rf_http *h = NULL;
	struct rf_error err;
	char spec[32], *r, *cl;
	int port = 0, i;

	(void)state;
	for (i = 0; i < 20 && !h; i++) {
		port = 20000 + (int)((getpid() * 7 + i * 131) % 30000);
		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		if (http__open(spec, &h, &err))
			h = NULL;
	}
	assert_non_null(h);
	m.decisions[RF_CLASS_NET][RF_VERDICT_DENIED][RF_BE_CGROUP_SOCK_ADDR] = 3;
	r = http_ask(h, port, "GET /metrics HTTP/1.0\r\n\r\n", &m);
	assert_non_null(strstr(r, "HTTP/1.0 200 OK\r\n"));
	assert_non_null(strstr(r, "\r\n\r\n# HELP "));
	assert_non_null(strstr(r, "backend=\"cgroup-sock-addr\"} 3\n"));
	assert_non_null(strstr(r, "\nprocess_open_fds "));
	free(r);
	r = http_ask(h, port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &m);
	assert_non_null(strstr(r, "HTTP/1.0 200 OK\r\n"));
	cl = strstr(r, "Content-Length: ");
	assert_non_null(cl);
	assert_true(atoi(cl + 16) > 1000);
	assert_string_equal(strstr(r, "\r\n\r\n"), "\r\n\r\n");     /* no body */
	free(r);
	r = http_ask(h, port, "GET /other HTTP/1.0\r\n\r\n", &m);
	assert_non_null(strstr(r, "HTTP/1.0 404 Not Found\r\n"));
	free(r);
	http__close(h);
}

/* The queue is bounded: what does not fit is dropped and counted. */
static void test_output_bound(void **state)
{
	char *path = tmpfile_path("q"), line[100], *all;
	struct rf_output *o;
	int i, kept = 0;

	(void)state;
	memset(line, 'x', sizeof(line) - 2);
	line[98] = '\n';
	line[99] = 0;
	assert_int_equal(output__open(path, 1000, &o), 0);
	for (i = 0; i < 25; i++)
		kept += output__push(o, line);
	assert_int_equal(kept, 10);
	assert_int_equal(output__dropped(o), 15);
	output__flush(o, 0);
	assert_false(output__pending(o));
	assert_true(output__push(o, line));
	output__close(o);
	all = slurp(path);
	assert_int_equal(strlen(all), 11 * 99);
	free(all);
	unlink(path);
	free(path);
}

static void test_index(void **state)
{
	struct rf_index ix;
	int32_t i;

	(void)state;
	assert_int_equal(rf_index_init(&ix, 100), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(rf_index_put(&ix, (uint64_t)i * 7919, i), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(rf_index_get(&ix, (uint64_t)i * 7919), i);
	for (i = 0; i < 100; i += 2)
		rf_index_del(&ix, (uint64_t)i * 7919);
	/* churn: deleted slots are reused, nothing is lost */
	for (i = 0; i < 5000; i++) {
		assert_int_equal(rf_index_put(&ix, 1000000 + (uint64_t)i, i), 0);
		rf_index_del(&ix, 1000000 + (uint64_t)i);
	}
	for (i = 1; i < 100; i += 2)
		assert_int_equal(rf_index_get(&ix, (uint64_t)i * 7919), i);
	assert_int_equal(rf_index_get(&ix, 0), -1);
	rf_index_free(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_replay_deterministic),
		cmocka_unit_test(test_replay_bad_files),
		cmocka_unit_test(test_replay_time_jump_is_bounded),
		cmocka_unit_test(test_registry_parse),
		cmocka_unit_test(test_registry_watch),
		cmocka_unit_test(test_metrics_addr),
		cmocka_unit_test(test_metrics_file_mode),
		cmocka_unit_test(test_metrics_render),
		cmocka_unit_test(test_replay_metrics_file),
		cmocka_unit_test(test_decision_backend),
		cmocka_unit_test(test_metrics_http),
		cmocka_unit_test(test_output_bound),
		cmocka_unit_test(test_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
