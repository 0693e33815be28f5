// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf/net.bpf.c on its own: its skeleton loaded unpinned, its programs
 * attached to a scratch cgroup of ours, the policy written straight into
 * its maps by the ABI of bpf/rf_abi.h, children acting from inside the
 * cgroup, and assertions on what they got and on what the maps recorded.
 * Every denied case has an allowed twin on the same listener, and every
 * target listens, so only the programs can make the difference.
 */
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "bpftest.h"
#include "rf_abi.h"
#include "net.skel.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#define UNIX_CONNECT_NR 49      /* BPF_CGROUP_UNIX_CONNECT: not in this libbpf */
#define UNIX_SENDMSG_NR 50      /* BPF_CGROUP_UNIX_SENDMSG */
#define N_PROGS 8
#define MAX_EVENTS 64

static struct {
	struct net_bpf *skel;
	struct bt_cgroup cg, sub;
	int links[N_PROGS];
	bool with_unix;                 /* the kernel took attach types 49/50 */
	char unix_why[128];
	int tcp_a, tcp_b, udp;          /* [::] dual stack: v4 and v6 reach them */
	uint16_t pa, pb, pu;            /* pa allowed, pb denied (both listen) */
	char udir[64];                  /* unix sockets live here */
	int ux_ok, ux_no, uxd_ok, uxd_no, ux_abs_ok, ux_abs_no;
	struct ring_buffer *rb;
	struct rf_event events[MAX_EVENTS];
	int n_events;
	char comm[RF_COMM_LEN];         /* ours: the children inherit it */
} T = { .cg.fd = -1, .sub.fd = -1 };

/* ---- the policy, by the ABI ---- */

static void sandbox_put(uint32_t flags, uint32_t sample_limit)
{
	struct rf_sandbox sb = { .flags = flags, .sample_limit = sample_limit };

	bt_samples_make(bpf_map__fd(T.skel->maps.rf_samples), T.cg.id);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(T.skel->maps.rf_sandboxes), &T.cg.id,
					     &sb, BPF_NOEXIST), 0);
}

static struct rf_sandbox sandbox_get(void)
{
	struct rf_sandbox sb;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(T.skel->maps.rf_sandboxes), &T.cg.id,
					     &sb), 0);
	return sb;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* Sorted one-port ranges, as user space precomputes them. */
static struct rf_ports ports_of(bool exact, const uint16_t *ports, uint32_t n)
{
	struct rf_ports v = { .flags = exact ? RF_PORTS_EXACT_HOST : 0, .n = n };
	uint16_t s[RF_MAX_PORT_RANGES];

	assert_true(n <= RF_MAX_PORT_RANGES);
	memcpy(s, ports, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u16);
	for (uint32_t i = 0; i < n; i++)
		v.r[i] = (struct rf_port_range){ s[i], s[i] };
	return v;
}

static void net4_put(const char *addr, uint32_t cidr, const uint16_t *ports, uint32_t n)
{
	struct rf_net4_key k = { .prefixlen = 64 + cidr, .cgroup_id = T.cg.id };
	struct rf_ports v = ports_of(cidr == 32, ports, n);

	assert_int_equal(inet_pton(AF_INET, addr, k.addr), 1);
	/* as sbmaps.c does: single hosts in the hash, CIDRs in the trie */
	if (cidr == 32)
		bt_inner_put(bpf_map__fd(T.skel->maps.rf_host4), T.cg.id, BPF_MAP_TYPE_HASH,
			     &k, sizeof(k), &v, sizeof(v));
	else
		bt_inner_put(bpf_map__fd(T.skel->maps.rf_net4), T.cg.id, BPF_MAP_TYPE_LPM_TRIE,
			     &k, sizeof(k), &v, sizeof(v));
}

static void net6_put(const char *addr, uint32_t cidr, const uint16_t *ports, uint32_t n)
{
	struct rf_net6_key k = { .prefixlen = 64 + cidr, .cgroup_id = T.cg.id };
	struct rf_ports v = ports_of(cidr == 128, ports, n);

	assert_int_equal(inet_pton(AF_INET6, addr, k.addr), 1);
	if (cidr == 128)
		bt_inner_put(bpf_map__fd(T.skel->maps.rf_host6), T.cg.id, BPF_MAP_TYPE_HASH,
			     &k, sizeof(k), &v, sizeof(v));
	else
		bt_inner_put(bpf_map__fd(T.skel->maps.rf_net6), T.cg.id, BPF_MAP_TYPE_LPM_TRIE,
			     &k, sizeof(k), &v, sizeof(v));
}

/* name: a path, or an abstract name without its leading NUL. */
static void unix_put(bool abstract, const char *name, bool subtree)
{
	struct rf_unix_key k = { .cgroup_id = T.cg.id };
	size_t len = strlen(name);
	uint32_t one = 1;

	assert_true(len < RF_UNIX_PATH_MAX);
	k.data[0] = abstract ? RF_UNIX_ABSTRACT : RF_UNIX_PATHNAME;
	memcpy(&k.data[1], name, len);
	k.prefixlen = 64 + 8 * (uint32_t)(1 + len + (subtree ? 0 : 1));
	bt_inner_put(bpf_map__fd(T.skel->maps.rf_unix), T.cg.id, BPF_MAP_TYPE_LPM_TRIE, &k,
		     sizeof(k), &one, sizeof(one));
}

/* ---- what the maps and the ring buffer hold ---- */

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	assert_int_equal(size, sizeof(struct rf_event));
	if (T.n_events < MAX_EVENTS)
		memcpy(&T.events[T.n_events], data, sizeof(struct rf_event));
	T.n_events++;
	return 0;
}

static int events_drain(void)
{
	assert_true(ring_buffer__consume(T.rb) >= 0);
	return T.n_events;
}

static uint64_t stat_of(uint32_t idx)
{
	return bt_percpu_sum(bpf_map__fd(T.skel->maps.rf_stats), idx);
}

static int samples_count(void)
{
	return bt_outer_count(bpf_map__fd(T.skel->maps.rf_samples), sizeof(struct rf_sample_key));
}

/* Nothing recorded at all, for this sandbox or any. */
static void expect_no_decisions(void)
{
	assert_int_equal(samples_count(), 0);
	assert_int_equal(events_drain(), 0);
	assert_int_equal(stat_of(RF_STAT_DECISIONS), 0);
}

struct want {
	uint32_t class, op, reason, verdict, family, protocol;
	uint16_t port;
	const char *addr;               /* v4 or v6 text; NULL: all zero */
	const char *path;               /* unix: as the event shows it */
};

/* Sample seq holds exactly w, made by child pid; its ring-buffer record
 * (the same seq) is the same bytes. */
static void expect_sample(uint64_t seq, pid_t pid, const struct want *w)
{
	struct rf_sample_key k = { .cgroup_id = T.cg.id, .seq = seq };
	uint8_t addr[16] = { 0 };
	struct rf_event ev;
	bool in_rb = false;

	assert_int_equal(bt_inner_lookup(bpf_map__fd(T.skel->maps.rf_samples), T.cg.id, &k, &ev), 0);
	assert_int_equal(ev.kind, RF_EV_DECISION);
	assert_int_equal(ev.cgroup_id, T.cg.id);
	assert_int_equal(ev.seq, seq);
	assert_int_equal(ev.pid, pid);
	assert_int_equal(ev.tid, pid);
	assert_int_equal(ev.uid, getuid());
	assert_string_equal(ev.comm, T.comm);
	assert_true(ev.ts_boot_ns > 0);
	assert_int_equal(ev.class, w->class);
	assert_int_equal(ev.op, w->op);
	assert_int_equal(ev.reason, w->reason);
	assert_int_equal(ev.verdict, w->verdict);
	assert_int_equal(ev.family, w->family);
	assert_int_equal(ev.port, w->port);
	assert_int_equal(ev.protocol, w->protocol);
	if (w->addr)
		assert_int_equal(inet_pton(strchr(w->addr, ':') ? AF_INET6 : AF_INET, w->addr, addr), 1);
	assert_memory_equal(ev.addr, addr, 16);
	if (w->path) {
		assert_int_equal(ev.path_len, strlen(w->path));
		assert_memory_equal(ev.path, w->path, strlen(w->path));
	} else {
		assert_int_equal(ev.path_len, 0);
	}

	events_drain();
	for (int i = 0; i < T.n_events && i < MAX_EVENTS; i++)
		if (T.events[i].cgroup_id == T.cg.id && T.events[i].seq == seq) {
			assert_false(in_rb);
			assert_memory_equal(&T.events[i], &ev, sizeof(ev));
			in_rb = true;
		}
	assert_true(in_rb);
}

/* The sandbox's counters and the global ones after n decisions. */
static void expect_counts(uint64_t net, uint64_t unx)
{
	struct rf_sandbox sb = sandbox_get();

	assert_int_equal(sb.denials[RF_CLASS_NET], net);
	assert_int_equal(sb.denials[RF_CLASS_UNIX], unx);
	for (int c = RF_CLASS_FILE; c < RF_CLASS_KERNEL_MAX; c++)
		assert_int_equal(sb.denials[c], 0);
	assert_int_equal(sb.deny_seq, net + unx);
	assert_int_equal(stat_of(RF_STAT_DECISIONS), net + unx);
	assert_int_equal(stat_of(RF_STAT_SAMPLE_LOST), 0);
	assert_int_equal(stat_of(RF_STAT_RINGBUF_LOST), 0);
	assert_int_equal(events_drain(), (int)(net + unx));
}

/* ---- what the children do: 0 or the errno they got ---- */

struct inet_act {
	int family;             /* of the socket */
	const char *addr;
	uint16_t port;
	int type;               /* SOCK_STREAM: connect; SOCK_DGRAM: sendto */
	bool udp_connect;       /* SOCK_DGRAM: connect() instead of sendto() */
};

static int sockaddr_of(int family, const char *addr, uint16_t port,
		       struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		*len = sizeof(*s);
		return inet_pton(AF_INET, addr, &s->sin_addr) == 1 ? 0 : EINVAL;
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	*len = sizeof(*s6);
	return inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1 ? 0 : EINVAL;
}

static int act_inet(void *p)
{
	const struct inet_act *a = p;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, r;

	r = sockaddr_of(a->family, a->addr, a->port, &ss, &len);
	if (r)
		return r;
	fd = socket(a->family, a->type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (a->type == SOCK_DGRAM && !a->udp_connect)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) == 1 ? 0 : errno;
	else
		r = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	close(fd);
	return r;
}

struct sock_act {
	int family, type, protocol;
};

static int act_socket(void *p)
{
	const struct sock_act *a = p;
	int fd = socket(a->family, a->type | SOCK_CLOEXEC, a->protocol);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

struct unix_act {
	const char *name;       /* a path, or an abstract name after '@' */
	int type;               /* SOCK_STREAM: connect; SOCK_DGRAM: sendto */
};

static socklen_t unix_addr(const char *name, struct sockaddr_un *sun)
{
	size_t n = strlen(name);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (n >= sizeof(sun->sun_path))
		n = sizeof(sun->sun_path) - 1;
	memcpy(sun->sun_path, name, n);
	if (name[0] == '@')
		sun->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (name[0] == '@' ? 0 : 1));
}

static int act_unix(void *p)
{
	const struct unix_act *a = p;
	struct sockaddr_un sun;
	socklen_t len = unix_addr(a->name, &sun);
	int fd = socket(AF_UNIX, a->type | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return errno;
	if (a->type == SOCK_DGRAM)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&sun, len) == 1 ? 0 : errno;
	else
		r = connect(fd, (struct sockaddr *)&sun, len) ? errno : 0;
	close(fd);
	return r;
}

/* Run fn in a child in cg (NULL: outside); bt_last_pid is the child. */
static int run_in(const struct bt_cgroup *cg, int (*fn)(void *), void *arg)
{
	return bt_run(cg, fn, arg);
}

static int connect_in(const struct bt_cgroup *cg, int family, const char *addr, uint16_t port)
{
	struct inet_act a = { family, addr, port, SOCK_STREAM, false };

	return run_in(cg, act_inet, &a);
}

static int sendto_in(const struct bt_cgroup *cg, int family, const char *addr, uint16_t port)
{
	struct inet_act a = { family, addr, port, SOCK_DGRAM, false };

	return run_in(cg, act_inet, &a);
}

static int socket_in(const struct bt_cgroup *cg, int family, int type, int protocol)
{
	struct sock_act a = { family, type, protocol };

	return run_in(cg, act_socket, &a);
}

static int unix_in(const struct bt_cgroup *cg, const char *name, int type)
{
	struct unix_act a = { name, type };

	return run_in(cg, act_unix, &a);
}

/* Datagrams waiting on the parent's UDP socket (drained). */
static int udp_received(void)
{
	char buf[16];
	int n = 0;

	while (recv(T.udp, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

/* ---- fixtures ---- */

/* A [::] dual-stack socket of type on an ephemeral port. */
static int listen_any(int type, uint16_t *ret_port)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	socklen_t len = sizeof(s);
	int fd = socket(AF_INET6, type | SOCK_CLOEXEC, 0), off = 0;

	assert_true(fd >= 0);
	assert_int_equal(setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&s, sizeof(s)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&s, &len), 0);
	*ret_port = ntohs(s.sin6_port);
	return fd;
}

/* A unix socket bound to name (a path, or '@' for abstract). */
static int listen_unix(const char *name, int type)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr(name, &sun);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, len), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 64), 0);
	return fd;
}

static char *upath(const char *base)
{
	static char buf[4][128];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, 128, "%s/%s", T.udir, base);
	return b;
}

static char *abs_name(const char *tag)
{
	static char buf[2][64];
	static int k;
	char *b = buf[k++ % 2];

	snprintf(b, 64, "@" BT_PREFIX "%d-%s", (int)getpid(), tag);
	return b;
}

/* Open and load; the unix programs with the attach types this libbpf
 * cannot name. false when the kernel refused that load. */
static bool skel_load(bool with_unix)
{
	T.skel = net_bpf__open();
	assert_non_null(T.skel);
	bpf_program__set_expected_attach_type(T.skel->progs.rf_connect_unix, UNIX_CONNECT_NR);
	bpf_program__set_expected_attach_type(T.skel->progs.rf_sendmsg_unix, UNIX_SENDMSG_NR);
	bpf_program__set_autoload(T.skel->progs.rf_connect_unix, with_unix);
	bpf_program__set_autoload(T.skel->progs.rf_sendmsg_unix, with_unix);
	if (!net_bpf__load(T.skel))
		return true;
	net_bpf__destroy(T.skel);
	T.skel = NULL;
	return false;
}

/* bpf_link_create: the links go when their fds close (also when we die). */
static void attach_all(void)
{
	struct bpf_program *progs[N_PROGS] = {
		T.skel->progs.rf_connect4, T.skel->progs.rf_connect6,
		T.skel->progs.rf_sendmsg4, T.skel->progs.rf_sendmsg6,
		T.skel->progs.rf_sock_create, T.skel->progs.rf_connect_unix,
		T.skel->progs.rf_sendmsg_unix, T.skel->progs.rf_egress,
	};
	const int types[N_PROGS] = {
		BPF_CGROUP_INET4_CONNECT, BPF_CGROUP_INET6_CONNECT, BPF_CGROUP_UDP4_SENDMSG,
		BPF_CGROUP_UDP6_SENDMSG, BPF_CGROUP_INET_SOCK_CREATE, UNIX_CONNECT_NR,
		UNIX_SENDMSG_NR, BPF_CGROUP_INET_EGRESS,
	};

	for (int i = 0; i < N_PROGS; i++) {
		if ((i == 5 || i == 6) && !T.with_unix)
			continue;
		T.links[i] = bpf_link_create(bpf_program__fd(progs[i]), T.cg.fd, types[i], NULL);
		if (T.links[i] < 0)
			fprintf(stderr, "attach %s: %s\n", bpf_program__name(progs[i]), strerror(errno));
		assert_true(T.links[i] >= 0);
	}
}

static void listeners_open(void)
{
	T.tcp_a = listen_any(SOCK_STREAM, &T.pa);
	T.tcp_b = listen_any(SOCK_STREAM, &T.pb);
	T.udp = listen_any(SOCK_DGRAM, &T.pu);
	snprintf(T.udir, sizeof(T.udir), "/tmp/" BT_PREFIX "XXXXXX");
	assert_non_null(mkdtemp(T.udir));
	T.ux_ok = listen_unix(upath("ok.sock"), SOCK_STREAM);
	T.ux_no = listen_unix(upath("no.sock"), SOCK_STREAM);
	T.uxd_ok = listen_unix(upath("okd.sock"), SOCK_DGRAM);
	T.uxd_no = listen_unix(upath("nod.sock"), SOCK_DGRAM);
	T.ux_abs_ok = listen_unix(abs_name("ok"), SOCK_STREAM);
	T.ux_abs_no = listen_unix(abs_name("no"), SOCK_STREAM);
}

static int group_teardown(void **state)
{
	int *fds[] = { &T.tcp_a, &T.tcp_b, &T.udp, &T.ux_ok, &T.ux_no, &T.uxd_ok, &T.uxd_no,
		       &T.ux_abs_ok, &T.ux_abs_no };
	const char *socks[] = { "ok.sock", "no.sock", "okd.sock", "nod.sock" };

	(void)state;
	ring_buffer__free(T.rb);
	T.rb = NULL;
	for (int i = 0; i < N_PROGS; i++)
		if (T.links[i] >= 0)
			close(T.links[i]);
	net_bpf__destroy(T.skel);       /* the programs go with their links */
	T.skel = NULL;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	if (T.udir[0]) {
		for (size_t i = 0; i < sizeof(socks) / sizeof(socks[0]); i++)
			unlink(upath(socks[i]));
		rmdir(T.udir);
	}
	bt_cgroup_remove(&T.sub);
	bt_cgroup_remove(&T.cg);
	return 0;
}

static int group_setup(void **state)
{
	int *fds[] = { &T.tcp_a, &T.tcp_b, &T.udp, &T.ux_ok, &T.ux_no, &T.uxd_ok, &T.uxd_no,
		       &T.ux_abs_ok, &T.ux_abs_no };

	(void)state;
	if (prctl(PR_GET_NAME, T.comm))
		return -1;
	for (int i = 0; i < N_PROGS; i++)
		T.links[i] = -1;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		*fds[i] = -1;
	if (bt_cgroup_scratch(&T.cg) || bt_cgroup_make(T.cg.path, "sub", &T.sub)) {
		fprintf(stderr, "scratch cgroup: %s\n", strerror(errno));
		group_teardown(state);
		return -1;
	}
	T.with_unix = skel_load(true);
	if (!T.with_unix) {
		snprintf(T.unix_why, sizeof(T.unix_why),
			 "the kernel refused cgroup/connect_unix,sendmsg_unix (attach types 49, 50)");
		if (!skel_load(false)) {
			fprintf(stderr, "net.bpf.c does not load\n");
			group_teardown(state);
			return -1;
		}
	}
	bt_use_slots(bpf_map__fd(T.skel->maps.rf_sb_slots), bpf_map__fd(T.skel->maps.rf_slots));
	attach_all();
	listeners_open();
	T.rb = ring_buffer__new(bpf_map__fd(T.skel->maps.rf_events), on_event, NULL, NULL);
	assert_non_null(T.rb);
	return 0;
}

/* Each test starts with empty maps and counters. */
static int test_setup(void **state)
{
	(void)state;
	bt_map_clear(bpf_map__fd(T.skel->maps.rf_sandboxes), sizeof(uint64_t));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_net4), sizeof(struct rf_net4_key));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_net6), sizeof(struct rf_net6_key));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_host4), sizeof(struct rf_net4_key));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_host6), sizeof(struct rf_net6_key));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_unix), sizeof(struct rf_unix_key));
	bt_outer_clear(bpf_map__fd(T.skel->maps.rf_samples), sizeof(struct rf_sample_key));
	bt_percpu_zero(bpf_map__fd(T.skel->maps.rf_stats), RF_STAT_MAX);
	assert_true(ring_buffer__consume(T.rb) >= 0);
	T.n_events = 0;
	udp_received();
	return 0;
}

#define NET_DENIED(op_, reason_, family_, proto_, port_, addr_) \
	(&(struct want){ .class = RF_CLASS_NET, .op = (op_), .reason = (reason_), \
			 .verdict = RF_VERDICT_DENIED, .family = (family_), \
			 .protocol = (proto_), .port = (port_), .addr = (addr_) })

/* ---- tests ---- */

static void connect4_allowed_port_only(void **state)
{
	uint16_t ports[] = { T.pa, T.pu };
	pid_t p1, p2;

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 2);

	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), 0);
	expect_no_decisions();

	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), EPERM);
	p1 = bt_last_pid;
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.2", T.pa), EPERM);
	p2 = bt_last_pid;
	expect_counts(2, 0);
	expect_sample(0, p1, NET_DENIED(RF_OP_CONNECT4, RF_REASON_PORT, AF_INET, IPPROTO_TCP,
					T.pb, "127.0.0.1"));
	expect_sample(1, p2, NET_DENIED(RF_OP_CONNECT4, RF_REASON_NO_RULE, AF_INET, IPPROTO_TCP,
					T.pa, "127.0.0.2"));
	assert_int_equal(samples_count(), 2);

	/* The same denied targets from outside the cgroup: untouched. */
	assert_int_equal(connect_in(NULL, AF_INET, "127.0.0.1", T.pb), 0);
	assert_int_equal(connect_in(NULL, AF_INET, "127.0.0.2", T.pa), 0);
	expect_counts(2, 0);
}

static void connect4_prefix_covers_its_subnet(void **state)
{
	uint16_t ports[] = { T.pa };

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.0", 8, ports, 1);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.2", T.pa), 0);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.1.2.3", T.pa), 0);
	expect_no_decisions();
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.1.2.3", T.pb), EPERM);
	expect_counts(1, 0);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_CONNECT4, RF_REASON_PORT, AF_INET,
						  IPPROTO_TCP, T.pb, "127.1.2.3"));
}

static void connect6_allowed_port_only(void **state)
{
	uint16_t ports[] = { T.pa };

	(void)state;
	sandbox_put(0, 0);
	net6_put("::1", 128, ports, 1);
	assert_int_equal(connect_in(&T.cg, AF_INET6, "::1", T.pa), 0);
	expect_no_decisions();
	assert_int_equal(connect_in(&T.cg, AF_INET6, "::1", T.pb), EPERM);
	expect_counts(1, 0);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_CONNECT6, RF_REASON_PORT, AF_INET6,
						  IPPROTO_TCP, T.pb, "::1"));
	/* No v4 rule: 127.0.0.1 is another host. */
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), EPERM);
	expect_counts(2, 0);
	expect_sample(1, bt_last_pid, NET_DENIED(RF_OP_CONNECT4, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_TCP, T.pa, "127.0.0.1"));
	assert_int_equal(connect_in(NULL, AF_INET6, "::1", T.pb), 0);
	expect_counts(2, 0);
}

/* ::ffff:a.b.c.d is judged by the v4 rules, never by a v6 entry. */
static void mapped_v6_judged_as_v4(void **state)
{
	uint16_t ports[] = { T.pa };

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	net6_put("::ffff:127.0.0.2", 128, ports, 1);    /* would allow if judged as v6 */

	assert_int_equal(connect_in(&T.cg, AF_INET6, "::ffff:127.0.0.1", T.pa), 0);
	expect_no_decisions();
	assert_int_equal(connect_in(&T.cg, AF_INET6, "::ffff:127.0.0.1", T.pb), EPERM);
	expect_counts(1, 0);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_CONNECT6, RF_REASON_PORT, AF_INET,
						  IPPROTO_TCP, T.pb, "127.0.0.1"));
	assert_int_equal(connect_in(&T.cg, AF_INET6, "::ffff:127.0.0.2", T.pa), EPERM);
	expect_counts(2, 0);
	expect_sample(1, bt_last_pid, NET_DENIED(RF_OP_CONNECT6, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_TCP, T.pa, "127.0.0.2"));
	/* Outside, the mapped address reaches the same listener. */
	assert_int_equal(connect_in(NULL, AF_INET6, "::ffff:127.0.0.2", T.pa), 0);
	expect_counts(2, 0);
}

static void udp_sendto_and_connect_judged(void **state)
{
	uint16_t ports[] = { T.pu };
	struct inet_act uc = { AF_INET, "127.0.0.3", T.pu, SOCK_DGRAM, true };

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	net6_put("::1", 128, ports, 1);

	assert_int_equal(sendto_in(&T.cg, AF_INET, "127.0.0.1", T.pu), 0);
	assert_int_equal(sendto_in(&T.cg, AF_INET6, "::1", T.pu), 0);
	assert_int_equal(sendto_in(&T.cg, AF_INET6, "::ffff:127.0.0.1", T.pu), 0);
	assert_int_equal(udp_received(), 3);
	expect_no_decisions();

	assert_int_equal(sendto_in(&T.cg, AF_INET, "127.0.0.3", T.pu), EPERM);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_SENDMSG4, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_UDP, T.pu, "127.0.0.3"));
	assert_int_equal(sendto_in(&T.cg, AF_INET, "127.0.0.1", T.pb), EPERM);
	expect_sample(1, bt_last_pid, NET_DENIED(RF_OP_SENDMSG4, RF_REASON_PORT, AF_INET,
						  IPPROTO_UDP, T.pb, "127.0.0.1"));
	assert_int_equal(sendto_in(&T.cg, AF_INET6, "::1", T.pb), EPERM);
	expect_sample(2, bt_last_pid, NET_DENIED(RF_OP_SENDMSG6, RF_REASON_PORT, AF_INET6,
						  IPPROTO_UDP, T.pb, "::1"));
	/* udpv6_sendmsg hands a v4-mapped destination to udp_sendmsg, whose
	 * hook is sendmsg4: the kernel judges it as v4 before sendmsg6 runs. */
	assert_int_equal(sendto_in(&T.cg, AF_INET6, "::ffff:127.0.0.3", T.pu), EPERM);
	expect_sample(3, bt_last_pid, NET_DENIED(RF_OP_SENDMSG4, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_UDP, T.pu, "127.0.0.3"));
	assert_int_equal(run_in(&T.cg, act_inet, &uc), EPERM);
	expect_sample(4, bt_last_pid, NET_DENIED(RF_OP_CONNECT4, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_UDP, T.pu, "127.0.0.3"));
	/* A connected v6 UDP socket: connect6 sees the mapped address. */
	uc.family = AF_INET6;
	uc.addr = "::ffff:127.0.0.3";
	assert_int_equal(run_in(&T.cg, act_inet, &uc), EPERM);
	expect_sample(5, bt_last_pid, NET_DENIED(RF_OP_CONNECT6, RF_REASON_NO_RULE, AF_INET,
						  IPPROTO_UDP, T.pu, "127.0.0.3"));
	expect_counts(6, 0);
	assert_int_equal(udp_received(), 0);

	/* Outside: the same denied send goes out (127.0.0.3 is loopback). */
	assert_int_equal(sendto_in(NULL, AF_INET, "127.0.0.3", T.pu), 0);
	assert_int_equal(udp_received(), 1);
	expect_counts(6, 0);
}

/* While the network is confined only plain TCP and UDP sockets exist. */
static void sock_create_only_tcp_udp(void **state)
{
	static const struct { int family, type, protocol; } refused[] = {
		{ AF_INET, SOCK_RAW, IPPROTO_ICMP },
		{ AF_INET6, SOCK_RAW, IPPROTO_ICMPV6 },
		{ AF_INET, SOCK_STREAM, IPPROTO_MPTCP },
		{ AF_INET6, SOCK_STREAM, IPPROTO_MPTCP },
		{ AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE },
	};
	uint64_t n = 0;

	(void)state;
	sandbox_put(0, 0);
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_STREAM, 0), 0);
	assert_int_equal(socket_in(&T.cg, AF_INET6, SOCK_STREAM, IPPROTO_TCP), 0);
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_DGRAM, 0), 0);
	assert_int_equal(socket_in(&T.cg, AF_INET6, SOCK_DGRAM, IPPROTO_UDP), 0);
	assert_int_equal(socket_in(&T.cg, AF_UNIX, SOCK_STREAM, 0), 0);
	expect_no_decisions();

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++, n++) {
		/* The allowed twin: outside, the kernel makes this socket. */
		assert_int_equal(socket_in(NULL, refused[i].family, refused[i].type,
					   refused[i].protocol), 0);
		assert_int_equal(socket_in(&T.cg, refused[i].family, refused[i].type,
					   refused[i].protocol), EPERM);
		expect_sample(n, bt_last_pid,
			      NET_DENIED(RF_OP_SOCK_CREATE, RF_REASON_PROTOCOL,
					 (uint32_t)refused[i].family,
					 (uint32_t)refused[i].protocol | ((uint32_t)refused[i].type << 16),
					 0, NULL));
	}
	expect_counts(n, 0);
}

/* SCTP is named by the brief; without it in this kernel the hook never
 * sees such a socket: the test says so instead of passing. */
static void sock_create_sctp(void **state)
{
	int out;

	(void)state;
	sandbox_put(0, 0);
	out = socket_in(NULL, AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	if (out == EPROTONOSUPPORT || out == ESOCKTNOSUPPORT) {
		expect_no_decisions();
		skip();   /* this kernel has no SCTP: nothing to confine */
	}
	assert_int_equal(out, 0);
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_STREAM, IPPROTO_SCTP), EPERM);
	expect_counts(1, 0);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_SOCK_CREATE, RF_REASON_PROTOCOL, AF_INET,
						  IPPROTO_SCTP | (SOCK_STREAM << 16), 0, NULL));
}

static void unrestricted_network_not_judged(void **state)
{
	(void)state;
	sandbox_put(RF_SB_NET_UNRESTRICTED, 0);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), 0);
	assert_int_equal(connect_in(&T.cg, AF_INET6, "::1", T.pb), 0);
	assert_int_equal(sendto_in(&T.cg, AF_INET, "127.0.0.3", T.pu), 0);
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_RAW, IPPROTO_ICMP), 0);
	expect_no_decisions();
	expect_counts(0, 0);
}

static void audit_records_without_denying(void **state)
{
	uint16_t ports[] = { T.pa };
	pid_t p1, p2;

	(void)state;
	sandbox_put(RF_SB_AUDIT, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), 0);
	expect_no_decisions();
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), 0);
	p1 = bt_last_pid;
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_RAW, IPPROTO_ICMP), 0);
	p2 = bt_last_pid;
	expect_counts(2, 0);
	expect_sample(0, p1, &(struct want){ .class = RF_CLASS_NET, .op = RF_OP_CONNECT4,
		.reason = RF_REASON_PORT, .verdict = RF_VERDICT_AUDITED, .family = AF_INET,
		.protocol = IPPROTO_TCP, .port = T.pb, .addr = "127.0.0.1" });
	expect_sample(1, p2, &(struct want){ .class = RF_CLASS_NET, .op = RF_OP_SOCK_CREATE,
		.reason = RF_REASON_PROTOCOL, .verdict = RF_VERDICT_AUDITED, .family = AF_INET,
		.protocol = IPPROTO_ICMP | (SOCK_RAW << 16) });
}

/* A sub-cgroup is judged by its sandbox ancestor's policy. */
static void sub_cgroup_keeps_the_policy(void **state)
{
	uint16_t ports[] = { T.pa };

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	assert_int_equal(connect_in(&T.sub, AF_INET, "127.0.0.1", T.pa), 0);
	assert_int_equal(connect_in(&T.sub, AF_INET, "127.0.0.1", T.pb), EPERM);
	expect_counts(1, 0);
	expect_sample(0, bt_last_pid, NET_DENIED(RF_OP_CONNECT4, RF_REASON_PORT, AF_INET,
						  IPPROTO_TCP, T.pb, "127.0.0.1"));
}

/* In the attached cgroup but with no sandbox entry: not confined. */
static void no_sandbox_entry_not_judged(void **state)
{
	(void)state;
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), 0);
	assert_int_equal(sendto_in(&T.cg, AF_INET, "127.0.0.3", T.pu), 0);
	assert_int_equal(socket_in(&T.cg, AF_INET, SOCK_RAW, IPPROTO_ICMP), 0);
	expect_no_decisions();
}

/* Counters are exact past the sample limit; samples stop at it. */
static void samples_bounded_counts_exact(void **state)
{
	struct rf_sample_key k = { .cgroup_id = T.cg.id, .seq = 2 };
	struct rf_event ev;

	(void)state;
	sandbox_put(0, 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), EPERM);
	expect_counts(3, 0);
	assert_int_equal(samples_count(), 2);
	assert_int_equal(bt_inner_lookup(bpf_map__fd(T.skel->maps.rf_samples), T.cg.id, &k, &ev), -ENOENT);
	expect_sample(1, T.events[1].pid, NET_DENIED(RF_OP_CONNECT4, RF_REASON_NO_RULE, AF_INET,
						      IPPROTO_TCP, T.pb, "127.0.0.1"));
	assert_int_equal(T.events[2].seq, 2);
	assert_int_equal(T.events[2].pid, bt_last_pid);
}

static void unix_connect_and_send_judged(void **state)
{
	char dotted[160];
	pid_t p[5];

	(void)state;
	if (!T.with_unix) {
		fprintf(stderr, "not tested: %s\n", T.unix_why);
		skip();
	}
	sandbox_put(0, 0);
	unix_put(false, upath("ok.sock"), false);
	unix_put(false, upath("okd.sock"), false);
	unix_put(true, abs_name("ok") + 1, false);
	/* "<dir>/../<dir name>/ok.sock" names the allowed socket. */
	snprintf(dotted, sizeof(dotted), "%s/../%s/ok.sock", T.udir, strrchr(T.udir, '/') + 1);

	assert_int_equal(unix_in(&T.cg, upath("ok.sock"), SOCK_STREAM), 0);
	assert_int_equal(unix_in(&T.cg, upath("okd.sock"), SOCK_DGRAM), 0);
	assert_int_equal(unix_in(&T.cg, abs_name("ok"), SOCK_STREAM), 0);
	assert_int_equal(unix_in(NULL, dotted, SOCK_STREAM), 0);
	expect_no_decisions();

	assert_int_equal(unix_in(&T.cg, upath("no.sock"), SOCK_STREAM), EPERM);
	p[0] = bt_last_pid;
	assert_int_equal(unix_in(&T.cg, upath("nod.sock"), SOCK_DGRAM), EPERM);
	p[1] = bt_last_pid;
	assert_int_equal(unix_in(&T.cg, abs_name("no"), SOCK_STREAM), EPERM);
	p[2] = bt_last_pid;
	assert_int_equal(unix_in(&T.cg, dotted, SOCK_STREAM), EPERM);
	p[3] = bt_last_pid;
	expect_counts(0, 4);
	expect_sample(0, p[0], &(struct want){ .class = RF_CLASS_UNIX, .op = RF_OP_CONNECT_UNIX,
		.reason = RF_REASON_NO_RULE, .verdict = RF_VERDICT_DENIED, .family = AF_UNIX,
		.protocol = SOCK_STREAM, .path = upath("no.sock") });
	expect_sample(1, p[1], &(struct want){ .class = RF_CLASS_UNIX, .op = RF_OP_SENDMSG_UNIX,
		.reason = RF_REASON_NO_RULE, .verdict = RF_VERDICT_DENIED, .family = AF_UNIX,
		.protocol = SOCK_DGRAM, .path = upath("nod.sock") });
	expect_sample(2, p[2], &(struct want){ .class = RF_CLASS_UNIX, .op = RF_OP_CONNECT_UNIX,
		.reason = RF_REASON_NO_RULE, .verdict = RF_VERDICT_DENIED, .family = AF_UNIX,
		.protocol = SOCK_STREAM, .path = abs_name("no") });
	expect_sample(3, p[3], &(struct want){ .class = RF_CLASS_UNIX, .op = RF_OP_CONNECT_UNIX,
		.reason = RF_REASON_BAD_PATH, .verdict = RF_VERDICT_DENIED, .family = AF_UNIX,
		.protocol = SOCK_STREAM, .path = dotted });

	/* Outside: every one of them connects. */
	assert_int_equal(unix_in(NULL, upath("no.sock"), SOCK_STREAM), 0);
	assert_int_equal(unix_in(NULL, upath("nod.sock"), SOCK_DGRAM), 0);
	assert_int_equal(unix_in(NULL, abs_name("no"), SOCK_STREAM), 0);
	expect_counts(0, 4);
}

static void unix_subtree_rule(void **state)
{
	char sub[140];

	(void)state;
	if (!T.with_unix)
		skip();
	sandbox_put(0, 0);
	snprintf(sub, sizeof(sub), "%s/", T.udir);
	unix_put(false, sub, true);
	assert_int_equal(unix_in(&T.cg, upath("no.sock"), SOCK_STREAM), 0);
	assert_int_equal(unix_in(&T.cg, upath("nod.sock"), SOCK_DGRAM), 0);
	expect_no_decisions();
	/* A sibling directory sharing the prefix text is not below it. */
	sub[strlen(sub) - 1] = '\0';
	strcat(sub, "x/s.sock");
	assert_int_equal(unix_in(&T.cg, sub, SOCK_STREAM), EPERM);
	expect_counts(0, 1);
	expect_sample(0, bt_last_pid, &(struct want){ .class = RF_CLASS_UNIX,
		.op = RF_OP_CONNECT_UNIX, .reason = RF_REASON_NO_RULE, .verdict = RF_VERDICT_DENIED,
		.family = AF_UNIX, .protocol = SOCK_STREAM, .path = sub });
}

/* Unrestricted unix, or judged by BPF-LSM instead: the hook stays out. */
static void unix_left_to_others(void **state)
{
	static const uint32_t flags[] = { RF_SB_UNIX_UNRESTRICTED, RF_SB_LSM_UNIX };

	(void)state;
	if (!T.with_unix)
		skip();
	for (size_t i = 0; i < 2; i++) {
		bt_map_clear(bpf_map__fd(T.skel->maps.rf_sandboxes), sizeof(uint64_t));
		sandbox_put(flags[i], 0);
		assert_int_equal(unix_in(&T.cg, upath("no.sock"), SOCK_STREAM), 0);
		assert_int_equal(unix_in(&T.cg, upath("nod.sock"), SOCK_DGRAM), 0);
		/* ...while inet stays confined. */
		assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pb), EPERM);
	}
	assert_int_equal(samples_count(), 1);  /* the second sandbox's own */
	assert_int_equal(stat_of(RF_STAT_DECISIONS), 2);
	assert_int_equal(sandbox_get().denials[RF_CLASS_UNIX], 0);
}

/* A datagram to the allowed address with a routing header (IPv6, type 4,
 * its one segment ::1 itself) or IPv4 options (NOPs): the child is root
 * with every capability, so only rf_egress stands in the way. */
struct routed_act {
	int family;
	bool route;
	uint16_t port;
};

static int act_routed(void *p)
{
	const struct routed_act *a = p;
	uint8_t srh[24] = { 0, 2, 4, 0, 0 }, nops[4] = { 1, 1, 1, 0 };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(a->port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(a->port) };
	int fd = socket(a->family, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return errno;
	inet_pton(AF_INET6, "::1", &s6.sin6_addr);
	inet_pton(AF_INET6, "::1", srh + 8);
	inet_pton(AF_INET, "127.0.0.1", &s4.sin_addr);
	if (a->route && a->family == AF_INET6)
		r = setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, srh, sizeof(srh)) ? errno : 0;
	else if (a->route)
		r = setsockopt(fd, IPPROTO_IP, IP_OPTIONS, nops, sizeof(nops)) ? errno : 0;
	if (!r && a->family == AF_INET6)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&s6, sizeof(s6)) == 1 ? 0 : errno;
	else if (!r)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&s4, sizeof(s4)) == 1 ? 0 : errno;
	close(fd);
	return r;
}

static void egress_drops_routing_headers_and_ip_options(void **state)
{
	uint16_t ports[] = { T.pu };
	struct routed_act plain6 = { AF_INET6, false, T.pu }, routed6 = { AF_INET6, true, T.pu };
	struct routed_act plain4 = { AF_INET, false, T.pu }, routed4 = { AF_INET, true, T.pu };

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	net6_put("::1", 128, ports, 1);
	assert_int_equal(run_in(&T.cg, act_routed, &plain6), 0);
	assert_int_equal(run_in(&T.cg, act_routed, &plain4), 0);
	assert_int_equal(run_in(&T.cg, act_routed, &routed6), EPERM);
	assert_int_equal(run_in(&T.cg, act_routed, &routed4), EPERM);
	assert_int_equal(sandbox_get().denials[RF_CLASS_PROCESS], 2);
	/* Outside the sandbox, and with the network unrestricted: sent. */
	assert_int_equal(run_in(NULL, act_routed, &routed6), 0);
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(T.skel->maps.rf_sandboxes), &T.cg.id), 0);
	sandbox_put(RF_SB_NET_UNRESTRICTED, 0);
	assert_int_equal(run_in(&T.cg, act_routed, &routed6), 0);
	assert_int_equal(run_in(&T.cg, act_routed, &routed4), 0);
}

/* A slot handed on (rf_slots names another owner) while the sandbox
 * still finds it through rf_sb_slots, its own keys in it: no rule of it
 * answers (bpf/rf_sbmap.bpf.h checks the owner after the lookup), and a
 * sample goes nowhere; the owner back, the same rule answers again. */
static void slot_of_another_owner_answers_nothing(void **state)
{
	const uint16_t ports[] = { T.pa };
	struct rf_slot s;
	__u32 slot;
	int fd = bpf_map__fd(T.skel->maps.rf_slots);

	(void)state;
	sandbox_put(0, 0);
	net4_put("127.0.0.1", 32, ports, 1);
	net4_put("127.0.0.0", 8, ports, 1);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), 0);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.2", T.pa), 0);
	slot = (__u32)bt_slot(T.cg.id, false);
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, &s), 0);
	assert_true(s.cgid == T.cg.id);
	s.cgid = T.cg.id + 1;  /* the next sandbox's now */
	assert_int_equal(bpf_map_update_elem(fd, &slot, &s, BPF_ANY), 0);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), EPERM);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.2", T.pa), EPERM);
	assert_int_equal(sandbox_get().denials[RF_CLASS_NET], 2);
	assert_int_equal(samples_count(), 0);
	s.cgid = T.cg.id;
	assert_int_equal(bpf_map_update_elem(fd, &slot, &s, BPF_ANY), 0);
	assert_int_equal(connect_in(&T.cg, AF_INET, "127.0.0.1", T.pa), 0);
}

int main(void)
{
#define T_(f) cmocka_unit_test_setup(f, test_setup)
	const struct CMUnitTest tests[] = {
		T_(connect4_allowed_port_only),
		T_(connect4_prefix_covers_its_subnet),
		T_(connect6_allowed_port_only),
		T_(mapped_v6_judged_as_v4),
		T_(udp_sendto_and_connect_judged),
		T_(sock_create_only_tcp_udp),
		T_(sock_create_sctp),
		T_(unrestricted_network_not_judged),
		T_(audit_records_without_denying),
		T_(sub_cgroup_keeps_the_policy),
		T_(no_sandbox_entry_not_judged),
		T_(samples_bounded_counts_exact),
		T_(unix_connect_and_send_judged),
		T_(unix_subtree_rule),
		T_(unix_left_to_others),
		T_(egress_drops_routing_headers_and_ip_options),
		T_(slot_of_another_owner_answers_nothing),
	};

	if (bt_require_root())
		return 0;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
