/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Results a run can reuse from an earlier one of the same binary on the
 * same boot, in RF_RUN_DIR/cache/KIND-BUILDID-BOOTID: BUILDID is this
 * executable's GNU build id (the linker's hash of the whole binary: its
 * code, rule tables and embedded BPF objects), BOOTID the kernel's
 * /proc/sys/kernel/random/boot_id, so another build or another boot never
 * reads them. Only files this user owns and no one else may write are
 * read; a missing or unusable one just means the work is done again.
 */
#ifndef RF_RUNCACHE_H
#define RF_RUNCACHE_H

#include <stddef.h>

/* Up to len bytes of KIND's file into buf: the size, or -errno (-ENOENT:
 * none, or no build id to key it by; -EINVAL: not ours, or too big). */
long runcache__read(const char *kind, void *buf, size_t len);

/* Keep len bytes as KIND's file (atomically); failures are ignored. */
void runcache__write(const char *kind, const void *buf, size_t len);

#endif
