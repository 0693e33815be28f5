/*
 * Host tests: the command never holds the caller's terminal (issue 21).
 * Each test opens a real pty as the caller's terminal and runs ringfence
 * on it, in a session of its own, as a shell would (a mini-shell here:
 * ringfence in its own process group, the terminal's foreground). Inside,
 * the command has a pty of its own: resizing it signals nobody outside,
 * stopping it holds no limit, writing to fd 0 passes the output budget;
 * the twins: its size is the caller's, SIGWINCH follows the caller's
 * resizes, an interactive line and `stty -a` work, the exit status and
 * job control pass through, pipes keep today's behaviour.
 */
#include "harness.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define OPEN_POLICY(limits)                                                    \
	"{\"version\":1,\"id\":\"tty\",\"files\":\"unrestricted\","            \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[]}" limits "}"

struct term {
	int master, slave;
	pid_t shell;             /* the session leader (the mini-shell) */
	int report;              /* its report: "S" ringfence stopped, then the status */
	char *out;               /* what reached the terminal */
	size_t len;
};

/* The mini-shell: ringfence in a process group of its own, the
 * terminal's foreground; a stop is reported (and the terminal's ICANON
 * then), and the job continued like `fg`; the status last. */
static _Noreturn void shell(struct term *t, const char *const *args, int rep)
{
	struct termios tio;
	pid_t job;
	int st;
	char c;

	setsid();
	ioctl(t->slave, TIOCSCTTY, 0);
	signal(SIGTTOU, SIG_IGN);
	job = fork();
	if (job == 0) {
		setpgid(0, 0);
		tcsetpgrp(t->slave, getpid());
		signal(SIGTTOU, SIG_DFL);
		for (st = 0; st <= 2; st++)
			dup2(t->slave, st);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	setpgid(job, job);
	tcsetpgrp(t->slave, job);
	for (;;) {
		if (waitpid(job, &st, WUNTRACED) != job)
			_exit(97);
		if (!WIFSTOPPED(st))
			break;
		c = tcgetattr(t->slave, &tio) == 0 && (tio.c_lflag & ICANON) ? 'S' : 's';
		if (write(rep, &c, 1) != 1)
			_exit(96);
		tcsetpgrp(t->slave, job);
		kill(-job, SIGCONT);
	}
	dprintf(rep, "%d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	_exit(0);
}

static void term_start(struct term *t, const char *const *args, int rows, int cols)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	int rep[2];

	memset(t, 0, sizeof(*t));
	assert_int_equal(openpty(&t->master, &t->slave, NULL, NULL, &ws), 0);
	assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
	t->shell = fork();
	assert_true(t->shell >= 0);
	if (t->shell == 0) {
		close(rep[0]);
		close(t->master);
		shell(t, args, rep[1]);
	}
	close(rep[1]);
	t->report = rep[0];
	fcntl(t->master, F_SETFL, O_NONBLOCK);
}

/* Read the terminal until `want` shows (NULL: until the shell reports);
 * true when it did. Bounded by 30 s: a hang fails, no timing asserted. */
static bool term_read_until(struct term *t, const char *want)
{
	int i;

	for (i = 0; i < 3000; i++) {
		struct pollfd p[2] = { { .fd = t->master, .events = POLLIN },
				       { .fd = t->report, .events = POLLIN } };
		char buf[4096];
		ssize_t n;

		(void)poll(p, 2, 10);
		while ((n = read(t->master, buf, sizeof(buf))) > 0) {
			t->out = realloc(t->out, t->len + (size_t)n + 1);
			memcpy(t->out + t->len, buf, (size_t)n);
			t->len += (size_t)n;
			t->out[t->len] = 0;
		}
		if (want && t->out && strstr(t->out, want))
			return true;
		if (!want && (p[1].revents & (POLLIN | POLLHUP)))
			return true;
	}
	return false;
}

/* The shell's next report: 'S'/'s' (stopped, ICANON back or not) or the
 * exit status as text. */
static int term_report(struct term *t, char *buf, size_t len)
{
	ssize_t n = 0;
	int i;

	for (i = 0; i < 3000 && n <= 0; i++) {
		struct pollfd p = { .fd = t->report, .events = POLLIN };

		if (poll(&p, 1, 10) > 0)
			n = read(t->report, buf, len - 1);
	}
	buf[n > 0 ? n : 0] = 0;
	return (int)n;
}

/* Reads the terminal to the end; the status ringfence exited with. */
static int term_finish(struct term *t)
{
	char buf[16];
	int st;

	assert_true(term_read_until(t, NULL));
	assert_true(term_report(t, buf, sizeof(buf)) > 0);
	term_read_until(t, "\x01never");   /* what was still on its way */
	assert_int_equal(waitpid(t->shell, &st, 0), t->shell);
	close(t->master);
	close(t->slave);
	close(t->report);
	return atoi(buf);
}

static void term_free(struct term *t)
{
	free(t->out);
	t->out = NULL;
}

/* ringfence run -q --policy P [--trace T] -- sh -c SCRIPT */
static const char **run_args(const char *policy, const char *trace, const char *script)
{
	static const char *a[12];
	int n = 0;

	a[n++] = h_ringfence();
	a[n++] = "run";
	a[n++] = "-q";
	a[n++] = "--policy";
	a[n++] = policy;
	if (trace) {
		a[n++] = "--trace";
		a[n++] = trace;
	}
	a[n++] = "--";
	a[n++] = "/bin/sh";
	a[n++] = "-c";
	a[n++] = script;
	a[n] = NULL;
	return a;
}

/* The twin: its terminal is a pty of its own, the caller's size, its
 * controlling terminal; the trace says so; the status passes through. */
static void own_pty_caller_size(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(""));
	char *trace = h_tempfile("trace", "");
	char outer[64], want[128];
	struct term t;
	json_t *tr, *cfg, *term;
	struct stat st;

	(void)state;
	/* Its own by name too (a devpts of the sandbox's own: the same name
	 * may be the caller's on the host, never the same filesystem). */
	term_start(&t, run_args(pol, trace, "stty size; tty; test -t 0 && test -t 1 && "
				"test -t 2 && echo all-tty; stat -L -c 'dev=%d.' \"$(tty)\"; "
				"exit 7"), 33, 101);
	assert_int_equal(ptsname_r(t.master, outer, sizeof(outer)), 0);
	assert_int_equal(stat(outer, &st), 0);
	assert_int_equal(term_finish(&t), 7);
	if (!strstr(t.out, "33 101") || !strstr(t.out, "all-tty") || !strstr(t.out, "/dev/pts/") ||
	    !strstr(t.out, "dev="))
		fail_msg("inside: %s", t.out);
	snprintf(want, sizeof(want), "dev=%llu.", (unsigned long long)st.st_dev);
	if (strstr(t.out, want))
		fail_msg("the command's terminal is on the caller's devpts (%s): %s", outer,
			 t.out);
	tr = h_trace(trace);
	cfg = h_event(tr, "sandbox.configure", 0);
	term = json_object_get(json_object_get(cfg, "data"), "terminal");
	if (!term)
		term = json_object_get(cfg, "terminal");
	assert_non_null(term);
	assert_string_equal(json_string_value(json_object_get(term, "caller")), outer);
	assert_int_equal(json_array_size(json_object_get(term, "fds")), 3);
	json_decref(tr);
	term_free(&t);
	unlink(pol);
	unlink(trace);
	free(pol);
	free(trace);
}

/* The twin: resizing the caller's terminal reaches the command (SIGWINCH,
 * the new size), an interactive line is read, `stty -a` works. */
static void winch_and_interactive(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(""));
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	struct term t;

	(void)state;
	term_start(&t, run_args(pol, NULL, "trap 'stty size; w=1' WINCH; w=0; echo ready; "
				"while [ $w = 0 ]; do sleep 0.05; done; "
				"printf 'name? '; read x; echo \"hello $x\"; stty -a | grep -q icanon && "
				"echo stty-ok"), 24, 80);
	assert_true(term_read_until(&t, "ready"));
	assert_int_equal(ioctl(t.master, TIOCSWINSZ, &ws), 0);
	if (!term_read_until(&t, "40 120"))
		fail_msg("no SIGWINCH with the new size inside: %s", t.out);
	assert_true(term_read_until(&t, "name? "));
	assert_int_equal(write(t.master, "bob\r", 4), 4);
	assert_int_equal(term_finish(&t), 0);
	if (!strstr(t.out, "hello bob") || !strstr(t.out, "stty-ok"))
		fail_msg("interactive: %s", t.out);
	term_free(&t);
	unlink(pol);
	free(pol);
}

/* (b) The caller's terminal stopped (TCOOFF from its side) and never
 * read: wall_seconds still ends a command that would run 8 s; nothing of
 * it survives (its marker file never appears). */
static void stopped_terminal_holds_no_deadline(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(",\"limits\":{\"wall_seconds\":2}"));
	char *trace = h_tempfile("trace", "");
	char dir[] = "/tmp/rf-tty-XXXXXX", script[256], done[300];
	struct term t;
	json_t *tr, *ex;
	char buf[16];
	int st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);   /* the sandbox's dynamic uid enters it */
	snprintf(done, sizeof(done), "%s/done", dir);
	snprintf(script, sizeof(script), "head -c 2000000 /dev/zero | tr '\\0' x; sleep 8; "
		 "touch %s", done);
	term_start(&t, run_args(pol, trace, script), 24, 80);
	assert_int_equal(tcflow(t.slave, TCOOFF), 0);
	/* not a byte read until ringfence has exited */
	assert_true(term_report(&t, buf, sizeof(buf)) > 0);
	assert_int_equal(atoi(buf), 137);
	assert_int_equal(waitpid(t.shell, &st, 0), t.shell);
	assert_int_equal(access(done, F_OK), -1);
	tr = h_trace(trace);
	ex = h_event(tr, "limit.exceeded", 0);
	assert_non_null(ex);
	if (!strstr(json_dumps(ex, 0), "wall_seconds"))
		fail_msg("limit.exceeded: %s", json_dumps(ex, 0));
	json_decref(tr);
	tcflow(t.slave, TCOON);
	close(t.master);
	close(t.slave);
	close(t.report);
	unlink(pol);
	unlink(trace);
	rmdir(dir);
	free(pol);
	free(trace);
}

/* (c) Writing to fd 0 goes through the relay: output_bytes ends the run;
 * the caller's terminal saw at most the budget (and ringfence's line). */
static void fd0_counts_against_output(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(",\"limits\":{\"output_bytes\":4096}"));
	struct term t;
	size_t i, ws = 0;

	(void)state;
	term_start(&t, run_args(pol, NULL, "exec 3>&0; head -c 16384 /dev/zero | tr '\\0' w >&3; "
				"sleep 5"),
		   24, 80);
	assert_int_equal(term_finish(&t), 137);
	for (i = 0; i < t.len; i++)
		ws += t.out[i] == 'w';
	if (ws > 4096 || ws < 1024)
		fail_msg("%zu bytes through fd 0 reached the terminal (budget 4096)", ws);
	term_free(&t);
	unlink(pol);
	free(pol);
}

/* (a) and TIOCSTI: rf-attack-tty's attempts on a terminal with a victim
 * in its foreground group, inside: refused (10); the caller's terminal by
 * its /dev/pts name or a /proc/PID/fd link is not there; the twins: its
 * own terminal by its own name, a new pty made inside (/dev/ptmx). */
static void attempts_refused(void **state)
{
	static const char *const attempts[] = { "winsize", "sti", "modes", "tcooff",
						"pts-path", "pts-procfd", "pts-own", "ptmx" };
	char *pol = h_tempfile("policy", OPEN_POLICY(""));
	char *tool = h_tool("rf-attack-tty");
	char dir[] = "/tmp/rf-tty-XXXXXX";
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);   /* the sandbox's dynamic uid enters it */
	for (i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		const char *args[] = { tool, "with-pty", dir, "24", "80", "--", h_ringfence(),
				       "run", "-q", "--policy", pol, "--", tool, attempts[i], dir,
				       NULL };
		char *out = NULL, *err = NULL;
		int rc = h_wait(h_start(args, NULL, NULL), &out, &err);

		/* the twins: its own terminal by its name, a pty of its own */
		int want = strcmp(attempts[i], "pts-own") && strcmp(attempts[i], "ptmx") ? 10 : 0;

		if (rc != want)
			fail_msg("%s inside: exit %d (want %d; 10: refused)\n%s%s", attempts[i], rc,
				 want, out, err);
		free(out);
		free(err);
	}
	for (i = 0; i < 6; i++) {
		static const char *const marks[] = { "winch", "stopped", "modes", "sti", "seen",
						     "name" };
		char p[64];

		snprintf(p, sizeof(p), "%s/%s", dir, marks[i]);
		unlink(p);
	}
	rmdir(dir);
	unlink(pol);
	free(pol);
}

/* Job control: the command stops itself (as ^Z would stop it): ringfence
 * gives the terminal its modes back and stops too, the shell sees it
 * stopped; continued (fg), the command goes on and its status passes. */
static void stop_and_continue(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(""));
	struct term t;
	char buf[16];

	(void)state;
	term_start(&t, run_args(pol, NULL, "echo before; kill -STOP $$; echo resumed; exit 5"),
		   24, 80);
	assert_true(term_report(&t, buf, sizeof(buf)) > 0);
	if (strcmp(buf, "S"))
		fail_msg("the shell's first report: \"%s\" (S: ringfence stopped, the "
			 "terminal's modes back)", buf);
	assert_true(term_read_until(&t, "resumed"));
	assert_int_equal(term_finish(&t), 5);
	term_free(&t);
	unlink(pol);
	free(pol);
}

/* Pipes keep today's behaviour: no pty, no terminal in the trace. */
static void pipes_get_no_pty(void **state)
{
	char *out = NULL, *err = NULL;
	char *trace = h_tempfile("trace", "");
	json_t *tr, *cfg;
	int rc;

	(void)state;
	rc = h_run(OPEN_POLICY(""), trace, (const char *[]){ "/bin/sh", "-c",
		   "test -t 0 || test -t 1 || test -t 2 || echo no-tty; exit 3", NULL },
		   &out, &err);
	assert_int_equal(rc, 3);
	assert_non_null(strstr(out, "no-tty"));
	tr = h_trace(trace);
	cfg = h_event(tr, "sandbox.configure", 0);
	assert_null(json_object_get(json_object_get(cfg, "data"), "terminal"));
	assert_null(json_object_get(cfg, "terminal"));
	json_decref(tr);
	free(out);
	free(err);
	unlink(trace);
	free(trace);
}

/* A caller with a terminal whose fds 0-2 are not it (output to a file,
 * as `ringfence run ... </dev/null >log 2>&1` from a shell): no pty is
 * made, and the command still cannot reach that terminal: /dev/tty has
 * nothing behind it, and its process group is its own (kill(0, ...) and
 * the terminal's job-control signals stay apart from the caller's). */
static void redirected_caller_keeps_no_ctty(void **state)
{
	char *pol = h_tempfile("policy", OPEN_POLICY(""));
	char *out = h_tempfile("out", "");
	char cmd[2048], *got;
	const char *args[] = { "/bin/sh", "-c", cmd, NULL };
	struct term t;
	int rc;

	(void)state;
	snprintf(cmd, sizeof(cmd), "exec '%s' run -q --policy '%s' -- /bin/sh -c "
		 "'(exec 3<>/dev/tty) 2>/dev/null && echo ctty-opened; "
		 "echo pgrp=$(cut -d\" \" -f5 /proc/self/stat) pid=$$; exit 5' "
		 "</dev/null >'%s' 2>&1", h_ringfence(), pol, out);
	term_start(&t, args, 24, 80);
	rc = term_finish(&t);
	{
		int fd = open(out, O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		got = h_read_all(fd);
		close(fd);
	}
	assert_non_null(got);
	if (rc != 5)
		fail_msg("exit %d: %s", rc, got);
	if (t.out)
		fprintf(stderr, "terminal: %s\n", t.out);
	if (strstr(got, "ctty-opened") || !strstr(got, "pgrp=2 pid=2"))
		fail_msg("inside: %s", got);
	free(got);
	term_free(&t);
	unlink(pol);
	unlink(out);
	free(pol);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_pty_caller_size),
		cmocka_unit_test(winch_and_interactive),
		cmocka_unit_test(stopped_terminal_holds_no_deadline),
		cmocka_unit_test(fd0_counts_against_output),
		cmocka_unit_test(attempts_refused),
		cmocka_unit_test(stop_and_continue),
		cmocka_unit_test(pipes_get_no_pty),
		cmocka_unit_test(redirected_caller_keeps_no_ctty),
	};

	if (harness_require_root())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
