/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small helpers over libbpf that both binaries need. */
#ifndef RF_BPFUTIL_H
#define RF_BPFUTIL_H

#include <stdint.h>

/* The sum over every possible CPU of one u64 slot of a per-CPU array
 * (the counters the BPF programs bump without atomics). Returns 0 or a
 * negative errno; *ret is set only on success. */
int bpfutil__percpu_sum(int map_fd, uint32_t key, uint64_t *ret);

/*
 * BPF_MAP_CREATE and BPF_PROG_LOAD as the kernel takes them, without
 * libbpf's wrappers: their first call in a process loads two probe
 * programs (memcg accounting, program names), ~0.4 ms of every run on the
 * development host (each JIT'd program flushes TLBs on every CPU). Every
 * kernel ringfence runs on (6.1+) accounts BPF memory to the memcg and
 * takes names. A file descriptor, or a negative errno.
 */
int bpfutil__map_create(uint32_t type, const char *name, uint32_t key_size,
			uint32_t value_size, uint32_t max_entries, uint32_t flags);
/* insns: n struct bpf_insn; no name, no BTF, no log. */
int bpfutil__prog_load(uint32_t type, uint32_t expected_attach_type, uint32_t attach_btf_id,
		       const void *insns, uint32_t n);

#endif
