/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers shared by the libFuzzer harnesses. A harness must not leak, must
 * not write files and must stop on a broken invariant with abort() (so the
 * fuzzer records the input); the parsers' own refusals are not failures.
 */
#ifndef RF_FUZZ_H
#define RF_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

/* A broken invariant: say which, then abort (libFuzzer saves the input). */
#define FUZZ_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

/* The input as a C string (cut at its first NUL, as a C caller would). */
static inline char *fuzz_cstr(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static inline int fuzz_has_nul(const unsigned char *data, size_t size)
{
	return memchr(data, 0, size) != NULL;
}

/*
 * The input as a file the parsers can open by name, without touching any
 * file system: one memfd, rewritten for every input, named through
 * /proc/self/fd. Returns the path (static storage).
 */
static inline const char *fuzz_memfile(const unsigned char *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("rf-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("fuzz: memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("fuzz: memfd write");
		abort();
	}
	return path;
}

#endif
