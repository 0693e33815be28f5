// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-time CMD [ARGS...]: run CMD (its output to /dev/null), print the
 * microseconds from fork to its reaping on stdout and exit with its
 * status. For the guest's benches: busybox's date has no sub-second
 * format, and /proc/uptime moves in 10 ms steps.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long long t0;
	pid_t pid;
	int st = 0, null;

	if (argc < 2) {
		fprintf(stderr, "usage: rf-time CMD [ARGS...]\n");
		return 2;
	}
	t0 = now_us();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	printf("%lld\n", now_us() - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
