// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sandbox's PID namespace and its init (pidns.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/sched.h>

#include "pidns.h"

#ifndef CLONE_NEWPID
#define CLONE_NEWPID 0x20000000
#endif

/* How long teardown waits for the killed init (and the kernel's kill of
 * its namespace) before leaving it to finish on its own. */
#define PIDNS_STOP_WAIT_MS 2000

/* The supervisor's handlers must never run here: defaults, all blocked
 * (a namespace's init gets no default-action signal from inside it; an
 * ancestor's SIGKILL still lands). Raw: glibc keeps 32 and 33 to itself. */
static void init_signals(void)
{
	for (int sig = 1; sig < _NSIG; sig++) {
		struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; }
			ksa = { .handler = SIG_DFL };

		(void)syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
	}
}

/* No fd of the supervisor's (its trace, pipes, the caller's terminal)
 * stays open here: stdio on /dev/null, only go_r above. */
static void init_fds(int go_r)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; null >= 0 && fd <= 2; fd++)
		if (fd != null)
			(void)dup2(null, fd);
	if (go_r > 3)
		(void)syscall(SYS_close_range, 3, go_r - 1, 0);
	(void)syscall(SYS_close_range, go_r + 1, ~0U, 0);
}

/* Nothing the command could borrow: no capability, not dumpable. */
static void init_drop(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	(void)prctl(PR_SET_NAME, "ringfence-init", 0, 0, 0);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Out of the supervisor's process group (kill -- -PGID, a terminal's
	 * signals), not a new session: setsid() moves a task into a new
	 * scheduler autogroup, a reschedule that costs milliseconds when the
	 * CPUs are busy. */
	(void)setpgid(0, 0);
	(void)syscall(SYS_capset, &hdr, caps);
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Reap every child; true once none is left. */
static bool init_reap(void)
{
	for (;;) {
		pid_t p = waitpid(-1, NULL, WNOHANG | __WALL);

		if (p > 0)
			continue;
		if (p < 0 && errno == EINTR)
			continue;
		return p < 0 && errno == ECHILD;
	}
}

/* Until the supervisor lets go of the command (go_r's EOF: its death, or
 * a launch that started nothing) the init only reaps orphans, and is
 * never woken for the command's start or end: the supervisor kills it
 * once the command has exited. From then on it watches the command
 * itself (kept running after its supervisor) and leaves with it. */
static _Noreturn void init_main(int go_r)
{
	sigset_t chld;
	struct pollfd p[2];
	bool watching = false;   /* p[1]: go_r before, the command's pidfd after */

	init_signals();
	init_fds(go_r);
	init_drop();
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	p[0] = (struct pollfd){ .fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK),
				.events = POLLIN };
	p[1] = (struct pollfd){ .fd = go_r, .events = POLLIN };
	if (p[0].fd < 0)
		_exit(1);
	for (;;) {
		struct signalfd_siginfo si;

		if (init_reap() && watching && p[1].fd < 0)
			_exit(0);
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		while (read(p[0].fd, &si, sizeof(si)) == sizeof(si))
			;
		if (p[1].fd < 0 || !(p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		/* go_r's EOF (nothing is ever written): then the command's
		 * pidfd (ESRCH: never started, or gone and reaped already);
		 * its exit: -1, which poll skips. */
		(void)close(p[1].fd);
		p[1].fd = watching ? -1 : (int)syscall(SYS_pidfd_open, RF_PIDNS_COMMAND_PID, 0);
		watching = true;
	}
}

int pidns__start(struct rf_pidns *ns)
{
	struct clone_args args = { .flags = CLONE_NEWPID | CLONE_PIDFD,
				   .exit_signal = SIGCHLD };
	int go[2], pidfd = -1;
	sigset_t all, old;
	long pid;

	*ns = (struct rf_pidns){ .init_pidfd = -1, .go_w = -1, .self_ns = -1 };
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	/* Blocked across the clone: no supervisor handler runs in the init
	 * before it has reset them. A copy (no CLONE_VM), returning here like
	 * fork, without glibc's fork handlers: it makes syscalls only. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		init_main(go[0]);
	if (pid < 0)
		pid = -errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		return (int)pid;
	}
	ns->init_pid = (pid_t)pid;
	ns->init_pidfd = pidfd;
	ns->go_w = go[1];
	return 0;
}

int pidns__enter(struct rf_pidns *ns)
{
	ns->self_ns = open("/proc/thread-self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ns->self_ns < 0)
		return -errno;
	if (syscall(SYS_setns, ns->init_pidfd, CLONE_NEWPID) < 0) {
		int e = errno;

		close(ns->self_ns);
		ns->self_ns = -1;
		return -e;
	}
	return 0;
}

int pidns__leave(struct rf_pidns *ns)
{
	int r = 0;

	if (ns->self_ns < 0)
		return 0;
	if (syscall(SYS_setns, ns->self_ns, CLONE_NEWPID) < 0)
		r = -errno;
	close(ns->self_ns);
	ns->self_ns = -1;
	return r;
}

void pidns__release(struct rf_pidns *ns, bool started)
{
	/* Started: go_w stays open, so the init is not woken now; it is
	 * killed once the command has exited (pidns__kill), or sees EOF at
	 * the supervisor's death. Not started: EOF now, and it exits. */
	if (ns->go_w < 0 || started)
		return;
	close(ns->go_w);
	ns->go_w = -1;
}

void pidns__kill(struct rf_pidns *ns)
{
	if (!ns || ns->init_pidfd < 0)
		return;
	(void)syscall(SYS_pidfd_send_signal, ns->init_pidfd, SIGKILL, NULL, 0);
	if (ns->go_w >= 0)
		close(ns->go_w);
	ns->go_w = -1;
}

void pidns__stop(struct rf_pidns *ns)
{
	struct pollfd p;

	if (!ns || ns->init_pidfd < 0)
		return;
	pidns__kill(ns);
	/* Its exit waits until every task of its namespace is gone, the
	 * command's zombie included (reaped by the caller first). */
	p = (struct pollfd){ .fd = ns->init_pidfd, .events = POLLIN };
	if (poll(&p, 1, PIDNS_STOP_WAIT_MS) == 1) {
		siginfo_t si;

		(void)waitid(P_PIDFD, (id_t)ns->init_pidfd, &si, WEXITED | __WALL);
	}
	close(ns->init_pidfd);
	ns->init_pidfd = -1;
	ns->init_pid = 0;
}
