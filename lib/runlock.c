// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "paths.h"
#include "runlock.h"

int runlock__take(const char *name, int op)
{
	char path[256];
	int fd;

	if (mkdir(RF_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), RF_RUN_DIR "/%s", name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, op)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}
