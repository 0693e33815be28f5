/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-sandbox policy maps: an outer hash keyed by the sandbox's cgroup id
 * holds one inner map per sandbox, created by user space (supervisor/
 * sbmaps.c) and sized to its policy. One sandbox's rules cannot fill
 * another's map, and removing a sandbox is one delete in each outer map.
 * Every lookup goes through the helpers below, so a program that needs a
 * sandbox's map calls rf_sb_lookup / rf_sb_insert and nothing else.
 *
 * The inner keys keep the owner's cgroup id (the ABI's key layouts are
 * unchanged); inside one inner map it is the same in every key.
 */
#ifndef RF_SBMAP_BPF_H
#define RF_SBMAP_BPF_H

#include "rf_abi.h"

/* The outer map name, and the template of its inner maps (max_entries
 * of the template is a placeholder: the kernel checks type, key and value
 * sizes and flags of each inner map against it, not its size). Sizes, not
 * BTF types: clang emits a type reached only through the template as a
 * forward declaration, which libbpf cannot size. */
#define RF_SB_MAP(name, inner_type, key_type, value_type)		\
	struct name##_inner {						\
		__uint(type, inner_type);				\
		__uint(max_entries, 1);					\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(key_size, sizeof(key_type));			\
		__uint(value_size, sizeof(value_type));			\
	};								\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);		\
		__uint(max_entries, RF_MAX_SANDBOXES);			\
		__type(key, __u64);					\
		__array(values, struct name##_inner);			\
	} name SEC(".maps")

/* The value for key in sandbox cgid's map of outer, or NULL (no such
 * sandbox map, or no entry). */
static __always_inline void *rf_sb_lookup(void *outer, __u64 cgid, const void *key)
{
	void *inner = bpf_map_lookup_elem(outer, &cgid);

	return inner ? bpf_map_lookup_elem(inner, key) : NULL;
}

/* Insert into sandbox cgid's map of outer: 0, or nonzero (no map, full,
 * or the key exists and flags is BPF_NOEXIST). */
static __always_inline long rf_sb_insert(void *outer, __u64 cgid, const void *key,
					 const void *value, __u64 flags)
{
	void *inner = bpf_map_lookup_elem(outer, &cgid);

	return inner ? bpf_map_update_elem(inner, key, value, flags) : -1;
}

#endif /* RF_SBMAP_BPF_H */
