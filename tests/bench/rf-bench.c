// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-bench OP HOST PORT N: time N operations, print "OP median_ns" where
 * the median is over 15 batches of N/15. Run unconfined and inside
 * sandboxes by tests/bench/run.sh, which prints the ratios.
 *   connect   TCP connect() + close() (to a closed port: ECONNREFUSED)
 *   udp       unconnected sendto() of one byte
 * rf-bench exec N CMD [ARGS...]: run CMD N times, print "exec median_us".
 * rf-bench open PATH N: open(O_RDONLY) + close() of PATH, "open median_ns".
 * rf-bench getppid N: getppid() (the cheapest syscall), "getppid median_ns".
 * rf-bench uconnect PATH N: unix stream connect() + close() to PATH (a
 * socket bound, not listening: ECONNREFUSED), "uconnect median_ns".
 * rf-bench usend N: send() 64 bytes on one end of a unix datagram
 * socketpair and recv() them on the other (one socket send and one
 * receive: the ledger's socket length tracepoints), "usend median_ns".
 * The last three as connect and udp: the median over 15 batches of N/15.
 * rf-bench --cpu ...: CPU time instead of wall time (this thread's; for
 * exec, the process's and its reaped children's), so that other load on
 * a shared host does not count; the cost a syscall hook adds is CPU time
 * of the calling task.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

#define BATCHES 15

static bool cpu_time;

static double tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1e9 + tv.tv_usec * 1e3;
}

static double now_ns(void)
{
	struct timespec ts;
	struct rusage ru;

	if (!cpu_time) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec * 1e9 + ts.tv_nsec;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  /* one thread: its own */
	getrusage(RUSAGE_CHILDREN, &ru);                /* reaped children: exec */
	return ts.tv_sec * 1e9 + ts.tv_nsec + tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median per-call time of one of the local loops over BATCHES. */
static int local_loop(const char *op, const char *path, int n)
{
	int per = n / BATCHES > 0 ? n / BATCHES : 1, b, i, fd;
	bool is_open = !strcmp(op, "open"), is_unix = !strcmp(op, "uconnect");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	double t[BATCHES];

	if (is_unix)
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);

	for (b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (i = 0; i < per; i++) {
			if (is_unix) {
				fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
				if (!connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
				    errno != ECONNREFUSED) {
					perror(path);
					return 1;
				}
				close(fd);
				continue;
			}
			if (!is_open) {
				syscall(SYS_getppid);  /* no libc caching */
				continue;
			}
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				perror(path);
				return 1;
			}
			close(fd);
		}
		t[b] = (now_ns() - t0) / per;
	}
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	printf("%s %.0f\n", op, t[BATCHES / 2]);
	return 0;
}

/* usend: a send and a receive over a unix datagram socketpair. */
static int usend_loop(int n)
{
	int per = n / BATCHES > 0 ? n / BATCHES : 1, b, i, sv[2];
	char buf[64] = { 0 };
	double t[BATCHES];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	for (b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (i = 0; i < per; i++)
			if (send(sv[0], buf, sizeof(buf), 0) != sizeof(buf) ||
			    recv(sv[1], buf, sizeof(buf), 0) != sizeof(buf)) {
				perror("usend");
				return 1;
			}
		t[b] = (now_ns() - t0) / per;
	}
	close(sv[0]);
	close(sv[1]);
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	printf("usend %.0f\n", t[BATCHES / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	double t[BATCHES];
	int per, b, i, udp_fd = -1;

	if (argc > 1 && !strcmp(argv[1], "--cpu")) {
		cpu_time = true;
		argc--;
		argv++;
	}

	if (argc >= 4 && !strcmp(argv[1], "exec")) {
		int runs = atoi(argv[2]), r;
		double *d = calloc(runs, sizeof(*d));
		posix_spawn_file_actions_t fa;

		/* Only the timing is ours to print. */
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);

		for (r = 0; r < runs; r++) {
			double t0 = now_ns();
			pid_t pid;
			int st;

			if (posix_spawn(&pid, argv[3], &fa, NULL, argv + 3, environ)) {
				perror("posix_spawn");
				return 1;
			}
			waitpid(pid, &st, 0);
			d[r] = (now_ns() - t0) / 1e3;
		}
		qsort(d, runs, sizeof(d[0]), cmp);
		printf("exec %.0f\n", d[runs / 2]);
		free(d);
		return 0;
	}
	if (argc == 4 && (!strcmp(argv[1], "open") || !strcmp(argv[1], "uconnect")))
		return local_loop(argv[1], argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "usend"))
		return usend_loop(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "getppid"))
		return local_loop("getppid", NULL, atoi(argv[2]));
	if (argc != 5) {
		fprintf(stderr, "usage: rf-bench [--cpu] connect|udp HOST PORT N | open|uconnect PATH N | getppid N | usend N | "
			"exec N CMD [ARGS...]\n");
		return 2;
	}
	inet_pton(AF_INET, argv[2], &in.sin_addr);
	in.sin_port = htons((unsigned short)atoi(argv[3]));
	per = atoi(argv[4]) / BATCHES;
	if (per < 1)
		per = 1;
	if (!strcmp(argv[1], "udp"))
		udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
	for (b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (i = 0; i < per; i++) {
			if (udp_fd >= 0) {
				if (sendto(udp_fd, "x", 1, 0, (struct sockaddr *)&in, sizeof(in)) < 0 &&
				    errno != ECONNREFUSED) {
					perror("sendto");
					return 1;
				}
			} else {
				int fd = socket(AF_INET, SOCK_STREAM, 0);

				if (connect(fd, (struct sockaddr *)&in, sizeof(in)) == 0 ||
				    (errno != ECONNREFUSED && errno != EPERM)) {
					perror("connect");
					return 1;
				}
				close(fd);
			}
		}
		t[b] = (now_ns() - t0) / per;
	}
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	printf("%s %.0f\n", argv[1], t[BATCHES / 2]);
	return 0;
}
