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
#include "rf_abi.h"

#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17

#define ALLOW 1
#define DENY 0

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Deepest cgroup level searched for a sandbox ancestor. */
#define RF_MAX_LEVEL 32

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct rf_sandbox);
} rf_sandboxes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_net4_key);
	__type(value, struct rf_ports);
} rf_net4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_net6_key);
	__type(value, struct rf_ports);
} rf_net6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_unix_key);
	__type(value, __u32);
} rf_unix SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rf_sample_key);
	__type(value, struct rf_event);
} rf_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} rf_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RF_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} rf_stats SEC(".maps");

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
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_scratch);
} rf_scratch_map SEC(".maps");

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&rf_stats, &idx);

	if (v)
		*v += 1;
}

/* The sandbox this task belongs to, or NULL when it is in none. */
static __always_inline struct rf_sandbox *current_sandbox(__u64 *ret_cgid)
{
	struct rf_sandbox *sb;

	for (int lvl = 1; lvl < RF_MAX_LEVEL; lvl++) {
		__u64 cgid = bpf_get_current_ancestor_cgroup_id(lvl);

		if (!cgid)
			break;  /* deeper than the task's own cgroup */
		sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);
		if (sb) {
			*ret_cgid = cgid;
			return sb;
		}
	}
	*ret_cgid = 0;
	return NULL;
}

static __always_inline struct rf_scratch *scratch(void)
{
	__u32 zero = 0;
	struct rf_scratch *s = bpf_map_lookup_elem(&rf_scratch_map, &zero);

	if (s)
		__builtin_memset(&s->ev, 0, sizeof(s->ev));
	return s;
}

/*
 * Count the decision exactly, keep it as a sample while the sandbox has
 * sample slots left, and publish it on the ring buffer for the monitor.
 * Returns the verdict for the hook: deny unless the sandbox audits.
 */
static __always_inline int decide(struct rf_sandbox *sb, __u64 cgid,
				  struct rf_event *ev, __u32 class)
{
	__u32 limit = sb->sample_limit ? sb->sample_limit : RF_SAMPLE_LIMIT_DEFAULT;
	bool audit = sb->flags & RF_SB_AUDIT;
	__u64 id = bpf_get_current_pid_tgid();
	struct rf_sample_key skey = {};
	struct rf_event *rb;

	if (class < RF_CLASS_MAX)
		__sync_fetch_and_add(&sb->denials[class], 1);
	ev->seq = __sync_fetch_and_add(&sb->deny_seq, 1);
	ev->ts_boot_ns = bpf_ktime_get_boot_ns();
	ev->cgroup_id = cgid;
	ev->kind = RF_EV_DECISION;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->class = class;
	ev->verdict = audit ? RF_VERDICT_AUDITED : RF_VERDICT_DENIED;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	stat_inc(RF_STAT_DECISIONS);

	if (ev->seq < limit) {
		skey.cgroup_id = cgid;
		skey.seq = ev->seq;
		if (bpf_map_update_elem(&rf_samples, &skey, ev, BPF_NOEXIST))
			stat_inc(RF_STAT_SAMPLE_LOST);
	}

	rb = bpf_ringbuf_reserve(&rf_events, sizeof(*rb), 0);
	if (rb) {
		__builtin_memcpy(rb, ev, sizeof(*rb));
		bpf_ringbuf_submit(rb, 0);
	} else {
		stat_inc(RF_STAT_RINGBUF_LOST);
	}
	return audit ? ALLOW : DENY;
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

static __always_inline int check_v4(struct rf_sandbox *sb, __u64 cgid, __u32 ip4,
				    __u16 port, __u32 op, __u32 proto)
{
	struct rf_net4_key key = {};
	struct rf_scratch *s;
	__u32 reason;

	key.prefixlen = 64 + 32;
	key.cgroup_id = cgid;
	__builtin_memcpy(key.addr, &ip4, 4);
	reason = match(bpf_map_lookup_elem(&rf_net4, &key), port, sensitive4(key.addr));
	if (!reason)
		return ALLOW;

	s = scratch();
	if (!s)
		return (sb->flags & RF_SB_AUDIT) ? ALLOW : DENY;
	s->ev.family = AF_INET;
	s->ev.port = port;
	s->ev.op = op;
	s->ev.reason = reason;
	s->ev.protocol = proto;
	__builtin_memcpy(s->ev.addr, &ip4, 4);
	return decide(sb, cgid, &s->ev, RF_CLASS_NET);
}

static __always_inline int check_inet4(struct bpf_sock_addr *ctx, __u32 op)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	sb = current_sandbox(&cgid);
	if (!sb || (sb->flags & RF_SB_NET_UNRESTRICTED))
		return ALLOW;
	return check_v4(sb, cgid, ctx->user_ip4, bpf_ntohs((__u16)ctx->user_port),
			op, ctx->protocol);
}

static __always_inline int check_inet6(struct bpf_sock_addr *ctx, __u32 op)
{
	struct rf_net6_key key = {};
	struct rf_sandbox *sb;
	struct rf_scratch *s;
	__u32 w[4], reason;
	__u16 port;
	__u64 cgid;

	sb = current_sandbox(&cgid);
	if (!sb || (sb->flags & RF_SB_NET_UNRESTRICTED))
		return ALLOW;

	w[0] = ctx->user_ip6[0];
	w[1] = ctx->user_ip6[1];
	w[2] = ctx->user_ip6[2];
	w[3] = ctx->user_ip6[3];
	port = bpf_ntohs((__u16)ctx->user_port);

	/* ::ffff:a.b.c.d reaches an IPv4 host: judge it as that host. */
	if (w[0] == 0 && w[1] == 0 && w[2] == bpf_htonl(0xffff))
		return check_v4(sb, cgid, w[3], port, op, ctx->protocol);

	key.prefixlen = 64 + 128;
	key.cgroup_id = cgid;
	__builtin_memcpy(key.addr, w, 16);
	reason = match(bpf_map_lookup_elem(&rf_net6, &key), port, sensitive6(key.addr));
	if (!reason)
		return ALLOW;

	s = scratch();
	if (!s)
		return (sb->flags & RF_SB_AUDIT) ? ALLOW : DENY;
	s->ev.family = AF_INET6;
	s->ev.port = port;
	s->ev.op = op;
	s->ev.reason = reason;
	s->ev.protocol = ctx->protocol;
	__builtin_memcpy(s->ev.addr, w, 16);
	return decide(sb, cgid, &s->ev, RF_CLASS_NET);
}

SEC("cgroup/connect4")
int rf_connect4(struct bpf_sock_addr *ctx)
{
	return check_inet4(ctx, RF_OP_CONNECT4);
}

SEC("cgroup/connect6")
int rf_connect6(struct bpf_sock_addr *ctx)
{
	return check_inet6(ctx, RF_OP_CONNECT6);
}

SEC("cgroup/sendmsg4")
int rf_sendmsg4(struct bpf_sock_addr *ctx)
{
	return check_inet4(ctx, RF_OP_SENDMSG4);
}

SEC("cgroup/sendmsg6")
int rf_sendmsg6(struct bpf_sock_addr *ctx)
{
	return check_inet6(ctx, RF_OP_SENDMSG6);
}

/*
 * Only plain TCP and UDP sockets may be created in a sandbox whose
 * network is confined: ICMP "ping" sockets, SCTP, MPTCP and raw
 * sockets do not all pass through the connect/sendmsg hooks above.
 */
SEC("cgroup/sock_create")
int rf_sock_create(struct bpf_sock *sk)
{
	struct rf_sandbox *sb;
	struct rf_scratch *s;
	__u64 cgid;

	if (sk->family != AF_INET && sk->family != AF_INET6)
		return ALLOW;
	sb = current_sandbox(&cgid);
	if (!sb || (sb->flags & RF_SB_NET_UNRESTRICTED))
		return ALLOW;
	if ((sk->type == SOCK_STREAM && sk->protocol == IPPROTO_TCP) ||
	    (sk->type == SOCK_DGRAM && sk->protocol == IPPROTO_UDP))
		return ALLOW;

	s = scratch();
	if (!s)
		return (sb->flags & RF_SB_AUDIT) ? ALLOW : DENY;
	s->ev.family = sk->family;
	s->ev.op = RF_OP_SOCK_CREATE;
	s->ev.reason = RF_REASON_PROTOCOL;
	s->ev.protocol = sk->protocol | (sk->type << 16);
	return decide(sb, cgid, &s->ev, RF_CLASS_NET);
}

/* State of one walk over a unix address, for bpf_loop callbacks. */
struct path_scan {
	struct rf_scratch *s;
	__u32 len;      /* bytes of sun_path the caller gave */
	__u32 n;        /* name bytes seen */
	__u32 seg;      /* bytes in the current path component */
	__u32 dots;     /* of which '.' */
	__u32 reason;
};

/* Pathname: stop at NUL; flag "//", "." and ".." components. */
static long scan_pathname(__u32 i, void *vctx)
{
	struct path_scan *c = vctx;
	__u64 k = i;  /* 64-bit: keeps the verifier's bound through k + 1 */
	__u8 ch;

	if (k >= RF_UNIX_PATH_MAX || k >= c->len)
		return 1;
	ch = c->s->ukey.data[1 + k];
	if (!ch)
		return 1;
	c->n++;
	if (ch == '/') {
		if (k != 0 && (c->seg == 0 || (c->seg == c->dots && c->dots <= 2)))
			c->reason = RF_REASON_BAD_PATH;
		c->seg = 0;
		c->dots = 0;
	} else {
		c->seg++;
		if (ch == '.')
			c->dots++;
	}
	return 0;
}

/* Abstract: drop the leading NUL. Names are length-delimited, so one with
 * a NUL inside could otherwise match an exact rule as its prefix. */
static long scan_abstract(__u32 i, void *vctx)
{
	struct path_scan *c = vctx;
	__u64 k = i;
	__u8 ch;

	if (k >= RF_UNIX_PATH_MAX - 1 || k >= c->n)
		return 1;
	ch = c->s->ukey.data[2 + k];
	c->s->ukey.data[1 + k] = ch;
	if (!ch)
		c->reason = RF_REASON_BAD_PATH;
	return 0;
}

/*
 * AF_UNIX: the address as the caller wrote it. Relative paths and paths
 * with ".", ".." or "//" components are refused outright: the hook sees
 * them before the kernel resolves them, so no prefix rule may judge them.
 */
static __always_inline int check_unix(struct bpf_sock_addr *ctx, __u32 op)
{
	struct path_scan c = {};
	struct bpf_sock_addr_kern *sa;
	struct rf_sandbox *sb;
	struct rf_scratch *s;
	__u32 len, n;
	__u64 cgid;
	bool abstract;
	void *uaddr;
	__u8 *d;

	sb = current_sandbox(&cgid);
	if (!sb || (sb->flags & RF_SB_UNIX_UNRESTRICTED))
		return ALLOW;
	s = scratch();
	if (!s)
		return (sb->flags & RF_SB_AUDIT) ? ALLOW : DENY;

	sa = bpf_cast_to_kern_ctx(ctx);
	if (!sa)
		return DENY;
	uaddr = BPF_CORE_READ(sa, uaddr);
	len = BPF_CORE_READ(sa, uaddrlen);
	len = len > 2 ? len - 2 : 0;  /* bytes of sun_path given */
	if (len > RF_UNIX_PATH_MAX)
		len = RF_UNIX_PATH_MAX;

	__builtin_memset(&s->ukey, 0, sizeof(s->ukey));
	d = s->ukey.data;
	if (bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, uaddr + 2))
		return DENY;
	abstract = len > 0 && d[1] == 0;
	c.s = s;
	c.len = len;

	if (abstract) {
		d[0] = RF_UNIX_ABSTRACT;
		c.n = len - 1;
		bpf_loop(RF_UNIX_PATH_MAX, scan_abstract, &c, 0);
	} else {
		d[0] = RF_UNIX_PATHNAME;
		bpf_loop(RF_UNIX_PATH_MAX, scan_pathname, &c, 0);
		if (c.n == 0 || d[1] != '/' || (c.seg > 0 && c.seg == c.dots && c.dots <= 2))
			c.reason = RF_REASON_BAD_PATH;
	}
	n = c.n;
	if (n > RF_UNIX_PATH_MAX - 1)
		n = RF_UNIX_PATH_MAX - 1;
	d[1 + n] = 0;

	if (!c.reason) {
		s->ukey.cgroup_id = cgid;
		s->ukey.prefixlen = 64 + 8 * (n + 2);
		if (!bpf_map_lookup_elem(&rf_unix, &s->ukey))
			c.reason = RF_REASON_NO_RULE;
	}
	if (!c.reason)
		return ALLOW;

	s->ev.family = AF_UNIX;
	s->ev.op = op;
	s->ev.reason = c.reason;
	s->ev.protocol = ctx->type;
	if (abstract) {
		s->ev.path[0] = '@';
		__builtin_memcpy(&s->ev.path[1], &d[1], RF_UNIX_PATH_MAX - 1);
		s->ev.path_len = n + 1;
	} else {
		__builtin_memcpy(s->ev.path, &d[1], RF_UNIX_PATH_MAX);
		s->ev.path_len = n;
	}
	return decide(sb, cgid, &s->ev, RF_CLASS_UNIX);
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
