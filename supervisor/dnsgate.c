// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-sandbox DNS gate (dnsgate.h). One thread, one epoll set: the
 * listeners, the upstream sockets, TCP clients, an eventfd to stop and a
 * timerfd armed for the next grant expiry or upstream timeout only, so an
 * idle gate never wakes up.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include <jansson.h>
#include <ldns/ldns.h>
#include <bpf/bpf.h>

#include "array.h"
#include "cleanup.h"
#include "dnsgate.h"
#include "lazy_ldns.h"
#include "log.h"
#include "names.h"
#include "pins.h"
#include "sbmaps.h"

#define GATE_TCP_MAX 64
#define GATE_MSG_MAX 65535
#define GATE_UPSTREAM_MAX 8

enum { L_UDP4, L_UDP6, L_TCP4, L_TCP6, L_MAX };

/* Where a reply goes: a UDP peer of one listener, or a TCP client. */
struct client {
	int udp_fd;                  /* -1: TCP */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	int conn;                    /* TCP: index in conns */
	uint32_t gen;                /* TCP: the connection's generation */
};

struct pending {
	bool used;
	uint16_t up_id, client_id;
	struct client c;
	uint64_t deadline_ms;
	size_t upstream;             /* index in ups[] it went to */
	uint8_t *query;              /* as sent upstream (retries) */
	size_t query_len;
	char qname[RF_DNS_NAME_MAX + 2];
	uint16_t qtype;
};

struct conn {
	int fd;                      /* -1: free */
	uint32_t gen;
	uint8_t *buf;                /* 2-byte length + message */
	size_t have;
};

struct grant {
	int family;
	uint8_t addr[16];
	size_t entry;                /* policy->connect[] index */
	uint64_t expiry_ms;
};

struct rf_dnsgate {
	struct rf_dnsgate_opts o;
	int lfd[L_MAX];
	uint16_t port4, port6;
	int up4, up6;                /* upstream sockets */
	struct rf_upstream ups[GATE_UPSTREAM_MAX];
	size_t n_ups;
	int ep, tfd, efd;
	pthread_t thread;
	bool running;
	struct pending pend[RF_DNS_PENDING_MAX];
	struct conn conns[GATE_TCP_MAX];
	struct grant *grants;
	size_t n_grants, cap_grants;
	uint64_t armed_ms;           /* what the timerfd is set for; 0: nothing */
	struct rf_dnsgate_stats st;
	uint64_t deny_traced;
	int note_fd;                 /* rf_dns_note (net.bpf.c); -1: the monitor gets none */
	uint8_t rbuf[GATE_MSG_MAX];
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------- policy */

static bool v4_in(const uint8_t *a, uint8_t b0, uint8_t b1, int bits)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	uint32_t p = (uint32_t)b0 << 24 | (uint32_t)b1 << 16;

	return bits == 0 || (x >> (32 - bits)) == (p >> (32 - bits));
}

bool dnsgate__is_private(int family, const uint8_t *a)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (family == AF_INET)
		return v4_in(a, 0, 0, 8) || v4_in(a, 10, 0, 8) || v4_in(a, 127, 0, 8) ||
		       v4_in(a, 169, 254, 16) || v4_in(a, 172, 16, 12) ||
		       v4_in(a, 192, 168, 16) || v4_in(a, 100, 64, 10) || a[0] >= 224;
	if (!memcmp(a, mapped, 12))
		return dnsgate__is_private(AF_INET, a + 12);
	/* ::, ::1, fc00::/7 (with fd00:ec2::254), fe80::/10, ff00::/8 */
	return (!memcmp(a, zero, 15) && a[15] <= 1) || (a[0] & 0xfe) == 0xfc ||
	       (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || a[0] == 0xff;
}

static bool prefix_covers(int pf, const uint8_t *pa, unsigned plen, int family,
			  const uint8_t *a)
{
	unsigned full = plen / 8, rem = plen % 8;

	if (pf != family || memcmp(pa, a, full))
		return false;
	return !rem || ((pa[full] ^ a[full]) & (uint8_t)(0xff << (8 - rem))) == 0;
}

/* A private answer passes when the policy names it: rebind_allow, or an
 * IP/CIDR entry of network.connect covering it. */
static bool private_allowed(const struct rf_policy *p, int family, const uint8_t *a)
{
	size_t i;

	for (i = 0; i < p->dns.n_rebind_allow; i++) {
		const struct rf_prefix *r = &p->dns.rebind_allow[i];

		if (prefix_covers(r->family, r->addr, r->prefix_len, family, a))
			return true;
	}
	for (i = 0; i < p->n_connect; i++) {
		const struct rf_endpoint *ep = &p->connect[i];

		if (ep->kind == RF_HOST_ADDR &&
		    prefix_covers(ep->family, ep->addr, ep->prefix_len, family, a))
			return true;
	}
	return false;
}

/* The first network.connect name entry matching qname at or after from;
 * n_connect when none. */
static size_t match_entry(const struct rf_policy *p, const char *qname, size_t from)
{
	size_t i;

	for (i = from; i < p->n_connect; i++)
		if (endpoint__name_matches(&p->connect[i], qname))
			return i;
	return p->n_connect;
}

/* ---------------------------------------------------------------- grants */

/* Write (or remove) the kernel's key for one address: the static rules
 * plus every live grant for it, built like the rest (netrules.c). */
static int grants_sync(struct rf_dnsgate *g, int family, const uint8_t *addr)
{
	const struct rf_policy *p = g->o.policy;
	_cleanup_free_ struct rf_addr_rule *x = NULL;
	struct rf_net_entry e;
	size_t n = 0, cap = 0, i, alen = family == AF_INET ? 4 : 16;
	bool found;
	int r;

	for (i = 0; i < g->n_grants; i++) {
		const struct grant *gr = &g->grants[i];
		struct rf_addr_rule *rule;

		if (gr->family != family || memcmp(gr->addr, addr, alen))
			continue;
		if (array__reserve((void **)&x, &cap, n + 1, sizeof(*x)))
			return -ENOMEM;
		rule = &x[n++];
		memset(rule, 0, sizeof(*rule));
		rule->family = family;
		memcpy(rule->addr, addr, alen);
		rule->prefix_len = (uint8_t)(alen * 8);
		rule->port_lo = p->connect[gr->entry].port_lo;
		rule->port_hi = p->connect[gr->entry].port_hi;
		rule->source = gr->entry;
	}
	r = netrules__host_entry(g->o.rules, g->o.n_rules, x, n, family, addr, &e, &found);
	if (r)
		return r;
	if (found)
		return sbmaps__grant_host(g->o.enf, g->o.cgid, &e);
	return sbmaps__revoke_host(g->o.enf, g->o.cgid, family, addr);
}

/* Open addr for entry until expiry (kept if a later one is already there). */
static int grant_add(struct rf_dnsgate *g, int family, const uint8_t *addr, size_t entry,
		     uint64_t expiry_ms)
{
	size_t alen = family == AF_INET ? 4 : 16, i;
	struct grant *gr = NULL;

	for (i = 0; i < g->n_grants && !gr; i++)
		if (g->grants[i].family == family && g->grants[i].entry == entry &&
		    !memcmp(g->grants[i].addr, addr, alen))
			gr = &g->grants[i];
	/* Already open for this entry: the kernel's key stays as it is,
	 * only the expiry moves. */
	if (gr) {
		if (expiry_ms > gr->expiry_ms)
			gr->expiry_ms = expiry_ms;
		return 0;
	}
	if (array__reserve((void **)&g->grants, &g->cap_grants, g->n_grants + 1,
			   sizeof(*g->grants)))
		return -ENOMEM;
	gr = &g->grants[g->n_grants++];
	memset(gr, 0, sizeof(*gr));
	gr->family = family;
	memcpy(gr->addr, addr, alen);
	gr->entry = entry;
	gr->expiry_ms = expiry_ms;
	g->st.granted++;
	return grants_sync(g, family, addr);
}

/* Drop the grants that expired by now; then their keys. */
static void grants_expire(struct rf_dnsgate *g, uint64_t now)
{
	size_t i = 0;

	while (i < g->n_grants) {
		struct grant gone = g->grants[i];

		if (gone.expiry_ms > now) {
			i++;
			continue;
		}
		g->grants[i] = g->grants[--g->n_grants];
		g->st.expired++;
		if (grants_sync(g, gone.family, gone.addr))
			/* fail closed: a key we cannot rewrite goes */
			sbmaps__revoke_host(g->o.enf, g->o.cgid, gone.family, gone.addr);
	}
}

/* ----------------------------------------------------------------- trace */

static void trace_emit(struct rf_dnsgate *g, const char *event, json_t *fields)
{
	if (g->o.trace)
		trace__emit(g->o.trace, event, fields);
	else
		json_decref(fields);
}

static json_t *addr_json(int family, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(family, a, s, sizeof(s));
	return json_string(s);
}

/* The same decision on the monitor's stream (rf_events), through
 * rf_dns_note: op dns_query, the name as the path, RF_EVF_DNS. Every one,
 * like the kernel's decisions; the ring buffer counts what it loses. */
static void note_deny(struct rf_dnsgate *g, const char *qname, enum rf_reason reason,
		      uint16_t qtype)
{
	struct rf_event ev = {
		.cgroup_id = g->o.cgid, .kind = RF_EV_DECISION, .class = RF_CLASS_NET,
		.op = RF_OP_DNS_QUERY, .reason = reason, .flags = RF_EVF_DNS,
		.verdict = g->o.audit ? RF_VERDICT_AUDITED : RF_VERDICT_DENIED,
		.pid = (uint32_t)getpid(), .protocol = IPPROTO_UDP, .port = RF_DNS_PORT,
		.arg = qtype,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ev, .ctx_size_in = sizeof(ev));

	if (g->note_fd < 0)
		return;
	snprintf(ev.comm, sizeof(ev.comm), "ringfence-dns");
	ev.path_len = (uint32_t)snprintf(ev.path, sizeof(ev.path), "%s", qname);
	if (ev.path_len >= sizeof(ev.path))
		ev.path_len = sizeof(ev.path) - 1;
	bpf_prog_test_run_opts(g->note_fd, &opts);
}

/* dns.deny: a refused name or a dropped answer; the first
 * RF_DNS_TRACE_DENY_MAX of a run (a query loop must not fill the disk). */
static void trace_deny(struct rf_dnsgate *g, const char *qname, uint16_t qtype,
		       enum rf_reason reason, size_t entry, json_t *dropped)
{
	char type[16];
	json_t *f;

	note_deny(g, qname, reason, qtype);
	if (g->deny_traced++ >= RF_DNS_TRACE_DENY_MAX) {
		json_decref(dropped);
		return;
	}
	snprintf(type, sizeof(type), "%u", qtype);
	{
		char *t = ldns_rr_type2str((ldns_rr_type)qtype);

		if (t)
			snprintf(type, sizeof(type), "%s", t);
		free(t);
	}
	f = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", qname, "type", type,
		      "op", names__op(RF_OP_DNS_QUERY), "reason", names__reason(reason),
		      "verdict", g->o.audit ? "audited" : "denied");
	if (f && entry < g->o.policy->n_connect)
		json_object_set_new(f, "entry", json_string(g->o.policy->connect[entry].text));
	if (f && dropped)
		json_object_set_new(f, "addresses", dropped);
	else
		json_decref(dropped);
	trace_emit(g, "dns.deny", f);
}

/* --------------------------------------------------------------- replies */

static void conn_close(struct rf_dnsgate *g, size_t i)
{
	struct conn *k = &g->conns[i];

	if (k->fd >= 0) {
		epoll_ctl(g->ep, EPOLL_CTL_DEL, k->fd, NULL);
		close(k->fd);
	}
	k->fd = -1;
	k->gen++;
	k->have = 0;
}

static void reply_send(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
		       size_t len)
{
	uint8_t hdr[2] = { (uint8_t)(len >> 8), (uint8_t)len };
	struct iovec iov[2] = { { hdr, 2 }, { (void *)msg, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct conn *k;

	if (c->udp_fd >= 0) {
		sendto(c->udp_fd, msg, len, MSG_DONTWAIT, (const struct sockaddr *)&c->peer,
		       c->peer_len);
		return;
	}
	k = &g->conns[c->conn];
	if (k->fd < 0 || k->gen != c->gen)
		return;
	/* Answers are small; a client that does not read them loses its
	 * connection rather than stalling the gate. */
	if (sendmsg(k->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)(len + 2))
		conn_close(g, (size_t)c->conn);
}

static void section_clear(ldns_pkt *p, ldns_pkt_section s)
{
	ldns_rr_list *l = ldns_rr_list_new();

	if (!l)
		return;
	if (s == LDNS_SECTION_ANSWER) {
		ldns_rr_list_deep_free(ldns_pkt_answer(p));
		ldns_pkt_set_answer(p, l);
		ldns_pkt_set_ancount(p, 0);
	} else if (s == LDNS_SECTION_AUTHORITY) {
		ldns_rr_list_deep_free(ldns_pkt_authority(p));
		ldns_pkt_set_authority(p, l);
		ldns_pkt_set_nscount(p, 0);
	} else {
		ldns_rr_list_deep_free(ldns_pkt_additional(p));
		ldns_pkt_set_additional(p, l);
		ldns_pkt_set_arcount(p, 0);
	}
}

static void reply_pkt(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *p)
{
	uint8_t *wire = NULL;
	size_t len = 0;

	if (ldns_pkt2wire(&wire, p, &len) == LDNS_STATUS_OK)
		reply_send(g, c, wire, len);
	free(wire);
}

/* An answer of our own: the question echoed, rcode, nothing else. */
static void reply_rcode(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *q,
			uint8_t rcode)
{
	ldns_pkt *r = ldns_pkt_clone(q);

	if (!r)
		return;
	ldns_pkt_set_qr(r, true);
	ldns_pkt_set_aa(r, false);
	ldns_pkt_set_ra(r, true);
	ldns_pkt_set_rcode(r, rcode);
	section_clear(r, LDNS_SECTION_ANSWER);
	section_clear(r, LDNS_SECTION_AUTHORITY);
	section_clear(r, LDNS_SECTION_ADDITIONAL);
	reply_pkt(g, c, r);
	ldns_pkt_free(r);
}

/* The one question of a query: its name (lower case, no trailing dot)
 * and type. False for anything else (no question, several). */
static bool question_of(const ldns_pkt *p, char *name, size_t len, uint16_t *ret_type)
{
	ldns_rr_list *q = ldns_pkt_question(p);
	ldns_rr *rr;
	char *s;
	size_t n, i;

	if (!q || ldns_rr_list_rr_count(q) != 1 || ldns_pkt_qdcount(p) != 1)
		return false;
	rr = ldns_rr_list_rr(q, 0);
	s = ldns_rdf2str(ldns_rr_owner(rr));
	if (!s)
		return false;
	n = strlen(s);
	if (n > 1 && s[n - 1] == '.')
		s[--n] = '\0';
	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
	snprintf(name, len, "%s", s);
	free(s);
	*ret_type = (uint16_t)ldns_rr_get_type(rr);
	return n < len;
}

/* --------------------------------------------------------------- queries */

static struct pending *pending_new(struct rf_dnsgate *g)
{
	size_t i, j;

	for (i = 0; i < RF_DNS_PENDING_MAX; i++) {
		struct pending *p = &g->pend[i];
		uint16_t id;
		bool clash;

		if (p->used)
			continue;
		/* An id no query in flight has, unpredictable to the sandbox. */
		do {
			if (getrandom(&id, sizeof(id), 0) != sizeof(id))
				return NULL;
			clash = false;
			for (j = 0; j < RF_DNS_PENDING_MAX; j++)
				clash |= g->pend[j].used && g->pend[j].up_id == id;
		} while (clash);
		memset(p, 0, sizeof(*p));
		p->used = true;
		p->up_id = id;
		return p;
	}
	return NULL;
}

static void pending_free(struct pending *p)
{
	free(p->query);
	memset(p, 0, sizeof(*p));
}

static void upstream_addr(const struct rf_upstream *u, struct sockaddr_storage *ss,
			  socklen_t *ret_len)
{
	memset(ss, 0, sizeof(*ss));
	if (u->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(u->port);
		memcpy(&s4->sin_addr, u->addr, 4);
		*ret_len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(u->port);
		memcpy(&s6->sin6_addr, u->addr, 16);
		*ret_len = sizeof(*s6);
	}
}

static int upstream_send(struct rf_dnsgate *g, struct pending *p)
{
	const struct rf_upstream *u = &g->ups[p->upstream];
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = u->family == AF_INET ? g->up4 : g->up6;

	upstream_addr(u, &ss, &sl);
	p->deadline_ms = now_ms() + RF_DNS_UPSTREAM_TIMEOUT_MS;
	if (fd < 0 || sendto(fd, p->query, p->query_len, MSG_DONTWAIT, (struct sockaddr *)&ss,
			     sl) != (ssize_t)p->query_len)
		return -EIO;
	return 0;
}

static void on_query(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
		     size_t len)
{
	const struct rf_policy *pol = g->o.policy;
	char qname[RF_DNS_NAME_MAX + 2];
	ldns_pkt *q = NULL;
	struct pending *p;
	uint16_t qtype;
	size_t entry;

	g->st.queries++;
	if (len < 12 || ldns_wire2pkt(&q, msg, len) != LDNS_STATUS_OK)
		return;  /* not DNS: no answer */
	if (ldns_pkt_qr(q) || !question_of(q, qname, sizeof(qname), &qtype)) {
		reply_rcode(g, c, q, LDNS_RCODE_FORMERR);
		goto out;
	}
	entry = match_entry(pol, qname, 0);
	if (entry == pol->n_connect) {
		g->st.denied++;
		trace_deny(g, qname, qtype, RF_REASON_DNS_NAME, entry, NULL);
		if (!g->o.audit) {
			reply_rcode(g, c, q, LDNS_RCODE_REFUSED);
			goto out;
		}
	}
	p = pending_new(g);
	if (!p || !(p->query = malloc(len))) {
		/* overloaded: fail, never pass */
		g->st.servfail++;
		if (p)
			pending_free(p);
		reply_rcode(g, c, q, LDNS_RCODE_SERVFAIL);
		goto out;
	}
	memcpy(p->query, msg, len);
	p->query_len = len;
	p->client_id = ldns_pkt_id(q);
	p->query[0] = (uint8_t)(p->up_id >> 8);
	p->query[1] = (uint8_t)p->up_id;
	p->c = *c;
	p->qtype = qtype;
	snprintf(p->qname, sizeof(p->qname), "%s", qname);
	if (upstream_send(g, p))
		p->deadline_ms = 0;  /* retried on the next upstream at once */
out:
	ldns_pkt_free(q);
}

/* ---------------------------------------------------------------- answers */

/* Is owner one of the chain's names? */
static bool in_chain(ldns_rdf *const *chain, size_t n, const ldns_rdf *owner)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ldns_dname_compare(chain[i], owner) == 0)
			return true;
	return false;
}

#define CHAIN_MAX 16

/* The names the answer's CNAMEs lead to from the question's (in order;
 * CHAIN_MAX at most, a loop ends it). Borrowed rdfs. */
static size_t cname_chain(const ldns_pkt *r, ldns_rdf **chain)
{
	ldns_rr_list *an = ldns_pkt_answer(r);
	size_t n = 1, pass, i, cnt = an ? ldns_rr_list_rr_count(an) : 0;

	chain[0] = ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(r), 0));
	for (pass = 0; pass < CHAIN_MAX; pass++) {
		bool grew = false;

		for (i = 0; i < cnt && n < CHAIN_MAX; i++) {
			ldns_rr *rr = ldns_rr_list_rr(an, i);
			ldns_rdf *target = ldns_rr_rdf(rr, 0);

			if (ldns_rr_get_type(rr) != LDNS_RR_TYPE_CNAME || !target ||
			    !in_chain(chain, n, ldns_rr_owner(rr)) || in_chain(chain, n, target))
				continue;
			chain[n++] = target;
			grew = true;
		}
		if (!grew)
			break;
	}
	return n;
}

/* An A/AAAA record of the chain: its address. */
static bool rr_address(const ldns_rr *rr, ldns_rdf *const *chain, size_t n, int *ret_family,
		       uint8_t *addr)
{
	ldns_rr_type t = ldns_rr_get_type(rr);
	ldns_rdf *d = ldns_rr_rdf(rr, 0);
	size_t want = t == LDNS_RR_TYPE_A ? 4 : 16;

	if ((t != LDNS_RR_TYPE_A && t != LDNS_RR_TYPE_AAAA) || !d ||
	    ldns_rdf_size(d) != want || !in_chain(chain, n, ldns_rr_owner(rr)))
		return false;
	memset(addr, 0, 16);
	memcpy(addr, ldns_rdf_data(d), want);
	*ret_family = t == LDNS_RR_TYPE_A ? AF_INET : AF_INET6;
	/* ::ffff:a.b.c.d is judged as a.b.c.d by the kernel: grant that. */
	if (*ret_family == AF_INET6 && !memcmp(addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
		memmove(addr, addr + 12, 4);
		memset(addr + 4, 0, 12);
		*ret_family = AF_INET;
	}
	return true;
}

/* Open one address for every entry naming qname. */
static int grant_entries(struct rf_dnsgate *g, const char *qname, int family,
			 const uint8_t *addr, uint32_t ttl)
{
	const struct rf_policy *pol = g->o.policy;
	uint64_t expiry = now_ms() + (uint64_t)(ttl > RF_DNS_TTL_MAX ? RF_DNS_TTL_MAX : ttl) * 1000 +
			  RF_DNS_GRACE_MS;
	size_t e;
	int r = 0;

	for (e = match_entry(pol, qname, 0); !r && e < pol->n_connect;
	     e = match_entry(pol, qname, e + 1))
		r = grant_add(g, family, addr, e, expiry);
	return r;
}

/*
 * Grant the answer's addresses, drop the private ones (rebinding), and
 * rebuild the answer list of r without them. Returns 0, or an error when a
 * grant could not be written (the client then gets SERVFAIL: nothing it
 * would connect to is left half open).
 */
static int answer_filter(struct rf_dnsgate *g, const struct pending *p, ldns_pkt *r,
			 json_t *granted, json_t *dropped, bool *ret_changed)
{
	ldns_rr_list *an = ldns_pkt_answer(r), *keep = ldns_rr_list_new();
	ldns_rdf *chain[CHAIN_MAX];
	size_t n = cname_chain(r, chain), i, cnt = an ? ldns_rr_list_rr_count(an) : 0;
	bool named = match_entry(g->o.policy, p->qname, 0) < g->o.policy->n_connect;
	int err = keep ? 0 : -ENOMEM;

	for (i = 0; !err && i < cnt; i++) {
		ldns_rr *rr = ldns_rr_list_rr(an, i);
		uint8_t addr[16];
		int family;

		if (rr_address(rr, chain, n, &family, addr) && dnsgate__is_private(family, addr) &&
		    !private_allowed(g->o.policy, family, addr)) {
			json_array_append_new(dropped, addr_json(family, addr));
			if (!g->o.audit) {
				*ret_changed = true;
				continue;
			}
		} else if (named && rr_address(rr, chain, n, &family, addr)) {
			err = grant_entries(g, p->qname, family, addr, ldns_rr_ttl(rr));
			json_array_append_new(granted, json_pack("{s:o, s:I}", "address",
								 addr_json(family, addr), "ttl",
								 (json_int_t)ldns_rr_ttl(rr)));
		}
		if (!err && !ldns_rr_list_push_rr(keep, ldns_rr_clone(rr)))
			err = -ENOMEM;
	}
	if (!err && *ret_changed) {
		ldns_rr_list_deep_free(an);
		ldns_pkt_set_answer(r, keep);
		ldns_pkt_set_ancount(r, (uint16_t)ldns_rr_list_rr_count(keep));
		keep = NULL;
	}
	ldns_rr_list_deep_free(keep);
	return err;
}

static void trace_query(struct rf_dnsgate *g, const struct pending *p, const ldns_pkt *r,
			json_t *granted)
{
	size_t e = match_entry(g->o.policy, p->qname, 0);
	char *type = ldns_rr_type2str((ldns_rr_type)p->qtype);
	char *rcode = ldns_pkt_rcode2str(ldns_pkt_get_rcode(r));
	json_t *f;

	f = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", p->qname, "type", type ? type : "?",
		      "verdict", e < g->o.policy->n_connect ? "allowed" : "audited",
		      "rcode", rcode ? rcode : "?", "granted", granted);
	if (f && e < g->o.policy->n_connect)
		json_object_set_new(f, "entry", json_string(g->o.policy->connect[e].text));
	if (f)
		json_object_set_new(f, "grace_ms", json_integer(RF_DNS_GRACE_MS));
	free(type);
	free(rcode);
	trace_emit(g, "dns.query", f);
}

/* The upstream's answer to p: grants first, then the client's reply. */
static void on_answer(struct rf_dnsgate *g, struct pending *p, uint8_t *msg, size_t len)
{
	json_t *granted = json_array(), *dropped = json_array();
	char qname[RF_DNS_NAME_MAX + 2];
	bool changed = false;
	ldns_pkt *r = NULL;
	uint16_t qtype;

	if (ldns_wire2pkt(&r, msg, len) != LDNS_STATUS_OK ||
	    !question_of(r, qname, sizeof(qname), &qtype) || qtype != p->qtype ||
	    strcmp(qname, p->qname)) {
		ldns_pkt_free(r);  /* not the answer to this question: keep waiting */
		json_decref(granted);
		json_decref(dropped);
		return;
	}
	if (answer_filter(g, p, r, granted, dropped, &changed)) {
		g->st.servfail++;
		ldns_pkt_set_id(r, p->client_id);
		reply_rcode(g, &p->c, r, LDNS_RCODE_SERVFAIL);
		json_decref(granted);
		json_decref(dropped);
		goto out;
	}
	g->st.allowed++;
	if (json_array_size(dropped)) {
		g->st.dropped_answers += json_array_size(dropped);
		trace_deny(g, p->qname, p->qtype, RF_REASON_DNS_REBIND,
			   match_entry(g->o.policy, p->qname, 0), json_incref(dropped));
	}
	json_decref(dropped);
	trace_query(g, p, r, granted);
	ldns_pkt_set_id(r, p->client_id);
	if (changed) {
		reply_pkt(g, &p->c, r);
	} else {
		/* unchanged: the upstream's own bytes, with the client's id */
		msg[0] = (uint8_t)(p->client_id >> 8);
		msg[1] = (uint8_t)p->client_id;
		reply_send(g, &p->c, msg, len);
	}
out:
	ldns_pkt_free(r);
	pending_free(p);
}

static bool from_upstream(const struct rf_upstream *u, const struct sockaddr_storage *ss)
{
	if (u->family == AF_INET && ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		return ntohs(s4->sin_port) == u->port && !memcmp(&s4->sin_addr, u->addr, 4);
	}
	if (u->family == AF_INET6 && ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		return ntohs(s6->sin6_port) == u->port && !memcmp(&s6->sin6_addr, u->addr, 16);
	}
	return false;
}

static void on_upstream(struct rf_dnsgate *g, int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	ssize_t n;
	size_t i;

	while ((n = recvfrom(fd, g->rbuf, sizeof(g->rbuf), MSG_DONTWAIT,
			     (struct sockaddr *)&ss, &sl)) >= 0) {
		uint16_t id = (uint16_t)(g->rbuf[0] << 8 | g->rbuf[1]);

		for (i = 0; n >= 12 && i < RF_DNS_PENDING_MAX; i++) {
			struct pending *p = &g->pend[i];

			/* the id we chose, from the server we asked */
			if (p->used && p->up_id == id && from_upstream(&g->ups[p->upstream], &ss)) {
				on_answer(g, p, g->rbuf, (size_t)n);
				break;
			}
		}
		sl = sizeof(ss);
	}
}

static void on_udp(struct rf_dnsgate *g, int fd)
{
	struct client c = { .udp_fd = fd, .conn = -1 };
	uint8_t buf[4096];
	ssize_t n;

	for (;;) {
		c.peer_len = sizeof(c.peer);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&c.peer,
			     &c.peer_len);
		if (n < 0)
			return;
		on_query(g, &c, buf, (size_t)n);
	}
}

/* ------------------------------------------------------------------- TCP */

#define EV_LISTEN 1ull
#define EV_UP4 2ull
#define EV_UP6 3ull
#define EV_CONN 4ull
#define EV_TIMER 5ull
#define EV_STOP 6ull
#define EV(kind, idx) ((kind) << 32 | (uint64_t)(idx))

static int ep_add(struct rf_dnsgate *g, int fd, uint64_t data)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = data };

	return epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

static void on_accept(struct rf_dnsgate *g, int lfd)
{
	int fd;
	size_t i;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		for (i = 0; i < GATE_TCP_MAX && g->conns[i].fd >= 0; i++)
			;
		if (i == GATE_TCP_MAX || (!g->conns[i].buf &&
					  !(g->conns[i].buf = malloc(GATE_MSG_MAX + 2))) ||
		    ep_add(g, fd, EV(EV_CONN, i))) {
			close(fd);  /* overloaded: the client's DNS fails */
			continue;
		}
		g->conns[i].fd = fd;
		g->conns[i].have = 0;
	}
}

/* Messages on a TCP connection: a 2-byte length, then the message. */
static void on_conn(struct rf_dnsgate *g, size_t i)
{
	struct conn *k = &g->conns[i];
	ssize_t n;

	n = read(k->fd, k->buf + k->have, GATE_MSG_MAX + 2 - k->have);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(g, i);
		return;
	}
	k->have += (size_t)n;
	while (k->fd >= 0 && k->have >= 2) {
		size_t len = (size_t)k->buf[0] << 8 | k->buf[1];
		struct client c = { .udp_fd = -1, .conn = (int)i, .gen = k->gen };

		if (k->have < len + 2)
			break;
		on_query(g, &c, k->buf + 2, len);
		if (k->fd < 0)
			break;
		memmove(k->buf, k->buf + 2 + len, k->have - 2 - len);
		k->have -= 2 + len;
	}
}

/* ----------------------------------------------------------------- timer */

/* Upstreams that did not answer in time: the next one, or SERVFAIL. */
static void pendings_expire(struct rf_dnsgate *g, uint64_t now)
{
	size_t i;

	for (i = 0; i < RF_DNS_PENDING_MAX; i++) {
		struct pending *p = &g->pend[i];
		ldns_pkt *q = NULL;

		if (!p->used || p->deadline_ms > now)
			continue;
		while (++p->upstream < g->n_ups)
			if (!upstream_send(g, p))
				break;
		if (p->upstream < g->n_ups)
			continue;
		g->st.servfail++;
		p->query[0] = (uint8_t)(p->client_id >> 8);
		p->query[1] = (uint8_t)p->client_id;
		if (ldns_wire2pkt(&q, p->query, p->query_len) == LDNS_STATUS_OK)
			reply_rcode(g, &p->c, q, LDNS_RCODE_SERVFAIL);
		ldns_pkt_free(q);
		pending_free(p);
	}
}

/* Arm the timer for the earliest expiry or deadline, or disarm it: the
 * gate wakes for nothing else. */
static void timer_arm(struct rf_dnsgate *g)
{
	struct itimerspec its = { 0 };
	uint64_t next = 0, now = now_ms();
	size_t i;

	for (i = 0; i < g->n_grants; i++)
		if (!next || g->grants[i].expiry_ms < next)
			next = g->grants[i].expiry_ms;
	for (i = 0; i < RF_DNS_PENDING_MAX; i++)
		if (g->pend[i].used && (!next || g->pend[i].deadline_ms < next))
			next = g->pend[i].deadline_ms;
	if (next && next <= now)
		next = now + 1;
	if (next == g->armed_ms)
		return;
	g->armed_ms = next;
	its.it_value.tv_sec = (time_t)(next / 1000);
	its.it_value.tv_nsec = (long)(next % 1000) * 1000000;
	timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_timer(struct rf_dnsgate *g)
{
	uint64_t ticks, now = now_ms();

	if (read(g->tfd, &ticks, sizeof(ticks)) < 0 && errno == EAGAIN)
		return;
	g->armed_ms = 0;
	grants_expire(g, now);
	pendings_expire(g, now);
}

static void *gate_main(void *arg)
{
	struct rf_dnsgate *g = arg;
	struct epoll_event evs[16];
	int n, i;

	for (;;) {
		timer_arm(g);
		n = epoll_wait(g->ep, evs, 16, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			uint64_t kind = evs[i].data.u64 >> 32;
			uint32_t idx = (uint32_t)evs[i].data.u64;

			if (kind == EV_STOP)
				return NULL;
			if (kind == EV_TIMER)
				on_timer(g);
			else if (kind == EV_UP4 || kind == EV_UP6)
				on_upstream(g, kind == EV_UP4 ? g->up4 : g->up6);
			else if (kind == EV_CONN)
				on_conn(g, idx);
			else if (idx == L_UDP4 || idx == L_UDP6)
				on_udp(g, g->lfd[idx]);
			else
				on_accept(g, g->lfd[idx]);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------- lifecycle */

/* The host's resolvers, as the supervisor's own resolver sees them. */
static int upstreams_from_host(struct rf_dnsgate *g)
{
	ldns_resolver *res = NULL;
	ldns_rdf **ns;
	size_t i, n;

	if (ldns_resolver_new_frm_file(&res, NULL) != LDNS_STATUS_OK)
		return -ENOENT;
	ns = ldns_resolver_nameservers(res);
	n = ldns_resolver_nameserver_count(res);
	for (i = 0; i < n && g->n_ups < GATE_UPSTREAM_MAX; i++) {
		struct rf_upstream *u = &g->ups[g->n_ups];
		size_t sz = ldns_rdf_size(ns[i]);

		if (ldns_rdf_get_type(ns[i]) != LDNS_RDF_TYPE_A &&
		    ldns_rdf_get_type(ns[i]) != LDNS_RDF_TYPE_AAAA)
			continue;
		memset(u, 0, sizeof(*u));
		u->family = sz == 4 ? AF_INET : AF_INET6;
		memcpy(u->addr, ldns_rdf_data(ns[i]), sz == 4 ? 4 : 16);
		u->port = 53;
		g->n_ups++;
	}
	ldns_resolver_deep_free(res);
	return g->n_ups ? 0 : -ENOENT;
}

static int sock_bind(int family, int type, const void *addr, uint16_t port, int *ret_fd)
{
	struct sockaddr_storage ss = { 0 };
	struct rf_upstream u = { .family = family, .port = port };
	socklen_t sl;
	int fd, one = 1;

	memcpy(u.addr, addr, family == AF_INET ? 4 : 16);
	upstream_addr(&u, &ss, &sl);
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) ||
	    (type == SOCK_STREAM && listen(fd, 64))) {
		int err = -errno;

		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

static uint16_t sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
			  ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* UDP and TCP on 127.0.0.1, one port; then ::1 on that port if it can. */
static int listeners_open(struct rf_dnsgate *g)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 }, lo6[16] = { [15] = 1 };
	int tries, err = -EADDRINUSE;

	for (tries = 0; tries < 16 && err; tries++) {
		err = sock_bind(AF_INET, SOCK_DGRAM, lo4, 0, &g->lfd[L_UDP4]);
		if (err)
			return err;
		g->port4 = sock_port(g->lfd[L_UDP4]);
		err = sock_bind(AF_INET, SOCK_STREAM, lo4, g->port4, &g->lfd[L_TCP4]);
		if (err) {
			close(g->lfd[L_UDP4]);
			g->lfd[L_UDP4] = -1;
		}
	}
	if (err)
		return err;
	if (!sock_bind(AF_INET6, SOCK_DGRAM, lo6, g->port4, &g->lfd[L_UDP6])) {
		if (!sock_bind(AF_INET6, SOCK_STREAM, lo6, g->port4, &g->lfd[L_TCP6])) {
			g->port6 = g->port4;
		} else {
			close(g->lfd[L_UDP6]);
			g->lfd[L_UDP6] = -1;
		}
	}
	return 0;
}

static int gate_fds(struct rf_dnsgate *g)
{
	int i, err = 0;

	g->up4 = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	g->up6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (g->up4 < 0 || g->ep < 0 || g->tfd < 0 || g->efd < 0)
		return -errno;
	err = listeners_open(g);
	for (i = 0; !err && i < L_MAX; i++)
		if (g->lfd[i] >= 0)
			err = ep_add(g, g->lfd[i], EV(EV_LISTEN, i));
	if (!err)
		err = ep_add(g, g->up4, EV(EV_UP4, 0));
	if (!err && g->up6 >= 0)
		err = ep_add(g, g->up6, EV(EV_UP6, 0));
	if (!err)
		err = ep_add(g, g->tfd, EV(EV_TIMER, 0));
	if (!err)
		err = ep_add(g, g->efd, EV(EV_STOP, 0));
	return err;
}

int dnsgate__open(const struct rf_dnsgate_opts *o, struct rf_dnsgate **ret_gate,
		  struct rf_error *err)
{
	struct rf_dnsgate *g;
	size_t i;
	int r;

	r = lazylib__ldns(err);
	if (r)
		return r;
	g = calloc(1, sizeof(*g));
	if (!g)
		return rf_error_set(err, -ENOMEM, "dns gate", "%s", strerror(ENOMEM));
	g->o = *o;
	g->up4 = g->up6 = g->ep = g->tfd = g->efd = -1;
	g->note_fd = rf_pins__get(RF_PIN_DNS_NOTE);
	if (g->note_fd < 0)
		rf_info("dns gate: %s/%s missing: its refusals reach the trace only",
			RF_PIN_DIR, RF_PIN_DNS_NOTE);
	for (i = 0; i < L_MAX; i++)
		g->lfd[i] = -1;
	for (i = 0; i < GATE_TCP_MAX; i++)
		g->conns[i].fd = -1;
	for (i = 0; i < o->policy->dns.n_upstream && i < GATE_UPSTREAM_MAX; i++)
		g->ups[g->n_ups++] = o->policy->dns.upstream[i];
	r = g->n_ups ? 0 : upstreams_from_host(g);
	if (r) {
		dnsgate__close(g, NULL);
		return rf_error_set(err, r, "dns gate",
				    "no resolver to forward to (/etc/resolv.conf names none; "
				    "set network.dns.upstream)");
	}
	r = gate_fds(g);
	if (r) {
		dnsgate__close(g, NULL);
		return rf_error_set(err, r, "dns gate", "opening its sockets: %s", strerror(-r));
	}
	*ret_gate = g;
	return 0;
}

void dnsgate__address(const struct rf_dnsgate *g, struct rf_dns_gate *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->addr4[0] = 127;
	ret->addr4[3] = 1;
	ret->port4 = g->port4;
	ret->port6 = g->port6;
	ret->addr6[15] = 1;
}

int dnsgate__serve(struct rf_dnsgate *g)
{
	sigset_t all, old;
	int err;

	/* Signals stay the main thread's (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&g->thread, NULL, gate_main, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	g->running = !err;
	return err;
}

void dnsgate__stop(struct rf_dnsgate *g)
{
	uint64_t one = 1;

	if (!g || !g->running)
		return;
	if (write(g->efd, &one, sizeof(one)) == sizeof(one))
		pthread_join(g->thread, NULL);
	else
		pthread_cancel(g->thread);
	g->running = false;
}

void dnsgate__stats(const struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats)
{
	*ret_stats = g->st;
}

void dnsgate__close(struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats)
{
	size_t i;

	if (!g)
		return;
	dnsgate__stop(g);
	/* every grant still open goes with the gate */
	while (g->n_grants) {
		struct grant gone = g->grants[--g->n_grants];

		if (grants_sync(g, gone.family, gone.addr))
			sbmaps__revoke_host(g->o.enf, g->o.cgid, gone.family, gone.addr);
	}
	if (ret_stats)
		*ret_stats = g->st;
	for (i = 0; i < GATE_TCP_MAX; i++) {
		if (g->conns[i].fd >= 0)
			close(g->conns[i].fd);
		free(g->conns[i].buf);
	}
	for (i = 0; i < RF_DNS_PENDING_MAX; i++)
		free(g->pend[i].query);
	for (i = 0; i < L_MAX; i++)
		if (g->lfd[i] >= 0)
			close(g->lfd[i]);
	if (g->up4 >= 0)
		close(g->up4);
	if (g->up6 >= 0)
		close(g->up6);
	if (g->ep >= 0)
		close(g->ep);
	if (g->tfd >= 0)
		close(g->tfd);
	if (g->efd >= 0)
		close(g->efd);
	if (g->note_fd >= 0)
		close(g->note_fd);
	free(g->grants);
	free(g);
}
