// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "heap.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Below this, the faults cost less than the calls. */
#define HEAP_MIN (4u << 20)
/* The heap grows a chunk at a time, each under glibc's largest mmap
 * threshold on 64-bit (32 MiB), so that it comes from the heap. */
#define HEAP_CHUNK (16u << 20)
#define HEAP_CHUNKS 16

static void populate(char *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

void heap__prepare(size_t bytes)
{
	static size_t done;
	char *chunk[HEAP_CHUNKS];
	size_t n = 0, i;

	if (bytes < HEAP_MIN || bytes <= done)
		return;
	mallopt(M_TRIM_THRESHOLD, HEAP_CHUNKS * HEAP_CHUNK);
	mallopt(M_MMAP_THRESHOLD, 2 * HEAP_CHUNK);
	/* Carved from the top of the heap, populated, then freed back into
	 * it, where the allocations to come find the pages present. */
	while (n < HEAP_CHUNKS && n * HEAP_CHUNK < bytes) {
		chunk[n] = malloc(HEAP_CHUNK);
		if (!chunk[n])
			break;
		populate(chunk[n++], HEAP_CHUNK);
	}
	for (i = 0; i < n; i++)
		free(chunk[i]);
	done = bytes;
}

void *heap__alloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (p && bytes >= HEAP_MIN)
		populate(p, bytes);
	return p;
}
