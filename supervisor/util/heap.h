/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The heap made ready, in one go, for a policy's many small allocations. */
#ifndef RF_HEAP_H
#define RF_HEAP_H

#include <stddef.h>

/*
 * About bytes of allocations are coming (a large policy's parse and
 * compile): keep freed memory in the heap (no trim, arrays up to the
 * 32 MiB mmap limit from the heap too), and grow the heap by bytes whose
 * pages are faulted in by one madvise(MADV_POPULATE_WRITE) instead of one
 * page fault each, which costs microseconds apiece in a VM. Small requests
 * and kernels without MADV_POPULATE_WRITE (before 5.14) do nothing.
 * memtrim's malloc_trim() gives the pages back once the sandbox runs.
 */
void heap__prepare(size_t bytes);

/* malloc(bytes) (uninitialised), its pages present: a large array to be
 * written once, without a page fault per page. */
void *heap__alloc(size_t bytes);

#endif
