// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The caller's terminal stays the supervisor's. Handed to the command it
 * would reach outside: TIOCSWINSZ signals the terminal's foreground job,
 * tcflow(TCOOFF) stops the terminal (and a relay blocked on it), writes
 * to fd 0 pass the output budget. The command gets a pty of its own
 * instead; everything between the two is copied here, from the wait
 * loop, on fds that never block (the caller's terminal is reopened: its
 * shared open file description, the shell's too, stays as it was), so
 * the limits' timers fire whatever the terminal does.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "backends/sandbox_limits.h"
#include "log.h"
#include "tty_relay.h"
#include "util/epoll_want.h"

/* The end of a run: a terminal that takes nothing for this long gets the
 * rest of the output dropped (a stopped terminal never holds the exit). */
#define FLUSH_STALL_MS 1000

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The caller's terminal as a description of our own, non-blocking; where
 * it cannot be reopened, the inherited one made non-blocking until the
 * end (*old_fl: its flags then). */
static int reopen(int fd, int *old_fl)
{
	char p[32];
	int r, fl;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	r = open(p, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (r >= 0)
		return r;
	fl = fcntl(fd, F_GETFL);
	r = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fl < 0 || r < 0 || fcntl(r, F_SETFL, fl | O_NONBLOCK) < 0) {
		int err = -errno;

		if (r >= 0)
			close(r);
		return err;
	}
	*old_fl = fl;
	return r;
}

static bool same_tty(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_rdev == sb.st_rdev;
}

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* A devpts instance of our own, detached: nobody's terminal but the
 * sandbox's is ever in it. Its ptmx for everyone (the command's own ptys,
 * through /dev/ptmx too: the kernel finds the pts next to it). */
static int devpts_new(void)
{
	int fs = (int)syscall(SYS_fsopen, "devpts", FSOPEN_CLOEXEC), mnt = -1, hi, err;

	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0620", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)) < 0) {
		err = -errno;
		close(fs);
		return err;
	}
	close(fs);
	/* Out of the launcher child's way, like the relay pipes. */
	hi = fcntl(mnt, F_DUPFD_CLOEXEC, 10);
	err = -errno;
	close(mnt);
	return hi >= 0 ? hi : err;
}

/* The command's pty, from the sandbox's devpts: its name is the one the
 * command sees (/dev/pts/0 there), its owner the command's uid. */
static int open_pty(struct rf_tty_relay *r, int model, uid_t uid, gid_t gid)
{
	struct termios t;
	struct winsize ws;
	unsigned int n;
	int m, s, hi, unlock = 0;

	m = openat(r->devpts, "ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -errno;
	if (ioctl(m, TIOCSPTLCK, &unlock) || ioctl(m, TIOCGPTN, &n) ||
	    (s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		int err = -errno;

		close(m);
		return err;
	}
	snprintf(r->pty_name, sizeof(r->pty_name), "/dev/pts/%u", n);
	if (fchown(s, uid, gid) < 0)
		rf_debug("chown %s: %s", r->pty_name, strerror(errno));
	/* The caller's modes (erase, kill, the signals' keys) and size. */
	if (tcgetattr(model, &t) == 0)
		tcsetattr(s, TCSANOW, &t);
	if (ioctl(model, TIOCGWINSZ, &ws) == 0)
		ioctl(m, TIOCSWINSZ, &ws);
	/* Out of the launcher child's way, like the relay pipes. */
	hi = fcntl(s, F_DUPFD_CLOEXEC, 10);
	close(s);
	if (hi < 0 || fcntl(m, F_SETFL, O_NONBLOCK) < 0) {
		int err = -errno;

		if (hi >= 0)
			close(hi);
		close(m);
		return err;
	}
	r->master = m;
	r->slave = hi;
	return 0;
}

static void relay_reset(struct rf_tty_relay *r)
{
	memset(r, 0, sizeof(*r));
	r->devpts = r->master = r->slave = r->in = r->out = r->saved_err = -1;
	r->restore_fl[0] = r->restore_fl[1] = -1;
}

/* The supervisor's own lines (a limit reached, -v's denials) on the
 * caller's terminal must not block it either: its stderr becomes our
 * non-blocking description of the same terminal until the end (a line
 * the terminal does not take at once is lost, never waited for). */
static void own_stderr(struct rf_tty_relay *r)
{
	int nb = r->out >= 0 && same_tty(2, r->out) ? r->out : -1;

	r->saved_err = -1;
	if (!r->std[2] || nb < 0)
		return;
	r->saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (r->saved_err >= 0 && dup2(nb, 2) < 0)
		close_fd(&r->saved_err);
}

int tty_relay__open(struct rf_tty_relay *r, uid_t uid, gid_t gid, struct rf_error *e)
{
	static const int out_order[] = { 1, 2, 0 };
	int fd, out_std = -1, err;
	size_t i;

	relay_reset(r);
	r->devpts = devpts_new();
	if (r->devpts < 0) {
		err = r->devpts;
		r->devpts = -1;
		return rf_error_set(e, err, "refused", "a /dev/pts of the sandbox's own: %s",
				    strerror(-err));
	}
	for (fd = 0; fd <= 2; fd++)
		r->std[fd] = isatty(fd);
	for (i = 0; i < 3 && out_std < 0; i++)
		if (r->std[out_std = out_order[i]] == false)
			out_std = -1;
	if (out_std < 0)
		return 0;
	r->on = true;
	r->to_term = calloc(1, sizeof(*r->to_term));
	r->to_pty = calloc(1, sizeof(*r->to_pty));
	err = r->to_term && r->to_pty ? open_pty(r, out_std, uid, gid) : -ENOMEM;
	if (!err && r->std[0] && (r->in = reopen(0, &r->restore_fl[0])) < 0)
		err = r->in;
	if (!err && r->in >= 0 && same_tty(0, out_std))
		r->out = r->in;
	else if (!err && (r->out = reopen(out_std, &r->restore_fl[1])) < 0)
		err = r->out;
	if (err) {
		tty_relay__close(r);
		return rf_error_set(e, err, "refused", "a pseudo-terminal for the command: %s",
				    strerror(-err));
	}
	if (ttyname_r(out_std, r->caller_name, sizeof(r->caller_name)))
		snprintf(r->caller_name, sizeof(r->caller_name), "fd %d", out_std);
	own_stderr(r);
	return 0;
}

static bool foreground(int fd)
{
	return tcgetpgrp(fd) == getpgrp();
}

/* tcsetattr from the background would stop us (SIGTTOU): blocked. At
 * once: TCSADRAIN would wait for a stopped terminal forever. */
static void set_modes(int fd, const struct termios *t)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(fd, TCSANOW, t);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void tty_relay__resume(struct rf_tty_relay *r)
{
	struct termios t;

	if (!r->on)
		return;
	tty_relay__winch(r);
	/* In the background the terminal is the shell's: neither its modes
	 * nor its input are ours (reading would stop us: SIGTTIN). */
	if (r->in < 0 || !foreground(r->in))
		return;
	r->input = true;
	if (r->raw || tcgetattr(r->in, &r->saved))
		return;
	t = r->saved;
	/* Every byte to the pty as typed: its own line discipline echoes,
	 * edits and makes the signals, for the command's foreground job. */
	cfmakeraw(&t);
	set_modes(r->in, &t);
	r->raw = true;
}

void tty_relay__pause(struct rf_tty_relay *r)
{
	r->input = false;
	if (r->raw)
		set_modes(r->in, &r->saved);
	r->raw = false;
}

void tty_relay__start(struct rf_tty_relay *r)
{
	close_fd(&r->devpts);   /* over /dev/pts in the command's namespace now */
	close_fd(&r->slave);
	tty_relay__resume(r);
}

void tty_relay__winch(struct rf_tty_relay *r)
{
	struct winsize ws;

	if (r->master >= 0 && ioctl(r->out, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}

static size_t room(const struct rf_tty_buf *b)
{
	return sizeof(b->data) - b->off - b->len;
}

void tty_relay__watch(struct rf_tty_relay *r, int ep)
{
	uint32_t in = 0, out = 0, m = 0;

	if (!r->on)
		return;
	if (r->input && room(r->to_pty))
		in |= EPOLLIN;
	if (r->to_term->len && !r->out_dead)
		out |= EPOLLOUT;
	if (!r->master_eof && room(r->to_term))
		m |= EPOLLIN;
	if (!r->master_eof && r->to_pty->len)
		m |= EPOLLOUT;
	if (r->out == r->in) {
		epoll_want__set(ep, r->in, &r->watched[0], in | out);
	} else {
		epoll_want__set(ep, r->in, &r->watched[0], in);
		epoll_want__set(ep, r->out, &r->watched_out, out);
	}
	epoll_want__set(ep, r->master, &r->watched[1], m);
}

/* Make room at the end of b. */
static void compact(struct rf_tty_buf *b)
{
	if (b->off && b->len)
		memmove(b->data, b->data + b->off, b->len);
	b->off = 0;
}

/* What fd has into b; -1 at its end (EOF, EIO: a hung up terminal or a
 * pty nobody holds), else the bytes read (0: none now). */
static ssize_t fill(int fd, struct rf_tty_buf *b)
{
	ssize_t n;

	compact(b);
	if (!room(b))
		return 0;   /* full (a HUP with no room asked): read 0 is no EOF */
	n = read(fd, b->data + b->len, room(b));
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	return n < 0 ? 0 : n;
}

/* b to fd as far as it takes it; false once fd is gone. */
static bool flush(int fd, struct rf_tty_buf *b)
{
	while (b->len) {
		ssize_t n = write(fd, b->data + b->off, b->len);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		b->off += (size_t)n;
		b->len -= (size_t)n;
	}
	b->off = 0;
	return true;
}

/* The command's output: what fits in the budget (lw) goes on (to
 * nowhere once the terminal is gone). The bytes read, -1 at the end. */
static ssize_t from_master(struct rf_tty_relay *r, struct rf_limits_watch *lw, bool *hit_now)
{
	ssize_t n = fill(r->master, r->to_term);

	if (n < 0) {
		r->master_eof = true;
		return -1;
	}
	r->to_term->len += sandbox_limits__admit_output(lw, (uint64_t)n, hit_now);
	if (r->out_dead) {
		r->dropped += r->to_term->len;
		r->to_term->off = r->to_term->len = 0;
	}
	return n;
}

static void term_gone(struct rf_tty_relay *r)
{
	/* Nobody reads the output any more: dropped from here on, the
	 * command's writes go on into the pty (as to a hung up terminal). */
	r->dropped += r->to_term->len;
	r->to_term->off = r->to_term->len = 0;
	r->out_dead = true;
}

bool tty_relay__on_fd(struct rf_tty_relay *r, int fd, uint32_t events,
		      struct rf_limits_watch *lw, bool *hit_now)
{
	bool ours = false;

	if (!r->on || fd < 0)
		return false;
	if (fd == r->master) {
		ours = true;
		if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			from_master(r, lw, hit_now);
		if ((events & EPOLLOUT) && !flush(r->master, r->to_pty))
			r->to_pty->len = 0;
	}
	if (fd == r->in) {
		ours = true;
		if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && r->input) {
			ssize_t n = fill(r->in, r->to_pty);

			if (n < 0)
				r->input = false;   /* EOF or hung up: no more input */
			else
				r->to_pty->len += (size_t)n;
		}
		if (r->to_pty->len && !r->master_eof)
			flush(r->master, r->to_pty);
	}
	if (fd == r->out && !r->out_dead) {
		ours = true;
		if ((events & (EPOLLOUT | EPOLLERR)) && !flush(r->out, r->to_term))
			term_gone(r);
	}
	/* Pass on what just came in at once: no extra round of the loop. */
	if (fd == r->master && !r->out_dead && r->to_term->len && !flush(r->out, r->to_term))
		term_gone(r);
	return ours;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void tty_relay__finish(struct rf_tty_relay *r, struct rf_limits_watch *lw)
{
	uint64_t last = now_ms();
	bool hit_now = false;

	if (!r->on)
		return;
	while (!r->out_dead) {
		struct pollfd p = { .fd = r->out, .events = POLLOUT };
		size_t before;
		ssize_t n = 0;
		uint64_t t = now_ms();

		/* The sandbox is dead: the pty holds all it wrote, and says
		 * EAGAIN only where a process survived the kill. */
		if (!r->master_eof && room(r->to_term))
			n = from_master(r, lw, &hit_now);
		if (!r->to_term->len && (r->master_eof || n <= 0))
			break;
		before = r->to_term->len;
		if (!flush(r->out, r->to_term)) {
			term_gone(r);
			break;
		}
		if (r->to_term->len != before || !r->to_term->len)
			last = t;
		else if (t - last >= FLUSH_STALL_MS)
			break;
		if (r->to_term->len)
			(void)poll(&p, 1, (int)(FLUSH_STALL_MS - (t - last)));
	}
	r->dropped += r->to_term->len;
	r->to_term->len = 0;
	tty_relay__pause(r);
}

void tty_relay__close(struct rf_tty_relay *r)
{
	close_fd(&r->devpts);
	if (!r->on)
		return;
	tty_relay__pause(r);
	if (r->saved_err >= 0) {
		dup2(r->saved_err, 2);
		close_fd(&r->saved_err);
	}
	if (r->restore_fl[0] >= 0)
		fcntl(r->in, F_SETFL, r->restore_fl[0]);
	if (r->restore_fl[1] >= 0 && r->out >= 0)
		fcntl(r->out, F_SETFL, r->restore_fl[1]);
	if (r->out != r->in)
		close_fd(&r->out);
	r->out = -1;
	close_fd(&r->in);
	close_fd(&r->master);
	close_fd(&r->slave);
	free(r->to_term);
	free(r->to_pty);
	r->to_term = r->to_pty = NULL;
	r->on = false;
}

json_t *tty_relay__json(const struct rf_tty_relay *r)
{
	json_t *fds = json_array();
	int fd;

	if (!r->on) {
		json_decref(fds);
		return NULL;
	}
	for (fd = 0; fd <= 2; fd++)
		if (r->std[fd])
			json_array_append_new(fds, json_integer(fd));
	return json_pack("{s:s, s:s, s:o, s:s}", "pty", r->pty_name, "caller", r->caller_name,
			 "fds", fds, "note", "the command ran on a private pseudo-terminal in a "
			 "session of its own, from a devpts instance of the sandbox's own over "
			 "/dev/pts; the supervisor relayed it to and from the caller's terminal, "
			 "which the command never held nor could open by name");
}
