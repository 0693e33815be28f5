/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Privileged host test: cgroup.c + launch.c against the real kernel.
 * Runs tests/tools/rf-inspect (from $TOOLS, default build/tests/tools)
 * inside sandbox cgroups and checks what it saw.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/capability.h>

#include "cgroup.h"
#include "launch/launch.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define NOBODY 65534
#define ZERO_CAPS "0000000000000000"

static char g_mount[PATH_MAX];
static char g_inspect[PATH_MAX];       /* absolute path of rf-inspect */
static char g_tools[PATH_MAX];         /* its directory */
static unsigned g_seq;

struct ctx {
	struct rf_cgroup cg;
	char tmpdir[64];                   /* mkdtemp scratch, 0755 */
};

struct run {
	int rc;
	struct launch_result res;
	siginfo_t si;                      /* how the command ended */
	char out[1 << 16];
	size_t len;
};

/* ---- fixtures ---- */

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char name[64];

	if (!c)
		return -1;
	snprintf(name, sizeof(name), "test-launch-%d-%u", (int)getpid(), g_seq++);
	if (cgroup__create(g_mount, name, &c->cg) < 0) {
		free(c);
		return -1;
	}
	snprintf(c->tmpdir, sizeof(c->tmpdir), "/tmp/rf-test-launch-XXXXXX");
	if (!mkdtemp(c->tmpdir) || chmod(c->tmpdir, 0755) < 0) {
		cgroup__destroy(&c->cg);
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static void rm_tmpdir(const char *dir)
{
	static const char *const files[] = { "noexec", "rf-noexec-cmd", NULL };
	char p[PATH_MAX];

	for (size_t i = 0; files[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		(void)unlink(p);
	}
	(void)rmdir(dir);
}

/* Runs after a failed assertion too: no cgroup is left behind. */
static int teardown(void **state)
{
	struct ctx *c = *state;
	int r;

	if (!c)
		return 0;
	r = cgroup__destroy(&c->cg);
	if (r < 0)
		fprintf(stderr, "teardown: cgroup__destroy: %s\n", strerror(-r));
	rm_tmpdir(c->tmpdir);
	free(c);
	return r < 0 ? -1 : 0;
}

/* Belt and braces: any test-launch-<our pid>-* left by a crash path. */
static int group_teardown(void **state)
{
	char p[PATH_MAX + 128];

	(void)state;
	for (unsigned i = 0; i < g_seq; i++) {
		snprintf(p, sizeof(p), "%s/%s/test-launch-%d-%u", g_mount, RF_CGROUP_PARENT,
			 (int)getpid(), i);
		(void)cgroup__destroy_path(p);
	}
	return 0;
}

/* ---- helpers ---- */

static int save_fd(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

static void restore_fd(int saved, int fd)
{
	if (saved >= 0) {
		dup2(saved, fd);
		close(saved);
	} else {
		close(fd);
	}
}

/* Launch with stdin=/dev/null and stdout+stderr into a pipe, collect the
 * output and how the command ended. No cmocka assertion may run while
 * stdout is redirected. */
static void run_capture(const struct launch_opts *o, struct run *r)
{
	int p[2], s0, s1, s2, nul;

	memset(r, 0, sizeof(*r));
	fflush(stdout);
	fflush(stderr);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(nul >= 0);
	s0 = save_fd(0);
	s1 = save_fd(1);
	s2 = save_fd(2);
	dup2(nul, 0);
	dup2(p[1], 1);
	dup2(p[1], 2);

	r->rc = launch__start(o, &r->res);

	restore_fd(s0, 0);
	restore_fd(s1, 1);
	restore_fd(s2, 2);
	close(nul);
	close(p[1]);

	for (;;) {
		ssize_t k = read(p[0], r->out + r->len, sizeof(r->out) - 1 - r->len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		r->len += (size_t)k;
	}
	r->out[r->len] = '\0';
	close(p[0]);

	if (r->rc == 0 && r->res.pidfd >= 0) {
		assert_int_equal(waitid(P_PIDFD, (id_t)r->res.pidfd, &r->si, WEXITED), 0);
		close(r->res.pidfd);
		r->res.pidfd = -1;
	}
	pidns__stop(&r->res.pidns);
}

/* The value of the first "key=" line, or NULL (static buffer). */
static const char *val(const struct run *r, const char *key)
{
	static char buf[4096];
	size_t kl = strlen(key);

	for (const char *l = r->out; *l; ) {
		const char *e = strchrnul(l, '\n');

		if ((size_t)(e - l) > kl && strncmp(l, key, kl) == 0 && l[kl] == '=') {
			snprintf(buf, sizeof(buf), "%.*s", (int)(e - l - kl - 1), l + kl + 1);
			return buf;
		}
		l = *e ? e + 1 : e;
	}
	return NULL;
}

static void assert_val(const struct run *r, const char *key, const char *want)
{
	const char *v = val(r, key);

	if (!v || strcmp(v, want) != 0) {
		fprintf(stderr, "%s: want \"%s\", got \"%s\"\n--- output:\n%s---\n", key, want,
			v ? v : "(none)", r->out);
		fail();
	}
}

/* The "env=" lines are exactly envp, in order. */
static void assert_env_exact(const struct run *r, char *const *envp)
{
	size_t i = 0;

	for (const char *l = r->out; *l; ) {
		const char *e = strchrnul(l, '\n');

		if (strncmp(l, "env=", 4) == 0) {
			if (!envp[i] || (size_t)(e - l - 4) != strlen(envp[i]) ||
			    strncmp(l + 4, envp[i], strlen(envp[i])) != 0) {
				fprintf(stderr, "unexpected env line: %.*s\n", (int)(e - l), l);
				fail();
			}
			i++;
		}
		l = *e ? e + 1 : e;
	}
	if (envp[i]) {
		fprintf(stderr, "missing env entry: %s\n", envp[i]);
		fail();
	}
}

static const char *cg_rel(const struct ctx *c)
{
	size_t ml = strlen(g_mount);

	assert_true(strncmp(c->cg.path, g_mount, ml) == 0);
	/* a pure v2 host mounted at "/" is not a thing; the rest starts with '/' */
	return c->cg.path + ml;
}

static void assert_exited(const struct run *r, int code)
{
	if (r->si.si_code != CLD_EXITED || r->si.si_status != code) {
		fprintf(stderr, "si_code %d si_status %d\n--- output:\n%s---\n", r->si.si_code,
			r->si.si_status, r->out);
		fail();
	}
}

/* Everything a started rf-inspect must report, for uid/gid. */
static void check_inspect(struct ctx *c, uid_t uid, gid_t gid)
{
	char *const argv[] = { g_inspect, "--probe", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "RF_TEST=hello world", "EMPTY=",
			       "WEIRD=a=b", NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = argv, .envp = envp, .uid = uid, .gid = gid,
	};
	sigset_t block, old_mask;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	struct rlimit rl;
	char want[PATH_MAX + 8], idbuf[32];
	int extra[4], high = 200;
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);

	/* fds the command must not see: plain, duped, high numbers */
	extra[0] = open("/dev/null", O_RDONLY);
	extra[1] = open(c->cg.path, O_RDONLY | O_DIRECTORY);
	assert_true(extra[0] >= 0 && extra[1] >= 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 1001)
		high = 1000;
	extra[2] = dup2(extra[0], high);
	extra[3] = dup2(extra[0], high - 1);
	assert_int_equal(extra[2], high);

	/* what the supervisor does: block for a signalfd, ignore some */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);

	run_capture(&o, r);

	sigaction(SIGPIPE, &old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	for (int i = 0; i < 4; i++)
		close(extra[i]);

	if (r->rc != 0 || r->res.failed_stage != LAUNCH_STAGE_NONE) {
		fprintf(stderr, "launch: rc %d stage %d err %s what %s\n", r->rc,
			r->res.failed_stage, strerror(r->res.err), r->res.what);
		fail();
	}
	assert_true(r->res.pid > 0);
	assert_exited(r, 0);

	/* it started inside the sandbox cgroup */
	snprintf(want, sizeof(want), "0::%s", cg_rel(c));
	{
		const char *l = strstr(r->out, "cgroup=0::");

		assert_non_null(l);
		assert_int_equal(strncmp(l + 7, want, strlen(want)), 0);
		assert_int_equal(l[7 + strlen(want)], '\n');
	}

	assert_val(r, "fds", "0,1,2");
	assert_val(r, "CapInh", ZERO_CAPS);
	assert_val(r, "CapPrm", ZERO_CAPS);
	assert_val(r, "CapEff", ZERO_CAPS);
	assert_val(r, "CapBnd", ZERO_CAPS);
	assert_val(r, "CapAmb", ZERO_CAPS);
	assert_val(r, "NoNewPrivs", "1");
	assert_val(r, "SigBlk", ZERO_CAPS);
	assert_val(r, "SigIgn", ZERO_CAPS);

	snprintf(idbuf, sizeof(idbuf), "%u", uid);
	assert_val(r, "uid", idbuf);
	assert_val(r, "euid", idbuf);
	assert_val(r, "suid", idbuf);
	snprintf(idbuf, sizeof(idbuf), "%u", gid);
	assert_val(r, "gid", idbuf);
	assert_val(r, "egid", idbuf);
	assert_val(r, "sgid", idbuf);
	assert_val(r, "groups", idbuf);
	assert_val(r, "arg", "--probe");
	assert_env_exact(r, envp);
	free(r);
}

/* ---- tests ---- */

static void test_inspect_nobody(void **state)
{
	check_inspect(*state, NOBODY, NOBODY);
}

static void test_inspect_root(void **state)
{
	check_inspect(*state, 0, 0);
}

static void test_keep_groups(void **state)
{
	struct ctx *c = *state;
	char *const argv[] = { g_inspect, NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = argv, .envp = NULL,
		.uid = 0, .gid = 0, .keep_groups = true,
	};
	gid_t g[256];
	int n = 256;
	char want[4096] = "";
	size_t off = 0;
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	/* root's memberships in the group database, not the test's own */
	assert_true(getgrouplist("root", 0, g, &n) >= 0);
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%u", i ? "," : "", g[i]);

	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_NONE);
	assert_exited(r, 0);
	assert_val(r, "groups", want);
	/* envp NULL: an empty environment */
	assert_null(strstr(r->out, "\nenv="));
	free(r);
}

static void test_path_lookup(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX + 64];
	char *argv[] = { "rf-inspect", "x", NULL };
	char *envp[] = { path, NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = argv, .envp = envp, .uid = NOBODY, .gid = NOBODY,
	};
	char *const true_argv[] = { "true", NULL };
	char *const no_env[] = { NULL };
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	/* missing dirs and a non-directory first: skipped like execvp */
	snprintf(path, sizeof(path), "PATH=/nonexistent:/etc/passwd:%s", g_tools);
	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_NONE);
	assert_exited(r, 0);
	assert_val(r, "arg", "x");
	assert_env_exact(r, envp);

	/* no PATH in envp: /usr/local/bin:/usr/bin:/bin */
	o.argv = true_argv;
	o.envp = no_env;
	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_NONE);
	assert_exited(r, 0);
	free(r);
}

static void test_missing_command(void **state)
{
	struct ctx *c = *state;
	char *const abs_argv[] = { "/nonexistent/rf-missing", NULL };
	char *const name_argv[] = { "rf-no-such-command", NULL };
	char *const envp[] = { "PATH=/nonexistent:/usr/bin:/bin", NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = abs_argv, .envp = envp, .uid = NOBODY, .gid = NOBODY,
	};
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_EXEC);
	assert_int_equal(r->res.err, ENOENT);
	assert_string_equal(r->res.what, "execve");
	assert_int_equal(r->res.pidfd, -1);
	assert_int_equal(r->res.pid, 0);

	o.argv = name_argv;
	o.uid = 0;
	o.gid = 0;
	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_EXEC);
	assert_int_equal(r->res.err, ENOENT);

	/* the failed children were reaped and left the cgroup */
	assert_int_equal(cgroup__count_procs(&c->cg), 0);
	free(r);
}

static void test_not_executable(void **state)
{
	struct ctx *c = *state;
	char file[PATH_MAX], path_env[PATH_MAX + 8];
	char *abs_argv[] = { file, NULL };
	char *name_argv[] = { "rf-noexec-cmd", NULL };
	char *envp[] = { path_env, NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = abs_argv, .envp = envp, .uid = NOBODY, .gid = NOBODY,
	};
	struct run *r = calloc(1, sizeof(*r));
	int fd;

	assert_non_null(r);
	snprintf(file, sizeof(file), "%s/noexec", c->tmpdir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\nexit 0\n", 17), 17);
	close(fd);

	run_capture(&o, r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_EXEC);
	assert_int_equal(r->res.err, EACCES);

	/* uid 0 without capabilities gets no DAC override either */
	o.uid = 0;
	o.gid = 0;
	run_capture(&o, r);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_EXEC);
	assert_int_equal(r->res.err, EACCES);

	/* found on PATH but not executable, nothing better later: EACCES */
	snprintf(file, sizeof(file), "%s/rf-noexec-cmd", c->tmpdir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path_env, sizeof(path_env), "PATH=%s:/nonexistent", c->tmpdir);
	o.argv = name_argv;
	run_capture(&o, r);
	assert_int_equal(r->res.failed_stage, LAUNCH_STAGE_EXEC);
	assert_int_equal(r->res.err, EACCES);
	free(r);
}

/* Without CAP_SETPCAP the securebits step fails: a SETUP failure comes
 * back over the pipe, nothing is executed. Done in a forked child so the
 * test process keeps its capabilities. */
static void test_setup_failure(void **state)
{
	struct ctx *c = *state;
	siginfo_t si;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
		char *const argv[] = { g_inspect, NULL };
		struct launch_opts o = {
			.cgroup_fd = c->cg.dir_fd, .argv = argv, .uid = NOBODY, .gid = NOBODY,
		};
		struct launch_result res;

		if (syscall(SYS_capget, &h, d) < 0)
			_exit(10);
		d[CAP_SETPCAP / 32].effective &= ~(1U << (CAP_SETPCAP % 32));
		if (syscall(SYS_capset, &h, d) < 0)
			_exit(11);
		if (launch__start(&o, &res) != 0)
			_exit(12);
		if (res.failed_stage != LAUNCH_STAGE_SETUP)
			_exit(13);
		if (res.err != EPERM)
			_exit(14);
		if (strcmp(res.what, "securebits") != 0)
			_exit(15);
		if (res.pid != 0 || res.pidfd != -1)
			_exit(16);
		_exit(0);
	}
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED), 0);
	assert_int_equal(si.si_code, CLD_EXITED);
	assert_int_equal(si.si_status, 0);
	assert_int_equal(cgroup__count_procs(&c->cg), 0);
}

static void test_bad_args(void **state)
{
	struct ctx *c = *state;
	char *const argv[] = { g_inspect, NULL };
	char *const empty_argv[] = { NULL };
	struct launch_opts o = { .cgroup_fd = -1, .argv = argv, .uid = NOBODY, .gid = NOBODY };
	struct launch_result res;
	int fd;

	assert_int_equal(launch__start(&o, &res), -EINVAL);
	assert_int_equal(res.pidfd, -1);
	o.cgroup_fd = c->cg.dir_fd;
	o.argv = empty_argv;
	assert_int_equal(launch__start(&o, &res), -EINVAL);
	o.argv = argv;
	o.uid = (uid_t)-1;
	assert_int_equal(launch__start(&o, &res), -EINVAL);
	o.uid = NOBODY;
	assert_int_equal(launch__start(&o, NULL), -EINVAL);

	/* not a cgroup: the clone itself fails, no process anywhere */
	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	o.cgroup_fd = fd;
	assert_true(launch__start(&o, &res) < 0);
	assert_int_equal(res.pid, 0);
	assert_int_equal(res.pidfd, -1);
	close(fd);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void test_destroy_kills(void **state)
{
	struct ctx *c = *state;
	char *const argv[] = { "/bin/sh", "-c", "sleep 100 & sleep 100 & exec sleep 100", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct launch_opts o = {
		.cgroup_fd = c->cg.dir_fd, .argv = argv, .envp = envp, .uid = NOBODY, .gid = NOBODY,
	};
	struct launch_result res;
	struct pollfd pfd;
	struct stat st;
	siginfo_t si;
	char path[sizeof(c->cg.path)];
	long deadline;
	int n = 0;

	assert_int_equal(launch__start(&o, &res), 0);
	assert_int_equal(res.failed_stage, LAUNCH_STAGE_NONE);
	assert_true(res.pidfd >= 0);
	assert_true(fcntl(res.pidfd, F_GETFD) & FD_CLOEXEC);

	/* the shell and its two background children */
	deadline = now_ms() + 5000;
	while (now_ms() < deadline) {
		n = cgroup__count_procs(&c->cg);
		if (n == 3)
			break;
		usleep(10000);
	}
	assert_int_equal(n, 3);

	/* not exited yet */
	pfd = (struct pollfd){ .fd = res.pidfd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);

	strcpy(path, c->cg.path);
	assert_int_equal(cgroup__destroy(&c->cg), 0);
	assert_int_equal(c->cg.dir_fd, -1);

	/* the command died of SIGKILL and the directory is gone */
	assert_int_equal(poll(&pfd, 1, 1000), 1);
	memset(&si, 0, sizeof(si));
	assert_int_equal(waitid(P_PIDFD, (id_t)res.pidfd, &si, WEXITED), 0);
	assert_int_equal(si.si_code, CLD_KILLED);
	assert_int_equal(si.si_status, SIGKILL);
	close(res.pidfd);
	pidns__stop(&res.pidns);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);

	/* idempotent, NULL-safe, and fine with what no longer exists */
	assert_int_equal(cgroup__destroy(&c->cg), 0);
	assert_int_equal(cgroup__destroy(NULL), 0);
	assert_int_equal(cgroup__destroy_path(path), 0);
	assert_int_equal(cgroup__destroy_path(NULL), 0);
	assert_true(cgroup__count_procs(&c->cg) < 0);
}

/* cgroup__remove_unused: a cgroup made under an open parent and never
 * entered goes with one rmdir; one a process went into after all falls
 * back to the whole destroy (the process killed, the directory gone). */
static void test_remove_unused(void **state)
{
	struct ctx *c = *state;
	char *const argv[] = { "/bin/sleep", "100", NULL };
	char name[64], path[sizeof(c->cg.path)];
	struct launch_opts o = { .argv = argv, .uid = NOBODY, .gid = NOBODY };
	struct launch_result res;
	struct rf_cgroup cg;
	siginfo_t si;
	int pfd;

	pfd = open(c->cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(pfd >= 0);
	snprintf(name, sizeof(name), "unused-%d", (int)getpid());
	assert_int_equal(cgroup__create_under(pfd, c->cg.path, name, &cg), 0);
	assert_true(cg.dir_fd >= 0);
	strcpy(path, cg.path);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(cgroup__remove_unused(pfd, &cg), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(cg.dir_fd, -1);
	assert_int_equal(cgroup__remove_unused(pfd, &cg), 0);   /* done: nothing */
	assert_int_equal(cgroup__create_under(pfd, "relative", name, &cg), -EINVAL);

	assert_int_equal(cgroup__create_under(pfd, c->cg.path, name, &cg), 0);
	o.cgroup_fd = cg.dir_fd;
	assert_int_equal(launch__start(&o, &res), 0);
	assert_int_equal(res.failed_stage, LAUNCH_STAGE_NONE);
	assert_int_equal(cgroup__remove_unused(pfd, &cg), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(waitid(P_PIDFD, (id_t)res.pidfd, &si, WEXITED), 0);
	assert_int_equal(si.si_code, CLD_KILLED);
	close(res.pidfd);
	pidns__stop(&res.pidns);
	close(pfd);
}

/* Nested cgroups below a sandbox (a uid-0 sandbox could make them) are
 * killed and removed too. */
static void test_destroy_nested(void **state)
{
	struct ctx *c = *state;
	char sub[PATH_MAX + 8], subsub[PATH_MAX + 8], path[sizeof(c->cg.path)];
	char *const argv[] = { "/bin/sleep", "100", NULL };
	struct launch_opts o = { .argv = argv, .uid = NOBODY, .gid = NOBODY };
	struct launch_result res;
	siginfo_t si;
	int fd;

	snprintf(sub, sizeof(sub), "%s/a", c->cg.path);
	snprintf(subsub, sizeof(subsub), "%s/a/b", c->cg.path);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(subsub, 0755), 0);
	fd = open(subsub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	o.cgroup_fd = fd;
	assert_int_equal(launch__start(&o, &res), 0);
	assert_int_equal(res.failed_stage, LAUNCH_STAGE_NONE);
	close(fd);

	strcpy(path, c->cg.path);
	assert_int_equal(cgroup__destroy_path(path), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(waitid(P_PIDFD, (id_t)res.pidfd, &si, WEXITED), 0);
	assert_int_equal(si.si_code, CLD_KILLED);
	close(res.pidfd);
	pidns__stop(&res.pidns);
	/* the fd-based destroy in teardown finds it gone: fine */
}

/* Whether the init sleeps in poll(2) (its wait from its setup on). */
static bool init_in_poll(pid_t pid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_poll;
}

/* The init's state letter and voluntary context switches (its sleeps). */
static char init_sleeps(pid_t pid, long *ret_vol)
{
	char path[64], line[256], st = 0;
	FILE *f;

	*ret_vol = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &st);
		else if (!strncmp(line, "voluntary_ctxt_switches:", 24))
			*ret_vol = strtol(line + 24, NULL, 10);
	}
	fclose(f);
	return st;
}

/* The PID namespace's init is not woken for the command's end (on a busy
 * host each wake-up of another task waits for a CPU): once it sleeps in
 * poll, it is still there and has not slept again after the command has
 * exited and been reaped, until the kill at teardown. Fails where the
 * init watched the command (it exited with it). */
static void test_init_not_woken(void **state)
{
	struct ctx *c = *state;
	char *const argv[] = { "/bin/sleep", "0.3", NULL };
	struct launch_opts o = { .cgroup_fd = c->cg.dir_fd, .argv = argv, .uid = NOBODY,
				 .gid = NOBODY };
	struct launch_result res;
	struct pollfd pfd;
	long before = -1, after = -1, deadline;
	siginfo_t si;

	assert_int_equal(launch__start(&o, &res), 0);
	assert_int_equal(res.failed_stage, LAUNCH_STAGE_NONE);
	assert_true(res.pidns.init_pid > 0);
	deadline = now_ms() + 2000;
	while (now_ms() < deadline && !init_in_poll(res.pidns.init_pid))
		usleep(5000);
	assert_int_equal(init_sleeps(res.pidns.init_pid, &before), 'S');
	assert_true(before >= 1);
	memset(&si, 0, sizeof(si));
	assert_int_equal(waitid(P_PIDFD, (id_t)res.pidfd, &si, WEXITED), 0);
	assert_int_equal(si.si_code, CLD_EXITED);
	usleep(100 * 1000);
	assert_int_equal(init_sleeps(res.pidns.init_pid, &after), 'S');
	assert_int_equal(after, before);
	pfd = (struct pollfd){ .fd = res.pidns.init_pidfd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);      /* alive */
	close(res.pidfd);
	pidns__stop(&res.pidns);
	assert_int_equal(res.pidns.init_pidfd, -1);
}

static void test_cgroup_basics(void **state)
{
	struct ctx *c = *state;
	struct rf_cgroup dup, zero;
	char mount[PATH_MAX], name[64];
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	uint64_t id = 0;
	int mnt_id, fd;
	const char *slash;
	bool had_stdin;

	assert_int_equal(cgroup__find_v2_mount(mount, sizeof(mount)), 0);
	assert_string_equal(mount, g_mount);
	assert_int_equal(cgroup__find_v2_mount(mount, 4), -ENAMETOOLONG);

	fd = cgroup__open_parent(g_mount);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	assert_true(cgroup__open_parent("/tmp") < 0);

	/* the id: inode number == kernfs id in the cgroup file handle,
	 * which is what bpf_get_current_cgroup_id() returns */
	assert_true(c->cg.id > 1);
	assert_int_equal(cgroup__id_of(c->cg.path, &id), 0);
	assert_int_equal(id, c->cg.id);
	h.fh.handle_bytes = sizeof(h.id);
	assert_int_equal(name_to_handle_at(AT_FDCWD, c->cg.path, &h.fh, &mnt_id, 0), 0);
	assert_int_equal(h.fh.handle_bytes, 8);
	memcpy(&id, h.fh.f_handle, sizeof(id));
	assert_int_equal(id, c->cg.id);
	assert_true(cgroup__id_of("/tmp", &id) < 0);

	assert_true(fcntl(c->cg.dir_fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(cgroup__count_procs(&c->cg), 0);

	/* same name again: EEXIST, and the output is safe to destroy */
	slash = strrchr(c->cg.path, '/');
	assert_int_equal(cgroup__create(g_mount, slash + 1, &dup), -EEXIST);
	assert_int_equal(dup.dir_fd, -1);
	assert_int_equal(cgroup__destroy(&dup), 0);
	assert_int_equal(access(c->cg.path, F_OK), 0);

	assert_int_equal(cgroup__create(g_mount, "", &dup), -EINVAL);
	assert_int_equal(cgroup__create(g_mount, "..", &dup), -EINVAL);
	assert_int_equal(cgroup__create(g_mount, "a/b", &dup), -EINVAL);
	snprintf(name, sizeof(name), "test-launch-%d-x", (int)getpid());
	assert_true(cgroup__create("/tmp", name, &dup) < 0);

	/* a zeroed struct is "nothing": fd 0 is not closed */
	memset(&zero, 0, sizeof(zero));
	had_stdin = fcntl(0, F_GETFD) >= 0;
	assert_int_equal(cgroup__destroy(&zero), 0);
	assert_int_equal(fcntl(0, F_GETFD) >= 0, had_stdin);

	/* never on something that is not a cgroup */
	assert_int_equal(cgroup__destroy_path("/tmp"), -EMEDIUMTYPE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cgroup_basics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_unused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inspect_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inspect_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_executable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_kills, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_nested, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_not_woken, setup, teardown),
	};
	const char *tools = getenv("TOOLS");
	char p[PATH_MAX];
	int r;

	if (harness_require_root() < 0)
		return 0;
	/* run_capture swaps 0-2: none of them may be free for a cgroup fd */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return 1;
	r = cgroup__find_v2_mount(g_mount, sizeof(g_mount));
	if (r < 0) {
		fprintf(stderr, "SKIP: no cgroup2 mount: %s\n", strerror(-r));
		return 0;
	}
	snprintf(p, sizeof(p), "%s/rf-inspect", tools && *tools ? tools : "build/tests/tools");
	if (!realpath(p, g_inspect)) {
		fprintf(stderr, "FAIL: %s: %s (build tests/tools first)\n", p, strerror(errno));
		return 1;
	}
	snprintf(g_tools, sizeof(g_tools), "%s", g_inspect);
	*strrchr(g_tools, '/') = '\0';

	return cmocka_run_group_tests(tests, NULL, group_teardown);
}
