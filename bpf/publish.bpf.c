// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One record the supervisor has, published as if a hook had made it: the
 * seccomp boundary's refusals reach the supervisor through its
 * SECCOMP_RET_USER_NOTIF listener, not through a program of their own.
 * The supervisor runs this with BPF_PROG_TEST_RUN and the record as the
 * context, so the sample slot, the sandbox's sequence, the counters and
 * the monitor's ring buffer stay one path with observe.bpf.c's records
 * (the same fields boundary_exit fills; the task fields are the notified
 * task's, filled by the supervisor).
 *
 * Reuses the pinned rf_sandboxes, rf_samples, rf_events and rf_stats
 * (user space hands their fds over before loading).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rf_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define ENOENT 2

/* The record: too large for the stack next to publish()'s. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_event);
} rf_pub_scratch SEC(".maps");

SEC("syscall")
int rf_publish(struct rf_event *ctx)
{
	struct rf_sandbox *sb;
	struct rf_event *ev;
	__u32 zero = 0;
	__u64 cgid;

	ev = bpf_map_lookup_elem(&rf_pub_scratch, &zero);
	if (!ev)
		return ENOENT;
	__builtin_memcpy(ev, ctx, sizeof(*ev));
	cgid = ev->cgroup_id;
	sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);
	if (!sb)
		return ENOENT;
	ev->ts_boot_ns = bpf_ktime_get_boot_ns();
	ev->kind = RF_EV_DECISION;
	ev->verdict = RF_VERDICT_DENIED;
	ev->seq = __sync_fetch_and_add(&sb->deny_seq, 1);
	publish(sb, cgid, ev);
	return 0;
}
