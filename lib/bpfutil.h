/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small helpers over libbpf that both binaries need. */
#ifndef RF_BPFUTIL_H
#define RF_BPFUTIL_H

#include <stdint.h>

/* The sum over every possible CPU of one u64 slot of a per-CPU array
 * (the counters the BPF programs bump without atomics). Returns 0 or a
 * negative errno; *ret is set only on success. */
int bpfutil__percpu_sum(int map_fd, uint32_t key, uint64_t *ret);

#endif
