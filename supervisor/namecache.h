/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names worked out from this build's BPF objects on this boot (the
 * programs of an object that load on this kernel), kept under
 * RF_RUN_DIR/cache so that a run checks its pinned set without opening
 * the objects again: that parses their ELF and, for the BPF-LSM object,
 * the kernel's whole BTF (tens of milliseconds under emulation). Keyed by
 * the build id and /proc/sys/kernel/random/boot_id: another build or
 * kernel never sees them. The names only say what to look for; the pins
 * are still checked one by one.
 */
#ifndef RF_NAMECACHE_H
#define RF_NAMECACHE_H

#include <stddef.h>
#include <stdint.h>

/* The cached list of kind (a short [a-z_] word) for this build and boot:
 * 0 with *ret_v (NULL-free strings, caller frees each and the array) and
 * *ret_n set, or -errno (-ENOENT: none; -EINVAL: a file not ours or not
 * whole, ignored). */
int namecache__read(const char *kind, const uint8_t build_id[32], char ***ret_v,
		    size_t *ret_n);

/* Keep the list for the next runs; failures only cost them the work. */
void namecache__write(const char *kind, const uint8_t build_id[32], char *const *v, size_t n);

#endif
