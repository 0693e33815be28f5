// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "netrules.h"

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Does prefix (a, alen) cover address b? */
static bool covers(const uint8_t *a, int alen, const uint8_t *b)
{
	int full = alen / 8, rem = alen % 8;

	if (memcmp(a, b, full))
		return false;
	if (rem) {
		uint8_t mask = (uint8_t)(0xff << (8 - rem));

		if ((a[full] & mask) != (b[full] & mask))
			return false;
	}
	return true;
}

static int range_cmp(const void *x, const void *y)
{
	const struct rf_port_range *a = x, *b = y;

	return a->lo != b->lo ? (a->lo < b->lo ? -1 : 1) : (a->hi < b->hi ? -1 : a->hi > b->hi);
}

/* Ranges collected for one prefix, before merging. */
struct group {
	int family;
	uint8_t addr[16];
	uint8_t prefix_len;
	struct rf_port_range *r;
	size_t n, cap;
};

static int group_add(struct group *g, uint16_t lo, uint16_t hi)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4;
		void *p = realloc(g->r, cap * sizeof(*g->r));

		if (!p)
			return -ENOMEM;
		g->r = p;
		g->cap = cap;
	}
	g->r[g->n].lo = lo;
	g->r[g->n].hi = hi;
	g->n++;
	return 0;
}

static bool is_host(const struct group *g)
{
	return g->prefix_len == addr_len(g->family) * 8;
}

/* Sort and merge overlapping or adjacent ranges into out. */
static int merge(struct rf_port_range *r, size_t n, struct rf_ports *out)
{
	size_t i;

	qsort(r, n, sizeof(*r), range_cmp);
	out->n = 0;
	for (i = 0; i < n; i++) {
		if (out->n && (uint32_t)r[i].lo <= (uint32_t)out->r[out->n - 1].hi + 1) {
			if (r[i].hi > out->r[out->n - 1].hi)
				out->r[out->n - 1].hi = r[i].hi;
			continue;
		}
		if (out->n == RF_MAX_PORT_RANGES)
			return -E2BIG;
		out->r[out->n++] = r[i];
	}
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

int netrules__build(const struct rf_addr_rule *rules, size_t n,
		    struct rf_net_entry **ret_entries, size_t *ret_n,
		    char *why, size_t why_len)
{
	struct rf_addr_rule *sorted = NULL;
	struct group *groups = NULL;
	struct rf_net_entry *out = NULL;
	struct rf_port_range *tmp = NULL;
	size_t ng = 0, i, j, k, tmp_cap = 0, *cidrs = NULL, nc = 0;
	int err = 0;

	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	groups = calloc(n ? n : 1, sizeof(*groups));
	cidrs = calloc(n ? n : 1, sizeof(*cidrs));
	if (!sorted || !groups || !cidrs) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (n)
		memcpy(sorted, rules, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), rule_cmp);
	for (i = 0; i < n; i++) {
		const struct rf_addr_rule *r = &sorted[i];

		if (!ng || rule_cmp(&sorted[i - 1], r)) {
			groups[ng].family = r->family;
			groups[ng].prefix_len = r->prefix_len;
			memcpy(groups[ng].addr, r->addr, addr_len(r->family));
			if (!is_host(&groups[ng]))
				cidrs[nc++] = ng;
			ng++;
		}
		err = group_add(&groups[ng - 1], r->port_lo, r->port_hi);
		if (err)
			goto cleanup;
	}

	out = calloc(ng ? ng : 1, sizeof(*out));
	if (!out) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < ng; i++) {
		struct group *g = &groups[i];
		bool host = is_host(g);
		bool sensitive = host && endpoint__is_sensitive(g->family, g->addr);
		size_t cnt = 0, m;

		/* Its own ranges, then those of every shorter prefix covering it
		 * (only CIDRs can cover; a sensitive host inherits nothing). */
		for (m = 0; m <= nc; m++) {
			struct group *h;

			if (m == nc) {
				h = g;
			} else {
				h = &groups[cidrs[m]];
				if (sensitive || h->family != g->family ||
				    h->prefix_len >= g->prefix_len ||
				    !covers(h->addr, h->prefix_len, g->addr))
					continue;
			}
			if (cnt + h->n > tmp_cap) {
				size_t cap = (cnt + h->n) * 2;
				void *p = realloc(tmp, cap * sizeof(*tmp));

				if (!p) {
					err = -ENOMEM;
					goto cleanup;
				}
				tmp = p;
				tmp_cap = cap;
			}
			for (k = 0; k < h->n; k++)
				tmp[cnt++] = h->r[k];
		}
		out[i].family = g->family;
		out[i].prefix_len = g->prefix_len;
		memcpy(out[i].addr, g->addr, 16);
		out[i].ports.flags = host ? RF_PORTS_EXACT_HOST : 0;
		err = merge(tmp, cnt, &out[i].ports);
		if (err) {
			char a[INET6_ADDRSTRLEN] = "?";

			inet_ntop(g->family, g->addr, a, sizeof(a));
			snprintf(why, why_len,
				 "%s/%u needs more than %d distinct port ranges",
				 a, g->prefix_len, RF_MAX_PORT_RANGES);
			goto cleanup;
		}
	}
	*ret_entries = out;
	*ret_n = ng;
	out = NULL;
cleanup:
	for (j = 0; j < ng; j++)
		free(groups[j].r);
	free(groups);
	free(sorted);
	free(cidrs);
	free(tmp);
	free(out);
	return err;
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

/* Room for one more element of size elem in *v (n used, *cap allocated). */
static int grow(void **v, size_t n, size_t *cap, size_t elem)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 8;
	p = realloc(*v, c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static int push_rule(struct rf_addr_rule **v, size_t *n, size_t *cap,
		     const struct rf_addr_rule *r)
{
	if (grow((void **)v, *n, cap, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = *r;
	return 0;
}

static int push_resolved(struct rf_resolved **v, size_t *n, size_t *cap,
			 const struct rf_resolved *r)
{
	if (grow((void **)v, *n, cap, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = *r;
	return 0;
}

int netrules__resolve(const struct rf_policy *policy,
		      struct rf_addr_rule **ret_rules, size_t *ret_n_rules,
		      struct rf_resolved **ret_resolved, size_t *ret_n_resolved,
		      char *why, size_t why_len)
{
	struct rf_addr_rule *rules = NULL, r;
	struct rf_resolved *res = NULL, rv;
	size_t nr = 0, cr = 0, ns = 0, cs = 0, i, j;
	int err = 0;

	for (i = 0; i < policy->n_connect; i++) {
		const struct rf_endpoint *ep = &policy->connect[i];
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *p;
		size_t usable = 0, first = ns;
		int gai;

		memset(&r, 0, sizeof(r));
		r.port_lo = ep->port_lo;
		r.port_hi = ep->port_hi;
		r.source = i;
		if (ep->kind == RF_HOST_ADDR) {
			r.family = ep->family;
			r.prefix_len = ep->prefix_len;
			memcpy(r.addr, ep->addr, 16);
			err = push_rule(&rules, &nr, &cr, &r);
			if (err)
				goto cleanup;
			continue;
		}
		gai = getaddrinfo(ep->name, NULL, &hints, &ai);
		if (gai) {
			err = -EHOSTUNREACH;
			snprintf(why, why_len, "network.connect[%zu] \"%s\": %s does not resolve: %s",
				 i, ep->text, ep->name, gai_strerror(gai));
			goto cleanup;
		}
		for (p = ai; p; p = p->ai_next) {
			memset(&rv, 0, sizeof(rv));
			rv.source = i;
			if (p->ai_family == AF_INET) {
				rv.family = AF_INET;
				memcpy(rv.addr, &((struct sockaddr_in *)p->ai_addr)->sin_addr, 4);
			} else if (p->ai_family == AF_INET6) {
				const uint8_t *a = ((struct sockaddr_in6 *)p->ai_addr)->sin6_addr.s6_addr;
				static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

				/* A v4-mapped answer is enforced as the IPv4 host. */
				if (!memcmp(a, mapped, 12)) {
					rv.family = AF_INET;
					memcpy(rv.addr, a + 12, 4);
				} else {
					rv.family = AF_INET6;
					memcpy(rv.addr, a, 16);
				}
			} else {
				continue;
			}
			for (j = first; j < ns; j++)
				if (res[j].family == rv.family &&
				    !memcmp(res[j].addr, rv.addr, addr_len(rv.family)))
					break;
			if (j < ns)
				continue;
			/* A name must not open the way to link-local or cloud
			 * metadata: only a literal entry naming them can. */
			rv.excluded = endpoint__is_sensitive(rv.family, rv.addr);
			err = push_resolved(&res, &ns, &cs, &rv);
			if (err)
				break;
			if (rv.excluded)
				continue;
			r.family = rv.family;
			r.prefix_len = addr_len(rv.family) * 8;
			memcpy(r.addr, rv.addr, 16);
			err = push_rule(&rules, &nr, &cr, &r);
			if (err)
				break;
			usable++;
		}
		freeaddrinfo(ai);
		if (err)
			goto cleanup;
		if (!usable) {
			err = -EHOSTUNREACH;
			snprintf(why, why_len,
				 "network.connect[%zu] \"%s\": %s resolved to no usable address",
				 i, ep->text, ep->name);
			goto cleanup;
		}
	}
	*ret_rules = rules;
	*ret_n_rules = nr;
	*ret_resolved = res;
	*ret_n_resolved = ns;
	return 0;
cleanup:
	free(rules);
	free(res);
	return err;
}
