// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
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

int fileio__write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The temp file beside path, open for writing: its fd (and its name in
 * *ret_tmp) or -errno. A fixed or per-process name is truncated if a
 * killed writer left it; never followed if it is a link. */
static int tmp_open(const char *path, enum fileio_tmp kind, char **ret_tmp)
{
	const char *base = strrchr(path, '/');
	int dlen = base ? (int)(base - path + 1) : 0, n;

	if (kind == FILEIO_TMP_UNIQUE)
		n = asprintf(ret_tmp, "%.*s.%s.XXXXXX", dlen, path, path + dlen);
	else if (kind == FILEIO_TMP_PID)
		n = asprintf(ret_tmp, "%s.tmp.%d", path, (int)getpid());
	else
		n = asprintf(ret_tmp, "%s.tmp", path);
	if (n < 0) {
		*ret_tmp = NULL;
		return -ENOMEM;
	}
	n = kind == FILEIO_TMP_UNIQUE ?
		    mkostemp(*ret_tmp, O_CLOEXEC) :
		    open(*ret_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
	return n < 0 ? -errno : n;
}

/*
 * tmp in place of path. FILEIO_EXCHANGE swaps the two names and removes
 * the old file: a rename over it would make ext4 allocate the new file's
 * blocks at once (auto_da_alloc), and removing the entry later then waits
 * for their discard (0.2-1.6 ms a registry entry where /run is not a
 * tmpfs, measured on the development host).
 */
static int replace(const char *tmp, const char *path, unsigned flags)
{
	if (flags & FILEIO_EXCHANGE) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
			unlink(tmp);    /* the old file now */
			return 0;
		}
		/* ENOENT: a first file; EINVAL: no exchange on this filesystem */
		if (errno != ENOENT && errno != EINVAL)
			return -errno;
	}
	return rename(tmp, path) ? -errno : 0;
}

int fileio__write_atomic(const char *path, const void *buf, size_t len,
			 const struct fileio_atomic *how)
{
	static const struct fileio_atomic dflt = { .tmp = FILEIO_TMP_UNIQUE };
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	int err;

	if (!how)
		how = &dflt;
	fd = tmp_open(path, how->tmp, &tmp);
	if (fd < 0)
		return fd;
	err = how->mode && fchmod(fd, how->mode) ? -errno : 0;
	if (!err)
		err = fileio__write_all(fd, buf, len);
	if (!err && (how->flags & FILEIO_FSYNC) && fsync(fd))
		err = -errno;
	/* closed before the rename: a close error (NFS) is an error */
	if (close(TAKE_FD(fd)) && !err)
		err = -errno;
	if (!err)
		err = replace(tmp, path, how->flags);
	if (err)
		unlink(tmp);
	return err;
}
