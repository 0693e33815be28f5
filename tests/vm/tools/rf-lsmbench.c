// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-lsmbench: per-call timings for the BPF-LSM benchmark (VM only).
 * Prints "OP median" where the median is over 11 batches.
 *   rf-lsmbench open FILE N          open()+close() of a cached file, ns
 *   rf-lsmbench connect PORT N       loopback TCP connect()+close() to a
 *                                    closed port (ECONNREFUSED), ns
 *   rf-lsmbench exec N CMD [ARGS..]  fork+execve+wait of CMD, us
 * Several in one run, one line each, in order (exec last: CMD takes the
 * rest): rf-lsmbench open FILE N connect PORT N exec N CMD...
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define BATCHES 11

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int one_open(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int one_connect(int port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&in, sizeof(in)) ? -errno : 0;
	close(fd);
	return r == -ECONNREFUSED ? 0 : (r ? r : -EINVAL);
}

static int one_exec(char **argv)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execve(argv[0], argv, environ);
		_exit(127);
	}
	if (pid < 0)
		return -errno;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

/* One op's median per call; argv at its first argument. */
static int bench(const char *op, char **args, int n, double *ret)
{
	double t[BATCHES], unit = !strcmp(op, "exec") ? 1e3 : 1.0;
	int per = n / BATCHES > 0 ? n / BATCHES : 1, b, i, r = 0;

	for (b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (i = 0; i < per && !r; i++) {
			if (!strcmp(op, "open"))
				r = one_open(args[0]);
			else if (!strcmp(op, "connect"))
				r = one_connect(atoi(args[0]));
			else
				r = one_exec(&args[1]);
		}
		if (r)
			return r;
		t[b] = (now_ns() - t0) / per / unit;
	}
	qsort(t, BATCHES, sizeof(t[0]), cmp);
	*ret = t[BATCHES / 2];
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, r;
	double med;

	while (i + 2 < argc) {
		const char *op = argv[i];
		bool exec = !strcmp(op, "exec");

		if (!exec && strcmp(op, "open") && strcmp(op, "connect"))
			break;
		if (exec && i + 2 >= argc)
			break;
		r = bench(op, &argv[i + 1], atoi(exec ? argv[i + 1] : argv[i + 2]), &med);
		if (r) {
			fprintf(stderr, "rf-lsmbench: %s failed: %s\n", op, strerror(-r));
			return 1;
		}
		printf("%s %.0f\n", op, med);
		fflush(stdout);
		if (exec)
			return 0;
		i += 3;
	}
	if (i == 1 || i < argc) {
		fprintf(stderr, "usage: rf-lsmbench [open FILE N] [connect PORT N] [exec N CMD...]\n");
		return 2;
	}
	return 0;
}
