/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cgroup v2 delegation: where this process is, what systemd delegated, who is in a cgroup. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/xattr.h>

#include "cgroup.h"

int cgroup__self_path(const char *mount, char *ret_path, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = -ENOENT;

	if (!mount || !ret_path || !len)
		return -EINVAL;
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		int n;

		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* "0::/" is the root itself */
		n = snprintf(ret_path, len, "%s%s", mount, strcmp(line + 3, "/") ? line + 3 : "");
		r = n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
		break;
	}
	free(line);
	fclose(f);
	return r;
}

static int xattr_is_1(const char *path, const char *name)
{
	char v[8];
	ssize_t n = getxattr(path, name, v, sizeof(v) - 1);

	if (n <= 0)
		return 0;
	v[n] = '\0';
	return !strcmp(v, "1") || !strcmp(v, "1\n");
}

int cgroup__delegated(const char *path)
{
	return xattr_is_1(path, "trusted.delegate") || xattr_is_1(path, "user.delegate");
}

int cgroup__direct_procs(const char *path, pid_t pid, bool *ret_only_pid)
{
	char file[4200];
	FILE *f;
	long p;
	int n = 0;
	bool only = true;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%ld", &p) == 1) {
		n++;
		only &= p == (long)pid;
	}
	fclose(f);
	if (ret_only_pid)
		*ret_only_pid = only;
	return n;
}
