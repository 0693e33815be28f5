/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-sandbox policy maps. Each outer map is an array of maps indexed by a
 * pool slot; user space (supervisor/sbmaps.c) fills the slots with inner
 * maps once, when the pool is made or grown, and hands a slot to a
 * sandbox through rf_sb_slots (cgroup id -> slot), a plain hash. Writing
 * an outer map of maps waits for an RCU grace period in the kernel (10 ms
 * and more); writing rf_sb_slots waits for nothing, so no run starts or
 * ends with an outer-map write. One sandbox's rules cannot fill another's
 * map, and removing a sandbox is one delete in rf_sb_slots.
 *
 * A slot given back is emptied and handed to the next sandbox without a
 * grace period; a program that found the old sandbox's slot just before
 * that gets no rules from it: rf_slots[slot].cgid names the slot's owner
 * and is checked after the lookup, and every inner key carries its
 * owner's cgroup id too (the ABI's key layouts), so a lookup made for one
 * sandbox never matches another's entry. Every lookup goes through the
 * helpers below.
 *
 * A hook that found the sandbox's rf_sandboxes entry already reads the
 * slot there (slot1, written with the entry after rf_sb_slots, never
 * changed: a sandbox keeps its slot for its life) instead of a second
 * hash lookup; the owner check is the same either way.
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
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);		\
		__uint(max_entries, RF_MAX_SANDBOXES);			\
		__type(key, __u32);					\
		__array(values, struct name##_inner);			\
	} name SEC(".maps")

/* Sandbox cgroup id -> its pool slot. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_MAX_SANDBOXES);
	__type(key, __u64);
	__type(value, struct rf_sb_slot);
} rf_sb_slots SEC(".maps");

/* Pool slot -> its owner (and user space's bookkeeping). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RF_MAX_SANDBOXES);
	__type(key, __u32);
	__type(value, struct rf_slot);
} rf_slots SEC(".maps");

/* Pool slot -> its inner maps' ids (user space's, never read here). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RF_MAX_SANDBOXES);
	__type(key, __u32);
	__type(value, struct rf_slot_maps);
} rf_slot_maps SEC(".maps");

/* Sandbox cgid's inner map of outer, or NULL (no slot, or the slot is no
 * longer cgid's). sb: cgid's rf_sandboxes entry when the caller has it
 * (NULL: the slot from rf_sb_slots). */
static __always_inline void *rf_sb_inner(void *outer, const struct rf_sandbox *sb, __u64 cgid)
{
	struct rf_sb_slot *ref;
	struct rf_slot *owner;
	void *inner;
	__u32 slot;

	if (sb && sb->slot1) {
		slot = sb->slot1 - 1;
	} else {
		ref = bpf_map_lookup_elem(&rf_sb_slots, &cgid);
		if (!ref)
			return NULL;
		slot = ref->slot;
	}
	inner = bpf_map_lookup_elem(outer, &slot);
	/* the owner read after the inner map: a slot given back and handed
	 * on before this point answers nothing for cgid */
	owner = bpf_map_lookup_elem(&rf_slots, &slot);
	if (!inner || !owner || owner->cgid != cgid)
		return NULL;
	return inner;
}

/* The value for key in sandbox cgid's map of outer, or NULL (no such
 * sandbox map, or no entry). */
static __always_inline void *rf_sb_lookup(void *outer, const struct rf_sandbox *sb, __u64 cgid,
					  const void *key)
{
	void *inner = rf_sb_inner(outer, sb, cgid);

	return inner ? bpf_map_lookup_elem(inner, key) : NULL;
}

/* Insert into sandbox cgid's map of outer: 0, or nonzero (no map, full,
 * or the key exists and flags is BPF_NOEXIST). */
static __always_inline long rf_sb_insert(void *outer, const struct rf_sandbox *sb, __u64 cgid,
					 const void *key, const void *value, __u64 flags)
{
	void *inner = rf_sb_inner(outer, sb, cgid);

	return inner ? bpf_map_update_elem(inner, key, value, flags) : -1;
}

#endif /* RF_SBMAP_BPF_H */
