/* Shared helpers for the privileged host tests (cmocka): run build/ringfence
 * against the real kernel and read what it reports. */
#ifndef RF_TEST_HARNESS_H
#define RF_TEST_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <jansson.h>
#include <cmocka.h>

/* Privileged tests need root; elsewhere they are skipped with a reason. */
static inline int harness_require_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return -1;
	}
	return 0;
}

/* The running kernel is major.minor or later. */
static inline bool h_kernel_at_least(int major, int minor)
{
	struct utsname un;
	int maj = 0, min = 0;

	if (uname(&un) || sscanf(un.release, "%d.%d", &maj, &min) < 1)
		return false;
	return maj > major || (maj == major && min >= minor);
}

static inline const char *h_env(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static inline const char *h_ringfence(void)
{
	return h_env("RINGFENCE", "build/ringfence");
}

/* Path of a test tool; returns a static buffer per call site's copy. */
static inline char *h_tool(const char *name)
{
	static char buf[8][512];
	static int k;
	char *b = buf[k++ % 8];

	snprintf(b, 512, "%s/%s", h_env("TOOLS", "build/tests/tools"), name);
	return b;
}

/* s single-quoted for a shell command line (popen, system, sh -c): the
 * checkout, and so the binary and the tools, may be at a path with spaces.
 * A static buffer per call, eight in turn. */
static inline const char *h_sh(const char *s)
{
	static char buf[8][1100];
	static int k;
	char *b = buf[k++ % 8], *o = b;

	*o++ = '\'';
	for (; *s && o < b + sizeof(buf[0]) - 6; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = 0;
	return b;
}

/* Write text to a fresh temp file; returns its malloc'd path. */
static inline char *h_tempfile(const char *tag, const char *text)
{
	char *path = NULL;
	int fd;

	assert_true(asprintf(&path, "/tmp/rf-test-%s-XXXXXX", tag) > 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	if (text)
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

struct h_proc {
	pid_t pid;
	int out_fd;
	int err_fd;
};

/* Start args[0] with args (NULL-terminated), stdin /dev/null, stdout
 * and stderr captured. child_setup (NULL: none) runs in the child just
 * before the exec, with arg: its failure (non-zero) ends the child with
 * 98 after a line on stderr. */
static inline struct h_proc h_start(const char *const *args, int (*child_setup)(void *),
				    void *arg)
{
	int out[2], err[2];
	struct h_proc p;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	p.pid = fork();
	assert_true(p.pid >= 0);
	if (p.pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (child_setup && child_setup(arg)) {
			fprintf(stderr, "test: child setup: %s\n", strerror(errno));
			_exit(98);
		}
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	p.out_fd = out[0];
	p.err_fd = err[0];
	return p;
}

/* `ringfence run -q --policy P [--trace T] [extra...] -- argv...` by
 * h_start. */
static inline struct h_proc h_spawn_with(const char *policy_path, const char *trace_path,
					 const char *const *extra, const char *const *argv,
					 int (*child_setup)(void *), void *arg)
{
	const char *args[128];
	int n = 0, i;

	args[n++] = h_ringfence();
	args[n++] = "run";
	args[n++] = "-q";
	args[n++] = "--policy";
	args[n++] = policy_path;
	if (trace_path) {
		args[n++] = "--trace";
		args[n++] = trace_path;
	}
	for (i = 0; extra && extra[i]; i++)
		args[n++] = extra[i];
	args[n++] = "--";
	for (i = 0; argv[i] && n < 127; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	return h_start(args, child_setup, arg);
}

static inline struct h_proc h_spawn(const char *policy_path, const char *trace_path,
				    const char *const *extra, const char *const *argv)
{
	return h_spawn_with(policy_path, trace_path, extra, argv, NULL, NULL);
}

static inline char *h_read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	assert_non_null(buf);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = 0;
	close(fd);
	return buf;
}

/* Wait; returns the exit status (or 128+signal); out/err malloc'd. */
static inline int h_wait(struct h_proc p, char **ret_out, char **ret_err)
{
	char *out = h_read_all(p.out_fd), *err = h_read_all(p.err_fd);
	int st = 0;

	assert_int_equal(waitpid(p.pid, &st, 0), p.pid);
	if (ret_out)
		*ret_out = out;
	else
		free(out);
	if (ret_err)
		*ret_err = err;
	else {
		if (err[0])
			fprintf(stderr, "%s", err);
		free(err);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run with a policy given as JSON text, extra options (NULL: none) first. */
static inline int h_run_with(const char *policy_json, const char *trace_path,
			     const char *const *extra, const char *const *argv, char **ret_out,
			     char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json);
	int rc = h_wait(h_spawn(policy, trace_path, extra, argv), ret_out, ret_err);

	unlink(policy);
	free(policy);
	return rc;
}

/* As root, --user root: uid 0 in the sandbox, for a test of a layer that
 * must hold even against it (a dynamic uid is refused earlier by DAC). */
#define H_AS_ROOT ((const char *const[]){ "--user", "root", NULL })

/* Run with a policy given as JSON text. */
static inline int h_run(const char *policy_json, const char *trace_path,
			const char *const *argv, char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json);
	int rc = h_wait(h_spawn(policy, trace_path, NULL, argv), ret_out, ret_err);

	unlink(policy);
	free(policy);
	return rc;
}

/* The line of rf-net output for "OP TARGET": its result word. */
static inline const char *h_result(const char *out, const char *op_target)
{
	static char res[8][64];
	static int k;
	char *r = res[k++ % 8];
	const char *p = out;
	size_t l = strlen(op_target);

	r[0] = 0;
	while ((p = strstr(p, op_target))) {
		if ((p == out || p[-1] == '\n') && p[l] == ' ') {
			sscanf(p + l + 1, "%63s", r);
			return r;
		}
		p += l;
	}
	return "(missing)";
}

/* The trace as a JSON array of its events. */
static inline json_t *h_trace(const char *path)
{
	json_t *arr = json_array();
	char line[65536];
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_error_t e;
		json_t *o = json_loads(line, 0, &e);

		if (!o)
			fail_msg("trace line is not JSON: %s (%s)", line, e.text);
		json_array_append_new(arr, o);
	}
	fclose(f);
	return arr;
}

static inline size_t h_count_events(json_t *trace, const char *event)
{
	size_t i, n = 0;

	for (i = 0; i < json_array_size(trace); i++)
		if (!strcmp(json_string_value(json_object_get(json_array_get(trace, i), "event")),
			    event))
			n++;
	return n;
}

static inline json_t *h_event(json_t *trace, const char *event, size_t nth)
{
	size_t i;

	for (i = 0; i < json_array_size(trace); i++) {
		json_t *o = json_array_get(trace, i);

		if (!strcmp(json_string_value(json_object_get(o, "event")), event) && nth-- == 0)
			return o;
	}
	return NULL;
}

/* Listening sockets: the kernel completes handshakes into the backlog,
 * so an allowed connect succeeds without an accept loop. */
static inline int h_listen_inet(int family, const char *addr, int port, int type)
{
	struct sockaddr_storage ss = { 0 };
	int fd = socket(family, type | SOCK_CLOEXEC, 0), one = 1;
	socklen_t len;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, addr, &in->sin_addr);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, addr, &in6->sin6_addr);
		len = sizeof(*in6);
	}
	if (bind(fd, (struct sockaddr *)&ss, len))
		fail_msg("bind %s:%d: %s", addr, port, strerror(errno));
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 512), 0);
	return fd;
}

static inline int h_listen_unix(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len;

	assert_true(fd >= 0);
	if (name[0] == '@') {
		memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	} else {
		unlink(name);
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", name);
		len = sizeof(sun);
	}
	if (bind(fd, (struct sockaddr *)&sun, len))
		fail_msg("bind unix %s: %s", name, strerror(errno));
	/* anyone's to connect to: sandboxes started by root run as a
	 * dynamic uid; the policy is what decides */
	if (name[0] != '@')
		assert_int_equal(chmod(name, 0666), 0);
	assert_int_equal(listen(fd, 64), 0);
	return fd;
}

/* The first cgroup2 mount point (static buffer). */
static inline const char *h_cgroup2_mount(void)
{
	static char mnt[512];
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup/unified");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " - cgroup2 ")) {
			sscanf(line, "%*s %*s %*s %*s %511s", mnt);
			break;
		}
	if (f)
		fclose(f);
	return mnt;
}

/* ctrl is in this host's cgroup2 hierarchy (cgroup.controllers of its mount). */
static inline bool h_have_controller(const char *ctrl)
{
	char path[600], buf[512] = "", *tok, *save = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", h_cgroup2_mount());
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, ctrl))
			return true;
	return false;
}

/* A connect from this (unsandboxed) process: 0 or errno. */
static inline int h_connect_tcp4(const char *addr, int port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	inet_pton(AF_INET, addr, &in.sin_addr);
	rc = connect(fd, (struct sockaddr *)&in, sizeof(in)) ? errno : 0;
	close(fd);
	return rc;
}

/* ---- time ---- */

/* True once something is bound to 127.0.0.1:port over UDP (the kernel's
 * table: a bound socket queues queries until its owner reads them). */
static inline bool h_udp_bound(int port)
{
	char want[32], line[256];
	bool found = false;
	FILE *f = fopen("/proc/net/udp", "re");

	snprintf(want, sizeof(want), " 0100007F:%04X ", port);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return found;
}

/*
 * dnsmasq on 127.0.0.1:port answering only from its arguments (records:
 * --host-record=..., NULL-terminated), killed with the test process.
 * Returns once it is bound (a fixed sleep was too short on a loaded CI
 * host: the gate's first query found nobody and was answered SERVFAIL),
 * its pid, or -1.
 */
static inline pid_t h_dnsmasq_start(int port, const char *const *records)
{
	const char *argv[64] = { "/usr/sbin/dnsmasq", "-k", "--conf-file=/dev/null",
		"--no-resolv", "--no-hosts", "--bind-interfaces", "--listen-address=127.0.0.1",
		"-p", NULL, "--pid-file=", "--log-facility=/dev/null" };
	char port_s[16];
	size_t n = 11;
	pid_t pid;
	int i;

	snprintf(port_s, sizeof(port_s), "%d", port);
	argv[8] = port_s;
	while (records && *records && n < 63)
		argv[n++] = *records++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (i = 0; pid > 0 && i < 400 && !h_udp_bound(port); i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(25000);
	}
	return pid > 0 && h_udp_bound(port) ? pid : -1;
}

static inline uint64_t h_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void h_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The sandbox name a run's trace starts with (its first line's
 * "sandbox"), waited for up to 10 s: strdup'd (the caller frees), or NULL. */
static inline char *h_trace_sandbox(const char *trace)
{
	int i;

	for (i = 0; i < 1000; i++) {
		char line[8192] = "", *name = NULL;
		FILE *f = fopen(trace, "r");

		if (f && fgets(line, sizeof(line), f) && strchr(line, '\n')) {
			json_t *o = json_loads(line, 0, NULL);

			if (o && json_is_string(json_object_get(o, "sandbox")))
				name = strdup(json_string_value(json_object_get(o, "sandbox")));
			json_decref(o);
		}
		if (f)
			fclose(f);
		if (name)
			return name;
		h_sleep_ms(10);
	}
	return NULL;
}

/* ---- a work directory, a policy checked ---- */

/* A fresh directory /tmp/rf-TAG-XXXXXX, mode 0755 (a sandbox's command
 * may run as another uid): strdup'd, for h_workdir_remove. */
static inline char *h_workdir(const char *tag)
{
	char *dir = NULL;

	assert_true(asprintf(&dir, "/tmp/rf-%s-XXXXXX", tag) > 0);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	return dir;
}

/* Remove it and all below it, free it; the test fails if it stays. */
static inline void h_workdir_remove(char *dir)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", h_sh(dir));
	assert_int_equal(system(cmd), 0);
	free(dir);
}

/* `ringfence check --policy path` (its output discarded) exits 0. */
static inline void h_assert_checks(const char *path)
{
	const char *args[] = { h_ringfence(), "check", "--policy", path, NULL };
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- ringfence-monitor ---- */

/* $MONITOR, or ringfence-monitor next to h_ringfence(). */
static inline const char *h_monitor_bin(void)
{
	static char path[600];
	const char *m = getenv("MONITOR"), *rf = h_ringfence(), *slash;

	if (m && *m)
		return m;
	slash = strrchr(rf, '/');
	snprintf(path, sizeof(path), "%.*sringfence-monitor", slash ? (int)(slash - rf + 1) : 0, rf);
	return path;
}

/*
 * Start `ringfence-monitor -q --status STATUS ARGS...` (args
 * NULL-terminated; env "NAME=VALUE" or NULL, set in its environment
 * only), stdin and stdout /dev/null, killed with this process. Ready once
 * it wrote its first status snapshot: its pid; the test fails when it
 * exits first (another monitor holds the pins?) or takes over 15 s.
 */
static inline pid_t h_monitor_start(const char *status, const char *const *args, const char *env)
{
	const char *argv[64];
	int n = 0, i, st;
	pid_t pid;

	argv[n++] = h_monitor_bin();
	argv[n++] = "-q";
	argv[n++] = "--status";
	argv[n++] = status;
	for (i = 0; args && args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	unlink(status);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (env)
			putenv((char *)env);
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	for (i = 0; i < 300; i++) {
		if (!access(status, R_OK))
			return pid;
		if (waitpid(pid, &st, WNOHANG) == pid)
			fail_msg("ringfence-monitor exited at start (status %d): is another one "
				 "running?", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		h_sleep_ms(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fail_msg("ringfence-monitor did not start within 15 s");
	return -1;
}

/* SIGTERM, then up to 10 s for it to exit: its exit status (128+signal),
 * or -1 when it had to be killed (or pid is none). */
static inline int h_monitor_stop(pid_t pid)
{
	int st = 0, i;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		h_sleep_ms(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Every record a monitor wrote to path so far (a trailing partial line
 * skipped); the test fails on a line that is no JSON. */
static inline json_t *h_monitor_records(const char *path)
{
	json_t *arr = json_array();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return arr;
	while ((n = getline(&line, &cap, f)) > 0) {
		json_t *o;

		if (line[n - 1] != '\n')
			break;
		o = json_loads(line, 0, NULL);
		if (!o)
			fail_msg("alert record is not JSON: %s", line);
		json_array_append_new(arr, o);
	}
	free(line);
	fclose(f);
	return arr;
}

/* A string member of a record, o.a or o.a.b (b NULL: o.a); "" when absent. */
static inline const char *h_rec_str(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(b ? json_object_get(o, a) : o, b ? b : a);

	return json_is_string(v) ? json_string_value(v) : "";
}

/* all's records of rule (unmapped.rule, "" any) for sandbox
 * (unmapped.sandbox, "" host-wide, NULL any): a new array. */
static inline json_t *h_rec_select(json_t *all, const char *rule, const char *sandbox)
{
	json_t *sel = json_array(), *o;
	size_t i;

	json_array_foreach(all, i, o) {
		if (rule[0] && strcmp(h_rec_str(o, "unmapped", "rule"), rule))
			continue;
		if (sandbox && strcmp(h_rec_str(o, "unmapped", "sandbox"), sandbox))
			continue;
		json_array_append(sel, o);
	}
	return sel;
}

/* h_rec_select of the records a monitor wrote to path so far. */
static inline json_t *h_mon_select(const char *path, const char *rule, const char *sandbox)
{
	json_t *all = h_monitor_records(path), *sel = h_rec_select(all, rule, sandbox);

	json_decref(all);
	return sel;
}

/* How long the monitor suites wait for a record (a generous bound, not a
 * measure). */
#define H_MON_WAIT_MS 15000

/* The first record of path (rule, sandbox as h_rec_select) that
 * match(record, arg) takes (match NULL: any), waited for up to
 * H_MON_WAIT_MS: a new reference, or NULL. */
static inline json_t *h_mon_wait(const char *path, const char *rule, const char *sandbox,
				 bool (*match)(json_t *rec, const void *arg), const void *arg)
{
	uint64_t deadline = h_now_ms() + H_MON_WAIT_MS;

	while (h_now_ms() < deadline) {
		json_t *sel = h_mon_select(path, rule, sandbox), *o, *found = NULL;
		size_t i;

		json_array_foreach(sel, i, o)
			if (!found && (!match || match(o, arg)))
				found = json_incref(o);
		json_decref(sel);
		if (found)
			return found;
		h_sleep_ms(20);
	}
	return NULL;
}

/*
 * One ringfence-monitor for a suite, its files in a directory of its own:
 * alerts.ndjson (--output), state.json, status.json, and activity.ndjson
 * (--activity) when asked for.
 */
struct h_mon {
	pid_t pid;
	char *dir, *out, *activity, *state, *status;
};

/* m's directory (/tmp/rf-mon-TAG-XXXXXX, mode 0700) and its files' paths. */
static inline void h_mon_init(struct h_mon *m, const char *tag, bool activity)
{
	*m = (struct h_mon){ .pid = -1 };
	assert_true(asprintf(&m->dir, "/tmp/rf-mon-%s-XXXXXX", tag) > 0);
	assert_non_null(mkdtemp(m->dir));
	assert_true(asprintf(&m->out, "%s/alerts.ndjson", m->dir) > 0);
	assert_true(asprintf(&m->state, "%s/state.json", m->dir) > 0);
	assert_true(asprintf(&m->status, "%s/status.json", m->dir) > 0);
	if (activity)
		assert_true(asprintf(&m->activity, "%s/activity.ndjson", m->dir) > 0);
}

/* Start it on m's files, every 500 ms, lingering 1 s after a sandbox
 * ends, with extra options (NULL-terminated, or NULL) after those. */
static inline void h_mon_start(struct h_mon *m, const char *const *extra)
{
	const char *args[48];
	int n = 0, i;

	args[n++] = "--output";
	args[n++] = m->out;
	args[n++] = "--state";
	args[n++] = m->state;
	if (m->activity) {
		args[n++] = "--activity";
		args[n++] = m->activity;
	}
	args[n++] = "--interval";
	args[n++] = "500";
	args[n++] = "--linger-ms";
	args[n++] = "1000";
	for (i = 0; extra && extra[i]; i++) {
		assert_true(n < 47);
		args[n++] = extra[i];
	}
	args[n] = NULL;
	m->pid = h_monitor_start(m->status, args, NULL);
}

/* Stop it if it runs, remove its directory (kept when $KEEP is set): 0,
 * or -1 when it could not be removed. */
static inline int h_mon_done(struct h_mon *m)
{
	char cmd[700];
	int r = 0;

	if (m->pid > 0)
		h_monitor_stop(m->pid);
	m->pid = -1;
	if (m->dir && !getenv("KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", h_sh(m->dir));
		r = system(cmd) == 0 ? 0 : -1;
	}
	free(m->out);
	free(m->activity);
	free(m->state);
	free(m->status);
	free(m->dir);
	*m = (struct h_mon){ .pid = -1 };
	return r;
}

/* A sandbox started in the background, its name once its trace says it. */
struct h_bg {
	struct h_proc p;
	char *policy, *trace, *name;
	uint64_t t0;                 /* when it was started (h_now_ms) */
};

static inline struct h_bg h_bg_start(const char *policy_json, const char *const *argv)
{
	struct h_bg b = { .t0 = h_now_ms() };

	b.trace = h_tempfile("bg-trace", NULL);
	b.policy = h_tempfile("bg-policy", policy_json);
	b.p = h_spawn(b.policy, b.trace, NULL, argv);
	b.name = h_trace_sandbox(b.trace);
	assert_non_null(b.name);
	return b;
}

/* Wait for it to end: its exit status; its stdout in *ret_out and its
 * trace in *ret_trace (either NULL: not wanted; the caller frees them),
 * check(trace path) first if given. Its policy and trace files are
 * removed; b->name stays, the caller's to free. */
static inline int h_bg_end(struct h_bg *b, char **ret_out, json_t **ret_trace,
			   void (*check)(const char *trace_path))
{
	int rc = h_wait(b->p, ret_out, NULL);

	if (check)
		check(b->trace);
	if (ret_trace)
		*ret_trace = h_trace(b->trace);
	unlink(b->policy);
	unlink(b->trace);
	free(b->policy);
	free(b->trace);
	b->policy = b->trace = NULL;
	return rc;
}

/* ---- what runs leave: cgroups, registry files, processes ---- */

/* Where the sandboxes' cgroups are made: <cgroup2>/ringfence (static). */
static inline const char *h_cg_parent(void)
{
	static char dir[600];

	snprintf(dir, sizeof(dir), "%s/ringfence", h_cgroup2_mount());
	return dir;
}

/* Entries in dir whose name starts with prefix. */
static inline int h_count_prefixed(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* Sandbox cgroups whose name starts with prefix. */
static inline int h_count_cgroups(const char *prefix)
{
	return h_count_prefixed(h_cg_parent(), prefix);
}

static inline int h_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The host pid of a live process (not a zombie: a zombie has no
 * cmdline) whose command line is exactly "a\0b\0", or 0. A sandbox's
 * $! and $$ are pids of its own PID namespace: a test that must find one
 * of its processes from outside names it by a unique argument instead. */
static inline pid_t h_pid_by_cmdline(const char *a, const char *b)
{
	size_t la = strlen(a) + 1, lb = strlen(b) + 1;
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], buf[512];
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n == (ssize_t)(la + lb) && !memcmp(buf, a, la) && !memcmp(buf + la, b, lb))
			found = (pid_t)atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* A supervisor's reaper (its child named ringfence), or 0. */
static inline pid_t h_reaper_of(pid_t sup)
{
	char path[128], comm[64];
	pid_t pid = 0, c;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)sup, (int)sup);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!pid && fscanf(f, "%d", &c) == 1) {
		FILE *g;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)c);
		g = fopen(path, "r");
		if (g && fgets(comm, sizeof(comm), g) && !strcmp(comm, "ringfence\n"))
			pid = c;
		if (g)
			fclose(g);
	}
	fclose(f);
	return pid;
}

#endif
