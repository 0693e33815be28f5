// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's answers: an upstream's reply to a query in flight,
 * its addresses granted (private ones dropped), relayed to the client. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include "dnsgate_internal.h"

/*
 * Grant the answer's addresses, drop the private ones (rebinding), and
 * rebuild the answer list of r without them. Returns 0, or an error when a
 * grant could not be written (the client then gets SERVFAIL: nothing it
 * would connect to is left half open).
 */
static int answer_filter(struct rf_dnsgate *g, const struct pending *p, ldns_pkt *r,
			 json_t *granted, json_t *dropped, bool *ret_changed,
			 struct rf_dns_record *rec)
{
	ldns_rr_list *an = ldns_pkt_answer(r), *keep = ldns_rr_list_new();
	ldns_rdf *chain[DNSGATE_CHAIN_MAX];
	size_t n = dnsgate_wire__chain(r, chain), i, cnt = an ? ldns_rr_list_rr_count(an) : 0;
	bool named = dnsgate_policy__match_entry(g->o.policy, p->qname, 0) <
		     g->o.policy->n_connect;
	int err = keep ? 0 : -ENOMEM;

	for (i = 0; !err && i < cnt; i++) {
		ldns_rr *rr = ldns_rr_list_rr(an, i);
		uint8_t addr[16];
		int family;

		bool is_addr = dnsgate_wire__rr_address(rr, chain, n, &family, addr);

		if (is_addr && dnsgate__is_private(family, addr) &&
		    !dnsgate_policy__private_allowed(g->o.policy, family, addr)) {
			json_array_append_new(dropped, dnsgate_trace__addr_json(family, addr));
			if (!g->o.audit) {
				*ret_changed = true;
				continue;
			}
		} else if (is_addr && (named || g->o.audit)) {
			/* audit mode, a name no entry allows: nothing to open (every
			 * connect is allowed and recorded), but the trace says which
			 * addresses the name gave (learn turns them back into it) */
			if (named)
				err = dnsgate_grants__for_name(g, p->qname, family, addr,
							       ldns_rr_ttl(rr));
			if (!rec->n_granted++) {
				rec->family = (uint16_t)family;
				memcpy(rec->addr, addr, family == AF_INET ? 4 : 16);
				rec->ttl = ldns_rr_ttl(rr);
			}
			json_array_append_new(granted, json_pack("{s:o, s:I}", "address",
						dnsgate_trace__addr_json(family, addr), "ttl",
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

/* The upstream's answer to p: grants first, then the client's reply. */
static void on_answer(struct rf_dnsgate *g, struct pending *p, uint8_t *msg, size_t len)
{
	json_t *granted = json_array(), *dropped = json_array();
	struct rf_dns_record rec = { 0 };
	char qname[RF_DNS_NAME_MAX + 2];
	bool changed = false;
	ldns_pkt *r = NULL;
	uint16_t qtype;

	if (ldns_wire2pkt(&r, msg, len) != LDNS_STATUS_OK ||
	    dnsgate_wire__question(r, qname, sizeof(qname), &qtype) || qtype != p->qtype ||
	    strcmp(qname, p->qname)) {
		ldns_pkt_free(r);  /* not the answer to this question: keep waiting */
		json_decref(granted);
		json_decref(dropped);
		return;
	}
	if (answer_filter(g, p, r, granted, dropped, &changed, &rec)) {
		struct rf_dns_record fail = { .verdict = RF_DNS_FAILED,
					      .rcode = LDNS_RCODE_SERVFAIL };

		g->st.servfail++;
		ldns_pkt_set_id(r, p->client_id);
		dnsgate_send__rcode(g, &p->c, r, LDNS_RCODE_SERVFAIL);
		dnsgate_trace__record(g, &fail, p->qname, p->qtype, &p->c, p->t0_us);
		json_decref(granted);
		json_decref(dropped);
		goto out;
	}
	g->st.allowed++;
	if (json_array_size(dropped)) {
		g->st.dropped_answers += json_array_size(dropped);
		dnsgate_trace__deny(g, p->qname, p->qtype, RF_REASON_DNS_REBIND,
				    dnsgate_policy__match_entry(g->o.policy, p->qname, 0),
				    json_incref(dropped));
	}
	rec.n_dropped = (uint16_t)json_array_size(dropped);
	if (rec.n_dropped)
		rec.reason = RF_REASON_DNS_REBIND;
	rec.verdict = dnsgate_policy__match_entry(g->o.policy, p->qname, 0) <
		      g->o.policy->n_connect ? RF_DNS_ANSWERED : RF_DNS_AUDITED;
	rec.rcode = (uint16_t)ldns_pkt_get_rcode(r);
	json_decref(dropped);
	dnsgate_trace__query(g, p, r, granted);
	ldns_pkt_set_id(r, p->client_id);
	if (changed) {
		dnsgate_send__pkt(g, &p->c, r);
	} else {
		/* unchanged: the upstream's own bytes, with the client's id */
		msg[0] = (uint8_t)(p->client_id >> 8);
		msg[1] = (uint8_t)p->client_id;
		dnsgate_send__msg(g, &p->c, msg, len);
	}
	dnsgate_trace__record(g, &rec, p->qname, p->qtype, &p->c, p->t0_us);
out:
	ldns_pkt_free(r);
	dnsgate_query__free(p);
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

void dnsgate_answer__on_upstream(struct rf_dnsgate *g, int fd)
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
