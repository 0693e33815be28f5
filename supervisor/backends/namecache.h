/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names worked out from this build's BPF objects on this boot (the
 * programs of an object that load on this kernel), kept with runcache.h
 * so that a run checks its pinned set without opening the objects again:
 * that parses their ELF and, for the BPF-LSM object, the kernel's whole
 * BTF (tens of milliseconds under emulation). The names only say what to
 * look for; the pins are still checked (enforcer.c: against one read of
 * the set's directory).
 */
#ifndef RF_NAMECACHE_H
#define RF_NAMECACHE_H

#include <stddef.h>

/* The cached list of kind (a short word, e.g. a pin prefix): 0 with
 * *ret_v (strings, caller frees each and the array) and *ret_n set, or
 * -errno (-ENOENT: none; -EINVAL: a file not ours or not whole). */
int namecache__read(const char *kind, char ***ret_v, size_t *ret_n);

/* Keep the list for the next runs; failures only cost them the work. */
void namecache__write(const char *kind, char *const *v, size_t n);

#endif
