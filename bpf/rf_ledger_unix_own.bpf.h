/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The connection ledger's unix sockets no connect() or sendto() of the
 * sandbox keyed (observe.bpf.c, both ways of counting: the length
 * tracepoints on 6.7+, the fexit programs before): a sandboxed server's
 * accepted connections, socketpairs, sockets passed in with SCM_RIGHTS or
 * inherited connected. Keyed at their first payload byte in a sandbox, by
 * the current task's cgroup, named from the socket itself (its bound name,
 * else its peer's, else none: rf_unix_origin), one connection, and from
 * then on counted as a connected socket. A socket keyed once keeps its key
 * wherever it goes (passed on, inherited out): its bytes are the first
 * sandbox's that moved any. Outside sandboxes: one cgroup check, at a
 * unix socket's send or receive that carried bytes and has no storage.
 */
#ifndef RF_LEDGER_UNIX_OWN_BPF_H
#define RF_LEDGER_UNIX_OWN_BPF_H

#include "rf_ledger_unix.bpf.h"

#define RF_UNIX_ADDR_SUN 2  /* offsetof(struct sockaddr_un, sun_path) */

/* The ledger of the current task's sandbox while its unix bytes are
 * counted; NULL outside one (one helper call for the host's tasks). */
static __always_inline struct rf_ledger *unix_own_ledger(__u64 *cgid)
{
	struct rf_ledger *l;

	if (bpf_current_task_under_cgroup(&rf_obs_parent, 0) == 0 || !current_sandbox(cgid))
		return NULL;
	l = bpf_map_lookup_elem(&rf_ledger, cgid);
	return l && (l->flags & RF_LEDGER_UNIX_BYTES) ? l : NULL;
}

/* The name of a bound unix address (NULL: none) into k, as ledger_unix
 * reads a connect's: a pathname to its first NUL, an abstract name whole.
 * false: no name. */
static __always_inline bool unix_own_name(struct unix_address *a, struct rf_unix_flow_key *k)
{
	const __u8 *p;
	__u32 len, m;
	int alen;
	long n;

	if (!a)
		return false;
	alen = BPF_CORE_READ(a, len);
	if (alen <= RF_UNIX_ADDR_SUN)
		return false;
	len = (__u32)alen - RF_UNIX_ADDR_SUN;
	asm volatile("%0 &= 0x7f" : "+r"(len));
	if (len > RF_UNIX_PATH_MAX)
		len = RF_UNIX_PATH_MAX;
	p = (const __u8 *)a + bpf_core_field_offset(struct unix_address, name) + RF_UNIX_ADDR_SUN;
	n = bpf_probe_read_kernel_str(k->name, len + 1, p);
	if (n < 1)
		return false;
	if (n == 1) {
		m = (len - 1) & 0x7f;
		if (m > RF_UNIX_PATH_MAX - 1)
			m = RF_UNIX_PATH_MAX - 1;
		k->abstract = 1;
		if (!m || bpf_probe_read_kernel(k->name, m, p + 1))
			return false;
		n = m + 1;
	}
	k->len = (__u16)(n - 1);
	return true;
}

/* Key sk (a unix socket of the current task's sandbox without storage)
 * for what it moves: its own name (a listener's accepted connection, a
 * bound datagram socket), else its peer's (a socket connected elsewhere),
 * else none (a socketpair). Its storage, or NULL outside a sandbox. */
static __noinline struct rf_unix_sk *unix_own_key(struct sock *sk)
{
	struct unix_sock *us = (struct unix_sock *)sk;
	struct rf_unix_flow_key k;
	struct unix_address *a;
	struct rf_unix_sk *u;
	struct rf_ledger *l;
	struct sock *peer;
	__u64 cgid;

	l = unix_own_ledger(&cgid);
	if (!l)
		return NULL;
	__builtin_memset(&k, 0, sizeof(k));
	k.cgroup_id = cgid;
	k.type = (__u8)BPF_CORE_READ(sk, sk_type);
	a = BPF_CORE_READ(us, addr);
	k.origin = RF_UNIX_ORIGIN_ACCEPT;
	if (!unix_own_name(a, &k)) {
		__builtin_memset(&k.len, 0, sizeof(k) - offsetof(struct rf_unix_flow_key, len));
		k.type = (__u8)BPF_CORE_READ(sk, sk_type);
		peer = BPF_CORE_READ(us, peer);
		a = peer ? BPF_CORE_READ((struct unix_sock *)peer, addr) : NULL;
		k.origin = RF_UNIX_ORIGIN_PEER;
		if (!unix_own_name(a, &k)) {
			__builtin_memset(&k.len, 0,
					 sizeof(k) - offsetof(struct rf_unix_flow_key, len));
			k.type = (__u8)BPF_CORE_READ(sk, sk_type);
			k.origin = RF_UNIX_ORIGIN_UNNAMED;
		}
	}
	u = bpf_sk_storage_get(&rf_unix_sk, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!u)
		stat_inc(RF_STAT_UNIX_KEY_LOST);
	/* another CPU keyed it first (the same socket's first bytes both ways
	 * at once): one connection */
	if (!u || u->has_conn || u->has_to)
		return u;
	flow_add_in(&rf_unix_flows, l, &k, 1, 0, 0);
	__builtin_memcpy(&u->conn, &k, sizeof(k));
	u->has_conn = 1;
	return u;
}

/* The storage of unix socket sk, made when it has none and moved ret > 0
 * bytes in a sandbox; NULL: not counted. */
static __always_inline struct rf_unix_sk *unix_own_sk(struct sock *sk, int ret)
{
	struct rf_unix_sk *u;

	if (sk->__sk_common.skc_family != AF_UNIX)
		return NULL;
	u = bpf_sk_storage_get(&rf_unix_sk, sk, NULL, 0);
	if (u || ret <= 0)
		return u;
	return unix_own_key(sk);
}

#endif /* RF_LEDGER_UNIX_OWN_BPF_H */
