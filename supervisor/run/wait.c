// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The supervisor while the command runs: one epoll loop over the
 * command's pidfd, the forwarded signals, Landlock's audit records, the
 * seccomp listener, the limits' fds, the pty relay's (tty_relay.c) and
 * the output relay's (out_relay.h): none of them ever blocks, so the
 * deadline fires whatever a terminal or a reader does
 * and the samples tick. The steps
 * around it (run.c) set it up and tear it down.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "cleanup.h"
#include "launch/launch.h"
#include "log.h"
#include "report.h"
#include "sandbox.h"
#include "steps.h"
#include "util/memtrim.h"
#include "wait.h"

/* Whether programs in the kernel record samples of this sandbox (its
 * denials, observed syscalls): only those need reading while it runs. */
static bool kernel_records(const struct sandbox *sb)
{
	uint32_t f = sb->sandbox_flags;

	return (f & ~(uint32_t)(RF_SB_NET_UNRESTRICTED | RF_SB_UNIX_UNRESTRICTED)) ||
	       !(f & RF_SB_NET_UNRESTRICTED) || !(f & RF_SB_UNIX_UNRESTRICTED);
}

/* The samples tick. The kernel rings no bell when it stores a sample, so
 * it is read on a clock, but only while the sandbox runs: a sample needs a
 * syscall of the command, and a command whose CPU time did not move since
 * the last read made none. Idle, the interval doubles up to idle_ms: a
 * minute, or a second where observed syscalls wait in a shared queue or
 * need their process still there to resolve a relative path. */
#define SAMPLE_ACTIVE_MS 100
#define SAMPLE_IDLE_MS 60000
#define SAMPLE_IDLE_OBSERVED_MS 1000

struct sample_tick {
	int fd;
	unsigned ms, idle_ms;
	uint64_t usage;           /* the cgroup's cpu.stat usage_usec at the last read */
};

static void tick_arm(struct sample_tick *t, const struct sandbox *sb, bool drained)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t usage = sandbox_limits__cpu_usec(&sb->cg);

	if (t->fd < 0)
		return;
	if (drained || usage != t->usage)
		t->ms = SAMPLE_ACTIVE_MS;
	else
		t->ms = t->ms * 2 < t->idle_ms ? t->ms * 2 : t->idle_ms;
	t->usage = usage;
	its.it_value.tv_sec = t->ms / 1000;
	its.it_value.tv_nsec = (long)(t->ms % 1000) * 1000000;
	timerfd_settime(t->fd, 0, &its, NULL);
}

/* Read the kernel's samples now; true when there were new ones. */
static bool drain_now(struct sandbox *sb)
{
	uint64_t seq = sb->next_seq;

	report__drain_samples(sb, false);
	return sb->next_seq != seq;
}

static void trim_idle(void)
{
	size_t kb = memtrim__idle();

	if (steps__timings())
		fprintf(stderr, "ringfence: timing: idle: %zu kB of start-up pages dropped\n", kb);
}

static void epoll_add(int ep, int fd, uint32_t events)
{
	struct epoll_event e = { .events = events, .data.fd = fd };

	if (fd >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
}

static int wait_setup(struct sandbox *sb, const struct launch_result *lr, int ep, int sfd,
		      struct sample_tick *t)
{
	int fds[1 + RF_LIMITS_OUT_MAX], n, i;

	epoll_add(ep, lr->pidfd, EPOLLIN);
	epoll_add(ep, sfd, EPOLLIN);
	epoll_add(ep, t->fd, EPOLLIN);
	epoll_add(ep, sb->la.fd, EPOLLIN);
	epoll_add(ep, sb->notify.fd, EPOLLIN);
	epoll_add(ep, flows__fd(sb), EPOLLIN);
	epoll_add(ep, filewatch__fd(sb), EPOLLIN);
	n = sandbox_limits__watch_fds(&sb->lw, fds);
	for (i = 0; i < n; i++)
		epoll_add(ep, fds[i], EPOLLIN);
	/* kernfs files always poll readable; a change is EPOLLPRI. */
	n = sandbox_limits__event_fds(&sb->lw, fds);
	for (i = 0; i < n; i++)
		epoll_add(ep, fds[i], EPOLLPRI);
	tick_arm(t, sb, true);
	return 0;
}

static int cgroup_events_open(const struct sandbox *sb)
{
	char path[sizeof(sb->cg.path) + 32];

	snprintf(path, sizeof(path), "%s/cgroup.events", sb->cg.path);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static bool cgroup_frozen(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, "frozen 1") != NULL;
}

/* The whole sandbox held still (cgroup v2's freezer) or let go: while
 * the supervisor is stopped no process of it runs, so a command that
 * stops itself cannot outlast wall_seconds by stopping its supervisor. */
static void freeze(const struct sandbox *sb, bool on)
{
	int fd = sb->cg.dir_fd < 0 ? -1 :
		 openat(sb->cg.dir_fd, "cgroup.freeze", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, on ? "1" : "0", 1) != 1)
		rf_debug("cgroup.freeze: %s", strerror(errno));
	close(fd);
}

/* Job control through the pty, as sudo does it: the command stopped
 * (^Z in its terminal, SIGSTOP): the caller's terminal gets its modes
 * back and the supervisor stops itself, so the caller's shell takes over
 * (`jobs` lists ringfence). Continued (fg, bg), it resumes the command.
 * Where nobody could continue it (an orphaned process group: the kernel
 * drops SIGTSTP) the command is continued at once. */
static void on_child_stop(struct sandbox *sb, const struct launch_result *lr)
{
	siginfo_t si = { 0 };

	if (waitid(P_PIDFD, lr->pidfd, &si, WSTOPPED | WNOHANG) || si.si_code != CLD_STOPPED)
		return;
	sb->tty_freeze = true;  /* cgroup.events will say frozen: ours */
	freeze(sb, true);
	tty_relay__pause(&sb->tty);
	signal(SIGTSTP, SIG_DFL);
	kill(getpid(), SIGTSTP);
	/* continued */
	tty_relay__resume(&sb->tty);
	freeze(sb, false);
	syscall(SYS_pidfd_send_signal, lr->pidfd, SIGCONT, NULL, 0);
}

static void on_signal(struct sandbox *sb, int sfd, const struct launch_result *lr)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return;
	/* The pty's own: the caller's size, the command's stop, our
	 * continuation (the shell's fg or bg). */
	switch (si.ssi_signo) {
	case SIGWINCH:
		tty_relay__winch(&sb->tty);
		return;
	case SIGCHLD:
		on_child_stop(sb, lr);
		return;
	case SIGCONT:
		tty_relay__resume(&sb->tty);
		return;
	}
	/* A terminal's signal already reached the child, which shares our
	 * process group; forward everything else. */
	if (si.ssi_code == SI_KERNEL && getpgid(lr->pid) == getpgrp())
		return;
	syscall(SYS_pidfd_send_signal, lr->pidfd, si.ssi_signo, NULL, 0);
}

static void on_notify(struct sandbox *sb, int ep, uint32_t events)
{
	/* A refusal of the boundary waits for its answer; once no task uses
	 * the filter it polls HUP. */
	int nr = events & (EPOLLHUP | EPOLLERR) ? -EPIPE :
		 notify__handle(&sb->notify, sb->cgid, !observe__test_disabled());

	if (nr < 0 && nr != -ENOENT) {
		epoll_ctl(ep, EPOLL_CTL_DEL, sb->notify.fd, NULL);
		notify__drop(&sb->notify);
	}
}

int wait__loop(struct sandbox *sb, const struct launch_result *lr, wait_limit_fn on_limit,
	       siginfo_t *ret_info)
{
	struct epoll_event evs[8];
	struct sample_tick t = { .fd = -1, .ms = SAMPLE_ACTIVE_MS, .idle_ms = SAMPLE_IDLE_MS };
	struct itimerspec trim_at = { .it_value = { .tv_sec = 1 } };
	_cleanup_close_ int ep = -1, sfd = -1, tfd = -1, trim = -1, cgev = -1;
	int err = 0, i, n;
	sigset_t mask;
	bool done = false, hit = false;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sb->tty.on) {
		/* blocked since the launch (run.c) */
		sigaddset(&mask, SIGWINCH);
		sigaddset(&mask, SIGCHLD);
		sigaddset(&mask, SIGCONT);
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (kernel_records(sb))
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || (kernel_records(sb) && tfd < 0) || ep < 0)
		return -errno;
	t.fd = tfd;
	if (sb->sandbox_flags & (RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS))
		t.idle_ms = SAMPLE_IDLE_OBSERVED_MS;
	wait_setup(sb, lr, ep, sfd, &t);
	tty_relay__start(&sb->tty);
	tty_relay__watch(&sb->tty, ep);
	sandbox_limits__watch(&sb->lw, ep);
	/* What start-up needed and the wait does not goes back to the kernel
	 * once the command has run a second: a short one is not slowed (its
	 * teardown would fault the pages back in). */
	trim = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (trim >= 0 && !timerfd_settime(trim, 0, &trim_at, NULL))
		epoll_add(ep, trim, EPOLLIN);
	/* ringfence-monitor's monitor.on_alert "freeze": seen as the cgroup's
	 * "frozen 1" (a change of cgroup.events polls EPOLLPRI) */
	cgev = cgroup_events_open(sb);
	epoll_add(ep, cgev, EPOLLPRI);
	while (!done) {
		n = epoll_wait(ep, evs, 8, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			uint64_t ticks;

			if (fd == lr->pidfd) {
				done = true;
			} else if (fd == sb->la.fd) {
				report__drain_landlock_audit(sb, false);
			} else if (fd == sb->notify.fd) {
				on_notify(sb, ep, evs[i].events);
			} else if (fd == sfd) {
				on_signal(sb, sfd, lr);
			} else if (fd == tfd) {
				if (read(tfd, &ticks, sizeof(ticks)) > 0)
					tick_arm(&t, sb, drain_now(sb));
			} else if (fd == cgev) {
				if (!cgroup_frozen(cgev))
					sb->tty_freeze = false;
				else if (!sb->tty_freeze)
					report__frozen(sb);
			} else if (fd == filewatch__fd(sb)) {
				filewatch__drain(sb);
			} else if (fd == flows__fd(sb)) {
				if (flows__tick(sb))
					on_limit(sb);
			} else if (fd == trim) {
				epoll_ctl(ep, EPOLL_CTL_DEL, trim, NULL);
				trim_idle();
			} else if (tty_relay__on_fd(&sb->tty, fd, evs[i].events, &sb->lw, &hit)) {
				/* the pty's output passed the budget */
				if (hit)
					on_limit(sb);
				hit = false;
			} else if (sandbox_limits__on_fd(&sb->lw, fd)) {
				/* A limit's fd: a relay pipe or ringfence's side of
				 * it (neither ever blocks: sandbox_limits__watch), the
				 * deadline or a cgroup's events file. */
				on_limit(sb);
			}
		}
		tty_relay__watch(&sb->tty, ep);
		sandbox_limits__watch(&sb->lw, ep);
	}
	memset(ret_info, 0, sizeof(*ret_info));
	if (waitid(P_PIDFD, lr->pidfd, ret_info, WEXITED))
		err = -errno;
	return err;
}
