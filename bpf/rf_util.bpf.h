/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shapes every BPF object here uses, the enforcer's (through
 * rf_common.bpf.h) and the monitor's: map declarations and per-CPU
 * counters. No maps of its own, so any object may include it.
 */
#ifndef RF_UTIL_BPF_H
#define RF_UTIL_BPF_H

/* Deepest cgroup level searched for a sandbox ancestor. */
#define RF_MAX_LEVEL 32

/* A map whose entries are allocated on insert: LPM tries must be, and
 * large hashes that are mostly empty should be. */
#define RF_MAP_NO_PREALLOC(name, map_type, max, key_type, value_type)	\
	struct {							\
		__uint(type, map_type);					\
		__uint(max_entries, max);				\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, key_type);					\
		__type(value, value_type);				\
	} name SEC(".maps")

/* n u64 counters per CPU, bumped without atomics; user space sums the
 * CPUs (bpfutil__percpu_sum). */
#define RF_PERCPU_COUNTERS(name, n)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, n);					\
		__type(key, __u32);					\
		__type(value, __u64);					\
	} name SEC(".maps")

static __always_inline void counter_inc(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	if (v)
		*v += 1;
}

/* When, where and who: the fields every record starts with, in struct
 * rf_event (decisions) and struct rf_mon_event (the monitor) alike. */
#define RF_EVENT_TASK(e, cgid, kind_)						\
	do {									\
		__u64 rf_id_ = bpf_get_current_pid_tgid();			\
										\
		(e)->ts_boot_ns = bpf_ktime_get_boot_ns();			\
		(e)->cgroup_id = (cgid);					\
		(e)->kind = (kind_);						\
		(e)->pid = rf_id_ >> 32;					\
		(e)->tid = (__u32)rf_id_;					\
		(e)->uid = (__u32)bpf_get_current_uid_gid();			\
		bpf_get_current_comm((e)->comm, sizeof((e)->comm));		\
	} while (0)

#endif /* RF_UTIL_BPF_H */
