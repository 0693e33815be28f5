// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Network egress allowlist, keyed by the sandbox's cgroup id.
 *
 * Attached once to MOUNT/ringfence, the parent of every sandbox cgroup,
 * so sockets created anywhere else never reach these programs. A
 * process belongs to the sandbox that is its cgroup or an ancestor of
 * it: a sub-cgroup does not escape its policy, and no fixed depth is
 * assumed (the cgroup2 mount may be a cgroup namespace's subtree).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "rf_common.bpf.h"
#include "rf_ledger.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* CIDR entries: longest prefix match. */
RF_SB_MAP(rf_net4, BPF_MAP_TYPE_LPM_TRIE, struct rf_net4_key, struct rf_ports);

RF_SB_MAP(rf_net6, BPF_MAP_TYPE_LPM_TRIE, struct rf_net6_key, struct rf_ports);

/* Single hosts (/32, /128), keyed like a full-length trie lookup: a hash
 * is O(1) to fill and to ask, and a host's entry already holds the ports
 * of every CIDR covering it (netrules.c), so a hit answers alone. */
RF_SB_MAP(rf_host4, BPF_MAP_TYPE_HASH, struct rf_net4_key, struct rf_ports);

RF_SB_MAP(rf_host6, BPF_MAP_TYPE_HASH, struct rf_net6_key, struct rf_ports);

/* The entry for a full-length key of the sandbox: its host entry, else the
 * longest CIDR covering it. */
static __always_inline const struct rf_ports *net_lookup(void *hosts, void *cidrs,
							 const struct rf_sandbox *sb, __u64 cgid,
							 const void *key)
{
	const struct rf_ports *p = rf_sb_lookup(hosts, sb, cgid, key);

	return p ? p : rf_sb_lookup(cidrs, sb, cgid, key);
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_meta);
} rf_meta SEC(".maps");

/* Scratch space: an event and a unix key do not fit the 512-byte stack. */
struct rf_scratch {
	struct rf_event ev;
	struct rf_unix_key ukey;
	struct scan_state scan;
	struct rf_unix_flow_key ufk;    /* the ledger's unix peer */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_scratch);
} rf_scratch_map SEC(".maps");

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

static __always_inline struct rf_scratch *scratch(void)
{
	__u32 zero = 0;
	struct rf_scratch *s = bpf_map_lookup_elem(&rf_scratch_map, &zero);

	if (s)
		__builtin_memset(&s->ev, 0, sizeof(s->ev));
	return s;
}

/* Binary search over the sorted, disjoint ranges of one LPM value. */
static __always_inline bool ports_match(const struct rf_ports *p, __u16 port)
{
	__u32 lo = 0, hi = p->n;

	if (hi > RF_MAX_PORT_RANGES)
		hi = RF_MAX_PORT_RANGES;
	for (int i = 0; i < 7; i++) {
		__u32 mid;

		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		if (mid >= RF_MAX_PORT_RANGES)
			break;
		if (port < p->r[mid].lo)
			hi = mid;
		else if (port > p->r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static __always_inline bool sensitive4(const __u8 *a)
{
	return a[0] == 169 && a[1] == 254;
}

static __always_inline bool sensitive6(const __u8 *a)
{
	static const __u8 ec2[16] = { 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0,
				      0, 0, 0, 0, 0, 0, 0x02, 0x54 };
	bool is_ec2 = true;

	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return true;
	for (int i = 0; i < 16; i++)
		if (a[i] != ec2[i])
			is_ec2 = false;
	return is_ec2;
}

/* 0 when allowed, else an rf_reason. */
static __always_inline __u32 match(const struct rf_ports *p, __u16 port, bool sensitive)
{
	if (!p)
		return RF_REASON_NO_RULE;
	/* Link-local and metadata addresses: only an entry naming them. */
	if (sensitive && !(p->flags & RF_PORTS_EXACT_HOST))
		return RF_REASON_SENSITIVE;
	if (!ports_match(p, port))
		return RF_REASON_PORT;
	return 0;
}

/* The sandbox of the current task unless none of its rules apply here
 * (it is in none, or skip says it is unrestricted). */
static __always_inline struct rf_sandbox *net_sandbox(__u64 *cgid, __u32 skip)
{
	struct rf_sandbox *sb = current_sandbox(cgid);

	return sb && !(sb->flags & skip) ? sb : NULL;
}

/* A refused socket operation: the decision record (ev was zeroed). */
static __always_inline int net_decide(struct rf_sandbox *sb, __u64 cgid, struct rf_scratch *s,
				      __u32 family, __u32 op, __u32 reason, __u32 proto)
{
	if (!s)
		return fallback_verdict(sb);
	s->ev.family = family;
	s->ev.op = op;
	s->ev.reason = reason;
	s->ev.protocol = proto;
	return decide(sb, cgid, &s->ev, RF_CLASS_NET);
}

/* An address no rule allows (alen bytes, network byte order): its record. */
static __always_inline int net_refuse(struct rf_sandbox *sb, __u64 cgid, const void *addr,
				      __u32 alen, __u16 port, __u32 family, __u32 op,
				      __u32 reason, __u32 proto)
{
	struct rf_scratch *s = scratch();

	if (s) {
		s->ev.port = port;
		__builtin_memcpy(s->ev.addr, addr, alen);
	}
	return net_decide(sb, cgid, s, family, op, reason, proto);
}

static __always_inline int check_v4(struct rf_sandbox *sb, __u64 cgid, __u32 ip4,
				    __u16 port, __u32 op, __u32 proto)
{
	struct rf_net4_key key = {};
	__u32 reason;

	key.prefixlen = 64 + 32;
	key.cgroup_id = cgid;
	__builtin_memcpy(key.addr, &ip4, 4);
	reason = match(net_lookup(&rf_host4, &rf_net4, sb, cgid, &key), port, sensitive4(key.addr));
	if (!reason)
		return ALLOW;
	return net_refuse(sb, cgid, &ip4, 4, port, AF_INET, op, reason, proto);
}


/* ====================================================================
 * DNS gate steering (supervisor/dnsgate/dnsgate.c). A sandbox with an
 * rf_dns_gates entry has its DNS, UDP and TCP to port 53 at any address,
 * sent to its gate instead: connect4/6 and sendmsg4/6 rewrite the
 * destination (and the allowlist does not judge it), recvmsg4/6 give the
 * gate's replies the source the client wrote (resolvers drop answers from
 * an address they did not ask).
 * ==================================================================== */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct rf_dns_gate);
} rf_dns_gates SEC(".maps");

/* Socket cookie -> what the client wrote. LRU: sockets come and go
 * without telling us; an evicted entry only leaves a reply's source
 * unrestored (the client then ignores that reply: DNS fails, closed). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct rf_dns_orig);
} rf_dns_orig SEC(".maps");

static __always_inline void dns_remember(void *ctx, const void *addr, __u32 alen, __u16 family)
{
	struct rf_dns_orig o = { .port = RF_DNS_PORT, .family = family };
	__u64 cookie = bpf_get_socket_cookie(ctx);

	__builtin_memcpy(o.addr, addr, alen);
	bpf_map_update_elem(&rf_dns_orig, &cookie, &o, BPF_ANY);
}

/* True when ctx now goes to the sandbox's gate. */
static __always_inline bool dns_steer4(struct bpf_sock_addr *ctx, __u64 cgid, __u16 port)
{
	struct rf_dns_gate *g;
	__u32 ip, gate;

	if (port != RF_DNS_PORT)
		return false;
	g = bpf_map_lookup_elem(&rf_dns_gates, &cgid);
	if (!g)
		return false;
	ip = ctx->user_ip4;
	dns_remember(ctx, &ip, 4, AF_INET);
	__builtin_memcpy(&gate, g->addr4, 4);
	ctx->user_ip4 = gate;
	ctx->user_port = bpf_htons(g->port4);
	return true;
}

/* IPv6 sockets: to the IPv6 listener, or to the IPv4 one v4-mapped when
 * the destination was v4-mapped or the gate has no IPv6 listener (an
 * IPV6_V6ONLY socket then fails to reach it: DNS fails, closed). */
static __always_inline bool dns_steer6(struct bpf_sock_addr *ctx, __u64 cgid, __u16 port)
{
	struct rf_dns_gate *g;
	__u32 w[4];
	bool mapped;

	if (port != RF_DNS_PORT)
		return false;
	g = bpf_map_lookup_elem(&rf_dns_gates, &cgid);
	if (!g)
		return false;
	w[0] = ctx->user_ip6[0];
	w[1] = ctx->user_ip6[1];
	w[2] = ctx->user_ip6[2];
	w[3] = ctx->user_ip6[3];
	dns_remember(ctx, w, 16, AF_INET6);
	mapped = w[0] == 0 && w[1] == 0 && w[2] == bpf_htonl(0xffff);
	if (mapped || !g->port6) {
		__builtin_memcpy(&w[3], g->addr4, 4);
		ctx->user_ip6[0] = 0;
		ctx->user_ip6[1] = 0;
		ctx->user_ip6[2] = bpf_htonl(0xffff);
		ctx->user_ip6[3] = w[3];
		ctx->user_port = bpf_htons(g->port4);
		return true;
	}
	__builtin_memcpy(w, g->addr6, 16);
	ctx->user_ip6[0] = w[0];
	ctx->user_ip6[1] = w[1];
	ctx->user_ip6[2] = w[2];
	ctx->user_ip6[3] = w[3];
	ctx->user_port = bpf_htons(g->port6);
	return true;
}

/* The client's original destination for a reply from the gate. */
static __always_inline struct rf_dns_orig *dns_orig(struct bpf_sock_addr *ctx,
						    struct rf_dns_gate **ret_gate)
{
	__u64 cgid, cookie;

	if (!net_sandbox(&cgid, RF_SB_NET_UNRESTRICTED))
		return NULL;
	*ret_gate = bpf_map_lookup_elem(&rf_dns_gates, &cgid);
	if (!*ret_gate)
		return NULL;
	cookie = bpf_get_socket_cookie(ctx);
	return bpf_map_lookup_elem(&rf_dns_orig, &cookie);
}

SEC("cgroup/recvmsg4")
int rf_recvmsg4(struct bpf_sock_addr *ctx)
{
	struct rf_dns_gate *g = NULL;
	struct rf_dns_orig *o = dns_orig(ctx, &g);
	__u32 gate, ip;

	if (!o || !g || o->family != AF_INET)
		return ALLOW;
	__builtin_memcpy(&gate, g->addr4, 4);
	if (ctx->user_ip4 != gate || bpf_ntohs((__u16)ctx->user_port) != g->port4)
		return ALLOW;
	__builtin_memcpy(&ip, o->addr, 4);
	ctx->user_ip4 = ip;
	ctx->user_port = bpf_htons(o->port);
	return ALLOW;
}

SEC("cgroup/recvmsg6")
int rf_recvmsg6(struct bpf_sock_addr *ctx)
{
	struct rf_dns_gate *g = NULL;
	struct rf_dns_orig *o = dns_orig(ctx, &g);
	__u32 w[4], gate;
	__u16 port;

	if (!o || !g)
		return ALLOW;
	port = bpf_ntohs((__u16)ctx->user_port);
	__builtin_memcpy(&gate, g->addr4, 4);
	if (ctx->user_ip6[0] == 0 && ctx->user_ip6[1] == 0 &&
	    ctx->user_ip6[2] == bpf_htonl(0xffff)) {
		if (ctx->user_ip6[3] != gate || port != g->port4)
			return ALLOW;
	} else {
		__builtin_memcpy(w, g->addr6, 16);
		if (!g->port6 || port != g->port6 || ctx->user_ip6[0] != w[0] ||
		    ctx->user_ip6[1] != w[1] || ctx->user_ip6[2] != w[2] ||
		    ctx->user_ip6[3] != w[3] || o->family != AF_INET6)
			return ALLOW;
	}
	/* A v4-mapped send went through sendmsg4 (the kernel hands it to
	 * the IPv4 path): its destination was kept as IPv4. */
	if (o->family == AF_INET) {
		w[0] = 0;
		w[1] = 0;
		w[2] = bpf_htonl(0xffff);
		__builtin_memcpy(&w[3], o->addr, 4);
	} else {
		__builtin_memcpy(w, o->addr, 16);
	}
	ctx->user_ip6[0] = w[0];
	ctx->user_ip6[1] = w[1];
	ctx->user_ip6[2] = w[2];
	ctx->user_ip6[3] = w[3];
	ctx->user_port = bpf_htons(o->port);
	return ALLOW;
}

/*
 * The gate's own records on the monitor's stream: the supervisor runs
 * this program with BPF_PROG_TEST_RUN, the record as its context (a ring
 * buffer has no user-space producer). Two kinds, of one size: a decision
 * (a refused name, a dropped answer: never counted in rf_sandbox.denials
 * and never a sample, the trace has dns.deny), or, kind RF_EV_DNS, an
 * rf_dns_record of every query (the monitor's DNS Activity stream), or,
 * kind RF_EV_FLOW, the supervisor's rf_flow_record of a flow's last
 * counts (the monitor's Network Activity stream); and the file watch's
 * unexpected opens (RF_EVF_UNEXPECTED, filewatch.c). Only
 * for a live sandbox; a full ring buffer is counted (RINGBUF_LOST).
 */
SEC("syscall")
int rf_dns_note(struct rf_event *ctx)
{
	struct rf_event *rb;
	__u64 cgid = ctx->cgroup_id;
	__u32 kind = ctx->kind;

	if (!bpf_map_lookup_elem(&rf_sandboxes, &cgid))
		return -2;  /* -ENOENT */
	rb = bpf_ringbuf_reserve(&rf_events, sizeof(*rb), 0);
	if (!rb) {
		stat_inc(RF_STAT_RINGBUF_LOST);
		return -28; /* -ENOSPC */
	}
	__builtin_memcpy(rb, ctx, sizeof(*rb));
	rb->ts_boot_ns = bpf_ktime_get_boot_ns();
	rb->cgroup_id = cgid;
	if (kind == RF_EV_DNS || kind == RF_EV_FLOW) {
		rb->kind = kind;
		bpf_ringbuf_submit(rb, 0);
		return 0;
	}
	rb->kind = RF_EV_DECISION;
	/* The file watch's record of an allowed open outside monitor.files:
	 * an access, as its own flags say, of class FILE. */
	if (ctx->flags & RF_EVF_UNEXPECTED) {
		rb->class = RF_CLASS_FILE;
		rb->flags = RF_EVF_UNEXPECTED | RF_EVF_ACCESS;
		rb->verdict = 0;
		bpf_ringbuf_submit(rb, 0);
		return 0;
	}
	rb->class = RF_CLASS_NET;
	rb->op = RF_OP_DNS_QUERY;
	rb->flags = RF_EVF_DNS;
	bpf_ringbuf_submit(rb, 0);
	stat_inc(RF_STAT_DECISIONS);
	return 0;
}
/* ==================== end of DNS gate steering ==================== */

static __always_inline int check_inet4(struct bpf_sock_addr *ctx, __u32 op)
{
	/* Each field read once: the verifier refuses a ctx pointer the
	 * compiler offsets to share a load. */
	__u16 port = bpf_ntohs((__u16)ctx->user_port);
	struct rf_sandbox *sb;
	__u64 cgid;

	sb = net_sandbox(&cgid, RF_SB_NET_UNRESTRICTED);
	if (!sb || dns_steer4(ctx, cgid, port))
		return ALLOW;
	return check_v4(sb, cgid, ctx->user_ip4, port, op, ctx->protocol);
}

static __always_inline int check_inet6(struct bpf_sock_addr *ctx, __u32 op)
{
	struct rf_net6_key key = {};
	struct rf_sandbox *sb;
	__u32 w[4], reason;
	__u16 port;
	__u64 cgid;

	port = bpf_ntohs((__u16)ctx->user_port);
	sb = net_sandbox(&cgid, RF_SB_NET_UNRESTRICTED);
	if (!sb || dns_steer6(ctx, cgid, port))
		return ALLOW;

	w[0] = ctx->user_ip6[0];
	w[1] = ctx->user_ip6[1];
	w[2] = ctx->user_ip6[2];
	w[3] = ctx->user_ip6[3];

	/* ::ffff:a.b.c.d reaches an IPv4 host: judge it as that host. */
	if (w[0] == 0 && w[1] == 0 && w[2] == bpf_htonl(0xffff))
		return check_v4(sb, cgid, w[3], port, op, ctx->protocol);

	key.prefixlen = 64 + 128;
	key.cgroup_id = cgid;
	__builtin_memcpy(key.addr, w, 16);
	reason = match(net_lookup(&rf_host6, &rf_net6, sb, cgid, &key), port, sensitive6(key.addr));
	if (!reason)
		return ALLOW;
	return net_refuse(sb, cgid, w, 16, port, AF_INET6, op, reason, ctx->protocol);
}

/* The four inet hooks: one program each (lib/pins.h names them), all
 * judged by check_inet4/6 with the op that says which hook it was. */
#define RF_INET_PROG(hook, check, op)                   \
	SEC("cgroup/" #hook)                            \
	int rf_##hook(struct bpf_sock_addr *ctx)        \
	{                                               \
		return check(ctx, op);                  \
	}

RF_INET_PROG(connect4, check_inet4, RF_OP_CONNECT4)
RF_INET_PROG(connect6, check_inet6, RF_OP_CONNECT6)
RF_INET_PROG(sendmsg4, check_inet4, RF_OP_SENDMSG4)
RF_INET_PROG(sendmsg6, check_inet6, RF_OP_SENDMSG6)

/*
 * Only plain TCP and UDP sockets may be created in a sandbox whose
 * network is confined: ICMP "ping" sockets, SCTP, MPTCP and raw
 * sockets do not all pass through the connect/sendmsg hooks above.
 */
SEC("cgroup/sock_create")
int rf_sock_create(struct bpf_sock *sk)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	if (sk->family != AF_INET && sk->family != AF_INET6)
		return ALLOW;
	sb = net_sandbox(&cgid, RF_SB_NET_UNRESTRICTED);
	if (!sb)
		return ALLOW;
	if ((sk->type == SOCK_STREAM && sk->protocol == IPPROTO_TCP) ||
	    (sk->type == SOCK_DGRAM && sk->protocol == IPPROTO_UDP))
		return ALLOW;
	return net_decide(sb, cgid, scratch(), sk->family, RF_OP_SOCK_CREATE, RF_REASON_PROTOCOL,
			  sk->protocol | (sk->type << 16));
}


/*
 * AF_UNIX: the address as the caller wrote it. Relative paths and paths
 * with ".", ".." or "//" components are refused outright: the hook sees
 * them before the kernel resolves them, so no prefix rule may judge them.
 */
static __always_inline int check_unix(struct bpf_sock_addr *ctx, __u32 op)
{
	struct bpf_sock_addr_kern *sa;
	struct rf_sandbox *sb;
	struct rf_ledger *led;
	struct rf_scratch *s;
	__u32 len, n, reason;
	int v = ALLOW;
	__u64 cgid;
	bool abstract, judge, lsm;
	void *uaddr;
	__u8 *d;

	sb = current_sandbox(&cgid);
	if (!sb)
		return ALLOW;
	/* Unrestricted, or judged by the BPF-LSM programs on the peer's
	 * resolved path instead: one judge per connect. Counted either way
	 * when the sandbox has a ledger. */
	judge = !(sb->flags & (RF_SB_UNIX_UNRESTRICTED | RF_SB_LSM_UNIX));
	/* BPF-LSM judges the resolved peer later: a name its rules refuse as
	 * given is not counted (one it refuses only once resolved, a symlink
	 * out of an allowed directory, would be) */
	lsm = !judge && !(sb->flags & RF_SB_UNIX_UNRESTRICTED);
	led = bpf_map_lookup_elem(&rf_ledger, &cgid);
	if (!judge && !led)
		return ALLOW;
	s = scratch();
	if (!s)
		return judge ? fallback_verdict(sb) : ALLOW;

	sa = bpf_cast_to_kern_ctx(ctx);
	if (!sa)
		return judge ? DENY : ALLOW;
	uaddr = BPF_CORE_READ(sa, uaddr);
	len = BPF_CORE_READ(sa, uaddrlen);
	len = len > 2 ? len - 2 : 0;  /* bytes of sun_path given */
	if (len > RF_UNIX_PATH_MAX)
		len = RF_UNIX_PATH_MAX;

	/* BPF-LSM's sandbox: a name it has a flow of was allowed as given
	 * when the flow was made, and is now (the rules do not change while
	 * it runs, one name as given is one flow): counted again without the
	 * rules' lookup, most of a counted connect's cost */
	if (lsm && led && ledger_unix_key(&s->ufk, cgid, (const __u8 *)uaddr + 2, len, ctx->type)) {
		struct rf_flow *f = bpf_map_lookup_elem(&rf_unix_flows, &s->ufk);

		if (f) {
			flow_bump(f, bpf_ktime_get_boot_ns(), 1, 0, 0);
			goto key;
		}
	}
	if (judge || lsm) {
		__builtin_memset(&s->ukey, 0, sizeof(s->ukey));
		d = s->ukey.data;
		if (bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, uaddr + 2))
			return judge ? DENY : ALLOW;
		reason = unix_lookup(&s->ukey, &s->scan, cgid, len, &n, &abstract);
		if (reason && !judge)
			return ALLOW;
		if (reason) {
			s->ev.family = AF_UNIX;
			s->ev.op = op;
			s->ev.reason = reason;
			s->ev.protocol = ctx->type;
			unix_event_path(&s->ev, d, n, abstract);
			/* audit mode lets it through: then it is counted */
			v = decide(sb, cgid, &s->ev, RF_CLASS_UNIX);
		}
	}
	if (!led || v != ALLOW ||
	    !ledger_unix(led, &s->ufk, cgid, (const __u8 *)uaddr + 2, len, ctx->type, 0))
		return v;
key:
	/* the socket keyed for its bytes only where they are counted (the
	 * length tracepoints attached for this sandbox): no socket storage
	 * made per connect otherwise; a connect's only once it succeeded
	 * where observe.bpf.c's fexit programs key it (KEY_LATE) */
	if ((led->flags & RF_LEDGER_UNIX_BYTES) &&
	    (op != RF_OP_CONNECT_UNIX || !(led->flags & RF_LEDGER_UNIX_KEY_LATE)))
		ledger_unix_sk(ctx->sk, &s->ufk, op == RF_OP_CONNECT_UNIX);
	return v;
}

/* Loaded with expected attach type BPF_CGROUP_UNIX_CONNECT (49): this
 * libbpf predates the section name. */
SEC("cgroup/connect4")
int rf_connect_unix(struct bpf_sock_addr *ctx)
{
	return check_unix(ctx, RF_OP_CONNECT_UNIX);
}

/* Expected attach type BPF_CGROUP_UNIX_SENDMSG (50). */
SEC("cgroup/sendmsg4")
int rf_sendmsg_unix(struct bpf_sock_addr *ctx)
{
	return check_unix(ctx, RF_OP_SENDMSG_UNIX);
}

/*
 * Issue 13 (h13a): the packets themselves, as they leave a sandbox whose
 * network is confined. A routing header (IPv6) or IP options (IPv4: a
 * source route) send a packet past the address connect/sendmsg judged,
 * however it was set: setsockopt, which the seccomp layer or BPF-LSM
 * already refuse, or sendmsg's ancillary data, which seccomp cannot read.
 * Dropped here (the sender gets EPERM). The sandbox is the socket's,
 * found from the skb's cgroup: timers and softirqs send for sockets too.
 */
#define RF_ETH_P_IP 0x0800
#define RF_ETH_P_IPV6 0x86DD
#define RF_NEXTHDR_HOP 0
#define RF_NEXTHDR_ROUTING 43
#define RF_NEXTHDR_DEST 60

static __always_inline struct rf_sandbox *skb_sandbox(struct __sk_buff *skb, __u64 *ret_cgid)
{
	__u64 own = bpf_skb_cgroup_id(skb);
	struct rf_sandbox *sb;

	/* the socket is in its sandbox's cgroup itself, almost always: one
	 * lookup per packet */
	sb = own ? bpf_map_lookup_elem(&rf_sandboxes, &own) : NULL;
	if (sb) {
		*ret_cgid = own;
		return sb;
	}
	for (int lvl = 1; lvl < RF_MAX_LEVEL; lvl++) {
		__u64 cgid = bpf_skb_ancestor_cgroup_id(skb, lvl);

		if (!cgid || cgid == own)
			break;
		sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);
		if (sb) {
			*ret_cgid = cgid;
			return sb;
		}
	}
	return NULL;
}

/* The first extension headers of an IPv6 packet: a routing header among
 * them (hop-by-hop and destination options may come first). */
static __always_inline bool ipv6_routed(struct __sk_buff *skb)
{
	__u8 h[2], nh;
	__u32 off = 40;

	if (bpf_skb_load_bytes(skb, 6, &nh, 1))
		return true;  /* unreadable: not judged, dropped */
	for (int i = 0; i < 4; i++) {
		if (nh == RF_NEXTHDR_ROUTING)
			return true;
		if (nh != RF_NEXTHDR_HOP && nh != RF_NEXTHDR_DEST)
			return false;
		if (bpf_skb_load_bytes(skb, off, h, 2))
			return true;
		nh = h[0];
		off += ((__u32)h[1] + 1) * 8;
	}
	return nh == RF_NEXTHDR_ROUTING || nh == RF_NEXTHDR_HOP || nh == RF_NEXTHDR_DEST;
}

SEC("cgroup_skb/egress")
int rf_egress(struct __sk_buff *skb)
{
	struct rf_sandbox *sb;
	struct rf_scratch *s;
	__u32 what;
	__u64 cgid = 0;
	__u8 b;

	sb = skb_sandbox(skb, &cgid);
	if (!sb)
		return ALLOW;
	if (sb->flags & RF_SB_NET_UNRESTRICTED)
		return ledger_count(skb, cgid, true);
	if (skb->protocol == bpf_htons(RF_ETH_P_IPV6)) {
		if (!ipv6_routed(skb))
			return ledger_count(skb, cgid, true);
		what = RF_NEXTHDR_ROUTING;
	} else if (skb->protocol == bpf_htons(RF_ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, 0, &b, 1) == 0 && (b & 0xf) <= 5)
			return ledger_count(skb, cgid, true);
		what = 0x10000 | RF_ETH_P_IP;  /* IPv4 with options */
	} else {
		return ALLOW;  /* neither IPv4 nor IPv6: nothing to count */
	}
	s = scratch();
	if (!s)
		return fallback_verdict(sb);
	s->ev.op = RF_OP_ROUTE_PACKET;
	s->ev.reason = RF_REASON_BOUNDARY;
	s->ev.arg = what;
	return decide_as(sb, cgid, &s->ev, RF_CLASS_PROCESS, false);
}

/* Issue 22: the ledger's receiving side (egress counts in rf_egress). */
SEC("cgroup_skb/ingress")
int rf_ingress(struct __sk_buff *skb)
{
	__u64 cgid = 0;

	if (!skb_sandbox(skb, &cgid))
		return ALLOW;
	ledger_count(skb, cgid, false);
	return ALLOW;
}
