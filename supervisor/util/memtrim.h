/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An idle supervisor's footprint: what start-up touched and the wait does
 * not need goes back to the kernel before the wait.
 */
#ifndef RF_MEMTRIM_H
#define RF_MEMTRIM_H

#include <stddef.h>

/*
 * Free heap pages (malloc_trim), and drop from this process's resident set
 * the pages of read-only file mappings that hold no private copy (program
 * text and constant data of the binary and its libraries, e.g. the BPF
 * objects' ELF bytes): they stay in the page cache and fault back in on
 * use. Mappings with anonymous pages (RELRO after relocation) are left
 * alone. Returns the kB dropped (an estimate from /proc/self/smaps).
 */
size_t memtrim__idle(void);

#endif
