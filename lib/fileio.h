/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small kernel files (/proc, cgroupfs) read whole in one read(); files
 * written whole, atomically for their readers. */
#ifndef RF_FILEIO_H
#define RF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read path (relative to dfd, or AT_FDCWD) into buf, NUL-terminated: the
 * number of bytes read (at most len - 1) or -errno. */
ssize_t fileio__read_small(int dfd, const char *path, char *buf, size_t len);

/* "KEY N" in a flat-keyed kernel file (cgroup.stat, memory.events,
 * cpu.stat): 0 and *ret = N, -ENOENT when no line names KEY, or the read's
 * -errno. */
int fileio__read_key(const char *path, const char *key, uint64_t *ret);

/* All of buf to fd, again after EINTR and short writes: 0 or -errno
 * (-EIO when write() returns 0). */
int fileio__write_all(int fd, const void *buf, size_t len);

/* The temp file's name, in path's directory (a rename stays in one
 * filesystem). Each caller keeps the name its sweepers know. */
enum fileio_tmp {
	FILEIO_TMP_UNIQUE,      /* .NAME.XXXXXX (mkostemp): any number of writers */
	FILEIO_TMP_PID,         /* PATH.tmp.PID: one writer a process */
	FILEIO_TMP_FIXED,       /* PATH.tmp: one writer at a time; a crash leaves a
	                         * name a sweeper can match to its owner */
};

enum {
	FILEIO_FSYNC    = 1u << 0, /* data on disk before the rename (a file a user keeps) */
	FILEIO_EXCHANGE = 1u << 1, /* RENAME_EXCHANGE, then the old file unlinked (see
	                            * fileio.c), plain rename for a first file */
};

struct fileio_atomic {
	enum fileio_tmp tmp;
	mode_t mode;            /* 0: the creation mode, 0666 less the umask (0600
	                         * for FILEIO_TMP_UNIQUE); else exactly this mode
	                         * (fchmod: the umask does not apply) */
	unsigned flags;         /* FILEIO_* */
};

/* buf (len bytes) becomes path's content: readers see the old file or the
 * whole new one, never a part. On failure the temp file is removed and path
 * is untouched: 0 or -errno. how NULL: FILEIO_TMP_UNIQUE, mode 0, no flags. */
int fileio__write_atomic(const char *path, const void *buf, size_t len,
			 const struct fileio_atomic *how);

#endif
