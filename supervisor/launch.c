/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Start the sandboxed command: clone3(CLONE_INTO_CGROUP), scrub, drop, exec. */
#include <errno.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/securebits.h>

#include "cleanup.h"
#include "env.h"
#include "launch.h"
#include "sandbox_landlock.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Where the child keeps the error pipe's write end once every other fd
 * above stderr is closed. */
#define CHILD_ERR_FD 3
#define CHILD_LL_FD 4

/* Locked so the command can neither regain capabilities through uid 0
 * (exec, setuid) nor keep them across a uid change. */
#define CHILD_SECUREBITS                                                    \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |     \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED)

/* What the child sends when it gives up; one write, well under PIPE_BUF. */
struct child_err {
	int32_t stage;
	int32_t err;
	char what[64];
};

/* Everything that allocates, done before the clone. */
struct launch_plan {
	char **cands;            /* execve candidates, in PATH order */
	size_t n_cands;
	bool searched;           /* argv[0] had no '/': execvp rules */
	gid_t *groups;
	size_t n_groups;
	int last_cap;
	int ll_fd;                /* Landlock ruleset, duplicated >= 10; -1 none */
	unsigned long *ro_flags;  /* per ro_mounts entry: flags it keeps */
	size_t n_ro;
	bool new_ns;
};

static char *const empty_env[] = { NULL };

/* ---- the child: syscalls and async-signal-safe calls only ---- */

static void copy_what(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

static _Noreturn void child_fail(int fd, enum launch_stage stage, int err, const char *what)
{
	struct child_err ce = { .stage = stage, .err = err };

	copy_what(ce.what, sizeof(ce.what), what);
	if (write(fd, &ce, sizeof(ce)) < 0) {
		/* nothing left to tell (a syscalls allowlist without write):
		 * the status alone still says not found or not runnable */
	}
	_exit(stage == LAUNCH_STAGE_EXEC && err == ENOENT ? 127 : 126);
}

static int close_above(int fd)
{
	struct rlimit rl;

	if (close_range((unsigned)fd + 1, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* pre-5.9 kernel: walk the descriptor table */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1U << 20))
		rl.rlim_cur = 1U << 20;
	for (rlim_t i = (rlim_t)fd + 1; i < rl.rlim_cur; i++)
		(void)close((int)i);
	return 0;
}

/* Drop the bounding set; caps above the kernel's last give EINVAL. */
static int drop_bounding(int last_cap)
{
	for (int c = 0; c <= last_cap; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && c > 0)
			return 0;
		return -errno;
	}
	return 0;
}

static bool caps_all_clear(int last_cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &hdr, d) < 0)
		return false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return false;
	for (int c = 0; c <= last_cap; c++) {
		int b = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
		int a = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);

		if (b < 0 && errno == EINVAL)
			break;
		if (b != 0 || a != 0)
			return false;
	}
	return true;
}

static bool groups_match(const struct launch_plan *p)
{
	gid_t g[64];
	int n = getgroups(0, NULL);

	if (n < 0 || (size_t)n != p->n_groups)
		return false;
	if ((size_t)n > sizeof(g) / sizeof(g[0]))
		return true; /* too many to copy here; the count matched */
	if (getgroups(n, g) != n)
		return false;
	for (int i = 0; i < n; i++)
		if (g[i] != p->groups[i])
			return false;
	return true;
}

/* The supervisor's handlers and ignores, then its mask (it blocks the
 * signals it reads through a signalfd; blocked everything for the
 * clone). The raw syscall also resets the signals glibc keeps for
 * itself (32, 33), which an ignoring ancestor would otherwise pass
 * through exec. Failing for SIGKILL/SIGSTOP is expected. */
static void child_reset_signals(int err_w)
{
	sigset_t none;

	for (int sig = 1; sig < _NSIG; sig++) {
		struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; }
			ksa = { .handler = SIG_DFL };

		(void)syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		child_fail(err_w, LAUNCH_STAGE_SETUP, errno, "sigprocmask");
}

/* The error pipe at CHILD_ERR_FD, the Landlock ruleset right above it (it
 * sits at >= 10, so the first dup never clobbered it), nothing else above
 * stderr. */
static void child_fds(const struct launch_plan *p, int err_r, int err_w)
{
	const int efd = CHILD_ERR_FD;
	int r;

	if (err_w != efd) {
		if (dup3(err_w, efd, O_CLOEXEC) < 0)
			child_fail(err_w, LAUNCH_STAGE_SETUP, errno, "dup3");
		if (err_w < efd)
			(void)close(err_w);
	}
	if (err_r < efd)
		(void)close(err_r);
	if (p->ll_fd >= 0 && dup3(p->ll_fd, CHILD_LL_FD, O_CLOEXEC) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "dup3 landlock");
	r = close_above(p->ll_fd >= 0 ? CHILD_LL_FD : efd);
	if (r < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, -r, "close_range");
}

/* Private mounts first: an unmount below must not propagate to the
 * host's namespace through shared peer groups. */
static void child_mounts(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	size_t i;

	if (!p->new_ns)
		return;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount private");
	for (i = 0; i < p->n_ro; i++)
		if (mount(NULL, o->ro_mounts[i], NULL,
			  MS_BIND | MS_REMOUNT | MS_RDONLY | p->ro_flags[i], NULL) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "remount cgroup2 read-only");
	for (i = 0; o->detach_mounts && o->detach_mounts[i]; i++)
		if (umount2(o->detach_mounts[i], MNT_DETACH) < 0 && errno != EINVAL &&
		    errno != ENOENT)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "detach bpffs");
}

static void child_drop_privs(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	int r;

	/* Needs CAP_SETPCAP, like the bounding-set drop: while still root.
	 * (--keep-caps, a test-only mode, keeps them all: the caller made
	 * sure a kernel-side boundary is in force without them.) */
	if (!o->keep_caps && prctl(PR_SET_SECUREBITS, CHILD_SECUREBITS, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "securebits");
	r = o->keep_caps ? 0 : drop_bounding(p->last_cap);
	if (r < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, -r, "capbset_drop");
	if (!o->keep_caps && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "ambient_clear");

	/* Raw syscalls, not the libc wrappers: glibc broadcasts set*id to
	 * every thread it believes exists, and after a raw clone3 its thread
	 * list still describes the parent. Only this task must change. */
	if (syscall(SYS_setgroups, p->n_groups, p->groups) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setgroups");
	if (syscall(SYS_setresgid, o->gid, o->gid, o->gid) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setresgid");
	if (syscall(SYS_setresuid, o->uid, o->uid, o->uid) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setresuid");
	/* SECBIT_NO_SETUID_FIXUP kept the sets across setresuid: clear now */
	if (!o->keep_caps && syscall(SYS_capset, &hdr, caps) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "no_new_privs");
}

/* Trust but verify: a silently ignored step must not exec. */
static void child_verify(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (getresuid(&ru, &eu, &su) < 0 || ru != o->uid || eu != o->uid || su != o->uid)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify uid");
	if (getresgid(&rg, &eg, &sg) < 0 || rg != o->gid || eg != o->gid || sg != o->gid)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify gid");
	if (!groups_match(p))
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify groups");
	if (!o->keep_caps && !caps_all_clear(p->last_cap))
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify caps");
	if (!o->keep_caps && prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != CHILD_SECUREBITS)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify securebits");
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify no_new_privs");
}

/* The kernel-side confinement of this task, last: Landlock, then the
 * seccomp filters (which must still allow execve). */
static void child_confine(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	int r;

	if (p->ll_fd >= 0) {
		r = sandbox_landlock__restrict(CHILD_LL_FD);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock_restrict_self");
		(void)close(CHILD_LL_FD);
	}
	if (o->seccomp) {
		r = sandbox_seccomp__install(o->seccomp);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "seccomp");
	}
}

/* execvp's rules: a missing candidate moves on, EACCES is remembered,
 * anything else stops the search. */
static _Noreturn void child_exec(const struct launch_opts *o, const struct launch_plan *p,
				 char *const *envp, int efd)
{
	bool eacces = false;

	for (size_t i = 0; i < p->n_cands; i++) {
		int e;

		execve(p->cands[i], o->argv, envp);
		e = errno;
		if (!p->searched)
			child_fail(efd, LAUNCH_STAGE_EXEC, e, "execve");
		switch (e) {
		case EACCES:
			eacces = true;
			break;
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			child_fail(efd, LAUNCH_STAGE_EXEC, e, "execve");
		}
	}
	child_fail(efd, LAUNCH_STAGE_EXEC, eacces ? EACCES : ENOENT, "execve");
}

static _Noreturn void child_main(const struct launch_opts *o, const struct launch_plan *p,
				 char *const *envp, int err_r, int err_w)
{
	child_reset_signals(err_w);
	child_fds(p, err_r, err_w);
	/* A session of its own: no controlling terminal, so it cannot push
	 * input into the invoking shell's terminal (TIOCSTI) or signal its
	 * process group. The supervisor forwards terminal signals. */
	if (setsid() < 0)
		child_fail(CHILD_ERR_FD, LAUNCH_STAGE_SETUP, errno, "setsid");
	child_mounts(o, p, CHILD_ERR_FD);
	child_drop_privs(o, p, CHILD_ERR_FD);
	child_verify(o, p, CHILD_ERR_FD);
	child_confine(o, p, CHILD_ERR_FD);
	child_exec(o, p, envp, CHILD_ERR_FD);
}

/* ---- the parent ---- */

static int read_last_cap(void)
{
	char buf[16] = { 0 };
	int fd, last = 63; /* unknown: drop until the kernel says EINVAL */
	ssize_t k;

	fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return last;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k > 0) {
		char *end;
		long v = strtol(buf, &end, 10);

		if (end != buf && v >= 0 && v < 64)
			last = (int)v;
	}
	return last;
}

static int plan_add(struct launch_plan *p, char *s)
{
	char **v;

	if (!s)
		return -ENOMEM;
	v = realloc(p->cands, (p->n_cands + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	p->cands = v;
	p->cands[p->n_cands++] = s;
	return 0;
}

static int plan_candidates(struct launch_plan *p, const char *file, char *const *envp)
{
	const char *path, *s;

	if (strchr(file, '/'))
		return plan_add(p, strdup(file));

	p->searched = true;
	path = env__get(envp, "PATH");
	if (!path)
		path = DEFAULT_PATH;
	for (s = path; ; ) {
		const char *e = strchrnul(s, ':');
		char *c = NULL;
		int r;

		/* an empty element is the current directory, as in execvp */
		if (e == s)
			c = strdup(file);
		else if (asprintf(&c, "%.*s/%s", (int)(e - s), s, file) < 0)
			c = NULL;
		r = plan_add(p, c);
		if (r < 0)
			return r;
		if (!*e)
			break;
		s = e + 1;
	}
	return 0;
}

/* One passwd or group database query: by name (pw or gr) or by uid. */
struct db_query {
	const char *name;        /* NULL: passwd by uid */
	uid_t uid;
	struct passwd *pw;       /* NULL: a group query */
	struct group *gr;
};

static int db_call(const struct db_query *q, char *b, size_t len, bool *found)
{
	struct passwd *pres = NULL;
	struct group *gres = NULL;
	int e;

	if (!q->pw)
		e = getgrnam_r(q->name, q->gr, b, len, &gres);
	else if (q->name)
		e = getpwnam_r(q->name, q->pw, b, len, &pres);
	else
		e = getpwuid_r(q->uid, q->pw, b, len, &pres);
	*found = pres || gres;
	return e;
}

/* The query with a buffer (*buf, the caller frees) that grows on ERANGE.
 * 0, -ENOENT (no such entry) or another -errno. */
static int db_lookup(const struct db_query *q, char **buf)
{
	size_t len = 1024;

	for (;;) {
		char *b = realloc(*buf, len);
		bool found;
		int e;

		if (!b)
			return -ENOMEM;
		*buf = b;
		e = db_call(q, b, len, &found);
		if (e == ERANGE && len < (1U << 20)) {
			len *= 2;
			continue;
		}
		if (e == 0 && found)
			return 0;
		/* POSIX lets "not found" come back as any of these */
		if (e == 0 || e == ENOENT || e == ESRCH || e == EBADF || e == EPERM)
			return -ENOENT;
		return -e;
	}
}

static int pw_lookup(const char *name, uid_t uid, struct passwd *pw, char **buf)
{
	return db_lookup(&(struct db_query){ .name = name, .uid = uid, .pw = pw }, buf);
}

static int gr_lookup(const char *name, struct group *gr, char **buf)
{
	return db_lookup(&(struct db_query){ .name = name, .gr = gr }, buf);
}

/* keep_groups: the target user's memberships from the group database
 * (what a login would give), not the supervisor's own (root's).
 * Otherwise, and for a uid without a passwd entry, just {gid}. */
static int plan_groups(struct launch_plan *p, const struct launch_opts *o)
{
	struct passwd pw;
	char *buf = NULL;
	int n = 32, r;

	if (o->keep_groups) {
		r = pw_lookup(NULL, o->uid, &pw, &buf);
		if (r < 0 && r != -ENOENT)
			goto cleanup;
		if (r == 0) {
			for (;;) {
				int want = n;
				gid_t *g = realloc(p->groups, (size_t)n * sizeof(*g));

				if (!g) {
					r = -ENOMEM;
					goto cleanup;
				}
				p->groups = g;
				if (getgrouplist(pw.pw_name, o->gid, g, &n) >= 0)
					break;
				if (n <= want)
					n = want * 2;
				if (n > 65536) {
					r = -E2BIG;
					goto cleanup;
				}
			}
			p->n_groups = (size_t)n;
			r = 0;
			goto cleanup;
		}
	}

	free(p->groups);
	p->groups = malloc(sizeof(*p->groups));
	if (!p->groups) {
		r = -ENOMEM;
		goto cleanup;
	}
	p->groups[0] = o->gid;
	p->n_groups = 1;
	r = 0;

cleanup:
	free(buf);
	return r;
}

/* The per-mount flags a bind remount must repeat, or it fails (locked
 * flags) or silently drops them. */
static int plan_mounts(struct launch_plan *p, const struct launch_opts *o)
{
	size_t n = 0, i;

	while (o->ro_mounts && o->ro_mounts[n])
		n++;
	p->new_ns = n || (o->detach_mounts && o->detach_mounts[0]);
	if (!n)
		return 0;
	p->ro_flags = calloc(n, sizeof(*p->ro_flags));
	if (!p->ro_flags)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		static const struct { unsigned long st, ms; } keep[] = {
			{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
			{ ST_NOEXEC, MS_NOEXEC }, { ST_NOATIME, MS_NOATIME },
			{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
		};
		struct statvfs sv;

		if (statvfs(o->ro_mounts[i], &sv) < 0)
			return -errno;
		for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
			if (sv.f_flag & keep[k].st)
				p->ro_flags[i] |= keep[k].ms;
	}
	p->n_ro = n;
	return 0;
}

static void plan_free(struct launch_plan *p)
{
	if (p->ll_fd >= 0)
		close(p->ll_fd);
	free(p->ro_flags);
	for (size_t i = 0; i < p->n_cands; i++)
		free(p->cands[i]);
	free(p->cands);
	free(p->groups);
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Everything that allocates or can fail, done before the clone: the plan,
 * the CLOEXEC error pipe, the Landlock ruleset moved out of the child's
 * way (>= 10). */
static int launch_prepare(const struct launch_opts *opts, char *const *envp,
			  struct launch_plan *plan, int pipefd[2])
{
	int r;

	plan->last_cap = read_last_cap();
	r = plan_candidates(plan, opts->argv[0], envp);
	if (r >= 0)
		r = plan_groups(plan, opts);
	if (r >= 0)
		r = plan_mounts(plan, opts);
	if (r < 0)
		return r;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	if (opts->landlock_fd > 0) {
		plan->ll_fd = fcntl(opts->landlock_fd, F_DUPFD_CLOEXEC, 10);
		if (plan->ll_fd < 0)
			return -errno;
	}
	return 0;
}

/* clone3 into the cgroup; the child never returns. The pid, or -errno.
 * No fallback to fork + move: the child must never run outside the
 * cgroup, so ENOSYS/EINVAL here is a failure. */
static long launch_clone(const struct launch_opts *opts, const struct launch_plan *plan,
			 char *const *envp, const int pipefd[2], int *ret_pidfd)
{
	struct clone_args args = { 0 };
	sigset_t all, old;
	long pid;
	int r, e;

	/* Blocked across the clone: no supervisor handler may run in the
	 * child before it has reset the dispositions. */
	sigfillset(&all);
	r = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (r != 0)
		return -r;
	args.flags = CLONE_INTO_CGROUP | CLONE_PIDFD | (plan->new_ns ? CLONE_NEWNS : 0);
	args.pidfd = (uint64_t)(uintptr_t)ret_pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)opts->cgroup_fd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		child_main(opts, plan, envp, pipefd[0], pipefd[1]);
	e = errno;
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid < 0 ? -e : pid;
}

/* The child's report from the error pipe: false on EOF (execve closed the
 * CLOEXEC write end, the command runs), else true with *ce filled. */
static bool read_report(int fd, pid_t pid, struct child_err *ce)
{
	size_t got = 0;

	while (got < sizeof(*ce)) {
		ssize_t k = read(fd, (char *)ce + got, sizeof(*ce) - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			/* cannot tell what the child is doing: stop it */
			(void)kill(pid, SIGKILL);
			*ce = (struct child_err){ .stage = LAUNCH_STAGE_SETUP, .err = e };
			copy_what(ce->what, sizeof(ce->what), "read error pipe");
			return true;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (got == 0)
		return false;
	if (got < sizeof(*ce)) {
		*ce = (struct child_err){ .stage = LAUNCH_STAGE_SETUP, .err = EPROTO };
		copy_what(ce->what, sizeof(ce->what), "short error record");
	}
	return true;
}

static int launch_run(const struct launch_opts *opts, struct launch_plan *plan,
		      char *const *envp, struct launch_result *res)
{
	_cleanup_close_ int rd = -1, wr = -1, pidfd = -1;
	struct child_err ce = { 0 };
	int pipefd[2] = { -1, -1 };
	long pid;
	int r;

	r = launch_prepare(opts, envp, plan, pipefd);
	rd = pipefd[0];
	wr = pipefd[1];
	if (r < 0)
		return r;
	pid = launch_clone(opts, plan, envp, pipefd, &pidfd);
	if (pid < 0)
		return (int)pid;
	close(TAKE_FD(wr));
	if (!read_report(rd, (pid_t)pid, &ce)) {
		res->pid = (pid_t)pid;
		res->pidfd = TAKE_FD(pidfd);
		return 0;
	}
	reap((pid_t)pid);
	res->failed_stage = ce.stage == LAUNCH_STAGE_EXEC ? LAUNCH_STAGE_EXEC : LAUNCH_STAGE_SETUP;
	res->err = ce.err > 0 ? ce.err : EPROTO;
	ce.what[sizeof(ce.what) - 1] = '\0';
	snprintf(res->what, sizeof(res->what), "%s", ce.what);
	return 0;
}

int launch__start(const struct launch_opts *opts, struct launch_result *res)
{
	struct launch_plan plan = { .ll_fd = -1 };
	int r;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->pidfd = -1;
	if (!opts || !opts->argv || !opts->argv[0] || opts->cgroup_fd < 0 ||
	    opts->uid == (uid_t)-1 || opts->gid == (gid_t)-1)
		return -EINVAL;
	r = launch_run(opts, &plan, opts->envp ? opts->envp : empty_env, res);
	plan_free(&plan);
	return r;
}

/* A decimal id: digits only, no sign, and not (uid_t)-1, which the set*id
 * calls read as "leave unchanged". */
static int parse_id(const char *s, uint32_t *ret)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= UINT32_MAX)
			return -ERANGE;
	}
	*ret = (uint32_t)v;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A failed lookup of a user or group name as --user's error. */
static int lookup_fail(int r, const char *kind, const char *name, struct rf_error *err)
{
	if (r == -ENOENT)
		return rf_error_set(err, -EINVAL, "--user", "unknown %s \"%s\"", kind, name);
	return rf_error_set(err, r, "--user", "looking up %s \"%s\": %s", kind, name,
			    strerror(-r));
}

/* A decimal uid or gid of --user. */
static int parse_user_id(const char *s, const char *kind, uint32_t *ret, struct rf_error *err)
{
	if (parse_id(s, ret) < 0)
		return rf_error_set(err, -EINVAL, "--user", "invalid %s \"%s\"", kind, s);
	return 0;
}

/* --user's user part: a name, or a uid (with its passwd gid when it has
 * an entry: *ret_have_gid). */
static int resolve_uid(const char *user, uint32_t *ret_u, uint32_t *ret_g, bool *ret_have_gid,
		       char **buf, struct rf_error *err)
{
	struct passwd pw;
	int r;

	if (all_digits(user)) {
		r = parse_user_id(user, "uid", ret_u, err);
		if (r < 0)
			return r;
		r = pw_lookup(NULL, *ret_u, &pw, buf);
		if (r == -ENOENT)
			return 0;
		if (r < 0)
			return rf_error_set(err, r, "--user", "looking up uid %s: %s", user,
					    strerror(-r));
	} else {
		r = pw_lookup(user, 0, &pw, buf);
		if (r < 0)
			return lookup_fail(r, "user", user, err);
		*ret_u = pw.pw_uid;
	}
	*ret_g = pw.pw_gid;
	*ret_have_gid = true;
	return 0;
}

/* --user's ":group" part: a name or a gid. */
static int resolve_gid(const char *group, const char *spec, uint32_t *ret_g, char **buf,
		       struct rf_error *err)
{
	struct group gr;
	int r;

	if (!*group)
		return rf_error_set(err, -EINVAL, "--user", "empty group in \"%s\"", spec);
	if (all_digits(group))
		return parse_user_id(group, "gid", ret_g, err);
	r = gr_lookup(group, &gr, buf);
	if (r < 0)
		return lookup_fail(r, "group", group, err);
	*ret_g = gr.gr_gid;
	return 0;
}

/* No --user: under sudo the real ids are root's; the invoker is in env. */
static void resolve_invoker(uid_t *ret_uid, gid_t *ret_gid)
{
	uint32_t su, sg;

	if (parse_id(getenv("SUDO_UID"), &su) == 0 &&
	    parse_id(getenv("SUDO_GID"), &sg) == 0) {
		*ret_uid = su;
		*ret_gid = sg;
	} else {
		*ret_uid = getuid();
		*ret_gid = getgid();
	}
}

int launch__resolve_user(const char *spec, uid_t *ret_uid, gid_t *ret_gid,
			 struct rf_error *err)
{
	_cleanup_free_ char *copy = NULL, *buf = NULL;
	char *user, *group;
	uint32_t u = 0, g = 0;
	bool have_gid = false;
	int r;

	if (!ret_uid || !ret_gid)
		return -EINVAL;
	if (!spec) {
		resolve_invoker(ret_uid, ret_gid);
		return 0;
	}
	copy = strdup(spec);
	if (!copy)
		return rf_error_set(err, -ENOMEM, "--user", "out of memory");
	user = copy;
	group = strchr(copy, ':');
	if (group)
		*group++ = '\0';
	if (!*user)
		return rf_error_set(err, -EINVAL, "--user", "empty user in \"%s\"", spec);
	r = resolve_uid(user, &u, &g, &have_gid, &buf, err);
	if (r < 0)
		return r;
	if (group) {
		r = resolve_gid(group, spec, &g, &buf, err);
		if (r < 0)
			return r;
		have_gid = true;
	}
	/* a numeric uid nobody has: its gid is the same number */
	if (!have_gid)
		g = u;
	if (u == (uint32_t)-1 || g == (uint32_t)-1)
		return rf_error_set(err, -EINVAL, "--user", "invalid id in \"%s\"", spec);
	*ret_uid = u;
	*ret_gid = g;
	return 0;
}
