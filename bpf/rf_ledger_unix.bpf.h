/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The part of the connection ledger the observe object shares with the
 * network object (user space hands it their fds before it loads): the
 * sandboxes' ledger entries, the unix peers' flows, the unix sockets'
 * storage, and the counting of one flow. net.bpf.c's cgroup unix hooks
 * (6.7+) key a socket (rf_unix_sk) once the policy let its connect() or
 * sendto() through; observe.bpf.c's sock_send_length / sock_recv_length
 * tracepoints (Linux 6.3+, in sock_sendmsg_nosec / sock_recvmsg_nosec:
 * write, send*, read, recv*, io_uring, sendfile and splice to a socket)
 * count its payload into that flow. Before 6.7 observe.bpf.c's fexit
 * programs on af_unix's functions do both (ledger_unix below too).
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

/* Count into flow f (connections: 0 or 1). */
static __always_inline void flow_bump(struct rf_flow *f, __u64 now, __u64 conns, __u64 sent,
				     __u64 rcvd)
{
	if (conns)
		__sync_fetch_and_add(&f->connections, conns);
	if (sent)
		__sync_fetch_and_add(&f->bytes_sent, sent);
	if (rcvd)
		__sync_fetch_and_add(&f->bytes_received, rcvd);
	f->last_ns = now;
}

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
	flow_bump(f, now, conns, sent, rcvd);
}

/*
 * The flow key of a connect() or an addressed datagram to a unix name (k:
 * scratch memory). The name as given (uaddr: the kernel's copy of the
 * sockaddr, len bytes of sun_path): a pathname up to its first NUL, an
 * abstract name whole; the rest of the key zero, so one name is one flow.
 */
static __always_inline bool ledger_unix_key(struct rf_unix_flow_key *k, __u64 cgid,
					    const __u8 *uaddr, __u32 len, __u32 type)
{
	long n;

	__builtin_memset(k, 0, sizeof(*k));
	k->cgroup_id = cgid;
	k->type = (__u8)type;
	if (len > RF_UNIX_PATH_MAX)
		len = RF_UNIX_PATH_MAX;
	/* _str: at most len bytes, then a NUL (a pathname ends there); one
	 * read for the common case, a pathname */
	n = bpf_probe_read_kernel_str(k->name, len + 1, uaddr);
	if (n < 1)
		return false;
	if (n == 1 && len) {
		/* a NUL first: an abstract name, its len - 1 bytes whole
		 * (masked: the verifier keeps the bound through the - 1) */
		__u32 m = (len - 1) & 0x7f;

		if (m > RF_UNIX_PATH_MAX - 1)
			m = RF_UNIX_PATH_MAX - 1;
		k->abstract = 1;
		if (bpf_probe_read_kernel(k->name, m, uaddr + 1))
			return false;
		n = m + 1;
	}
	k->len = (__u16)(n - 1);
	return true;
}

/*
 * A connect() or an addressed datagram to a unix name, the policy having
 * let it through: one connection of the peer of that name (k: scratch
 * memory, ledger_unix_key's), with sent bytes of its payload (the fexit
 * path's datagram; the cgroup hooks run before the send: 0).
 */
static __always_inline bool ledger_unix(struct rf_ledger *l, struct rf_unix_flow_key *k,
					__u64 cgid, const __u8 *uaddr, __u32 len, __u32 type,
					__u64 sent)
{
	if (!ledger_unix_key(k, cgid, uaddr, len, type))
		return false;
	flow_add_in(&rf_unix_flows, l, k, 1, sent, 0);
	return true;
}

/* The socket's bytes count in flow k from now on (observe.bpf.c): a
 * connect names the peer of its unaddressed sends and of what it
 * receives, a sendto the one send that follows (the tracepoint fires
 * after this hook, for this very call, whether it failed or not; the
 * fexit path counted that send already and reads only what it receives).
 * sk: the hook's socket (struct bpf_sock, or a BTF struct sock). */
static __always_inline void ledger_unix_sk(void *sk, const struct rf_unix_flow_key *k,
					   bool connect)
{
	struct rf_unix_sk *u = bpf_sk_storage_get(&rf_unix_sk, sk, NULL,
						  BPF_SK_STORAGE_GET_F_CREATE);

	if (!u) {
		stat_inc(RF_STAT_UNIX_KEY_LOST);
		return;
	}
	if (connect) {
		__builtin_memcpy(&u->conn, k, sizeof(*k));
		u->has_conn = 1;
		u->to_next = 0;
	} else {
		__builtin_memcpy(&u->to, k, sizeof(*k));
		u->has_to = 1;
		u->to_next = 1;
	}
}

#endif /* RF_LEDGER_UNIX_BPF_H */
