// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fds 0-2 are the one thing a sandbox inherits from outside. Some fd types
 * act with their creator's credentials and context, not the caller's: an
 * io_uring made outside runs its requests (SQPOLL: from a kernel thread
 * outside the cgroup, the Landlock domain and the seccomp filter); a
 * pidfd, a bpf map or program, a perf event, a namespace fd each reach
 * something the policy never judged. Only the plain kinds pass.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "error.h"
#include "stdio_vet.h"

#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif

/* Filesystems whose files are handles to kernel objects, not data. */
static const long object_fs[] = {
	ANON_INODE_FS_MAGIC, PID_FS_MAGIC, NSFS_MAGIC, BPF_FS_MAGIC,
};

static bool object_fd(int fd)
{
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf))
		return false;
	for (i = 0; i < sizeof(object_fs) / sizeof(object_fs[0]); i++)
		if ((long)sf.f_type == object_fs[i])
			return true;
	return false;
}

static bool plain_fd(int fd, const struct stat *st)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_PATH) || object_fd(fd))
		return false;
	return S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode) ||
	       S_ISSOCK(st->st_mode);
}

int stdio_vet__types(struct rf_error *e)
{
	char link[64], what[256];
	struct stat st;
	ssize_t n;
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st))
			continue;  /* closed: nothing comes in */
		if (plain_fd(fd, &st))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, what, sizeof(what) - 1);
		what[n > 0 ? n : 0] = '\0';
		return rf_error_set(e, -EPERM, "refused", "fd %d is %s, made outside the sandbox: "
				    "only a terminal, a pipe, a file, a character device or a "
				    "socket may be the command's stdin, stdout or stderr", fd,
				    n > 0 ? what : "not a plain file, pipe or device");
	}
	return 0;
}

bool stdio_vet__unix_socket(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st;
		int dom = 0;
		socklen_t sl = sizeof(dom);

		if (!fstat(fd, &st) && S_ISSOCK(st.st_mode) &&
		    !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &sl) && dom == AF_UNIX)
			return true;
	}
	return false;
}
