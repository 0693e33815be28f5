// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

ssize_t fileio__read_small(int dfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	buf[0] = 0;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = 0;
	close(fd);
	return n;
}

int fileio__read_key(const char *path, const char *key, uint64_t *ret)
{
	char buf[4096], *p;
	unsigned long long v;
	size_t kl = strlen(key);
	ssize_t n = fileio__read_small(AT_FDCWD, path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ' && sscanf(p + kl + 1, "%llu", &v) == 1) {
			*ret = v;
			return 0;
		}
	return -ENOENT;
}
