// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's messages, parsed and built with ldns: a query's one
 * question, replies of its own, an answer's CNAME chain and addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsgate_internal.h"

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

ldns_pkt *dnsgate_wire__rcode_pkt(const ldns_pkt *q, uint8_t rcode)
{
	ldns_pkt *r = ldns_pkt_clone(q);

	if (!r)
		return NULL;
	ldns_pkt_set_qr(r, true);
	ldns_pkt_set_aa(r, false);
	ldns_pkt_set_ra(r, true);
	ldns_pkt_set_rcode(r, rcode);
	section_clear(r, LDNS_SECTION_ANSWER);
	section_clear(r, LDNS_SECTION_AUTHORITY);
	section_clear(r, LDNS_SECTION_ADDITIONAL);
	return r;
}

bool dnsgate_wire__question(const ldns_pkt *p, char *name, size_t len, uint16_t *ret_type)
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

/* Is owner one of the chain's names? */
static bool in_chain(ldns_rdf *const *chain, size_t n, const ldns_rdf *owner)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ldns_dname_compare(chain[i], owner) == 0)
			return true;
	return false;
}

size_t dnsgate_wire__chain(const ldns_pkt *r, ldns_rdf **chain)
{
	ldns_rr_list *an = ldns_pkt_answer(r);
	size_t n = 1, pass, i, cnt = an ? ldns_rr_list_rr_count(an) : 0;

	chain[0] = ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(r), 0));
	for (pass = 0; pass < DNSGATE_CHAIN_MAX; pass++) {
		bool grew = false;

		for (i = 0; i < cnt && n < DNSGATE_CHAIN_MAX; i++) {
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

bool dnsgate_wire__rr_address(const ldns_rr *rr, ldns_rdf *const *chain, size_t n,
			      int *ret_family, uint8_t *addr)
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
