/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Start the sandboxed command, parent side: plan, clone3 into the cgroup, the child's report. */
#include <errno.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sched.h>

#include <bpf/bpf.h>
#include "cleanup.h"
#include "rf_abi.h"
#include "env.h"
#include "launch.h"
#include "clone_vm.h"
#include "launch_internal.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static char *const empty_env[] = { NULL };

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

/* keep_groups: the target user's memberships from the group database
 * (what a login would give), not the supervisor's own (root's).
 * Otherwise, and for a uid without a passwd entry, just {gid}. */
static int plan_groups(struct launch_plan *p, const struct launch_opts *o)
{
	struct passwd pw;
	char *buf = NULL;
	int n = 32, r;

	if (o->keep_groups) {
		r = launch_user__pw_lookup(NULL, o->uid, &pw, &buf);
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

int launch__cwd_within(const char *dir, char *ret_cwd, size_t len)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0), *real = NULL;
	size_t n;

	if (ret_cwd && len)
		ret_cwd[0] = '\0';
	if (!cwd)
		return -errno;
	if (ret_cwd && len)
		snprintf(ret_cwd, len, "%s", cwd);
	/* getcwd says "(unreachable)/..." for a cwd outside the root */
	if (cwd[0] != '/')
		return -ENOENT;
	real = realpath(dir, NULL);
	if (!real)
		return -errno;
	n = strlen(real);
	if (!strcmp(cwd, real))
		return 1;
	/* real "/" is refused by the policy, but stay exact: "/" + "x" */
	return !strncmp(cwd, real, n) && (cwd[n] == '/' || real[n - 1] == '/') ? 2 : 0;
}

/* A command started from inside the scratch path would keep the host's
 * hidden directory as its cwd (writable through "." under rules that
 * name the path): it starts in the new tmpfs's root when the cwd is the
 * scratch path itself; below it the supervisor refused already (plan). */
static int plan_scratch_cwd(struct launch_plan *p, const struct launch_opts *o)
{
	int r;

	/* The same for a private /tmp or /dev/shm (the planner refused a cwd
	 * below one); a scratch below one goes over a directory made there. */
	for (size_t i = 0; i < o->n_mounts; i++) {
		const char *mp = o->mounts[i].path;
		size_t n = strlen(mp);

		r = launch__cwd_within(mp, NULL, 0);
		if (r < 0)
			return r;
		if (r == 2)
			return -EXDEV;
		if (r == 1)
			p->chdir_mount = mp;
		if (o->scratch_path && !strncmp(o->scratch_path, mp, n) &&
		    o->scratch_path[n] == '/')
			p->mkdir_scratch = true;
	}
	if (!o->scratch_path)
		return 0;
	r = launch__cwd_within(o->scratch_path, NULL, 0);
	if (r < 0)
		return r;
	if (r == 2)
		return -EXDEV;
	p->chdir_scratch = r == 1;
	return 0;
}

static int by_length(const void *a, const void *b)
{
	size_t la = strlen(*(const char *const *)a), lb = strlen(*(const char *const *)b);

	return la < lb ? -1 : la > lb;
}

bool launch__path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

bool launch__private_below(const struct launch_mount *m, size_t n_m, const char *scratch,
			   const char *path)
{
	for (size_t i = 0; i < n_m; i++)
		if (launch__path_within(path, m[i].path))
			return true;
	return scratch && launch__path_within(path, scratch);
}

bool launch__rw_needs_map(const struct launch_mount *m, size_t n_m, const char *scratch,
			  const char *path)
{
	struct stat st;

	if (launch__private_below(m, n_m, scratch, path) || stat(path, &st) < 0)
		return false;
	/* A directory holds root's files (or will); a single file needs
	 * the mapping only when root's id decides whether it may write it. */
	if (S_ISDIR(st.st_mode))
		return true;
	return !(st.st_mode & S_IWOTH) && (st.st_uid == 0 || st.st_gid == 0);
}

/* Room for the child, which may not allocate: the write rules in the
 * order their trees go back, and an fd for each; which are id-mapped (a
 * private tmpfs mounted later over one needs no mapping). */
static int plan_rw_paths(struct launch_plan *p, const struct launch_opts *o)
{
	size_t n = 0, i;

	while (o->rw_paths && o->rw_paths[n])
		n++;
	p->rw_sorted = calloc(n + 1, sizeof(*p->rw_sorted));
	p->rw_fds = calloc(n + 1, sizeof(*p->rw_fds));
	p->rw_map = calloc(n + 1, sizeof(*p->rw_map));
	if (!p->rw_sorted || !p->rw_fds || !p->rw_map)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p->rw_sorted[i] = o->rw_paths[i];
		p->rw_fds[i] = -1;
	}
	qsort(p->rw_sorted, n, sizeof(*p->rw_sorted), by_length);
	for (i = 0; i < n; i++)
		p->rw_map[i] = o->idmap_fd > 2 &&
			       launch__rw_needs_map(o->mounts, o->n_mounts, o->scratch_path,
						    p->rw_sorted[i]);
	p->n_rw = n;
	p->rw_cwd = getcwd(NULL, 0);
	return p->rw_cwd ? 0 : -errno;
}

/* The per-mount flags a bind remount must repeat, or it fails (locked
 * flags) or silently drops them. */
static int plan_mounts(struct launch_plan *p, const struct launch_opts *o)
{
	struct stat st;
	size_t n = 0, i;

	while (o->ro_mounts && o->ro_mounts[n])
		n++;
	/* Always: the PID namespace's own /proc goes over the host's. */
	p->new_ns = true;
	/* Nowhere to put it: nothing of the host's is there either. */
	p->devpts_fd = o->devpts_fd > 2 && stat("/dev/pts", &st) == 0 && S_ISDIR(st.st_mode) ?
		       o->devpts_fd : -1;
	if (o->ro_tree || o->idmap_fd > 2) {
		int r = plan_rw_paths(p, o);

		if (r < 0)
			return r;
	}
	if (o->scratch_path)
		snprintf(p->scratch_opts, sizeof(p->scratch_opts),
			 "size=%llum,mode=1777,uid=%u,gid=%u", (unsigned long long)o->scratch_mb,
			 (unsigned)o->uid, (unsigned)o->gid);
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
	if (p->idmap_fd >= 0)
		close(p->idmap_fd);
	if (p->notify_w >= 0)
		close(p->notify_w);
	if (p->fan_fd >= 0)
		close(p->fan_fd);
	if (p->ctty_fd >= 0)
		close(p->ctty_fd);
	free(p->ro_flags);
	free(p->rw_sorted);
	free(p->rw_fds);
	free(p->rw_map);
	free(p->rw_cwd);
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
	if (r >= 0)
		r = plan_scratch_cwd(plan, opts);
	if (r < 0)
		return r;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	plan->err_w = pipefd[1];
	/* The read end only (an open file of its own; the child's write end
	 * blocks as ever): read_report. */
	if (RF_CLONE_VM && fcntl(pipefd[0], F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	if (opts->tty_fd <= 2) {
		/* opened here: in the child a BPF-LSM file rule would judge
		 * it already (the child starts in the sandbox's cgroup) */
		plan->ctty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (plan->ctty_fd < 0 && errno != ENXIO && errno != ENOENT)
			return -errno;
	}
	if (opts->landlock_fd > 0) {
		plan->ll_fd = fcntl(opts->landlock_fd, F_DUPFD_CLOEXEC, 10);
		if (plan->ll_fd < 0)
			return -errno;
	}
	if (opts->fanotify_fd > 2) {
		plan->fan_fd = fcntl(opts->fanotify_fd, F_DUPFD_CLOEXEC, 10);
		if (plan->fan_fd < 0)
			return -errno;
	}
	if (opts->idmap_fd > 2) {
		plan->idmap_fd = fcntl(opts->idmap_fd, F_DUPFD_CLOEXEC, 10);
		if (plan->idmap_fd < 0)
			return -errno;
	}
	return 0;
}

/* The ledger counts a unix socket without storage from its first byte in
 * a sandbox (bpf/rf_ledger_unix_own.bpf.h): empty storage (no flow) marks
 * the supervisor's own pair as not the sandbox's. Best effort: without it
 * the pair's one byte is an "unnamed" flow, not a failure. */
static void unmark_ledger(int map_fd, const int sv[2])
{
	struct rf_unix_sk none = { 0 };
	int i;

	for (i = 0; map_fd > 0 && i < 2; i++)
		(void)bpf_map_update_elem(map_fd, &sv[i], &none, BPF_NOEXIST);
}

/* A notifying boundary: a stream socket (no unix_may_send LSM hook on
 * its sends, unlike datagrams) the child sends its listener
 * over before it execs (in flight, the listener outlives the child's
 * copy; the command never holds it). *ret_r: the supervisor's end. */
static int plan_notify(const struct launch_opts *opts, struct launch_plan *plan, int *ret_r)
{
	int sv[2];

	if (!opts->seccomp || !opts->seccomp->notify)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	unmark_ledger(opts->unix_sk_fd, sv);
	*ret_r = sv[0];
	plan->notify_w = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
	close(sv[1]);
	return plan->notify_w < 0 ? -errno : 0;
}

/* The listener the child sent (it has exec'd: it sent it before). */
static int take_listener(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char c;
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0)
		return -errno;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

struct child_args {
	const struct launch_opts *opts;
	const struct launch_plan *plan;
	char *const *envp;
	const int *pipefd;
};

static void child_entry(void *p)
{
	const struct child_args *a = p;

	launch_child__main(a->opts, a->plan, a->envp, a->pipefd[0]);
}

/* clone3 into the cgroup, sharing memory until the child's execve
 * (launch_vfork.c); the child never returns. The pid, or -errno.
 * No fallback to fork + move: the child must never run outside the
 * cgroup, so ENOSYS/EINVAL here is a failure. */
static long launch_clone(const struct launch_opts *opts, const struct launch_plan *plan,
			 char *const *envp, const int pipefd[2], int *ret_pidfd)
{
	struct child_args ca = { opts, plan, envp, pipefd };
	struct clone_args args = { 0 };
	sigset_t all, old;
	long pid;
	int r;

	/* Blocked across the clone: no supervisor handler may run in the
	 * child before it has reset the dispositions. */
	sigfillset(&all);
	r = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (r != 0)
		return -r;
	/* Its own IPC namespace: no SysV object or POSIX queue of the host's
	 * is reachable by key, id or name. Its PID namespace is the init's
	 * (pidns__enter): the command is this process's child all the same. */
	args.flags = CLONE_INTO_CGROUP | CLONE_PIDFD | CLONE_NEWIPC |
		     (plan->new_ns ? CLONE_NEWNS : 0);
	args.pidfd = (uint64_t)(uintptr_t)ret_pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)opts->cgroup_fd;
	pid = launch_vfork__clone(&args, child_entry, &ca);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid;
}

/* The child's report from the error pipe: false on EOF (execve closed the
 * CLOEXEC write end, the command runs), else true with *ce filled. With
 * CLONE_VFORK the clone returned once the child had exec'd (past the point
 * of no return) or exited, after writing its one record (under PIPE_BUF:
 * atomic): an empty pipe (EAGAIN, fd non-blocking) says it runs, without
 * waiting for its exec to close the write end (a wake-up that waits for a
 * CPU on a busy host). */
static bool read_report(int fd, pid_t pid, struct child_err *ce)
{
	size_t got = 0;

	while (got < sizeof(*ce)) {
		ssize_t k = read(fd, (char *)ce + got, sizeof(*ce) - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN && got == 0)
			return false;
		if (k < 0) {
			int e = errno;

			/* cannot tell what the child is doing: stop it */
			(void)kill(pid, SIGKILL);
			*ce = (struct child_err){ .stage = LAUNCH_STAGE_SETUP, .err = e };
			launch_child__copy_what(ce->what, sizeof(ce->what), "read error pipe");
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
		launch_child__copy_what(ce->what, sizeof(ce->what), "short error record");
	}
	return true;
}

static int launch_run(const struct launch_opts *opts, struct launch_plan *plan,
		      char *const *envp, struct launch_result *res)
{
	_cleanup_close_ int rd = -1, wr = -1, pidfd = -1, notify_r = -1;
	struct child_err ce = { 0 };
	int pipefd[2] = { -1, -1 };
	long pid;
	int r;

	r = launch_prepare(opts, envp, plan, pipefd);
	rd = pipefd[0];
	wr = pipefd[1];
	if (r >= 0)
		r = plan_notify(opts, plan, &notify_r);
	if (r < 0)
		return r;
	r = pidns__start(&res->pidns);
	if (r < 0)
		return r;
	r = pidns__enter(&res->pidns);
	if (r < 0) {
		pidns__stop(&res->pidns);
		return r;
	}
	pid = launch_clone(opts, plan, envp, pipefd, &pidfd);
	/* Back before anything else: no later child of the supervisor's (a
	 * reaper, a helper) may land in the sandbox's namespace. */
	r = pidns__leave(&res->pidns);
	if (r < 0 && pid > 0) {
		(void)kill((pid_t)pid, SIGKILL);
		reap((pid_t)pid);
	}
	if (r < 0 || pid < 0) {
		pidns__stop(&res->pidns);
		return pid < 0 ? (int)pid : r;
	}
	close(TAKE_FD(wr));
	if (plan->notify_w >= 0)
		close(TAKE_FD(plan->notify_w));
	if (!read_report(rd, (pid_t)pid, &ce)) {
		if (notify_r >= 0) {
			res->notify_fd = take_listener(notify_r);
			if (res->notify_fd < 0) {
				/* not answered, the refusals would fail ENOSYS and
				 * nothing would see them: not started */
				(void)kill((pid_t)pid, SIGKILL);
				ce = (struct child_err){ .stage = LAUNCH_STAGE_SETUP,
							 .err = -res->notify_fd };
				launch_child__copy_what(ce.what, sizeof(ce.what),
							"take the seccomp listener");
				res->notify_fd = -1;
				goto failed;
			}
		}
		res->pid = (pid_t)pid;
		res->pidfd = TAKE_FD(pidfd);
		pidns__release(&res->pidns, true);
		return 0;
	}
failed:
	reap((pid_t)pid);
	pidns__stop(&res->pidns);
	res->failed_stage = ce.stage == LAUNCH_STAGE_EXEC ? LAUNCH_STAGE_EXEC : LAUNCH_STAGE_SETUP;
	res->err = ce.err > 0 ? ce.err : EPROTO;
	ce.what[sizeof(ce.what) - 1] = '\0';
	snprintf(res->what, sizeof(res->what), "%s", ce.what);
	return 0;
}

int launch__start(const struct launch_opts *opts, struct launch_result *res)
{
	struct launch_plan plan = { .err_w = -1, .ll_fd = -1, .idmap_fd = -1, .notify_w = -1,
				    .fan_fd = -1, .ctty_fd = -1,
				    .devpts_fd = -1 };
	int r;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->pidfd = res->notify_fd = -1;
	res->pidns = (struct rf_pidns){ .init_pidfd = -1, .go_w = -1, .self_ns = -1 };
	if (!opts || !opts->argv || !opts->argv[0] || opts->cgroup_fd < 0 ||
	    opts->uid == (uid_t)-1 || opts->gid == (gid_t)-1)
		return -EINVAL;
	r = launch_run(opts, &plan, opts->envp ? opts->envp : empty_env, res);
	plan_free(&plan);
	return r;
}
