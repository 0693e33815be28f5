// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "util/array.h"
#include "cleanup.h"
#include "util/heap.h"
#include "netrules.h"

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static int range_cmp(const void *x, const void *y)
{
	const struct rf_port_range *a = x, *b = y;

	return a->lo != b->lo ? (a->lo < b->lo ? -1 : 1) : (a->hi < b->hi ? -1 : a->hi > b->hi);
}

/* Ranges collected for one prefix, before merging: a run of the one
 * ranges array (the rules sorted by prefix), not an allocation each. */
struct group {
	int family;
	uint8_t addr[16];
	uint8_t prefix_len;
	struct rf_port_range *r;
	size_t n;
};

static bool is_host(const struct group *g)
{
	return g->prefix_len == addr_len(g->family) * 8;
}

size_t netrules__merge_ports(struct rf_port_range *r, size_t n)
{
	size_t i, out = 0;

	if (n > 1)
		qsort(r, n, sizeof(*r), range_cmp);
	for (i = 0; i < n; i++) {
		/* 32 bits: hi 65535 + 1 does not wrap to 0 */
		if (out && (uint32_t)r[i].lo <= (uint32_t)r[out - 1].hi + 1) {
			if (r[i].hi > r[out - 1].hi)
				r[out - 1].hi = r[i].hi;
			continue;
		}
		r[out++] = r[i];
	}
	return out;
}

int netrules__ports_of(struct rf_port_range *r, size_t n, struct rf_ports *out)
{
	n = netrules__merge_ports(r, n);
	if (n > RF_MAX_PORT_RANGES)
		return -E2BIG;
	memcpy(out->r, r, n * sizeof(*r));
	out->n = (uint32_t)n;
	return 0;
}

/* Order: family, prefix length, address; equal prefixes end up adjacent. */
static int rule_cmp(const void *x, const void *y)
{
	const struct rf_addr_rule *a = x, *b = y;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->prefix_len != b->prefix_len)
		return a->prefix_len < b->prefix_len ? -1 : 1;
	return memcmp(a->addr, b->addr, addr_len(a->family));
}

/* The prefixes of the rules (sorted copy), each with its ranges (in
 * ranges[0..n)), in groups[0..*ret_ng); cidrs[0..*ret_nc) index the groups
 * that are CIDRs. */
static int group_rules(const struct rf_addr_rule *rules, size_t n, struct group *groups,
		       struct rf_port_range *ranges, size_t *ret_ng, size_t *cidrs,
		       size_t *ret_nc)
{
	_cleanup_free_ struct rf_addr_rule *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	size_t i;

	if (!sorted)
		return -ENOMEM;
	if (n)
		memcpy(sorted, rules, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), rule_cmp);
	for (i = 0; i < n; i++) {
		const struct rf_addr_rule *r = &sorted[i];

		if (!*ret_ng || rule_cmp(&sorted[i - 1], r)) {
			struct group *g = &groups[(*ret_ng)++];

			memset(g->addr, 0, sizeof(g->addr));
			g->n = 0;
			g->family = r->family;
			g->prefix_len = r->prefix_len;
			memcpy(g->addr, r->addr, addr_len(r->family));
			g->r = &ranges[i];
			if (!is_host(g))
				cidrs[(*ret_nc)++] = *ret_ng - 1;
		}
		ranges[i].lo = r->port_lo;
		ranges[i].hi = r->port_hi;
		groups[*ret_ng - 1].n++;
	}
	return 0;
}

/* Group order (rule_cmp's): family, prefix length, address. */
static int group_key_cmp(int family, uint8_t plen, const uint8_t *addr, const struct group *g)
{
	if (family != g->family)
		return family < g->family ? -1 : 1;
	if (plen != g->prefix_len)
		return plen < g->prefix_len ? -1 : 1;
	return memcmp(addr, g->addr, addr_len(family));
}

/* The group of exactly (family, plen, addr), by binary search. */
static const struct group *group_find(const struct group *groups, size_t ng, int family,
				      uint8_t plen, const uint8_t *addr)
{
	size_t lo = 0, hi = ng;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = group_key_cmp(family, plen, addr, &groups[mid]);

		if (!c)
			return &groups[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* addr with only its first plen bits kept, into out. */
static void prefix_of(const uint8_t *addr, int alen, unsigned int plen, uint8_t *out)
{
	int i;

	for (i = 0; i < alen; i++) {
		unsigned int bit0 = (unsigned int)i * 8;

		out[i] = plen >= bit0 + 8 ? addr[i] :
			 plen <= bit0 ? 0 : (uint8_t)(addr[i] & (0xff << (8 - (plen - bit0))));
	}
}

/* Prefix lengths some CIDR group has, per family (0: v4, 1: v6). */
struct cidr_lens {
	bool has[2][129];
};

static int push_ranges(struct rf_port_range **tmp, size_t *tmp_cap, size_t *cnt,
		       const struct group *h)
{
	if (array__reserve((void **)tmp, tmp_cap, *cnt + h->n, sizeof(**tmp)))
		return -ENOMEM;
	memcpy(*tmp + *cnt, h->r, h->n * sizeof(**tmp));
	*cnt += h->n;
	return 0;
}

/* The entry of group g: its own ranges, then those of every shorter prefix
 * covering it (only CIDRs can cover; a sensitive host inherits nothing),
 * merged. The covering groups are found by masking g's address to each
 * CIDR length in use and searching the sorted groups: O(lengths x log n)
 * per group, not a pass over every CIDR. tmp is scratch kept across calls. */
static int build_entry(const struct group *groups, size_t ng, const struct cidr_lens *lens,
		       const struct group *g, struct rf_port_range **tmp, size_t *tmp_cap,
		       struct rf_net_entry *out, struct rf_error *err)
{
	bool host = is_host(g);
	bool sensitive = host && endpoint__is_sensitive(g->family, g->addr);
	const bool *has = lens->has[g->family == AF_INET ? 0 : 1];
	char a[INET6_ADDRSTRLEN] = "?";
	size_t cnt = 0;
	unsigned int l;
	int r = 0;

	for (l = 0; !sensitive && !r && l < g->prefix_len; l++) {
		uint8_t masked[16];
		const struct group *h;

		if (!has[l])
			continue;
		prefix_of(g->addr, addr_len(g->family), l, masked);
		h = group_find(groups, ng, g->family, (uint8_t)l, masked);
		if (h)
			r = push_ranges(tmp, tmp_cap, &cnt, h);
	}
	if (!r)
		r = push_ranges(tmp, tmp_cap, &cnt, g);
	if (r)
		return rf_error_set(err, -ENOMEM, "network.connect", "%s", strerror(ENOMEM));
	/* cleared here, while it is written anyway: not a pass of its own */
	memset(out, 0, sizeof(*out));
	out->family = g->family;
	out->prefix_len = g->prefix_len;
	memcpy(out->addr, g->addr, 16);
	out->ports.flags = host ? RF_PORTS_EXACT_HOST : 0;
	if (netrules__ports_of(*tmp, cnt, &out->ports) == 0)
		return 0;
	inet_ntop(g->family, g->addr, a, sizeof(a));
	return rf_error_set(err, -E2BIG, "network.connect",
			    "%s/%u needs more than %d distinct port ranges",
			    a, g->prefix_len, RF_MAX_PORT_RANGES);
}

int netrules__build(const struct rf_addr_rule *rules, size_t n,
		    struct rf_net_entry **ret_entries, size_t *ret_n, struct rf_error *err)
{
	/* malloc, not calloc: each element is written before it is read */
	_cleanup_free_ struct group *groups = malloc((n ? n : 1) * sizeof(*groups));
	_cleanup_free_ size_t *cidrs = malloc((n ? n : 1) * sizeof(*cidrs));
	_cleanup_free_ struct rf_port_range *ranges = malloc((n ? n : 1) * sizeof(*ranges));
	_cleanup_free_ struct rf_net_entry *out = NULL;
	_cleanup_free_ struct rf_port_range *tmp = NULL;
	struct cidr_lens lens = { 0 };
	size_t ng = 0, nc = 0, tmp_cap = 0, i;
	int r = -ENOMEM;

	if (groups && cidrs && ranges)
		r = group_rules(rules, n, groups, ranges, &ng, cidrs, &nc);
	if (!r) {
		out = heap__alloc(ng * sizeof(*out));   /* build_entry clears */
		r = out ? 0 : -ENOMEM;
	}
	if (r)
		rf_error_set(err, r, "network.connect", "%s", strerror(-r));
	for (i = 0; !r && i < nc; i++)
		lens.has[groups[cidrs[i]].family == AF_INET ? 0 : 1][groups[cidrs[i]].prefix_len] = true;
	for (i = 0; !r && i < ng; i++)
		r = build_entry(groups, ng, &lens, &groups[i], &tmp, &tmp_cap, &out[i], err);
	if (r)
		return r;
	*ret_entries = TAKE_PTR(out);
	*ret_n = ng;
	return 0;
}

void netrules__unix_key(const struct rf_unix_rule *rule, struct rf_unix_key *key)
{
	size_t len = strlen(rule->name);

	memset(key, 0, sizeof(*key));
	if (len > RF_UNIX_PATH_MAX - 1)
		len = RF_UNIX_PATH_MAX - 1;
	key->data[0] = rule->abstract ? RF_UNIX_ABSTRACT : RF_UNIX_PATHNAME;
	memcpy(&key->data[1], rule->name, len);
	/* Exact entries include the terminator; subtrees stop before it. */
	key->prefixlen = 64 + 8 * (uint32_t)(1 + len + (rule->subtree ? 0 : 1));
}

bool netrules__unix_way_key(const struct rf_unix_rule *rule, size_t *pos,
			    struct rf_unix_key *ret_key)
{
	const char *slash;
	size_t len;

	if (rule->abstract || *pos >= strlen(rule->name))
		return false;
	slash = strchr(rule->name + *pos + 1, '/');
	if (!slash)
		return false;
	len = (size_t)(slash - rule->name);
	*pos = len;
	if (len > RF_UNIX_PATH_MAX - 1)
		return false;
	memset(ret_key, 0, sizeof(*ret_key));
	ret_key->data[0] = RF_UNIX_ANCESTOR;
	memcpy(&ret_key->data[1], rule->name, len);
	ret_key->prefixlen = 64 + 8 * (uint32_t)(1 + len + 1);
	return true;
}

/* Append one element of size elem to *v (n used, *cap allocated). */
static int push(void *v, size_t *n, size_t *cap, const void *elem, size_t size)
{
	if (array__reserve(v, cap, *n + 1, size))
		return -ENOMEM;
	memcpy(*(char **)v + (*n)++ * size, elem, size);
	return 0;
}

/* What netrules__resolve() collects. */
struct resolve_out {
	struct rf_addr_rule *rules;
	size_t nr, cr;
	struct rf_resolved *res;
	size_t ns, cs;
};

/* One getaddrinfo answer as an address (v4-mapped becomes IPv4), or
 * false for a family we do not enforce. */
static bool answer_addr(const struct addrinfo *p, struct rf_resolved *rv)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *a;

	if (p->ai_family == AF_INET) {
		rv->family = AF_INET;
		memcpy(rv->addr, &((struct sockaddr_in *)p->ai_addr)->sin_addr, 4);
		return true;
	}
	if (p->ai_family != AF_INET6)
		return false;
	a = ((struct sockaddr_in6 *)p->ai_addr)->sin6_addr.s6_addr;
	/* A v4-mapped answer is enforced as the IPv4 host. */
	if (!memcmp(a, mapped, 12)) {
		rv->family = AF_INET;
		memcpy(rv->addr, a + 12, 4);
	} else {
		rv->family = AF_INET6;
		memcpy(rv->addr, a, 16);
	}
	return true;
}

/* Resolve connect[i], a name: one host rule (ports of r) per distinct
 * usable address; every address is listed in o->res. */
static int resolve_name(const struct rf_endpoint *ep, size_t i, struct rf_addr_rule r,
			struct resolve_out *o, struct rf_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *p;
	size_t usable = 0, first = o->ns, j;
	char where[64 + RF_DNS_NAME_MAX];
	int gai, e = 0;

	snprintf(where, sizeof(where), "network.connect[%zu] \"%s\"", i, ep->text);
	gai = getaddrinfo(ep->name, NULL, &hints, &ai);
	if (gai)
		return rf_error_set(err, -EHOSTUNREACH, where, "%s does not resolve: %s",
				    ep->name, gai_strerror(gai));
	for (p = ai; p && !e; p = p->ai_next) {
		struct rf_resolved rv = { .source = i };

		if (!answer_addr(p, &rv))
			continue;
		for (j = first; j < o->ns; j++)
			if (o->res[j].family == rv.family &&
			    !memcmp(o->res[j].addr, rv.addr, addr_len(rv.family)))
				break;
		if (j < o->ns)
			continue;
		/* A name must not open the way to link-local or cloud
		 * metadata: only a literal entry naming them can. */
		rv.excluded = endpoint__is_sensitive(rv.family, rv.addr);
		e = push(&o->res, &o->ns, &o->cs, &rv, sizeof(rv));
		if (e || rv.excluded)
			continue;
		r.family = rv.family;
		r.prefix_len = addr_len(rv.family) * 8;
		memcpy(r.addr, rv.addr, 16);
		e = push(&o->rules, &o->nr, &o->cr, &r, sizeof(r));
		usable += !e;
	}
	freeaddrinfo(ai);
	if (e)
		return e;
	if (!usable)
		return rf_error_set(err, -EHOSTUNREACH, where,
				    "%s resolved to no usable address", ep->name);
	return 0;
}

int netrules__resolve(const struct rf_policy *policy,
		      struct rf_addr_rule **ret_rules, size_t *ret_n_rules,
		      struct rf_resolved **ret_resolved, size_t *ret_n_resolved,
		      struct rf_error *err)
{
	struct resolve_out o = { 0 };
	size_t i;
	int r = 0;

	/* one allocation for the literal entries (names may add more) */
	if (policy->n_connect &&
	    array__reserve((void **)&o.rules, &o.cr, policy->n_connect, sizeof(*o.rules)))
		r = -ENOMEM;
	for (i = 0; !r && i < policy->n_connect; i++) {
		const struct rf_endpoint *ep = &policy->connect[i];
		struct rf_addr_rule rule = {
			.port_lo = ep->port_lo, .port_hi = ep->port_hi, .source = i,
		};

		/* Under the DNS gate names open addresses while the sandbox
		 * runs, as it looks them up (dnsgate.c); nothing up front. */
		if (ep->kind != RF_HOST_ADDR) {
			if (policy->dns.mode == RF_DNS_ONCE)
				r = resolve_name(ep, i, rule, &o, err);
			continue;
		}
		rule.family = ep->family;
		rule.prefix_len = ep->prefix_len;
		memcpy(rule.addr, ep->addr, 16);
		r = push(&o.rules, &o.nr, &o.cr, &rule, sizeof(rule));
	}
	if (r) {
		free(o.rules);
		free(o.res);
		return r;
	}
	*ret_rules = o.rules;
	*ret_n_rules = o.nr;
	*ret_resolved = o.res;
	*ret_n_resolved = o.ns;
	return 0;
}

int netrules__host_entry(const struct rf_addr_rule *rules, size_t n,
			 const struct rf_addr_rule *extra, size_t n_extra, int family,
			 const uint8_t *addr, struct rf_net_entry *ret_entry, bool *ret_found)
{
	_cleanup_free_ struct rf_addr_rule *all = malloc((n + n_extra + 1) * sizeof(*all));
	_cleanup_free_ struct rf_net_entry *entries = NULL;
	size_t ne = 0, i;
	int r;

	*ret_found = false;
	if (!all)
		return -ENOMEM;
	if (n)
		memcpy(all, rules, n * sizeof(*all));
	if (n_extra)
		memcpy(all + n, extra, n_extra * sizeof(*all));
	r = netrules__build(all, n + n_extra, &entries, &ne, NULL);
	if (r)
		return r;
	for (i = 0; i < ne; i++) {
		if (entries[i].family != family || entries[i].prefix_len != addr_len(family) * 8 ||
		    memcmp(entries[i].addr, addr, addr_len(family)))
			continue;
		*ret_entry = entries[i];
		*ret_found = true;
		break;
	}
	return 0;
}
