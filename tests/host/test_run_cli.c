/*
 * Host integration tests of the `ringfence` CLI: exit statuses, bad input
 * refused before anything starts, the scrubbed environment and fds, signal
 * forwarding, check/probe/status/unload.
 */
#include "harness.h"

#include <dirent.h>
#include <poll.h>
#include <sys/mount.h>
#include <bpf/bpf.h>
#include "pins.h"
#include "leaks.h"

#define OPEN_POLICY                                                               \
	"{\"version\":1,\"id\":\"cli\",\"files\":\"unrestricted\","               \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18180\"]}," \
	"\"env\":{\"pass\":[\"KEEP_ME\"],\"set\":{\"SET_ME\":\"v1\"}}}"

static int setup(void **state)
{
	(void)state;
	return harness_require_root();
}

/* Sandboxes currently under <cgroup2>/ringfence, by name prefix. */
static void exit_status_is_the_commands(void **state)
{
	const char *ok[] = { "/bin/true", NULL };
	const char *three[] = { "/bin/sh", "-c", "exit 3", NULL };
	const char *killed[] = { "/bin/sh", "-c", "kill -9 $$", NULL };

	(void)state;
	assert_int_equal(h_run(OPEN_POLICY, NULL, ok, NULL, NULL), 0);
	assert_int_equal(h_run(OPEN_POLICY, NULL, three, NULL, NULL), 3);
	assert_int_equal(h_run(OPEN_POLICY, NULL, killed, NULL, NULL), 128 + 9);
}

static void command_not_found_is_127_not_executable_is_126(void **state)
{
	const char *missing[] = { "/nonexistent/cmd", NULL };
	const char *missing_path[] = { "no-such-command-rf", NULL };
	char *noexec = h_tempfile("noexec", "#!/bin/sh\nexit 0\n");
	const char *notx[] = { noexec, NULL };
	char *err = NULL;

	(void)state;
	assert_int_equal(h_run(OPEN_POLICY, NULL, missing, NULL, &err), 127);
	assert_non_null(strstr(err, "command not found"));
	free(err);
	assert_int_equal(h_run(OPEN_POLICY, NULL, missing_path, NULL, &err), 127);
	free(err);
	chmod(noexec, 0644);
	assert_int_equal(h_run(OPEN_POLICY, NULL, notx, NULL, &err), 126);
	free(err);
	unlink(noexec);
	free(noexec);
}

/* Bad policy: 125, one line naming the JSON path, and nothing started. */
static void invalid_policy_is_125_and_starts_nothing(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "touch /tmp/rf-test-must-not-run", NULL };
	char *err = NULL;
	int before = h_count_cgroups("bad-");

	(void)state;
	unlink("/tmp/rf-test-must-not-run");
	assert_int_equal(h_run("{\"version\":1,\"id\":\"bad-1\",\"network\":{\"connect\":"
			       "[\"127.0.0.1:99999\"]}}", NULL, argv, NULL, &err), 125);
	assert_non_null(strstr(err, "$.network.connect[0]"));
	assert_non_null(strstr(err, "port"));
	assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
	free(err);
	assert_int_equal(h_run("{\"version\":1,\"id\":\"bad-2\",\"netwrk\":{}}", NULL, argv,
			       NULL, &err), 125);
	assert_non_null(strstr(err, "unknown key \"netwrk\""));
	free(err);
	assert_int_equal(h_run("not json", NULL, argv, NULL, &err), 125);
	free(err);
	assert_true(access("/tmp/rf-test-must-not-run", F_OK) < 0);
	assert_int_equal(h_count_cgroups("bad-"), before);
}

/* A policy this kernel cannot enforce: 126 with every reason, nothing run. */
static void unenforceable_policy_is_refused_126(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "touch /tmp/rf-test-must-not-run", NULL };
	char *err = NULL, *tp = h_tempfile("trace", NULL);
	bool pids_ctrl = h_have_controller("pids");
	json_t *tr, *plan;

	(void)state;
	unlink("/tmp/rf-test-must-not-run");
	/* audit mode cannot be honoured by a seccomp syscalls allowlist, and
	 * pids needs the pids controller in the cgroup2 hierarchy (this
	 * development host's has only hugetlb; where it is there, only
	 * syscalls is refused) */
	assert_int_equal(h_run("{\"version\":1,\"id\":\"refused\",\"mode\":\"audit\","
			       "\"syscalls\":{\"allow\":[\"read\"]},\"limits\":{\"pids\":5}}",
			       tp, argv, NULL, &err), 126);
	assert_non_null(strstr(err, "syscalls: "));
	if (!pids_ctrl)
		assert_non_null(strstr(err, "limits: pids: cgroup-v2-pids cannot be enforced here"));
	assert_true(access("/tmp/rf-test-must-not-run", F_OK) < 0);
	tr = h_trace(tp);
	assert_int_equal(json_array_size(tr), 1);
	plan = json_object_get(h_event(tr, "sandbox.plan", 0), "plan");
	assert_false(json_is_true(json_object_get(plan, "ok")));
	assert_int_equal(json_array_size(json_object_get(plan, "reasons")), pids_ctrl ? 1 : 2);
	json_decref(tr);
	free(err);
	unlink(tp);
	free(tp);
}

static void usage_errors_are_125(void **state)
{
	const char *cases[][6] = {
		{ "run", "--policy", NULL },
		{ "run", "--bogus", NULL },
		{ "run", "--policy", "/tmp/x.json", NULL },  /* no command */
		{ "frobnicate", NULL },
		{ "check", NULL },
		{ "status", "--force", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[8] = { h_ringfence() };
		pid_t pid;
		int st, k, null = open("/dev/null", O_WRONLY);

		for (k = 0; cases[i][k]; k++)
			args[k + 1] = cases[i][k];
		pid = fork();
		if (pid == 0) {
			dup2(null, 2);
			execv(args[0], (char *const *)args);
			_exit(99);
		}
		close(null);
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 125)
			fail_msg("ringfence %s: exit %d, expected 125", cases[i][0], WEXITSTATUS(st));
	}
}

/* Environment built from nothing; only fds 0-2; no capabilities. */
static void environment_fds_and_privileges_scrubbed(void **state)
{
	const char *argv[] = { h_tool("rf-inspect"), NULL };
	char *out = NULL;
	int extra = open("/dev/null", O_RDONLY); /* no CLOEXEC: must not leak */

	(void)state;
	setenv("KEEP_ME", "kept", 1);
	setenv("HTTP_PROXY", "http://proxy", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
	setenv("SET_ME", "from-parent", 1);
	assert_int_equal(h_run(OPEN_POLICY, NULL, argv, &out, NULL), 0);
	close(extra);
	unsetenv("HTTP_PROXY");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	assert_non_null(strstr(out, "env=KEEP_ME=kept\n"));
	assert_non_null(strstr(out, "env=SET_ME=v1\n"));
	assert_null(strstr(out, "HTTP_PROXY"));
	assert_null(strstr(out, "AWS_SECRET"));
	assert_null(strstr(out, "env=PATH="));
	assert_non_null(strstr(out, "fds=0,1,2\n"));
	assert_non_null(strstr(out, "CapEff=0000000000000000\n"));
	assert_non_null(strstr(out, "CapPrm=0000000000000000\n"));
	assert_non_null(strstr(out, "CapBnd=0000000000000000\n"));
	assert_non_null(strstr(out, "CapAmb=0000000000000000\n"));
	assert_non_null(strstr(out, "NoNewPrivs=1\n"));
	assert_non_null(strstr(out, "cgroup=0::/ringfence/cli-"));
	free(out);
}

static void user_option_runs_as_that_user(void **state)
{
	const char *extra[] = { "--user", "65534", NULL };
	const char *argv[] = { h_tool("rf-inspect"), NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY), *out = NULL;

	(void)state;
	assert_int_equal(h_wait(h_spawn(policy, NULL, extra, argv), &out, NULL), 0);
	assert_non_null(strstr(out, "uid=65534\n"));
	assert_non_null(strstr(out, "euid=65534\n"));
	free(out);
	unlink(policy);
	free(policy);
}

/* Started from a terminal, the command's controlling terminal is a pty of
 * its own (test_run_tty.c drives it), never the caller's: /dev/tty opens
 * and its stdin is a terminal, but not the caller's one. Without one
 * (stdin /dev/null: every test above) it has none. */
static void command_never_holds_the_callers_terminal(void **state)
{
	char *policy = h_tempfile("policy", OPEN_POLICY), *text, pid_line[64];
	int master, out[2], st;
	pid_t pid;

	(void)state;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	if (pid == 0) {
		int slave;

		setsid();
		slave = open(ptsname(master), O_RDWR); /* becomes our ctty */
		if (slave < 0 || open("/dev/tty", O_RDWR) < 0)
			_exit(90);
		dup2(slave, 0);
		dup2(out[1], 1);
		execl(h_ringfence(), h_ringfence(), "run", "-q", "--policy", policy, "--",
		      h_tool("rf-inspect"), (char *)NULL);
		_exit(91);
	}
	close(out[1]);
	text = h_read_all(out[0]);
	waitpid(pid, &st, 0);
	close(master);
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(text, "ctty=yes\n"));
	/* its own session */
	snprintf(pid_line, sizeof(pid_line), "sid=%d\n", atoi(strstr(text, "pid=") + 4));
	assert_non_null(strstr(text, pid_line));
	free(text);
	unlink(policy);
	free(policy);
}

/* SIGTERM to the supervisor reaches the command. */
static void sigterm_is_forwarded(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY);
	struct h_proc p = h_spawn(policy, NULL, NULL, argv);

	(void)state;
	usleep(500 * 1000);
	kill(p.pid, SIGTERM);
	assert_int_equal(h_wait(p, NULL, NULL), 128 + SIGTERM);
	unlink(policy);
	free(policy);
}


/* Leftover background processes die with the sandbox. Its $! is a pid
 * of the sandbox's PID namespace: the sleep is found by its unique
 * argument, seen running inside first. */
static void leftover_processes_are_killed(void **state)
{
	char secs[32], cmd[96], *out = NULL;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

	(void)state;
	snprintf(secs, sizeof(secs), "30.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "sleep %s & echo $!", secs);
	/* The finder finds such a sleep here (the check below can fail). */
	{
		pid_t local = fork();

		assert_true(local >= 0);
		if (local == 0) {
			execl("/bin/sleep", "sleep", secs, (char *)NULL);
			_exit(127);
		}
		for (int i = 0; i < 200 && h_pid_by_cmdline("sleep", secs) != local; i++)
			usleep(10000);
		assert_int_equal(h_pid_by_cmdline("sleep", secs), local);
		kill(local, SIGKILL);
		waitpid(local, NULL, 0);
	}
	assert_int_equal(h_run(OPEN_POLICY, NULL, argv, &out, NULL), 0);
	assert_true(atoi(out) > 1);
	/* Reaped, or a zombie awaiting it: either way, not running (a zombie
	 * has no command line). (h_run returning at all means its copy of
	 * stdout was closed.) */
	assert_int_equal(h_pid_by_cmdline("sleep", secs), 0);
	free(out);
}

/* An inet socket on stdio was made outside: its traffic would bypass
 * the hooks, so the run is refused. */
static void inet_socket_on_stdio_refused(void **state)
{
	char *policy = h_tempfile("policy", OPEN_POLICY);
	int s = socket(AF_INET, SOCK_DGRAM, 0), st;
	pid_t pid;

	(void)state;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(s, 0);
		dup2(null, 2);
		execl(h_ringfence(), h_ringfence(), "run", "--policy", policy, "--", "/bin/true",
		      (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &st, 0);
	assert_int_equal(WEXITSTATUS(st), 126);
	close(s);
	unlink(policy);
	free(policy);
}

static char *capture(const char *const *args, int *ret_rc)
{
	int out[2], st;
	pid_t pid;
	char *text;

	assert_int_equal(pipe(out), 0);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out[1], 1);
		dup2(null, 2);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(out[1]);
	text = h_read_all(out[0]);
	waitpid(pid, &st, 0);
	*ret_rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return text;
}

static void check_prints_plan_json(void **state)
{
	char *ok = h_tempfile("policy", OPEN_POLICY);
	char *bad = h_tempfile("policy", "{\"version\":1,\"id\":\"x\",\"limits\":{\"pids\":5}}");
	const char *a1[] = { h_ringfence(), "check", "--policy", ok, NULL };
	const char *a2[] = { h_ringfence(), "check", "--policy", bad, NULL };
	json_t *o;
	char *txt;
	int rc;

	(void)state;
	txt = capture(a1, &rc);
	assert_int_equal(rc, 0);
	o = json_loads(txt, 0, NULL);
	assert_non_null(o);
	assert_true(json_is_true(json_object_get(o, "ok")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
				    o, "classes"), "network"), "backend")), "cgroup-sock-addr");
	assert_int_equal(strlen(json_string_value(json_object_get(json_object_get(o, "policy"),
								  "sha256"))), 64);
	json_decref(o);
	free(txt);
	txt = capture(a2, &rc);
	assert_int_equal(rc, 126);
	o = json_loads(txt, 0, NULL);
	assert_false(json_is_true(json_object_get(o, "ok")));
	json_decref(o);
	free(txt);
	unlink(ok);
	unlink(bad);
	free(ok);
	free(bad);
}

/* The kernel's audit, as read by AUDIT_GET: whether Landlock denials can
 * reach it, and what is observed instead when they cannot. */
static void probe_reports_audit(json_t *o)
{
	json_t *a = json_object_get(o, "audit"), *en;
	json_t *ll = json_object_get(json_object_get(o, "backends"), "landlock");
	const char *detail;
	bool logged;

	assert_non_null(a);
	assert_true(json_is_boolean(json_object_get(a, "ok")));
	detail = json_string_value(json_object_get(a, "detail"));
	assert_non_null(detail);
	en = json_object_get(a, "enabled");
	logged = json_is_true(json_object_get(a, "landlock_denials_logged"));
	if (!json_is_true(json_object_get(a, "ok"))) {
		/* no socket or no answer: the error, and never "logged" */
		assert_true(json_is_null(en));
		assert_non_null(json_string_value(json_object_get(a, "error")));
		assert_non_null(strstr(detail, "observed from failed syscalls"));
		assert_false(logged);
		return;
	}
	assert_true(json_is_boolean(en));
	assert_int_equal(logged, json_is_true(en) &&
				 json_integer_value(json_object_get(ll, "abi")) >= 7);
	if (!json_is_true(en))
		assert_non_null(strstr(detail, "kernel audit is off: Landlock denials are "
					       "observed from failed syscalls instead"));
	else
		assert_non_null(strstr(detail, "kernel audit is on"));
}

/* probe reports each backend from a real load: on this host's kernel,
 * cgroup sock_addr loads; whatever it says must carry a detail. */
static void probe_reports_every_backend(void **state)
{
	const char *a[] = { h_ringfence(), "probe", NULL };
	const char *names[] = { "cgroup-v2", "cgroup-sock-addr", "cgroup-sock-addr-unix",
				"bpf-lsm", "landlock", "seccomp", "observe" };
	json_t *o, *b;
	char *txt;
	size_t i;
	int rc;

	(void)state;
	txt = capture(a, &rc);
	assert_int_equal(rc, 0);
	o = json_loads(txt, 0, NULL);
	assert_non_null(o);
	b = json_object_get(o, "backends");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_t *x = json_object_get(b, names[i]);

		assert_non_null(x);
		assert_true(json_is_boolean(json_object_get(x, "ok")));
		assert_true(strlen(json_string_value(json_object_get(x, "detail"))) > 0);
	}
	assert_true(json_is_true(json_object_get(json_object_get(b, "cgroup-sock-addr"), "ok")));
	probe_reports_audit(o);
	/* tp_btf programs load here: the observe programs are available */
	assert_true(json_is_true(json_object_get(json_object_get(b, "observe"), "ok")));
	json_decref(o);
	free(txt);
}

/* This build's kept answer to AUDIT_GET (runcache: one file per kind). */
static void audit_cache_path(char *buf, size_t len)
{
	DIR *d = opendir("/run/ringfence/cache");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "audit-", 6) && !strstr(de->d_name, ".tmp")) {
			snprintf(buf, len, "/run/ringfence/cache/%s", de->d_name);
			n++;
		}
	closedir(d);
	assert_int_equal(n, 1);
}

/* A files-confined run's RINGFENCE_TIMINGS: did it reuse the kept answer? */
static bool run_reused_audit(const char *policy)
{
	char cmd[1200], *err_path = h_tempfile("timings", ""), *err;
	int fd;
	bool reused;

	snprintf(cmd, sizeof(cmd), "RINGFENCE_TIMINGS=1 %s run -q --policy %s -- /bin/true 2>%s",
		 h_sh(h_ringfence()), policy, err_path);
	assert_int_equal(WEXITSTATUS(system(cmd)), 0);
	fd = open(err_path, O_RDONLY);
	err = h_read_all(fd);
	close(fd);
	assert_non_null(strstr(err, "timing: probe "));
	reused = strstr(err, "(an earlier answer reused)") != NULL;
	free(err);
	unlink(err_path);
	free(err_path);
	return reused;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* The kernel's audit status decides only how Landlock's denials are
 * observed; asking costs a kernel thread, so a run reuses an answer "off"
 * of the last 30 s, and never an answer "on" (it would read a log
 * Landlock does not write), nor an older "off": then it asks again and
 * keeps the new answer. */
static void audit_off_is_reused_on_is_not(void **state)
{
	const char *a[] = { h_ringfence(), "probe", NULL };
	char *pol = h_tempfile("policy", "{\"version\":1,\"id\":\"aud\",\"files\":{\"read\":[\"/\"]},"
				 "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	char path[512], *txt;
	json_t *o;
	int rc, fd;

	(void)state;
	txt = capture(a, &rc);      /* asks afresh and keeps the answer */
	assert_int_equal(rc, 0);
	o = json_loads(txt, 0, NULL);
	assert_non_null(o);
	free(txt);
	if (!json_is_false(json_object_get(json_object_get(o, "audit"), "enabled"))) {
		json_decref(o);
		unlink(pol);
		free(pol);
		skip();             /* audit on (or unreadable) here: nothing kept to reuse */
	}
	json_decref(o);
	audit_cache_path(path, sizeof(path));
	assert_true(run_reused_audit(pol));
	/* an answer "on" is asked again, and the new "off" kept */
	write_text(path, "on\n");
	assert_false(run_reused_audit(pol));
	fd = open(path, O_RDONLY);
	txt = h_read_all(fd);
	close(fd);
	assert_int_equal(strncmp(txt, "off ", 4), 0);
	free(txt);
	assert_true(run_reused_audit(pol));
	/* an "off" older than 30 s (CLOCK_BOOTTIME second 1) is asked again */
	write_text(path, "off 1\n");
	assert_false(run_reused_audit(pol));
	assert_true(run_reused_audit(pol));
	unlink(pol);
	free(pol);
}

/* status lists a live sandbox; unload refuses while it lives. */
static void status_lists_live_and_unload_refuses(void **state)
{
	const char *argv[] = { "/bin/sleep", "3", NULL };
	const char *st_args[] = { h_ringfence(), "status", "--json", NULL };
	const char *un_args[] = { h_ringfence(), "unload", NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY), *txt;
	struct h_proc p = h_spawn(policy, NULL, NULL, argv);
	json_t *o;
	size_t i;
	int rc, found = 0;

	(void)state;
	json_decref(h_wait_registered("cli-"));  /* live, not a fixed wait */
	txt = capture(st_args, &rc);
	assert_int_equal(rc, 0);
	o = json_loads(txt, 0, NULL);
	assert_non_null(o);
	for (i = 0; i < json_array_size(o); i++) {
		json_t *e = json_array_get(o, i);

		if (!strncmp(json_string_value(json_object_get(e, "sandbox")), "cli-", 4) &&
		    !strcmp(json_string_value(json_object_get(e, "state")), "live"))
			found++;
	}
	assert_int_equal(found, 1);
	json_decref(o);
	free(txt);
	free(capture(un_args, &rc));
	assert_int_equal(rc, 1);
	assert_int_equal(h_wait(p, NULL, NULL), 0);
	unlink(policy);
	free(policy);
}

/* unload detaches everything, a pin this build does not name (another
 * build's) included; the next run loads it again. */
static void unload_then_run_reloads(void **state)
{
	const char *un_args[] = { h_ringfence(), "unload", NULL };
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", NULL };
	char *out = NULL, path[256];
	struct stat st;
	int rc, map;

	(void)state;
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	assert_true(map >= 0);
	assert_int_equal(bpf_obj_pin(map, "/sys/fs/bpf/ringfence/zz_another_build"), 0);
	close(map);
	free(capture(un_args, &rc));
	assert_int_equal(rc, 0);
	assert_true(stat("/sys/fs/bpf/ringfence", &st) < 0);
	assert_int_equal(h_run(OPEN_POLICY, NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	snprintf(path, sizeof(path), "%s/link_connect4", rf_pins__dir());
	assert_int_equal(stat(path, &st), 0);
	free(out);
}

/* Many first runs at once: exactly one loads, all are enforced. */
static void concurrent_first_runs_do_not_race(void **state)
{
	const char *un_args[] = { h_ringfence(), "unload", NULL };
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY), *out;
	struct h_proc p[6];
	int rc, i;

	(void)state;
	free(capture(un_args, &rc));
	assert_int_equal(rc, 0);
	for (i = 0; i < 6; i++)
		p[i] = h_spawn(policy, NULL, NULL, argv);
	for (i = 0; i < 6; i++) {
		assert_int_equal(h_wait(p[i], &out, NULL), 0);
		assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
		free(out);
	}
	unlink(policy);
	free(policy);
}

/* This build's set when it cannot be reused (here: its meta names
 * another build, as a half-loaded or foreign set would): refused while a
 * sandbox uses it, replaced once none does. (Two real builds side by side:
 * test_upgrade.c.) */
static void stale_pinned_objects_are_never_reused(void **state)
{
	const char *sleeper[] = { "/bin/sleep", "2", NULL };
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY), *err = NULL, *out = NULL;
	char *tp = h_tempfile("trace", NULL), path[256];
	struct rf_meta_view { __u32 abi, features; __u8 id[32]; } meta;
	struct h_proc live;
	__u32 zero = 0;
	json_t *tr;
	int fd;

	(void)state;
	live = h_spawn(policy, NULL, NULL, sleeper);
	json_decref(h_wait_registered("cli-"));  /* live, not a fixed wait */
	snprintf(path, sizeof(path), "%s/meta", rf_pins__dir());
	fd = bpf_obj_get(path);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, &meta), 0);
	memset(meta.id, 0xab, sizeof(meta.id));
	assert_int_equal(bpf_map_update_elem(fd, &zero, &meta, BPF_ANY), 0);
	close(fd);
	assert_int_equal(h_run(OPEN_POLICY, NULL, argv, &out, &err), 126);
	assert_non_null(strstr(err, "and sandboxes are live"));
	assert_string_equal(out, "");  /* the command never ran */
	free(out);
	free(err);
	assert_int_equal(h_wait(live, NULL, NULL), 0);
	/* nobody uses the stale set now: it is replaced, and enforcement holds */
	assert_int_equal(h_run(OPEN_POLICY, tp, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	tr = h_trace(tp);
	assert_true(json_is_true(json_object_get(json_object_get(h_event(tr, "sandbox.configure", 0),
								 "programs"), "loaded_now")));
	json_decref(tr);
	free(out);
	unlink(policy);
	unlink(tp);
	free(policy);
	free(tp);
}

/* unload --force kills live sandboxes first, then detaches. */
static void unload_force_kills_live_sandboxes(void **state)
{
	const char *sleeper[] = { "/bin/sleep", "30", NULL };
	const char *un_args[] = { h_ringfence(), "unload", "--force", NULL };
	char *policy = h_tempfile("policy", OPEN_POLICY);
	struct h_proc live = h_spawn(policy, NULL, NULL, sleeper);
	struct stat st;
	int rc;

	(void)state;
	json_decref(h_wait_registered("cli-"));  /* live, not a fixed wait */
	free(capture(un_args, &rc));
	assert_int_equal(rc, 0);
	assert_int_equal(h_wait(live, NULL, NULL), 128 + SIGKILL);
	assert_true(stat("/sys/fs/bpf/ringfence", &st) < 0);
	unlink(policy);
	free(policy);
}

/* ---- output failures (issue 14): never a silent exit 0 ---------------- */

/* A trace that cannot take its first line refuses the run before the
 * command starts: one line, 125. */
static void trace_dev_full_is_refused_125(void **state)
{
	char *mark = h_tempfile("mark", NULL), cmd[600], *err = NULL;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

	(void)state;
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "echo ran > %s", mark);
	assert_int_equal(h_run(OPEN_POLICY, "/dev/full", argv, NULL, &err), 125);
	if (!strstr(err, "--trace /dev/full") || !strstr(err, "No space left") ||
	    h_lines(err) != 1)
		fail_msg("stderr: %s", err);
	assert_int_equal(access(mark, F_OK), -1);   /* the command never ran */
	assert_int_equal(h_count_cgroups("cli-"), 0);
	free(err);
	free(mark);
}

/* Waits at most ms for p; its status, or -1 after killing it. */
static int wait_bounded(struct h_proc p, int ms, char **ret_err)
{
	int st;

	for (; ms > 0; ms -= 20, usleep(20 * 1000))
		if (waitpid(p.pid, &st, WNOHANG) == p.pid) {
			close(p.out_fd);
			*ret_err = h_read_all(p.err_fd);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	kill(p.pid, SIGKILL);
	waitpid(p.pid, &st, 0);
	close(p.out_fd);
	*ret_err = h_read_all(p.err_fd);
	return -1;
}

/* A FIFO nobody reads: refused at once (ENXIO), not a hang before the
 * command starts; with a reader the trace flows through it. */
static void trace_fifo_without_reader_is_refused(void **state)
{
	char dir[] = "/tmp/rf-test-fifo-XXXXXX", fifo[600], *policy, *err = NULL, *tr;
	const char *argv[] = { "/bin/true", NULL };
	int rfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/trace", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	policy = h_tempfile("policy", OPEN_POLICY);
	assert_int_equal(wait_bounded(h_spawn(policy, fifo, NULL, argv), 5000, &err), 125);
	if (!strstr(err, fifo) || !strstr(err, "FIFO") || h_lines(err) != 1)
		fail_msg("stderr: %s", err);
	free(err);

	rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rfd >= 0);
	assert_int_equal(wait_bounded(h_spawn(policy, fifo, NULL, argv), 10000, &err), 0);
	free(err);
	fcntl(rfd, F_SETFL, 0);
	tr = h_read_all(rfd);
	assert_non_null(strstr(tr, "\"event\":\"sandbox.plan\""));
	assert_non_null(strstr(tr, "\"event\":\"sandbox.exit\""));
	free(tr);

	/* the reader goes away mid-run: EPIPE, one line, 124; no SIGPIPE */
	{
		const char *slow[] = { "/bin/sleep", "0.5", NULL };
		struct pollfd pf = { .events = POLLIN };
		struct h_proc p;
		char c;

		rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		assert_true(rfd >= 0);
		pf.fd = rfd;
		p = h_spawn(policy, fifo, NULL, slow);
		/* until the first line comes (a FIFO no writer opened yet reads
		 * as EOF, but polls as nothing) */
		assert_int_equal(poll(&pf, 1, 10000), 1);
		assert_int_equal(read(rfd, &c, 1), 1);
		close(rfd);
		assert_int_equal(wait_bounded(p, 10000, &err), 124);
		if (!strstr(err, "Broken pipe") || !strstr(err, "incomplete") ||
		    h_lines(err) != 1)
			fail_msg("stderr: %s", err);
		free(err);
	}
	unlink(fifo);
	rmdir(dir);
	unlink(policy);
	free(policy);
}

/* The disk fills while the command runs: it ran, the trace is cut short,
 * and the run says so in one line and exits 124, not the command's 0. */
static void trace_disk_full_mid_run_is_124(void **state)
{
	char dir[] = "/tmp/rf-test-full-XXXXXX", trace[600], *mark, cmd[600], *err = NULL;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	json_t *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* one page: the plan line fits, the whole trace does not */
	assert_int_equal(mount("tmpfs", dir, "tmpfs", 0, "size=4k"), 0);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	mark = h_tempfile("mark", NULL);
	unlink(mark);
	snprintf(cmd, sizeof(cmd), "echo ran > %s", mark);
	assert_int_equal(h_run(OPEN_POLICY, trace, argv, NULL, &err), 124);
	if (!strstr(err, "incomplete") || !strstr(err, "No space left") ||
	    !strstr(err, "exit status was 0") || h_lines(err) != 1)
		fail_msg("stderr: %s", err);
	assert_int_equal(access(mark, F_OK), 0);   /* the command ran */
	t = h_trace(trace);
	assert_int_equal(h_count_events(t, "sandbox.plan"), 1);
	assert_int_equal(h_count_events(t, "sandbox.exit"), 0);
	json_decref(t);
	free(err);
	unlink(mark);
	free(mark);
	assert_int_equal(umount(dir), 0);
	rmdir(dir);
}

/* n distinct port ranges on one address (every other port: no merging). */
static char *ranges_policy(int n)
{
	char *p = NULL, *q;
	int i;

	assert_true(asprintf(&p, "{\"version\":1,\"id\":\"cap\",\"files\":\"unrestricted\","
			     "\"exec\":\"unrestricted\",\"network\":{\"connect\":[") > 0);
	for (i = 0; i < n; i++) {
		assert_true(asprintf(&q, "%s%s\"127.0.0.1:%d\"", p, i ? "," : "", 20001 + 2 * i) > 0);
		free(p);
		p = q;
	}
	assert_true(asprintf(&q, "%s]}}", p) > 0);
	free(p);
	return q;
}

/* check makes the refusals run makes from the policy and the kernel,
 * capacity included: same exit, same reason (a policy too large for its
 * sandbox's maps: test_sbmaps.c). */
static void check_refuses_what_run_refuses(void **state)
{
	static const char unresolvable[] =
		"{\"version\":1,\"id\":\"chk-dns\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":"
		"[\"rf-no-such-host.invalid:443\"],\"dns\":\"once\"}}";
	struct {
		char *text;
		int want;
		const char *why;
	} c[] = {
		{ ranges_policy(32), 0, NULL },
		{ ranges_policy(33), 126, "more than 32 distinct port ranges" },
		{ strdup(unresolvable), 126, "does not resolve" },
	};
	const char *argv[] = { "/bin/true", NULL };
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *path = h_tempfile("policy", c[i].text), *err = NULL, *cerr;
		char cmd[1024], errpath[600];

		snprintf(errpath, sizeof(errpath), "%s.err", path);
		snprintf(cmd, sizeof(cmd), "%s check --policy %s >/dev/null 2>%s",
			 h_sh(h_ringfence()), path, errpath);
		rc = system(cmd);
		assert_true(WIFEXITED(rc));
		assert_int_equal(WEXITSTATUS(rc), c[i].want);
		assert_int_equal(h_run(c[i].text, NULL, argv, NULL, &err), c[i].want);
		cerr = h_read_all(open(errpath, O_RDONLY));
		if (c[i].why && (!strstr(cerr, c[i].why) || !strstr(err, c[i].why)))
			fail_msg("case %zu: check: %s\nrun: %s", i, cerr, err);
		free(cerr);
		free(err);
		unlink(errpath);
		unlink(path);
		free(path);
		free(c[i].text);
	}
}

/* `check` of a file with a raw NUL byte after a number (jansson alone
 * accepted it as 1): 125, one line naming the position, nothing on stdout;
 * the same bytes without the NUL pass. */
static void check_refuses_nul_byte(void **state)
{
	static const char with_nul[] = "{\"version\":1\0,\"id\":\"x\"}";
	char path[] = "/tmp/rf-test-nul-XXXXXX";
	const char *args[] = { h_ringfence(), "check", "--policy", path, NULL };
	int fd = mkstemp(path), out[2], errp[2], st;
	char *out_text, *err_text;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, with_nul, sizeof(with_nul) - 1), sizeof(with_nul) - 1);
	close(fd);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(errp), 0);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(out[1]);
	close(errp[1]);
	out_text = h_read_all(out[0]);
	err_text = h_read_all(errp[0]);
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 125);
	assert_string_equal(out_text, "");
	assert_non_null(strstr(err_text, "NUL byte"));
	assert_non_null(strstr(err_text, "line 1 column 13"));
	assert_int_equal(strchr(err_text, '\n') - err_text + 1, (long)strlen(err_text));
	free(out_text);
	free(err_text);
	unlink(path);

	/* The twin without the NUL. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"version\":1,\"id\":\"x\"}", 22), 22);
	close(fd);
	free(capture(args, &st));
	assert_int_equal(st, 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status_is_the_commands),
		cmocka_unit_test(command_not_found_is_127_not_executable_is_126),
		cmocka_unit_test(invalid_policy_is_125_and_starts_nothing),
		cmocka_unit_test(unenforceable_policy_is_refused_126),
		cmocka_unit_test(usage_errors_are_125),
		cmocka_unit_test(environment_fds_and_privileges_scrubbed),
		cmocka_unit_test(user_option_runs_as_that_user),
		cmocka_unit_test(command_never_holds_the_callers_terminal),
		cmocka_unit_test(sigterm_is_forwarded),
		cmocka_unit_test(leftover_processes_are_killed),
		cmocka_unit_test(inet_socket_on_stdio_refused),
		cmocka_unit_test(check_prints_plan_json),
		cmocka_unit_test(check_refuses_nul_byte),
		cmocka_unit_test(probe_reports_every_backend),
		cmocka_unit_test(audit_off_is_reused_on_is_not),
		cmocka_unit_test(status_lists_live_and_unload_refuses),
		cmocka_unit_test(unload_then_run_reloads),
		cmocka_unit_test(concurrent_first_runs_do_not_race),
		cmocka_unit_test(stale_pinned_objects_are_never_reused),
		cmocka_unit_test(unload_force_kills_live_sandboxes),
		cmocka_unit_test(trace_dev_full_is_refused_125),
		cmocka_unit_test(trace_fifo_without_reader_is_refused),
		cmocka_unit_test(trace_disk_full_mid_run_is_124),
		cmocka_unit_test(check_refuses_what_run_refuses),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, NULL);
}
