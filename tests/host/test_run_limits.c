/*
 * Host integration tests of the policy's "limits": the wall clock and the
 * output budget held by the supervisor, the scratch tmpfs, the cgroup
 * controllers refused (with the controller named) where the cgroup2
 * hierarchy lacks them, and bad limits refused before anything starts.
 * Memory, pids and cpu are enforced in the VM (tests/vm/guest/limits.sh).
 */
#include "harness.h"

#include <termios.h>
#include <time.h>

#define OPEN "\"files\":\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\""

static int setup(void **state)
{
	(void)state;
	return harness_require_root();
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *policy_text(const char *limits)
{
	char *s = NULL;

	assert_true(asprintf(&s, "{\"version\":1,\"id\":\"lim\"," OPEN ",\"limits\":%s}",
			     limits) > 0);
	return s;
}

/* The one limit.exceeded of a trace, checked against what ended the run. */
static void assert_exceeded(json_t *trace, const char *limit, json_int_t threshold)
{
	json_t *ev = h_event(trace, "limit.exceeded", 0), *ex = h_event(trace, "sandbox.exit", 0);

	assert_non_null(ev);
	assert_int_equal(h_count_events(trace, "limit.exceeded"), 1);
	assert_string_equal(json_string_value(json_object_get(ev, "limit")), limit);
	assert_int_equal(json_integer_value(json_object_get(ev, "threshold")), threshold);
	assert_string_equal(json_string_value(json_object_get(ev, "action")), "killed");
	assert_non_null(ex);
	assert_string_equal(json_string_value(json_object_get(ex, "limit")), limit);
	assert_int_equal(json_integer_value(json_object_get(ex, "signal")), 9);
	assert_int_equal(json_integer_value(json_object_get(ex, "exit_code")), 137);
	/* limit.exceeded comes right before sandbox.exit */
	assert_int_equal(json_integer_value(json_object_get(ev, "seq")) + 1,
			 json_integer_value(json_object_get(ex, "seq")));
}

/* A `sleep 60` with wall_seconds 1 ends in about a second, its whole
 * process tree gone; the twin inside its time exits as it likes. */
static void wall_seconds_kills_the_whole_tree(void **state)
{
	char *pidfile = h_tempfile("wallpid", NULL), *trace = h_tempfile("walltrace", NULL);
	char *pol = policy_text("{\"wall_seconds\":1}"), *cmd = NULL, *err = NULL;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	const char *quick[] = { "/bin/sh", "-c", "exit 4", NULL };
	double t0 = now_s(), took;
	json_t *t;
	FILE *f;
	int bg = 0;

	(void)state;
	/* written by the sandbox's dynamic uid */
	assert_int_equal(chmod(pidfile, 0666), 0);
	/* $! is a pid of the sandbox's own PID namespace: the background
	 * sleep is found from here by its unique argument, while it runs. */
	assert_true(asprintf(&cmd, "sleep 60.%d & echo $! > %s; sleep 60", (int)getpid(),
			     pidfile) > 0);
	argv[2] = cmd;
	assert_int_equal(h_run(pol, trace, argv, NULL, &err), 137);
	took = now_s() - t0;
	assert_true(took >= 0.9);
	assert_true(took < 5.0);
	assert_non_null(strstr(err, "limit wall_seconds=1 reached: killing the sandbox"));
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &bg), 1);
	fclose(f);
	assert_true(bg > 1);
	{
		char secs[32];

		snprintf(secs, sizeof(secs), "60.%d", (int)getpid());
		bg = h_pid_by_cmdline("sleep", secs);
	}
	assert_int_equal(bg, 0);             /* the background sleep died too */
	t = h_trace(trace);
	assert_exceeded(t, "wall_seconds", 1);
	assert_string_equal(json_string_value(json_object_get(h_event(t, "limit.exceeded", 0),
							      "unit")), "seconds");
	json_decref(t);
	free(err);

	assert_int_equal(h_run(pol, trace, quick, NULL, NULL), 4);
	t = h_trace(trace);
	assert_int_equal(h_count_events(t, "limit.exceeded"), 0);
	assert_null(json_object_get(h_event(t, "sandbox.exit", 0), "limit"));
	json_decref(t);
	unlink(pidfile);
	unlink(trace);
	free(pidfile);
	free(trace);
	free(pol);
	free(cmd);
}

/* `yes` with output_bytes 1000 delivers exactly 1000 bytes, then dies. */
static void output_bytes_delivers_exactly_the_budget(void **state)
{
	char *trace = h_tempfile("outtrace", NULL), *pol = policy_text("{\"output_bytes\":1000}");
	const char *argv[] = { "yes", NULL };
	char *out = NULL, *err = NULL;
	json_t *t, *ev;
	size_t i;

	(void)state;
	assert_int_equal(h_run(pol, trace, argv, &out, &err), 137);
	assert_int_equal(strlen(out), 1000);
	for (i = 0; i < 1000; i++)
		assert_int_equal(out[i], i % 2 ? '\n' : 'y');
	assert_non_null(strstr(err, "limit output_bytes=1000 reached"));
	t = h_trace(trace);
	assert_exceeded(t, "output_bytes", 1000);
	ev = h_event(t, "limit.exceeded", 0);
	assert_int_equal(json_integer_value(json_object_get(ev, "delivered")), 1000);
	assert_true(json_integer_value(json_object_get(ev, "value")) > 1000);
	json_decref(t);
	free(out);
	free(err);
	unlink(trace);
	free(trace);
	free(pol);
}

/* stdout and stderr share one budget and stay apart; exactly the budget
 * is no violation, one byte more is. */
static void output_bytes_counts_both_streams(void **state)
{
	char *pol = policy_text("{\"output_bytes\":6}");
	const char *exact[] = { "/bin/sh", "-c", "printf abc; printf def >&2; exit 5", NULL };
	const char *over[] = { "/bin/sh", "-c", "printf abc; sleep 0.2; printf defg >&2; "
			       "sleep 0.2; printf more", NULL };
	char *out = NULL, *err = NULL;

	(void)state;
	assert_int_equal(h_run(pol, NULL, exact, &out, &err), 5);
	assert_string_equal(out, "abc");
	assert_string_equal(err, "def");
	free(out);
	free(err);
	assert_int_equal(h_run(pol, NULL, over, &out, &err), 137);
	assert_string_equal(out, "abc");
	assert_true(strncmp(err, "def", 3) == 0);    /* then ringfence's own line */
	assert_null(strstr(err, "defg"));
	assert_non_null(strstr(err, "limit output_bytes=6 reached"));
	free(out);
	free(err);
	free(pol);
}

/* The reader of ringfence's stdout goes away: the command's next write
 * meets a closed pipe (SIGPIPE, 141) as it would without ringfence, and
 * the supervisor lives on to clean up and report. */
static void output_relay_passes_a_closed_reader_on(void **state)
{
	char *pol = policy_text("{\"output_bytes\":100000000}"), *path = h_tempfile("eppol", pol);
	char *trace = h_tempfile("eptrace", NULL), buf[10];
	const char *argv[] = { "yes", NULL };
	struct h_proc p = h_spawn(path, trace, NULL, argv);
	json_t *t;

	(void)state;
	assert_int_equal(read(p.out_fd, buf, sizeof(buf)), sizeof(buf));
	close(p.out_fd);
	p.out_fd = open("/dev/null", O_RDONLY);
	assert_int_equal(h_wait(p, NULL, NULL), 128 + SIGPIPE);
	t = h_trace(trace);
	assert_int_equal(h_count_events(t, "limit.exceeded"), 0);
	assert_int_equal(json_integer_value(json_object_get(h_event(t, "sandbox.exit", 0),
							    "signal")), SIGPIPE);
	json_decref(t);
	unlink(path);
	unlink(trace);
	free(path);
	free(trace);
	free(pol);
}

static int stderr_to_stdout(void *arg)
{
	(void)arg;
	return dup2(1, 2) < 0;
}

/* ringfence's exit status, waited for at most 30 s (a hang fails; no
 * timing asserted): -1 when it did not end (then it is killed). */
static int wait_bounded(pid_t pid)
{
	int st = 0, i;

	for (i = 0; i < 3000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		h_sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* A reader that never reads (`ringfence run ... | (sleep 30)`): the
 * command's output fills the pipe, and wall_seconds still ends the run:
 * the relay never waits on ringfence's stdout, nor its own line on a
 * stderr nobody reads (2>&1); what the reader never took is dropped
 * (-q: the line saying so is not shown). */
static void output_relay_never_holds_the_deadline(void **state)
{
	char *pol = policy_text("{\"wall_seconds\":2,\"output_bytes\":100000000}");
	char *path = h_tempfile("nrpol", pol), *trace = h_tempfile("nrtrace", NULL), *err;
	const char *argv[] = { "yes", NULL };
	struct h_proc p;
	json_t *t;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		p = h_spawn_with(path, trace, NULL, argv, pass ? stderr_to_stdout : NULL, NULL);
		/* stdout is never read while it runs */
		assert_int_equal(wait_bounded(p.pid), 137);
		err = h_read_all(p.err_fd);
		if (!pass)
			assert_non_null(strstr(err, "limit wall_seconds=2 reached"));
		free(err);
		close(p.out_fd);
		t = h_trace(trace);
		assert_exceeded(t, "wall_seconds", 2);
		json_decref(t);
	}
	unlink(path);
	unlink(trace);
	free(path);
	free(trace);
	free(pol);
}

/* Where ringfence's stdout is a terminal, the command's is one too (a pty
 * of its own, raw): isatty() holds, and the budget still counts bytes. */
static void output_bytes_keeps_a_terminal_a_terminal(void **state)
{
	char *pol = policy_text("{\"output_bytes\":1000}"), *path = h_tempfile("ttypol", NULL);
	const char *argv[] = { h_ringfence(), "run", "-q", "--policy", path, "--", "/bin/sh", "-c",
			       "test -t 1 && echo tty; test -t 0 || echo stdin-not-tty; yes", NULL };
	char name[128], buf[4096], *out = NULL;
	size_t len = 0;
	struct termios t;
	int m, sl, st = 0;
	ssize_t n;
	pid_t pid;
	FILE *f;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(pol, f);
	fclose(f);
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	assert_int_equal(ptsname_r(m, name, sizeof(name)), 0);
	sl = open(name, O_RDWR | O_NOCTTY);
	assert_true(sl >= 0);
	assert_int_equal(tcgetattr(sl, &t), 0);
	cfmakeraw(&t);                 /* no \n -> \r\n here: count what was written */
	assert_int_equal(tcsetattr(sl, TCSANOW, &t), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(sl, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	close(sl);
	/* EIO once every end of the slave is closed. */
	while ((n = read(m, buf, sizeof(buf))) > 0) {
		out = realloc(out, len + (size_t)n + 1);
		assert_non_null(out);
		memcpy(out + len, buf, (size_t)n);
		len += (size_t)n;
	}
	close(m);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 137);
	assert_int_equal(len, 1000);
	out[len] = 0;
	assert_true(strncmp(out, "tty\nstdin-not-tty\ny\ny\n", 22) == 0);
	free(out);
	unlink(path);
	free(path);
	free(pol);
}

/* Runs and checks whose scratch is /tmp start from "/": the tree, and so
 * this test's cwd, may be below /tmp, where they are refused on purpose
 * (see scratch_refuses_a_cwd_below_it). cd_root returns where to go back. */
static int cd_root(void)
{
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(here >= 0);
	assert_int_equal(chdir("/"), 0);
	return here;
}

static void cd_back(int here)
{
	assert_int_equal(fchdir(here), 0);
	close(here);
}

static int run_from_root(const char *policy_json, const char *const *argv, char **ret_out,
			 char **ret_err)
{
	int here = cd_root(), rc = h_run(policy_json, NULL, argv, ret_out, ret_err);

	cd_back(here);
	return rc;
}

/* An empty private tmpfs at /tmp: the host's files are not there, writes
 * past size_mb fail with ENOSPC, and nothing reaches the host's /tmp. */
static void scratch_is_private_and_sized(void **state)
{
	char *marker = h_tempfile("scratch-marker", "host\n");
	char *pol = policy_text("{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":1}}"), *cmd = NULL;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	char *out = NULL, *err = NULL;
	struct stat st;

	(void)state;
	assert_true(asprintf(&cmd, "test -e %s && echo marker-seen; echo small > "
			     "/tmp/rf-scratch-small && cat /tmp/rf-scratch-small; "
			     "head -c 2000000 /dev/zero > /tmp/rf-scratch-big; echo big=$?; "
			     "stat -c %%s /tmp/rf-scratch-big", marker) > 0);
	argv[2] = cmd;
	assert_int_equal(run_from_root(pol, argv, &out, &err), 0);
	assert_null(strstr(out, "marker-seen"));
	assert_non_null(strstr(out, "small\n"));
	assert_non_null(strstr(out, "big=1\n"));
	assert_non_null(strstr(err, "No space left on device"));
	/* what fit: less than the 1 MiB tmpfs */
	assert_true(atol(strstr(out, "big=1\n") + 6) <= 1048576);
	assert_int_equal(stat("/tmp/rf-scratch-small", &st), -1);
	assert_int_equal(stat("/tmp/rf-scratch-big", &st), -1);
	assert_int_equal(stat(marker, &st), 0);
	free(out);
	free(err);
	unlink(marker);
	free(marker);
	free(pol);
	free(cmd);
}

/* `ringfence check` on a policy file: the exit status, stdout. */
static int check_policy(const char *policy_json, char **ret_out)
{
	char *policy = h_tempfile("policy", policy_json);
	const char *argv[] = { h_ringfence(), "check", "--policy", policy, NULL };
	int out[2], err[2], st = 0;
	pid_t pid;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	*ret_out = h_read_all(out[0]);
	free(h_read_all(err[0]));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(policy);
	free(policy);
	return WEXITSTATUS(st);
}

/* The scratch directory must exist: refused (126) before anything
 * starts, and check says the same. */
static void scratch_needs_an_existing_directory(void **state)
{
	char *pol = policy_text("{\"scratch\":{\"path\":\"/nonexistent-rf-scratch\",\"size_mb\":1}}");
	char *marker = h_tempfile("scratch-must-not-run", NULL), *err = NULL, *out = NULL;
	const char *argv[] = { "/usr/bin/touch", marker, NULL };
	struct stat st;

	(void)state;
	unlink(marker);
	assert_int_equal(h_run(pol, NULL, argv, NULL, &err), 126);
	assert_non_null(strstr(err, "limits: scratch: \"/nonexistent-rf-scratch\" cannot be used "
				    "as a mount point: No such file or directory"));
	assert_int_equal(stat(marker, &st), -1);
	assert_int_equal(check_policy(pol, &out), 126);
	assert_non_null(strstr(out, "cannot be used as a mount point"));
	free(out);
	free(err);
	free(marker);
	free(pol);
}

/* Under Landlock the files classes still apply to the scratch path: it
 * is writable only when files.write names it. */
static void scratch_follows_the_files_class(void **state)
{
	static const char fmt[] =
		"{\"version\":1,\"id\":\"lim\",\"network\":\"unrestricted\","
		"\"files\":{\"read\":[\"/usr/\",\"/etc/\",\"/tmp/\"],\"write\":[%s]},"
		"\"exec\":[\"/usr/bin/\",\"/usr/lib/\"],"
		"\"limits\":{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":4}}}";
	const char *argv[] = { "/bin/sh", "-c", "echo x > /tmp/rf-scratch-ll && echo wrote", NULL };
	char *pol = NULL, *out = NULL, *err = NULL;
	int rc;

	(void)state;
	assert_true(asprintf(&pol, fmt, "\"/tmp/\"") > 0);
	rc = run_from_root(pol, argv, &out, &err);
	if (rc == 126 && strstr(err, "refused")) {
		fprintf(stderr, "SKIP: files/exec cannot be confined here: %s", err);
		free(out);
		free(err);
		free(pol);
		return;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(out, "wrote\n");
	free(out);
	free(err);
	free(pol);
	assert_true(asprintf(&pol, fmt, "") > 0);
	assert_int_not_equal(run_from_root(pol, argv, &out, &err), 0);
	assert_null(strstr(out, "wrote"));
	assert_non_null(strstr(err, "Permission denied"));
	free(out);
	free(err);
	free(pol);
}

/* Run from the caller's cwd with stdin opened on in_path. */
static int run_with_stdin(const char *policy_json, const char *in_path, const char *const *argv,
			  char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json);
	const char *args[16] = { h_ringfence(), "run", "-q", "--policy", policy, "--" };
	int n = 6, out[2], err[2], rc;
	pid_t pid;

	for (int i = 0; argv[i] && n < 15; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open(in_path, O_RDONLY);

		if (in < 0 || dup2(in, 0) < 0)
			_exit(98);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	rc = h_wait((struct h_proc){ .pid = pid, .out_fd = out[0], .err_fd = err[0] }, ret_out,
		    ret_err);
	unlink(policy);
	free(policy);
	return rc;
}

/* Started from below the scratch path, the command's cwd would be the
 * host's directory the tmpfs hides, writable through ".": refused (126)
 * before anything starts, and check from there says the same. */
static void scratch_refuses_a_cwd_below_it(void **state)
{
	char dir[] = "/tmp/rf-test-cwd-XXXXXX", *pol, *err = NULL, *out = NULL, *f = NULL;
	const char *argv[] = { "/bin/sh", "-c", "echo x > ./escaped", NULL };
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	(void)state;
	pol = policy_text("{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":1}}");
	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&f, "%s/escaped", dir) > 0);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(h_run(pol, NULL, argv, NULL, &err), 126);
	assert_int_equal(check_policy(pol, &out), 126);
	assert_int_equal(fchdir(here), 0);
	if (!strstr(err, "the working directory \"/tmp/rf-test-cwd-"))
		fail_msg("want the cwd refusal in: %s", err);
	assert_non_null(strstr(err, "lies inside the scratch path"));
	assert_non_null(strstr(out, "lies inside the scratch path"));
	assert_int_equal(stat(f, &st), -1);
	rmdir(dir);
	close(here);
	free(f);
	free(out);
	free(err);
	free(pol);
}

/* Started from the scratch path itself: the command starts in the empty
 * tmpfs (its "." and /proc/self/cwd are the tmpfs), the host's /tmp
 * gets nothing. */
static void scratch_cwd_at_the_path_starts_in_the_tmpfs(void **state)
{
	char *pol = policy_text("{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":1}}");
	const char *argv[] = { "/bin/sh", "-c",
			       "pwd; ls -A .; echo x > ./rf-scratch-cwd && cat /tmp/rf-scratch-cwd "
			       "&& stat -f -c %T /proc/self/cwd", NULL };
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *out = NULL, *err = NULL;
	struct stat st;

	(void)state;
	unlink("/tmp/rf-scratch-cwd");
	assert_int_equal(chdir("/tmp"), 0);
	assert_int_equal(h_run(pol, NULL, argv, &out, &err), 0);
	assert_int_equal(fchdir(here), 0);
	assert_string_equal(out, "/tmp\nx\ntmpfs\n");
	assert_int_equal(stat("/tmp/rf-scratch-cwd", &st), -1);
	close(here);
	free(out);
	free(err);
	free(pol);
}

/* Under Landlock, "/tmp/" in files.write names the tmpfs, not the host's
 * hidden /tmp: a host file under it handed in read-only on stdin cannot
 * be reopened for writing (/proc/self/fd/0), while the scratch twin is
 * writable. */
static void scratch_write_rule_misses_the_hidden_host_dir(void **state)
{
	static const char pol[] =
		"{\"version\":1,\"id\":\"lim\",\"network\":\"unrestricted\","
		"\"files\":{\"read\":[\"/usr/\",\"/etc/\",\"/tmp/\",\"/proc/\",\"/dev/\"],"
		"\"write\":[\"/tmp/\"]},\"exec\":[\"/usr/bin/\",\"/usr/lib/\"],"
		"\"limits\":{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":4}}}";
	const char *argv[] = { "/bin/sh", "-c",
			       "cat; echo twin > /tmp/rf-scratch-twin && cat /tmp/rf-scratch-twin; "
			       "echo changed >> /proc/self/fd/0; echo rc=$?", NULL };
	char *in = h_tempfile("scratch-stdin", "host\n"), *out = NULL, *err = NULL, *back;
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), rc;
	FILE *f;

	(void)state;
	assert_int_equal(chdir("/"), 0);
	rc = run_with_stdin(pol, in, argv, &out, &err);
	assert_int_equal(fchdir(here), 0);
	if (rc == 126 && strstr(err, "refused")) {
		fprintf(stderr, "SKIP: files/exec cannot be confined here: %s", err);
		goto out;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(out, "host\ntwin\nrc=2\n");
	assert_non_null(strstr(err, "Permission denied"));
	f = fopen(in, "r");
	assert_non_null(f);
	back = h_read_all(fileno(f));
	fclose(f);
	assert_string_equal(back, "host\n");
	free(back);
out:
	close(here);
	unlink(in);
	free(in);
	free(out);
	free(err);
}

/* memory_mb, pids and cpu_percent without their controller: refused with
 * it named (126, the command never runs), and check says the same. */
static void cgroup_limits_fail_closed_without_their_controller(void **state)
{
	static const struct { const char *field, *ctrl, *json; } cases[] = {
		{ "memory_mb", "memory", "{\"memory_mb\":64}" },
		{ "pids", "pids", "{\"pids\":10}" },
		{ "cpu_percent", "cpu", "{\"cpu_percent\":20}" },
	};
	char *marker = h_tempfile("cg-must-not-run", NULL);
	size_t i;

	(void)state;
	unlink(marker);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { "/usr/bin/touch", marker, NULL };
		char *pol = policy_text(cases[i].json), *err = NULL, *out = NULL, want[256];
		json_t *doc, *l;
		struct stat st;

		if (h_have_controller(cases[i].ctrl)) {
			fprintf(stderr, "SKIP: %s: this host has the %s controller (the VM suite "
				"tests it enforced)\n", cases[i].field, cases[i].ctrl);
			free(pol);
			continue;
		}
		snprintf(want, sizeof(want), "limits: %s: cgroup-v2-%s cannot be enforced here: "
			 "the %s controller is not in the cgroup2 hierarchy at %s", cases[i].field,
			 cases[i].ctrl, cases[i].ctrl, h_cgroup2_mount());
		assert_int_equal(h_run(pol, NULL, argv, NULL, &err), 126);
		if (!strstr(err, want))
			fail_msg("want \"%s\" in: %s", want, err);
		assert_int_equal(stat(marker, &st), -1);
		free(err);

		assert_int_equal(check_policy(pol, &out), 126);
		doc = json_loads(out, 0, NULL);
		assert_non_null(doc);
		assert_false(json_is_true(json_object_get(doc, "ok")));
		l = json_object_get(json_object_get(json_object_get(json_object_get(doc, "classes"),
								    "limits"), "limits"), cases[i].field);
		assert_non_null(l);
		assert_false(json_is_true(json_object_get(l, "enforced")));
		assert_non_null(strstr(json_string_value(json_object_get(l, "reason")),
				       want + strlen("limits: ")));
		assert_non_null(strstr(json_string_value(json_array_get(
			json_object_get(doc, "reasons"), 0)), want));
		json_decref(doc);
		free(out);
		free(pol);
	}
	free(marker);
}

/* The supervisor's limits are enforced here: check says ok and names them. */
static void check_names_each_limits_backend(void **state)
{
	char *pol = policy_text("{\"wall_seconds\":9,\"output_bytes\":100,"
				"\"scratch\":{\"path\":\"/tmp/\",\"size_mb\":2}}"), *out = NULL;
	json_t *doc, *c, *l;
	int here;

	(void)state;
	here = cd_root();
	assert_int_equal(check_policy(pol, &out), 0);
	cd_back(here);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	c = json_object_get(json_object_get(doc, "classes"), "limits");
	assert_true(json_is_true(json_object_get(c, "enforced")));
	assert_string_equal(json_string_value(json_object_get(c, "backend")), "supervisor, tmpfs");
	l = json_object_get(c, "limits");
	assert_string_equal(json_string_value(json_object_get(json_object_get(l, "wall_seconds"),
							      "backend")), "supervisor");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(l, "scratch"),
							    "value")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(l, "scratch"),
							      "backend")), "tmpfs");
	json_decref(doc);
	free(out);
	free(pol);
}

/* Zero, negative, absurd, a relative or root scratch path: 125, one line
 * naming the field, nothing started. */
static void bad_limits_are_125_and_start_nothing(void **state)
{
	static const struct { const char *json, *where; } cases[] = {
		{ "{\"wall_seconds\":0}", "$.limits.wall_seconds" },
		{ "{\"output_bytes\":-1}", "$.limits.output_bytes" },
		{ "{\"memory_mb\":0}", "$.limits.memory_mb" },
		{ "{\"memory_mb\":99999999999}", "$.limits.memory_mb" },
		{ "{\"pids\":-3}", "$.limits.pids" },
		{ "{\"cpu_percent\":0}", "$.limits.cpu_percent" },
		{ "{\"scratch\":{\"path\":\"tmp\",\"size_mb\":1}}", "$.limits.scratch.path" },
		{ "{\"scratch\":{\"path\":\"/\",\"size_mb\":1}}", "$.limits.scratch.path" },
		{ "{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":0}}", "$.limits.scratch.size_mb" },
		{ "{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":99999999}}",
		  "$.limits.scratch.size_mb" },
	};
	char *marker = h_tempfile("lim-must-not-run", NULL);
	size_t i;

	(void)state;
	unlink(marker);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { "/usr/bin/touch", marker, NULL };
		char *pol = policy_text(cases[i].json), *err = NULL;
		struct stat st;

		assert_int_equal(h_run(pol, NULL, argv, NULL, &err), 125);
		if (!strstr(err, cases[i].where))
			fail_msg("%s: want %s in: %s", cases[i].json, cases[i].where, err);
		/* one line */
		assert_non_null(strchr(err, '\n'));
		assert_int_equal(strchr(err, '\n')[1], '\0');
		assert_int_equal(stat(marker, &st), -1);
		free(err);
		free(pol);
	}
	free(marker);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wall_seconds_kills_the_whole_tree),
		cmocka_unit_test(output_bytes_delivers_exactly_the_budget),
		cmocka_unit_test(output_bytes_counts_both_streams),
		cmocka_unit_test(output_bytes_keeps_a_terminal_a_terminal),
		cmocka_unit_test(output_relay_passes_a_closed_reader_on),
		cmocka_unit_test(output_relay_never_holds_the_deadline),
		cmocka_unit_test(scratch_is_private_and_sized),
		cmocka_unit_test(scratch_needs_an_existing_directory),
		cmocka_unit_test(scratch_follows_the_files_class),
		cmocka_unit_test(scratch_refuses_a_cwd_below_it),
		cmocka_unit_test(scratch_cwd_at_the_path_starts_in_the_tmpfs),
		cmocka_unit_test(scratch_write_rule_misses_the_hidden_host_dir),
		cmocka_unit_test(cgroup_limits_fail_closed_without_their_controller),
		cmocka_unit_test(check_names_each_limits_backend),
		cmocka_unit_test(bad_limits_are_125_and_start_nothing),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
