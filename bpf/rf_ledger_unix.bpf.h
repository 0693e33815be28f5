/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The part of the connection ledger the observe object shares with the
 * network object (user space hands it their fds before it loads): the
 * sandboxes' ledger entries, the unix peers' flows, the unix sockets'
 * storage, and the counting of one flow. net.bpf.c's cgroup unix hooks
 * key a socket (rf_unix_sk) once the policy let its connect() or sendto()
 * through; observe.bpf.c's sock_send_length / sock_recv_length
 * tracepoints (Linux 6.3+, in sock_sendmsg_nosec / sock_recvmsg_nosec:
 * write, send*, read, recv*, io_uring, sendfile and splice to a socket)
 * count its payload into that flow.
 */
#ifndef RF_LEDGER_UNIX_BPF_H
#define RF_LEDGER_UNIX_BPF_H

#include "rf_abi.h"

#define RF_LEDGER_FLOWS 65536

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_MAX_SANDBOXES);
	__type(key, __u64);
	__type(value, struct rf_ledger);
} rf_ledger SEC(".maps");

/* Unix peers, by name (check_unix in net.bpf.c, the cgroup unix hooks). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_LEDGER_FLOWS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_unix_flow_key);
	__type(value, struct rf_flow);
} rf_unix_flows SEC(".maps");

/* A sandbox's unix socket: the flows its bytes count in. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rf_unix_sk);
} rf_unix_sk SEC(".maps");

/* Count into the flow of map (rf_flows, rf_unix_flows), made on first use;
 * connections: 0 or 1. */
static __always_inline void flow_add_in(void *map, struct rf_ledger *l, const void *k,
					__u64 conns, __u64 sent, __u64 rcvd)
{
	__u64 now = bpf_ktime_get_boot_ns();
	struct rf_flow *f = bpf_map_lookup_elem(map, k);

	if (!f) {
		struct rf_flow init = { .first_ns = now, .last_ns = now };

		/* before the entry exists: a plain store of 1 (no lost update
		 * between CPUs), which the supervisor reads as "walk the flow
		 * maps" */
		if (!l->flows_made)
			l->flows_made = 1;
		bpf_map_update_elem(map, k, &init, BPF_NOEXIST);
		f = bpf_map_lookup_elem(map, k);
		if (!f) {
			__sync_fetch_and_add(&l->flows_lost, 1);
			return;
		}
	}
	if (conns)
		__sync_fetch_and_add(&f->connections, conns);
	if (sent)
		__sync_fetch_and_add(&f->bytes_sent, sent);
	if (rcvd)
		__sync_fetch_and_add(&f->bytes_received, rcvd);
	f->last_ns = now;
}

#endif /* RF_LEDGER_UNIX_BPF_H */
