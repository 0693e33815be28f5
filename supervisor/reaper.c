// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "gc.h"
#include "reaper.h"

/* Only these stay open in the reaper: it must hold no trace file, pipe
 * or lock of the supervisor's, or it would keep them from ending. */
static void keep_only(int a, int b)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	close_range(3, (unsigned)lo - 1, 0);
	close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0U, 0);
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

static void __attribute__((noreturn))
reaper_main(int pidfd, int done_fd, const char *name, const char *cgroup_path,
	    bool keep_running)
{
	struct pollfd p[2] = { { .fd = pidfd, .events = POLLIN },
			       { .fd = done_fd, .events = POLLIN } };
	char c;
	int ret;

	keep_only(pidfd, done_fd);
	/* Terminal signals are for the command; the reaper stays. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			_exit(1);
	/* A byte: the supervisor cleaned up. EOF alone is its death (its
	 * end of the pipe closed with it). */
	if ((p[1].revents & POLLIN) && read(done_fd, &c, 1) == 1)
		_exit(0);
	if (keep_running)
		wait_empty(cgroup_path);
	ret = gc__sandbox(name, cgroup_path);
	/* The observe links, if the dead supervisor was the last live one. */
	enforcer__observe_idle();
	_exit(ret ? 1 : 0);
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

int reaper__start(const char *name, const char *cgroup_path, bool keep_running,
		  struct rf_reaper *ret)
{
	int pidfd, fds[2], err = 0;
	pid_t pid;

	ret->done_fd = -1;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pidfd = pidfd < 0 ? -errno : above_stdio(pidfd);
	if (pidfd < 0)
		return pidfd;
	if (pipe2(fds, O_CLOEXEC)) {
		err = -errno;
		close(pidfd);
		return err;
	}
	fds[0] = above_stdio(fds[0]);
	if (fds[0] < 0) {
		close(pidfd);
		close(fds[1]);
		return fds[0];
	}
	pid = fork();
	if (pid == 0) {
		/* Own session: no signal meant for the supervisor's process
		 * group (a terminal's ^C, kill -- -PGID) reaches it. */
		close(fds[1]);
		setsid();
		reaper_main(pidfd, fds[0], name, cgroup_path, keep_running);
	}
	if (pid < 0)
		err = -errno;
	close(pidfd);
	close(fds[0]);
	if (err) {
		close(fds[1]);
		return err;
	}
	ret->done_fd = fds[1];
	ret->pid = pid;
	return 0;
}

void reaper__stop(struct rf_reaper *r)
{
	if (!r || r->done_fd < 0)
		return;
	if (write(r->done_fd, "x", 1) != 1) {
		/* it is gone already: nothing to tell */
	}
	close(r->done_fd);
	r->done_fd = -1;
	/* Our child: reaped here, so no zombie is left to an init that
	 * may not reap. */
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
}
