/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The connection ledger (issue 22), counted by net.bpf.c's cgroup_skb
 * egress and ingress programs for every sandbox with an rf_ledger entry,
 * whatever its network policy: per destination, connections and payload
 * bytes, and the sandbox's egress budget.
 *
 * Payload, not packets: skb->len at these hooks is the IP packet (GSO
 * packets are still whole: one set of headers for all their segments),
 * minus the IP header (and IPv6 extension headers) and the TCP or UDP
 * header. TCP counts sequence space: a socket remembers the highest
 * sequence number sent and received (socket storage), and only bytes
 * beyond it count, so a retransmission is never counted twice and every
 * byte the peer was sent (or that arrived) once is. The totals per
 * sandbox are in rf_ledger, counted even when rf_flows is full.
 */
#ifndef RF_LEDGER_BPF_H
#define RF_LEDGER_BPF_H

#include "rf_common.bpf.h"
#include "rf_ledger_unix.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_LEDGER_FLOWS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_flow_key);
	__type(value, struct rf_flow);
} rf_flows SEC(".maps");

/* Written by the DNS gate (supervisor/dnsgate) when it opens an address. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_LEDGER_FLOWS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_flow_name_key);
	__type(value, struct rf_flow_name);
} rf_flow_names SEC(".maps");

/* One socket's place in the ledger. */
struct rf_sk_flow {
	struct rf_flow_key key;         /* TCP: its destination */
	__u32 snd_hi;                   /* sequence number after the last byte sent */
	__u32 rcv_hi;                   /* ... received */
	__u8 keyed, snd_ok, rcv_ok, _pad;
	__u32 _pad2;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rf_sk_flow);
} rf_sk_flows SEC(".maps");

#define RF_TCP_FIN 0x01
#define RF_TCP_SYN 0x02
#define RF_TCP_ACK 0x10

/* What one packet carries, from its headers. */
struct pkt_info {
	__u8 saddr[16], daddr[16];
	__u16 sport, dport;             /* host byte order */
	__u32 payload;                  /* bytes after the L4 header */
	__u32 seq;                      /* TCP */
	__u8 family, proto, tcp_flags, _pad;
};

/* The common case read in place (direct packet access: no helper call per
 * field): IPv4, or IPv6 without extension headers, with its IP and L4
 * headers in the skb's linear part, as a local sender's are. 1: parsed,
 * 0: not TCP/UDP (not counted), -1: not in reach (pkt_parse's helpers). */
static __always_inline int pkt_parse_direct(struct __sk_buff *skb, struct pkt_info *pi)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u8 *ip = data, *l4;
	__u32 l3, hl;

	if (skb->protocol == bpf_htons(0x0800)) {
		if (data + 20 > end)
			return -1;
		l3 = (ip[0] & 0xf) * 4;
		if (l3 < 20)
			return 0;
		pi->proto = ip[9];
		__builtin_memcpy(pi->saddr, ip + 12, 4);
		__builtin_memcpy(pi->daddr, ip + 16, 4);
		pi->family = AF_INET;
	} else if (skb->protocol == bpf_htons(0x86DD)) {
		if (data + 40 > end)
			return -1;
		if (ip[6] != IPPROTO_TCP && ip[6] != IPPROTO_UDP)
			return -1;  /* extension headers: the slow walk */
		l3 = 40;
		pi->proto = ip[6];
		__builtin_memcpy(pi->saddr, ip + 8, 16);
		__builtin_memcpy(pi->daddr, ip + 24, 16);
		pi->family = AF_INET6;
	} else {
		return 0;
	}
	if (pi->proto != IPPROTO_TCP && pi->proto != IPPROTO_UDP)
		return 0;
	l4 = data + l3;
	if ((void *)(l4 + 8) > end)
		return -1;
	pi->sport = ((__u16)l4[0] << 8) | l4[1];
	pi->dport = ((__u16)l4[2] << 8) | l4[3];
	if (pi->proto == IPPROTO_TCP) {
		if ((void *)(l4 + 14) > end)
			return -1;
		pi->seq = ((__u32)l4[4] << 24) | ((__u32)l4[5] << 16) | ((__u32)l4[6] << 8) | l4[7];
		hl = (l4[12] >> 4) * 4;
		pi->tcp_flags = l4[13];
	} else {
		hl = 8;
	}
	pi->payload = skb->len > l3 + hl ? skb->len - l3 - hl : 0;
	return 1;
}

/* The same through bpf_skb_load_bytes: any layout, IPv6 extension headers. */
static __always_inline bool pkt_parse_slow(struct __sk_buff *skb, struct pkt_info *pi)
{
	__u32 l3, l4, len = skb->len;
	__u8 b[4];

	if (skb->protocol == bpf_htons(0x0800)) {
		if (bpf_skb_load_bytes(skb, 0, b, 1))
			return false;
		l3 = (b[0] & 0xf) * 4;
		if (bpf_skb_load_bytes(skb, 9, &pi->proto, 1) ||
		    bpf_skb_load_bytes(skb, 12, pi->saddr, 4) ||
		    bpf_skb_load_bytes(skb, 16, pi->daddr, 4))
			return false;
		pi->family = AF_INET;
	} else if (skb->protocol == bpf_htons(0x86DD)) {
		__u8 h[2], nh;

		if (bpf_skb_load_bytes(skb, 6, &nh, 1) ||
		    bpf_skb_load_bytes(skb, 8, pi->saddr, 16) ||
		    bpf_skb_load_bytes(skb, 24, pi->daddr, 16))
			return false;
		l3 = 40;
		/* hop-by-hop and destination options may come first */
		for (int i = 0; i < 3 && (nh == 0 || nh == 60); i++) {
			if (bpf_skb_load_bytes(skb, l3, h, 2))
				return false;
			nh = h[0];
			l3 += ((__u32)h[1] + 1) * 8;
		}
		pi->proto = nh;
		pi->family = AF_INET6;
	} else {
		return false;
	}
	if (bpf_skb_load_bytes(skb, l3, b, 4))
		return false;
	pi->sport = ((__u16)b[0] << 8) | b[1];
	pi->dport = ((__u16)b[2] << 8) | b[3];
	if (pi->proto == IPPROTO_TCP) {
		__u8 t[10];

		if (bpf_skb_load_bytes(skb, l3 + 4, t, 10))
			return false;
		pi->seq = ((__u32)t[0] << 24) | ((__u32)t[1] << 16) | ((__u32)t[2] << 8) | t[3];
		l4 = (t[8] >> 4) * 4;
		pi->tcp_flags = t[9];
	} else if (pi->proto == IPPROTO_UDP) {
		l4 = 8;
	} else {
		return false;
	}
	pi->payload = len > l3 + l4 ? len - l3 - l4 : 0;
	return true;
}

/* Parse the IP and TCP/UDP headers; false when it is neither (not counted). */
static __always_inline bool pkt_parse(struct __sk_buff *skb, struct pkt_info *pi)
{
	int r = pkt_parse_direct(skb, pi);

	return r < 0 ? pkt_parse_slow(skb, pi) : r == 1;
}

static __always_inline bool addr_loopback(const __u8 *a, __u8 family)
{
	if (family == AF_INET)
		return a[0] == 127;
	for (int i = 0; i < 10; i++)
		if (a[i])
			return false;
	if (a[10] == 0xff && a[11] == 0xff)
		return a[12] == 127;
	return !a[10] && !a[11] && !a[12] && !a[13] && !a[14] && a[15] == 1;
}

/* The peer of a packet and the port that names the flow. */
static __always_inline void flow_key_of(struct rf_flow_key *k, __u64 cgid,
					const struct pkt_info *pi, bool egress, bool inbound)
{
	const __u8 *peer = egress ? pi->daddr : pi->saddr;

	k->cgroup_id = cgid;
	__builtin_memcpy(k->addr, peer, 16);
	if (pi->family == AF_INET)
		__builtin_memset(&k->addr[4], 0, 12);
	k->family = pi->family;
	k->proto = pi->proto;
	/* outbound: the peer's port; inbound: the sandbox's own (the service) */
	k->port = egress ^ inbound ? pi->dport : pi->sport;
	k->flags = (inbound ? RF_FLOW_INBOUND : 0) |
		   (addr_loopback(k->addr, pi->family) ? RF_FLOW_LOOPBACK : 0);
}

static __always_inline bool same_peer(const struct rf_flow_key *a, const struct rf_flow_key *b)
{
	const __u64 *x = (const __u64 *)a->addr, *y = (const __u64 *)b->addr;

	return x[0] == y[0] && x[1] == y[1] && a->port == b->port;
}

#define flow_add(l, k, conns, sent, rcvd) flow_add_in(&rf_flows, l, k, conns, sent, rcvd)

/* New bytes of a TCP segment in one direction: those past *hi. */
static __always_inline __u32 tcp_new_bytes(__u32 *hi, __u8 *ok, const struct pkt_info *pi)
{
	__u32 start = pi->seq + ((pi->tcp_flags & RF_TCP_SYN) ? 1 : 0);
	__u32 end = start + pi->payload;
	__s32 ahead;

	if (!*ok) {
		*hi = start;
		*ok = 1;
	}
	/* no payload: nothing to count (a FIN takes a sequence number, so
	 * the ACKs after it are one past the last byte) */
	if (!pi->payload)
		return 0;
	ahead = (__s32)(end - *hi);
	if (ahead <= 0)
		return 0;
	/* past a hole (reordering on the way in): the hole's bytes count
	 * now, and not again when they arrive */
	*hi = end;
	return (__u32)ahead;
}

/* The budget: true when sending n more bytes is refused (then noted). */
static __always_inline bool budget_refuses(struct rf_ledger *l, __u32 n)
{
	if (!l->egress_budget || !n)
		return false;
	if (!(l->flags & RF_LEDGER_EXCEEDED) && l->bytes_sent + n <= l->egress_budget)
		return false;
	l->flags |= RF_LEDGER_EXCEEDED;
	__sync_fetch_and_add(&l->dropped_bytes, n);
	return true;
}

#define RF_TCP_SYN_SENT 2           /* BPF_TCP_SYN_SENT */
#define RF_TCP_SYN_ONLY(f) (((f) & (RF_TCP_SYN | RF_TCP_ACK)) == RF_TCP_SYN)
#define RF_TCP_SYN_ACK(f) (((f) & (RF_TCP_SYN | RF_TCP_ACK)) == (RF_TCP_SYN | RF_TCP_ACK))

/* An active open not yet answered (SYN_SENT), without socket storage: a
 * connect that is refused or times out never needs any (its storage would
 * be allocated and freed for one SYN and one RST). The SYN's first
 * transmission counts the connection: its sequence number is still the
 * socket's snd_nxt, which the kernel advances after sending it (a
 * retransmitted SYN's is behind it). The SYN-ACK makes the storage, keyed
 * as an outgoing connection (the common path). Nothing else in SYN_SENT
 * carries bytes (a RST). 1: done; -1: the common path (a SYN with data:
 * TCP Fast Open, keyed there as today; the SYN-ACK). */
static __always_inline int ledger_syn_sent(struct rf_ledger *l, struct bpf_sock *sk,
					   const struct pkt_info *pi, __u64 cgid, bool egress)
{
	struct rf_flow_key k = {};
	struct bpf_tcp_sock *tp;

	if (pi->payload)
		return -1;
	if (!egress)
		return RF_TCP_SYN_ACK(pi->tcp_flags) ? -1 : 1;
	tp = bpf_tcp_sock(sk);
	if (!tp || !RF_TCP_SYN_ONLY(pi->tcp_flags) || pi->seq != tp->snd_nxt)
		return 1;
	flow_key_of(&k, cgid, pi, true, false);
	flow_add(l, &k, 1, 0, 0);
	return 1;
}

/* Count one packet of sandbox cgid. Returns 0 to drop it (egress past the
 * budget), 1 to let it go. */
static __always_inline int ledger_count(struct __sk_buff *skb, __u64 cgid, bool egress)
{
	struct rf_ledger *l = bpf_map_lookup_elem(&rf_ledger, &cgid);
	struct rf_flow_key k = {};
	struct pkt_info pi = {};
	struct rf_sk_flow *sf;
	struct bpf_sock *sk;
	__u64 conns = 0;
	__u32 n, snd_was = 0;
	__u8 snd_ok = 0;
	bool active;

	if (!l || !pkt_parse(skb, &pi))
		return 1;
	sk = skb->sk;
	if (sk)
		sk = bpf_sk_fullsock(sk);
	active = sk && pi.proto == IPPROTO_TCP && sk->state == RF_TCP_SYN_SENT;
	if (active) {
		int r = ledger_syn_sent(l, sk, &pi, cgid, egress);

		if (r >= 0)
			return r;
	}
	sf = sk ? bpf_sk_storage_get(&rf_sk_flows, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE)
		: NULL;
	if (pi.proto == IPPROTO_UDP) {
		/* the peer of each datagram; a socket's first datagram with a
		 * peer opens a "connection" */
		flow_key_of(&k, cgid, &pi, egress, false);
		n = pi.payload;
		if (sf && (!sf->keyed || !same_peer(&sf->key, &k))) {
			sf->key = k;
			sf->keyed = 1;
			conns = 1;
		}
	} else {
		if (!sf)
			return 1;  /* not a full socket: a listener's SYN, a reset */
		if (!sf->keyed) {
			/* Its first packet: an outgoing SYN is a connect, anything
			 * else an accepted connection. A listener's SYN is not a
			 * connection of its own. */
			if (!egress && RF_TCP_SYN_ONLY(pi.tcp_flags))
				return 1;
			active = active || (egress && RF_TCP_SYN_ONLY(pi.tcp_flags));
			flow_key_of(&sf->key, cgid, &pi, egress, !active);
			sf->keyed = 1;
			/* the SYN-ACK of a SYN counted by ledger_syn_sent */
			conns = !(active && !egress);
		}
		k = sf->key;
		snd_was = sf->snd_hi;
		snd_ok = sf->snd_ok;
		n = egress ? tcp_new_bytes(&sf->snd_hi, &sf->snd_ok, &pi)
			   : tcp_new_bytes(&sf->rcv_hi, &sf->rcv_ok, &pi);
	}
	if (egress && budget_refuses(l, n)) {
		/* not sent: TCP sends it again later (still refused), UDP's
		 * sendmsg fails with EPERM */
		if (sf && pi.proto == IPPROTO_TCP) {
			sf->snd_hi = snd_was;
			sf->snd_ok = snd_ok;
		}
		return 0;
	}
	if (n)
		__sync_fetch_and_add(egress ? &l->bytes_sent : &l->bytes_received, n);
	if (n || conns)
		flow_add(l, &k, conns, egress ? n : 0, egress ? 0 : n);
	return 1;
}

#endif /* RF_LEDGER_BPF_H */
