// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-attack-tty: one attempt on the caller's terminal per run, as a
 * command inside a sandbox would try it (tests/attack/tty.list).
 *
 *   rf-attack-tty ATTEMPT DIR [ARGS...]
 *
 * Exit status as rf-attack-net: 0 the attempt succeeded (the caller's
 * terminal, or a process on it, was reached), 10 refused (EPERM, or the
 * effect never showed outside), 3 not applicable here, else a setup error.
 *
 * The caller's side runs OUTSIDE every sandbox:
 *   with-pty DIR ROWS COLS -- CMD ARGS...
 *       CMD in a session of its own on a fresh pty (its controlling
 *       terminal, ROWS x COLS, fds 0-2), beside a victim in the
 *       terminal's foreground process group. What reaches the terminal
 *       is judged here and left in DIR for the attempt to read:
 *         winch     the victim got SIGWINCH
 *         stopped   the terminal's output was stopped (TIOCPKT_STOP;
 *                   restarted at once)
 *         modes     the terminal's VKILL became 0x0b
 *         sti       input appeared in the terminal's input queue
 *         seen      the bytes of output that reached the terminal so far
 *       and DIR/name holds the terminal's name (/dev/pts/N) for the
 *       attempts that look for it by path.
 *       The output is copied to stdout (without CRs); the exit status is
 *       CMD's (128 + N for a signal).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define EXIT_REFUSED 10
#define EXIT_SETUP 2
#define EXIT_NA 3
#define MARK_VKILL 0x0b

static const char *dir;

static int setup(const char *what)
{
	fprintf(stderr, "rf-attack-tty: %s: %s\n", what, strerror(errno));
	return EXIT_SETUP;
}

static int verdict(const char *what, int e)
{
	printf("%s: %s\n", what, e ? strerror(e) : "ok");
	if (!e)
		return 0;
	return e == EPERM || e == EACCES ? EXIT_REFUSED : EXIT_SETUP;
}

/* A twin that does not work: refused, whatever the errno. */
static int missing(const char *what, int e)
{
	printf("%s: %s\n", what, strerror(e));
	return EXIT_REFUSED;
}

static void path_of(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void mark(const char *name)
{
	char p[512];

	path_of(name, p, sizeof(p));
	close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

static long read_num(const char *name)
{
	char p[512], buf[32] = "";
	int fd;

	path_of(name, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return strtol(buf, NULL, 10);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait up to 1 s for DIR/name. */
static bool wait_mark(const char *name)
{
	char p[512];
	int i;

	path_of(name, p, sizeof(p));
	for (i = 0; i < 50; i++) {
		if (access(p, F_OK) == 0)
			return true;
		sleep_ms(20);
	}
	return false;
}

static int said(bool reached, const char *name, const char *what)
{
	if (reached) {
		printf("%s: reached the caller's terminal (%s)\n", what, name);
		return 0;
	}
	printf("%s: never reached the caller's terminal\n", what);
	return EXIT_REFUSED;
}

/* 0 DIR/name came (the caller's terminal was reached), EXIT_REFUSED not. */
static int await_mark(const char *name, const char *what)
{
	return said(wait_mark(name), name, what);
}

/* ---- the caller's side (outside) ---- */

static volatile sig_atomic_t winched;
static void on_winch(int sig)
{
	(void)sig;
	winched = 1;
}

/* In the terminal's foreground process group, outside any sandbox: a
 * SIGWINCH it gets leaves DIR/winch. */
static _Noreturn void victim(int ready)
{
	struct sigaction sa = { .sa_handler = on_winch };
	sigset_t winch, none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGWINCH, &sa, NULL);
	/* blocked but while waiting: none comes between a look and a wait */
	sigemptyset(&winch);
	sigemptyset(&none);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, NULL);
	close(ready);   /* the attempt may start */
	for (;;) {
		sigsuspend(&none);
		if (winched)
			mark("winch");
		winched = 0;
	}
}

static _Noreturn void session(int slave, char **cmd)
{
	int fd, ready[2];
	char c;

	setsid();
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		_exit(setup("TIOCSCTTY"));
	for (fd = 0; fd <= 2; fd++)
		dup2(slave, fd);
	if (slave > 2)
		close(slave);
	if (pipe2(ready, O_CLOEXEC))
		_exit(setup("pipe"));
	if (fork() == 0) {
		close(ready[0]);
		victim(ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) < 0)
		_exit(setup("victim"));
	execvp(cmd[0], cmd);
	_exit(setup(cmd[0]));
}

static void write_num(const char *name, long v)
{
	char p[512], tmp[520];
	FILE *f;

	path_of(name, p, sizeof(p));
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "%ld\n", v);
	if (!fclose(f))
		rename(tmp, p);
}

/* What the attempts try to reach, looked at from the terminal's side. */
static void judge(int master, int slave, long *seen)
{
	unsigned char buf[4096];
	struct termios t;
	int q = 0;
	ssize_t n = read(master, buf, sizeof(buf)), i;

	if (n > 0 && buf[0] != TIOCPKT_DATA) {
		if (buf[0] & TIOCPKT_STOP) {
			mark("stopped");
			tcflow(slave, TCOON);
		}
	} else if (n > 1) {
		*seen += n - 1;
		write_num("seen", *seen);
		for (i = 1; i < n; i++)
			if (buf[i] != '\r')
				putchar(buf[i]);
		fflush(stdout);
	}
	if (!tcgetattr(slave, &t) && t.c_cc[VKILL] == MARK_VKILL)
		mark("modes");
	if (!ioctl(slave, FIONREAD, &q) && q > 0) {
		mark("sti");
		tcflush(slave, TCIFLUSH);
	}
}

static int with_pty(int rows, int cols, char **cmd)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	int master, slave, on = 1, st;
	long seen = 0;
	pid_t pid;

	static const char *const marks[] = { "winch", "stopped", "modes", "sti", "seen" };
	char p[512];
	size_t i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return setup("mkdir");
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		path_of(marks[i], p, sizeof(p));
		unlink(p);
	}
	if (openpty(&master, &slave, NULL, NULL, &ws) < 0) {
		printf("no pseudo-terminal here: %s\n", strerror(errno));
		return EXIT_NA;
	}
	path_of("name", p, sizeof(p));
	{
		FILE *f = fopen(p, "we");

		if (!f || fprintf(f, "%s\n", ttyname(slave)) < 0 || fclose(f))
			return setup("name");
	}
	if (ioctl(master, TIOCPKT, &on) < 0 || fcntl(master, F_SETFL, O_NONBLOCK) < 0)
		return setup("TIOCPKT");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return setup("fork");
	if (pid == 0) {
		close(master);
		session(slave, cmd);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };

		(void)poll(&p, 1, 20);
		judge(master, slave, &seen);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	judge(master, slave, &seen);   /* what is still on its way */
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- the attempts (inside) ---- */

/* TIOCSWINSZ on fd 0: the kernel signals the terminal's foreground job. */
static int do_winsize(void)
{
	struct winsize ws;

	unlink("winch");
	if (ioctl(0, TIOCGWINSZ, &ws) < 0)
		return verdict("TIOCGWINSZ", errno);
	ws.ws_row += 3;
	if (ioctl(0, TIOCSWINSZ, &ws) < 0)
		return verdict("TIOCSWINSZ", errno);
	return await_mark("winch", "SIGWINCH to the terminal's foreground job");
}

static int do_tcooff(void)
{
	bool reached;

	if (tcflow(0, TCOOFF) < 0)
		return verdict("tcflow TCOOFF", errno);
	reached = wait_mark("stopped");
	/* its own terminal, stopped, would hold the verdict's line */
	tcflow(0, TCOON);
	return said(reached, "stopped", "the terminal's output stopped");
}

static int do_modes(void)
{
	struct termios t;

	if (tcgetattr(0, &t) < 0)
		return verdict("tcgetattr", errno);
	t.c_cc[VKILL] = MARK_VKILL;
	if (tcsetattr(0, TCSANOW, &t) < 0)
		return verdict("tcsetattr", errno);
	return await_mark("modes", "the terminal's modes changed");
}

static int do_sti(void)
{
	const char *c;

	/* a whole line: the terminal's reader (canonical mode) sees it */
	for (c = "#\n"; *c; c++)
		if (ioctl(0, TIOCSTI, c) < 0)
			return verdict("TIOCSTI", errno);
	return await_mark("sti", "input pushed into the terminal");
}

/* Past the relay: 4 x the budget written to fd 0 reaches the terminal. */
static int do_write_fd0(long budget)
{
	static char buf[4096];
	long want = 4 * budget, done = 0;
	int i;

	memset(buf, 'w', sizeof(buf));
	for (i = 63; i < (int)sizeof(buf); i += 64)
		buf[i] = '\n';
	while (done < want) {
		ssize_t n = write(0, buf, (size_t)(want - done) < sizeof(buf) ?
					  (size_t)(want - done) : sizeof(buf));

		if (n < 0)
			return verdict("write to fd 0", errno);
		done += n;
	}
	for (i = 0; i < 50 && read_num("seen") < want; i++)
		sleep_ms(20);
	printf("\n");
	if (read_num("seen") >= want) {
		printf("%ld bytes through fd 0 reached the terminal\n", want);
		return 0;
	}
	printf("the terminal saw %ld of %ld bytes\n", read_num("seen"), want);
	return EXIT_REFUSED;
}

/* The caller's terminal by name: TIOCSWINSZ through what fd opened
 * signals its foreground job (the effect outside is the verdict: a pty
 * of the sandbox's own under the same name signals nobody there). */
static int winsize_through(int fd, const char *what)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) < 0)
		return verdict("TIOCGWINSZ", errno);
	ws.ws_row += 3;
	if (ioctl(fd, TIOCSWINSZ, &ws) < 0)
		return verdict("TIOCSWINSZ", errno);
	return await_mark("winch", what);
}

/* An open by name that found nothing is a refusal here. */
static int not_found(const char *what, const char *path, int e)
{
	printf("%s %s: %s\n", what, path, strerror(e));
	return e == ENOENT || e == ENXIO || e == EIO || e == EPERM || e == EACCES ? EXIT_REFUSED :
										EXIT_SETUP;
}

static bool caller_name(char *buf, size_t len)
{
	char p[512];
	FILE *f;
	bool ok;

	path_of("name", p, sizeof(p));
	f = fopen(p, "re");
	ok = f && fgets(buf, (int)len, f);
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

/* /dev/pts/N, the caller's terminal, opened by its path. */
static int do_pts_path(void)
{
	char name[256];
	int fd;

	unlink("winch");
	if (!caller_name(name, sizeof(name)))
		return setup("the caller's terminal's name");
	fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return not_found("open", name, errno);
	return winsize_through(fd, "SIGWINCH through the caller's terminal opened by name");
}

/* Any process's fd on the caller's terminal, through /proc/PID/fd/N. */
static int do_pts_procfd(void)
{
	char name[256], link[512], target[256];
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *pe, *fe;
	ssize_t n;
	int fd = -1;

	unlink("winch");
	if (!caller_name(name, sizeof(name)) || !proc)
		return setup("the caller's terminal's name, /proc");
	while (fd < 0 && (pe = readdir(proc))) {
		if (pe->d_name[0] < '0' || pe->d_name[0] > '9')
			continue;
		snprintf(link, sizeof(link), "/proc/%s/fd", pe->d_name);
		fds = opendir(link);
		while (fds && fd < 0 && (fe = readdir(fds))) {
			snprintf(link, sizeof(link), "/proc/%s/fd/%s", pe->d_name, fe->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			if (!strcmp(target, name))
				fd = open(link, O_RDWR | O_NOCTTY | O_CLOEXEC);
		}
		if (fds)
			closedir(fds);
	}
	closedir(proc);
	if (fd < 0) {
		printf("no fd on %s that opens\n", name);
		return EXIT_REFUSED;
	}
	return winsize_through(fd, "SIGWINCH through a /proc/PID/fd link to the caller's terminal");
}

/* The twins. Its own terminal by its own name (ttyname): the same pty. */
static int do_pts_own(void)
{
	const char *name = ttyname(0);
	struct stat a, b;
	int fd;

	if (!name)
		return missing("ttyname of its own terminal", errno);
	fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return missing(name, errno);
	if (fstat(fd, &a) || fstat(0, &b) || a.st_rdev != b.st_rdev || a.st_dev != b.st_dev)
		return missing("the same terminal by its name", EPERM);
	printf("its own terminal %s opened by name\n", name);
	return 0;
}

/* A pty of its own made inside (script, ssh -t, an editor's terminal):
 * /dev/ptmx, its slave by name, a byte through both. */
static int do_ptmx(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;
	char name[128], c = 0;

	if (m < 0)
		return missing("/dev/ptmx", errno);
	if (grantpt(m) || unlockpt(m) || ptsname_r(m, name, sizeof(name)))
		return missing("unlockpt, ptsname", errno);
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return missing(name, errno);
	if (write(m, "p\n", 2) != 2 || read(s, &c, 1) != 1 || c != 'p')
		return missing("a byte through the new pty", errno ? errno : EIO);
	printf("a pty of its own: %s\n", name);
	return 0;
}

/* The terminal's size, as the caller set it. */
static int do_size(int rows, int cols)
{
	struct winsize ws;

	if (ioctl(0, TIOCGWINSZ, &ws) < 0)
		return verdict("TIOCGWINSZ", errno);
	printf("size %u x %u\n", ws.ws_row, ws.ws_col);
	return ws.ws_row == rows && ws.ws_col == cols ? 0 : EXIT_REFUSED;
}

/* A terminal of its own: /dev/tty opens, its size can be set and read
 * back, the command's process group is its foreground. */
static int do_own(void)
{
	struct winsize ws, back;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return missing("open /dev/tty", errno);
	if (tcgetpgrp(fd) != getpgrp())
		return missing("foreground of its own terminal", EPERM);
	if (ioctl(fd, TIOCGWINSZ, &ws) < 0)
		return missing("TIOCGWINSZ", errno);
	ws.ws_col += 1;
	if (ioctl(fd, TIOCSWINSZ, &ws) < 0 || ioctl(fd, TIOCGWINSZ, &back) < 0)
		return missing("TIOCSWINSZ", errno);
	ws.ws_col -= 1;
	ioctl(fd, TIOCSWINSZ, &ws);
	if (back.ws_col != ws.ws_col + 1)
		return missing("its own terminal's size", EPERM);
	return verdict("its own terminal: /dev/tty, foreground, size", 0);
}

/* Job control inside: a child in a process group of its own made the
 * terminal's foreground, then the parent takes it back. */
static int do_jobs(void)
{
	pid_t me = getpgrp(), child;
	int st;

	signal(SIGTTOU, SIG_IGN);
	child = fork();
	if (child == 0) {
		setpgid(0, 0);
		for (st = 0; st < 100 && tcgetpgrp(0) != getpid(); st++)
			sleep_ms(10);
		_exit(tcgetpgrp(0) == getpid() ? 0 : 1);
	}
	setpgid(child, child);
	if (tcsetpgrp(0, child) < 0)
		return missing("tcsetpgrp to a job", errno);
	waitpid(child, &st, 0);
	if (tcsetpgrp(0, me) < 0)
		return missing("tcsetpgrp back", errno);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return missing("job control on its own terminal", EPERM);
	return verdict("job control on its own terminal", 0);
}

/* Output within the budget reaches the terminal. */
static int do_write(long n)
{
	long i;

	for (i = 0; i < n; i++)
		putchar('o');
	printf("\n");
	fflush(stdout);
	for (i = 0; i < 50 && read_num("seen") < n; i++)
		sleep_ms(20);
	printf("output: %ld of %ld bytes seen\n", read_num("seen"), n);
	return read_num("seen") >= n ? 0 : EXIT_REFUSED;
}

static int usage(void)
{
	fprintf(stderr, "usage: rf-attack-tty ATTEMPT DIR [ARGS]\n"
		"       rf-attack-tty with-pty DIR ROWS COLS -- CMD ARGS...\n");
	return EXIT_SETUP;
}

int main(int argc, char **argv)
{
	const char *a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		return usage();
	a = argv[1];
	dir = argv[2];
	if (!strcmp(a, "with-pty") && argc > 6 && !strcmp(argv[5], "--"))
		return with_pty(atoi(argv[3]), atoi(argv[4]), argv + 6);
	if (chdir(dir) < 0)
		return setup("chdir");
	dir = ".";
	if (!strcmp(a, "winsize"))
		return do_winsize();
	if (!strcmp(a, "tcooff"))
		return do_tcooff();
	if (!strcmp(a, "modes"))
		return do_modes();
	if (!strcmp(a, "sti"))
		return do_sti();
	if (!strcmp(a, "write-fd0") && argc > 3)
		return do_write_fd0(atol(argv[3]));
	if (!strcmp(a, "size") && argc > 4)
		return do_size(atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(a, "own"))
		return do_own();
	if (!strcmp(a, "pts-path"))
		return do_pts_path();
	if (!strcmp(a, "pts-procfd"))
		return do_pts_procfd();
	if (!strcmp(a, "pts-own"))
		return do_pts_own();
	if (!strcmp(a, "ptmx"))
		return do_ptmx();
	if (!strcmp(a, "jobs"))
		return do_jobs();
	if (!strcmp(a, "write") && argc > 3)
		return do_write(atol(argv[3]));
	return usage();
}
