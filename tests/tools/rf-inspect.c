/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rf-inspect: print what a sandboxed process sees, one key=value a line:
 *
 *   pid= ppid= uid= euid= suid= gid= egid= sgid=
 *   groups=G1,G2,...          (supplementary, in getgroups order)
 *   CapInh= CapPrm= CapEff= CapBnd= CapAmb= NoNewPrivs= Seccomp=
 *   SigBlk= SigIgn=           (as in /proc/self/status)
 *   cgroup=LINE               (each /proc/self/cgroup line, e.g. 0::/a/b)
 *   fds=0,1,2                 (open fds, ascending, without our own dirfd)
 *   fd.N=TARGET               (readlink of each)
 *   cwd=PATH
 *   arg=ARG                   (argv[1..])
 *   env=NAME=VALUE            (each environ entry, in order)
 *
 * Values are printed raw, except that a backslash is doubled and a newline
 * is written as backslash-n, so every record stays on one line. Exit 0, or
 * 1 when something could not be read (after printing the rest).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

extern char **environ;

static int status;

static void put_escaped(const char *key, const char *v)
{
	fputs(key, stdout);
	putchar('=');
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", stdout);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
	}
	putchar('\n');
}

static void print_ids(void)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	gid_t *g;
	int n;

	printf("pid=%d\nppid=%d\nsid=%d\n", (int)getpid(), (int)getppid(), (int)getsid(0));
	{
		/* ENXIO: no controlling terminal */
		int t = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

		printf("ctty=%s\n", t >= 0 ? "yes" : errno == ENXIO ? "ENXIO" : strerror(errno));
		if (t >= 0)
			close(t);
	}
	if (getresuid(&ru, &eu, &su) == 0 && getresgid(&rg, &eg, &sg) == 0) {
		printf("uid=%u\neuid=%u\nsuid=%u\n", ru, eu, su);
		printf("gid=%u\negid=%u\nsgid=%u\n", rg, eg, sg);
	} else {
		fprintf(stderr, "rf-inspect: getresuid: %s\n", strerror(errno));
		status = 1;
	}

	n = getgroups(0, NULL);
	g = n > 0 ? calloc((size_t)n, sizeof(*g)) : NULL;
	if (n < 0 || (n > 0 && (!g || getgroups(n, g) != n))) {
		fprintf(stderr, "rf-inspect: getgroups: %s\n", strerror(errno));
		status = 1;
		n = 0;
	}
	fputs("groups=", stdout);
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", g[i]);
	putchar('\n');
	free(g);
}

static void print_status(void)
{
	static const char *const keys[] = {
		"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
		"NoNewPrivs", "Seccomp", "SigBlk", "SigIgn",
	};
	char line[512];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f) {
		fprintf(stderr, "rf-inspect: /proc/self/status: %s\n", strerror(errno));
		status = 1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(line, keys[i]) != 0)
				continue;
			v = colon + 1 + strspn(colon + 1, " \t");
			v[strcspn(v, "\n")] = '\0';
			printf("%s=%s\n", keys[i], v);
		}
	}
	fclose(f);
}

static void print_cgroup(void)
{
	char line[4096 + 64];
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f) {
		fprintf(stderr, "rf-inspect: /proc/self/cgroup: %s\n", strerror(errno));
		status = 1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		put_escaped("cgroup", line);
	}
	fclose(f);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void print_fds(void)
{
	int fds[1024], n = 0, self;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	if (!d) {
		fprintf(stderr, "rf-inspect: /proc/self/fd: %s\n", strerror(errno));
		status = 1;
		return;
	}
	self = dirfd(d);
	while ((de = readdir(d))) {
		char *end;
		long fd;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd == self)
			continue;
		if (n < (int)(sizeof(fds) / sizeof(fds[0])))
			fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), cmp_int);

	fputs("fds=", stdout);
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", fds[i]);
	putchar('\n');

	for (int i = 0; i < n; i++) {
		char link[64], key[32], target[PATH_MAX];
		ssize_t k;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fds[i]);
		k = readlink(link, target, sizeof(target) - 1);
		if (k < 0)
			continue;
		target[k] = '\0';
		snprintf(key, sizeof(key), "fd.%d", fds[i]);
		put_escaped(key, target);
	}
}

int main(int argc, char **argv)
{
	char cwd[PATH_MAX];

	print_ids();
	print_status();
	print_cgroup();
	print_fds();
	if (getcwd(cwd, sizeof(cwd)))
		put_escaped("cwd", cwd);
	for (int i = 1; i < argc; i++)
		put_escaped("arg", argv[i]);
	for (char **e = environ; e && *e; e++)
		put_escaped("env", *e);

	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return status;
}
