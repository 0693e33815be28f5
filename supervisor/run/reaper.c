// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include "cgroup.h"
#include "launch/clone_vm.h"
#include "backends/enforcer.h"
#include "cgroups/gc.h"
#include "launch/dynuser.h"
#include "reaper.h"
#include "registry.h"

#define REAPER_BLOCK_SIZE (64u << 10)
#define REAPER_ARGS 8

/* What the reaper reads: at the bottom of its block (above the guard
 * page), its stack above. Written before the clone, never after. */
struct reaper_block {
	int pidfd;
	int done_fd;
	char *kill_file;          /* <cgroup>/cgroup.kill; NULL: keep running */
	char *argv[REAPER_ARGS];
	char *envp[2];
	char strs[3 * PATH_MAX + 128];
};

#define RSYS(nr, a, b, c, d) clone_vm__syscall((nr), (long)(a), (long)(b), (long)(c), (long)(d))

/* Only these stay open in the reaper: it must hold no trace file, pipe
 * or lock of the supervisor's, or it would keep them from ending. */
static void keep_only(int a, int b)
{
	long null = RSYS(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC, 0);
	unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);
	int fd;

	for (fd = 0; null >= 0 && fd <= 2; fd++)
		if (null != fd)
			RSYS(SYS_dup3, null, fd, 0, 0);
	RSYS(SYS_close_range, 3, lo - 1, 0, 0);
	RSYS(SYS_close_range, lo + 1, hi - 1, 0, 0);
	RSYS(SYS_close_range, hi + 1, ~0U, 0, 0);
}

/* The supervisor's handlers would run on its memory: none here. Terminal
 * signals are for the command; the reaper (and its clean-up) ignores them. */
static void reset_signals(void)
{
	uint64_t none = 0;
	int sig;

	for (sig = 1; sig < _NSIG; sig++) {
		bool ign = sig == SIGHUP || sig == SIGINT || sig == SIGQUIT || sig == SIGPIPE;
		struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; }
			ksa = { .handler = ign ? SIG_IGN : SIG_DFL };

		RSYS(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
	}
	RSYS(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
}

/* Until the supervisor has exited: its pidfd readable (a zombie counts). */
static void wait_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	long r;

	while ((r = RSYS(SYS_ppoll, &p, 1, NULL, NULL)) < 0 || !(p.revents & POLLIN))
		if (r < 0 && r != -EINTR)
			RSYS(SYS_exit_group, 1, 0, 0, 0);
}

/* The sandbox killed here, by the kernel, before anything else: no file
 * on disk (the binary may be gone or replaced by an upgrade), no memory
 * of the dead supervisor's is needed for it. */
static void kill_cgroup(const char *kill_file)
{
	long fd = RSYS(SYS_openat, AT_FDCWD, kill_file, O_WRONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return;   /* not made yet, or a kernel before cgroup.kill: __reap's loop */
	RSYS(SYS_write, fd, "1", 1, 0);
	RSYS(SYS_close, fd, 0, 0, 0);
}

/* The reaper itself: raw syscalls only (clone_vm.h). */
static void __attribute__((noreturn)) reaper_child(void *arg)
{
	const struct reaper_block *b = arg;
	struct pollfd p[2] = { { .fd = b->pidfd, .events = POLLIN },
			       { .fd = b->done_fd, .events = POLLIN } };
	char c;
	long r;

	reset_signals();
	keep_only(b->pidfd, b->done_fd);
	/* Own process group: no signal meant for the supervisor's (a
	 * terminal's ^C, kill -- -PGID) reaches it. Not a new session:
	 * setsid() moves a task into a new scheduler autogroup, a reschedule
	 * that costs milliseconds when the CPUs are busy. */
	RSYS(SYS_setpgid, 0, 0, 0, 0);
	while ((r = RSYS(SYS_ppoll, p, 2, NULL, NULL)) < 0)
		if (r != -EINTR)
			RSYS(SYS_exit_group, 1, 0, 0, 0);
	/* A byte: the supervisor cleaned up. EOF alone is its death (its
	 * end of the pipe closed with it). */
	if ((p[1].revents & POLLIN) && RSYS(SYS_read, b->done_fd, &c, 1, 0) == 1)
		RSYS(SYS_exit_group, 0, 0, 0, 0);
	/* Only the pidfd says it has exited: a copy of the pipe's write end
	 * may close first (a launch child before its exec). */
	wait_exited(b->pidfd);
	if (b->kill_file)
		kill_cgroup(b->kill_file);
	/* The rest (maps, registry, the cgroup's removal) in memory of its
	 * own: the binary the supervisor ran, whatever is at its path now. */
	RSYS(SYS_execve, "/proc/self/exe", b->argv, b->envp, 0);
	RSYS(SYS_exit_group, 1, 0, 0, 0);
	__builtin_unreachable();
}

/* keep-running: the command outlives its supervisor; clean up once the
 * cgroup is empty (cgroup.events is pollable: POLLPRI on change). */
static void wait_empty(const char *cgroup_path)
{
	char file[PATH_MAX];
	struct pollfd p = { .events = POLLPRI };

	snprintf(file, sizeof(file), "%s/cgroup.events", cgroup_path);
	p.fd = open(file, O_RDONLY | O_CLOEXEC);
	while (p.fd >= 0 && !cgroup__is_empty(cgroup_path))
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
	if (p.fd >= 0)
		close(p.fd);
}

int reaper__main(int argc, char **argv)
{
	unsigned long long start;
	int ret, pid;

	const char *dyn = getenv(RF_REAPER_UID_ENV);
	unsigned long uid = dyn ? strtoul(dyn, NULL, 10) : 0;

	if (argc != 6 || sscanf(argv[4], "%d", &pid) != 1 || sscanf(argv[5], "%llu", &start) != 1)
		return 2;
	/* Only after the supervisor it watched has gone. */
	if (pid <= 0 || registry__proc_start(pid) == start)
		return 2;
	if (!strcmp(argv[3], "1"))
		wait_empty(argv[2]);
	ret = gc__sandbox(argv[1], argv[2]);
	/* its uid's lock went with it; the file goes now, unless a new run
	 * holds the uid already (then that run removes it) */
	if (uid) {
		struct rf_dynuser d = { .uid = (uid_t)uid, .userns_fd = -1 };

		d.lock_fd = dynuser__lock_uid(d.uid);
		dynuser__release(&d);
	}
	/* The observe links, if the dead supervisor was the last live one,
	 * and its set, if a newer build's has replaced it. */
	enforcer__observe_idle();
	enforcer__retire_idle();
	return ret ? 1 : 0;
}

/* Above stdio, which the reaper points at /dev/null. */
static int above_stdio(int fd)
{
	int nfd;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd < 0 ? -errno : nfd;
}

/* argv for RF_REAPER_CMD, in the block's own strings. */
static int fill_block(struct reaper_block *b, const char *name, const char *cgroup_path,
		      bool keep_running, uid_t dyn_uid)
{
	char *s = b->strs, *end = b->strs + sizeof(b->strs);
	const char *args[REAPER_ARGS - 1] = { "ringfence", RF_REAPER_CMD, name, cgroup_path,
					      keep_running ? "1" : "0" };
	char pid[16], start[24];
	int i, n;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(start, sizeof(start), "%llu", (unsigned long long)registry__proc_start(getpid()));
	args[5] = pid;
	args[6] = start;
	for (i = 0; i < REAPER_ARGS - 1; i++) {
		n = snprintf(s, (size_t)(end - s), "%s", args[i]);
		if (n < 0 || n >= end - s)
			return -ENAMETOOLONG;
		b->argv[i] = s;
		s += n + 1;
	}
	b->argv[i] = NULL;
	b->envp[0] = b->envp[1] = NULL;
	if (dyn_uid) {
		n = snprintf(s, (size_t)(end - s), RF_REAPER_UID_ENV "=%u", (unsigned)dyn_uid);
		if (n < 0 || n >= end - s)
			return -ENAMETOOLONG;
		b->envp[0] = s;
		s += n + 1;
	}
	b->kill_file = NULL;
	if (keep_running)
		return 0;
	n = snprintf(s, (size_t)(end - s), "%s/cgroup.kill", cgroup_path);
	if (n < 0 || n >= end - s)
		return -ENAMETOOLONG;
	b->kill_file = s;
	return 0;
}

/* clone_vm where it exists, fork elsewhere: the same child either way. */
static long reaper_spawn(void *block, struct reaper_block *b)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	sigset_t all, old;
	long pid;

	if (!RF_CLONE_VM) {
		pid = fork();
		if (pid == 0)
			reaper_child(b);
		return pid < 0 ? -errno : pid;
	}
	/* Blocked across the clone: no supervisor handler may run in the
	 * reaper before it has reset the dispositions. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone_vm__clone3(&args, block, REAPER_BLOCK_SIZE, reaper_child, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int reaper__start(const char *name, const char *cgroup_path, bool keep_running, uid_t dyn_uid,
		  struct rf_reaper *ret)
{
	struct reaper_block *b;
	int pidfd = -1, fds[2] = { -1, -1 }, err;
	void *block;
	long pid;

	ret->done_fd = -1;
	ret->block = NULL;
	block = clone_vm__stack(REAPER_BLOCK_SIZE);
	if (!block)
		return -errno;
	b = (struct reaper_block *)((char *)block + getpagesize());
	err = fill_block(b, name, cgroup_path, keep_running, dyn_uid);
	if (err)
		goto fail;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pidfd = pidfd < 0 ? -errno : above_stdio(pidfd);
	if (pidfd < 0 || pipe2(fds, O_CLOEXEC)) {
		err = pidfd < 0 ? pidfd : -errno;
		goto fail;
	}
	fds[0] = above_stdio(fds[0]);
	if (fds[0] < 0) {
		err = fds[0];
		goto fail;
	}
	b->pidfd = pidfd;
	b->done_fd = fds[0];
	pid = reaper_spawn(block, b);
	if (pid < 0) {
		err = (int)pid;
		goto fail;
	}
	close(pidfd);
	close(fds[0]);
	ret->done_fd = fds[1];
	ret->pid = (pid_t)pid;
	ret->block = block;
	return 0;
fail:
	if (pidfd >= 0)
		close(pidfd);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	clone_vm__stack_free(block, REAPER_BLOCK_SIZE);
	return err;
}

void reaper__tell(struct rf_reaper *r)
{
	if (!r || r->done_fd < 0)
		return;
	if (write(r->done_fd, "x", 1) != 1) {
		/* it is gone already: nothing to tell */
	}
	close(r->done_fd);
	r->done_fd = -1;
}

void reaper__stop(struct rf_reaper *r)
{
	if (!r || !r->block)
		return;
	reaper__tell(r);
	/* Our child: reaped here, so no zombie is left to an init that
	 * may not reap; then its stack is ours again. */
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	clone_vm__stack_free(r->block, REAPER_BLOCK_SIZE);
	r->block = NULL;
}
