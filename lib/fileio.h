/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small kernel files (/proc, cgroupfs) read whole in one read(). */
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

#endif
