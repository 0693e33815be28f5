// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's queries: a client's question checked against the
 * policy, forwarded upstream under an id of the gate's, retried on the
 * next upstream, failed closed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dnsgate_internal.h"

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

void dnsgate_query__free(struct pending *p)
{
	free(p->query);
	memset(p, 0, sizeof(*p));
}

static int upstream_send(struct rf_dnsgate *g, struct pending *p)
{
	const struct rf_upstream *u = &g->ups[p->upstream];
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = u->family == AF_INET ? g->up4 : g->up6;

	dnsgate_sockaddr(u, &ss, &sl);
	p->deadline_ms = dnsgate_now_ms() + RF_DNS_UPSTREAM_TIMEOUT_MS;
	if (fd < 0 || sendto(fd, p->query, p->query_len, MSG_DONTWAIT, (struct sockaddr *)&ss,
			     sl) != (ssize_t)p->query_len)
		return -EIO;
	return 0;
}

void dnsgate_query__on_query(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
			     size_t len)
{
	const struct rf_policy *pol = g->o.policy;
	char qname[RF_DNS_NAME_MAX + 2];
	ldns_pkt *q = NULL;
	struct pending *p;
	uint64_t t0 = dnsgate_now_us();
	uint16_t qtype = 0;
	size_t entry;
	int r;

	qname[0] = 0;
	g->st.queries++;
	if (len < 12 || ldns_wire2pkt(&q, msg, len) != LDNS_STATUS_OK)
		return;  /* not DNS: no answer */
	r = ldns_pkt_qr(q) ? -EINVAL : dnsgate_wire__question(q, qname, sizeof(qname), &qtype);
	if (r && r != -EILSEQ) {
		struct rf_dns_record rec = { .verdict = RF_DNS_FAILED, .rcode = LDNS_RCODE_FORMERR };

		dnsgate_send__rcode(g, c, q, LDNS_RCODE_FORMERR);
		dnsgate_trace__record(g, &rec, "", 0, c, t0);
		goto out;
	}
	/* Not a host name: no entry can allow it, whatever it prints as. */
	entry = r ? pol->n_connect : dnsgate_policy__match_entry(pol, qname, 0);

	if (entry == pol->n_connect) {
		g->st.denied++;
		dnsgate_trace__deny(g, qname, qtype, RF_REASON_DNS_NAME, entry, NULL);
		if (!g->o.audit) {
			struct rf_dns_record rec = { .verdict = RF_DNS_REFUSED,
						     .reason = RF_REASON_DNS_NAME,
						     .rcode = LDNS_RCODE_REFUSED };

			dnsgate_send__rcode(g, c, q, LDNS_RCODE_REFUSED);
			dnsgate_trace__record(g, &rec, qname, qtype, c, t0);
			goto out;
		}
	}
	p = pending_new(g);
	if (!p || !(p->query = malloc(len))) {
		/* overloaded: fail, never pass */
		struct rf_dns_record rec = { .verdict = RF_DNS_FAILED,
					     .rcode = LDNS_RCODE_SERVFAIL };

		g->st.servfail++;
		if (p)
			dnsgate_query__free(p);
		dnsgate_send__rcode(g, c, q, LDNS_RCODE_SERVFAIL);
		dnsgate_trace__record(g, &rec, qname, qtype, c, t0);
		goto out;
	}
	memcpy(p->query, msg, len);
	p->query_len = len;
	p->client_id = ldns_pkt_id(q);
	p->query[0] = (uint8_t)(p->up_id >> 8);
	p->query[1] = (uint8_t)p->up_id;
	p->c = *c;
	p->qtype = qtype;
	p->t0_us = t0;
	snprintf(p->qname, sizeof(p->qname), "%s", qname);
	if (upstream_send(g, p))
		p->deadline_ms = 0;  /* retried on the next upstream at once */
out:
	ldns_pkt_free(q);
}

/* Upstreams that did not answer in time: the next one, or SERVFAIL. */
void dnsgate_query__expire(struct rf_dnsgate *g, uint64_t now)
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
		{
			struct rf_dns_record rec = { .verdict = RF_DNS_FAILED,
						     .rcode = LDNS_RCODE_SERVFAIL };

			dnsgate_trace__record(g, &rec, p->qname, p->qtype, &p->c, p->t0_us);
		}
		p->query[0] = (uint8_t)(p->client_id >> 8);
		p->query[1] = (uint8_t)p->client_id;
		if (ldns_wire2pkt(&q, p->query, p->query_len) == LDNS_STATUS_OK)
			dnsgate_send__rcode(g, &p->c, q, LDNS_RCODE_SERVFAIL);
		ldns_pkt_free(q);
		dnsgate_query__free(p);
	}
}
