// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's grants: the addresses an answer opens for the entries
 * naming it, in the sandbox's maps, until the TTL plus a grace. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "util/array.h"
#include "cleanup.h"
#include "dnsgate_internal.h"
#include "rules/netrules.h"
#include "backends/sbmaps.h"
#include "ledger.h"
#include "pins.h"

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

int dnsgate_grants__for_name(struct rf_dnsgate *g, const char *qname, int family,
			     const uint8_t *addr, uint32_t ttl)
{
	const struct rf_policy *pol = g->o.policy;
	uint64_t expiry = dnsgate_now_ms() +
			  (uint64_t)(ttl > RF_DNS_TTL_MAX ? RF_DNS_TTL_MAX : ttl) * 1000 +
			  RF_DNS_GRACE_MS;
	size_t e;
	int r = 0;

	bool opened = false;

	for (e = dnsgate_policy__match_entry(pol, qname, 0); !r && e < pol->n_connect;
	     e = dnsgate_policy__match_entry(pol, qname, e + 1)) {
		r = grant_add(g, family, addr, e, expiry);
		opened = true;
	}
	/* The ledger's flows to addr carry the name (the last one that opened
	 * it); a failure here loses the name, never the grant. */
	if (!r && opened)
		ledger__note_name(g->o.enf->map_fd[RF_PIN_FLOW_NAMES], g->o.cgid, family, addr,
				  qname);
	return r;
}

void dnsgate_grants__expire(struct rf_dnsgate *g, uint64_t now)
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

void dnsgate_grants__revoke_all(struct rf_dnsgate *g)
{
	while (g->n_grants) {
		struct grant gone = g->grants[--g->n_grants];

		if (grants_sync(g, gone.family, gone.addr))
			sbmaps__revoke_host(g->o.enf, g->o.cgid, gone.family, gone.addr);
	}
}
