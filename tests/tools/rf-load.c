// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-load: workloads run inside sandboxes by the monitor's tests and
 * benchmark. Each operation runs for real and reports one line:
 *   OP ARG RESULT     (RESULT: "ok", a number, or the errno name)
 * Operations:
 *   forks N HOLD_MS      N children that each live HOLD_MS, then exit
 *   mem MB HOLD_MS       allocate and touch MB MiB, hold HOLD_MS
 *   spin MS              burn CPU for MS
 *   sleep MS             wait
 *   syscall NAME         one call of NAME (getcpu uname sysinfo times
 *                        sched_yield getpriority getppid)
 *   work                 ordinary work: a temp file written, read, stat'd
 *                        and removed; one child forked and reaped
 *   spin-syscall N       N getppid() syscalls: prints nanoseconds per call
 *   signal PID           kill(PID, SIGTERM)
 *   ptrace PID           PTRACE_ATTACH to PID
 *   readmem PID          open /proc/PID/mem for reading
 *   deny-rate RATE MS PORT  TCP connects to 127.0.0.1:PORT at RATE per second
 *                        for MS (paced every millisecond); prints the rate
 *                        achieved and how many got EPERM
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ESRCH: return "ESRCH";
	case ENOSYS: return "ENOSYS";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	}
	return strerror(e);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void need(int argc, int i, int n)
{
	if (i + n >= argc) {
		fprintf(stderr, "rf-load: %s needs %d argument(s)\n", "operation", n);
		exit(2);
	}
}

static int do_forks(long n, long hold)
{
	long k, started = 0;
	int err = 0;

	for (k = 0; k < n; k++) {
		pid_t p = fork();

		if (p == 0) {
			sleep_ms(hold);
			_exit(0);
		}
		if (p < 0) {
			err = errno;
			break;
		}
		started++;
	}
	while (started > 0 && wait(NULL) > 0)
		started--;
	return err;
}

static int do_mem(long mb, long hold)
{
	size_t len = (size_t)mb << 20, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno;
	for (i = 0; i < len; i += 4096)
		p[i] = (char)i;
	sleep_ms(hold);
	munmap(p, len);
	return 0;
}

static void do_spin(long ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ULL;
	volatile uint64_t x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
}

static int do_syscall(const char *name)
{
	long r;

	if (!strcmp(name, "getcpu")) {
		unsigned int cpu, node;

		r = syscall(SYS_getcpu, &cpu, &node, NULL);
	} else if (!strcmp(name, "uname")) {
		struct utsname u;

		r = uname(&u);
	} else if (!strcmp(name, "sysinfo")) {
		struct sysinfo si;

		r = sysinfo(&si);
	} else if (!strcmp(name, "times")) {
		struct tms t;

		r = times(&t) == (clock_t)-1 ? -1 : 0;
	} else if (!strcmp(name, "sched_yield")) {
		r = sched_yield();
	} else if (!strcmp(name, "getpriority")) {
		errno = 0;
		r = getpriority(PRIO_PROCESS, 0);
		r = errno ? -1 : 0;
	} else if (!strcmp(name, "getppid")) {
		r = syscall(SYS_getppid) < 0 ? -1 : 0;
	} else {
		fprintf(stderr, "rf-load: unknown syscall %s\n", name);
		exit(2);
	}
	return r < 0 ? errno : 0;
}

static int do_work(void)
{
	char path[] = "/tmp/rf-load-XXXXXX", buf[4096];
	struct stat st;
	int fd, i, err = 0;
	pid_t p;

	fd = mkstemp(path);
	if (fd < 0)
		return errno;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			err = errno;
	if (lseek(fd, 0, SEEK_SET) < 0 || read(fd, buf, sizeof(buf)) < 0 || fstat(fd, &st))
		err = errno;
	close(fd);
	unlink(path);
	p = fork();
	if (p == 0)
		_exit(0);
	if (p < 0)
		return errno;
	waitpid(p, NULL, 0);
	return err;
}

/* connects at a paced rate; returns how many were denied (EPERM) */
static long do_deny_rate(long rate, long ms, int port, double *ret_rate)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)ms * 1000000ULL;
	long done = 0, denied = 0;

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (now_ns() < end) {
		/* where the schedule says we should be by now */
		long due = (long)((double)(now_ns() - t0) * (double)rate / 1e9);

		if (done >= due) {
			struct timespec ts = { 0, 200000 };

			nanosleep(&ts, NULL);
			continue;
		}
		while (done < due) {
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (fd < 0)
				break;
			if (connect(fd, (struct sockaddr *)&in, sizeof(in)) && errno == EPERM)
				denied++;
			close(fd);
			done++;
		}
	}
	*ret_rate = (double)done * 1e9 / (double)(now_ns() - t0);
	return denied;
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *op = argv[i];

		if (!strcmp(op, "forks")) {
			need(argc, i, 2);
			printf("forks %s %s\n", argv[i + 1],
			       err_name(do_forks(atol(argv[i + 1]), atol(argv[i + 2]))));
			i += 3;
		} else if (!strcmp(op, "mem")) {
			need(argc, i, 2);
			printf("mem %s %s\n", argv[i + 1],
			       err_name(do_mem(atol(argv[i + 1]), atol(argv[i + 2]))));
			i += 3;
		} else if (!strcmp(op, "spin")) {
			need(argc, i, 1);
			do_spin(atol(argv[i + 1]));
			printf("spin %s ok\n", argv[i + 1]);
			i += 2;
		} else if (!strcmp(op, "sleep")) {
			need(argc, i, 1);
			sleep_ms(atol(argv[i + 1]));
			printf("sleep %s ok\n", argv[i + 1]);
			i += 2;
		} else if (!strcmp(op, "syscall")) {
			need(argc, i, 1);
			printf("syscall %s %s\n", argv[i + 1], err_name(do_syscall(argv[i + 1])));
			i += 2;
		} else if (!strcmp(op, "work")) {
			printf("work - %s\n", err_name(do_work()));
			i += 1;
		} else if (!strcmp(op, "spin-syscall")) {
			long n, k;
			uint64_t t0;

			need(argc, i, 1);
			n = atol(argv[i + 1]);
			if (n < 1)
				n = 1;
			t0 = now_ns();
			for (k = 0; k < n; k++)
				syscall(SYS_getppid);
			printf("spin-syscall %s %.1f\n", argv[i + 1],
			       (double)(now_ns() - t0) / (double)n);
			i += 2;
		} else if (!strcmp(op, "deny-rate")) {
			double achieved;
			long denied;

			need(argc, i, 3);
			denied = do_deny_rate(atol(argv[i + 1]), atol(argv[i + 2]), atoi(argv[i + 3]),
					      &achieved);
			printf("deny-rate %s achieved=%.0f denied=%ld\n", argv[i + 1], achieved, denied);
			i += 4;
		} else if (!strcmp(op, "signal")) {
			need(argc, i, 1);
			printf("signal %s %s\n", argv[i + 1],
			       err_name(kill(atoi(argv[i + 1]), SIGTERM) ? errno : 0));
			i += 2;
		} else if (!strcmp(op, "ptrace")) {
			pid_t pid;
			int e;

			need(argc, i, 1);
			pid = atoi(argv[i + 1]);
			e = ptrace(PTRACE_ATTACH, pid, NULL, NULL) ? errno : 0;
			if (!e)
				ptrace(PTRACE_DETACH, pid, NULL, NULL);
			printf("ptrace %s %s\n", argv[i + 1], err_name(e));
			i += 2;
		} else if (!strcmp(op, "readmem")) {
			char path[64];
			int fd;

			need(argc, i, 1);
			snprintf(path, sizeof(path), "/proc/%s/mem", argv[i + 1]);
			fd = open(path, O_RDONLY);
			printf("readmem %s %s\n", argv[i + 1], err_name(fd < 0 ? errno : 0));
			if (fd >= 0)
				close(fd);
			i += 2;
		} else {
			fprintf(stderr, "rf-load: unknown operation %s\n", op);
			return 2;
		}
	}
	return 0;
}
