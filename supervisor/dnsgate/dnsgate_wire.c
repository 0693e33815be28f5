// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's messages, parsed and built with ldns: a query's one
 * question, replies of its own, an answer's CNAME chain and addresses. */
#include <errno.h>
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

/* A byte a host name's label may hold: letters, digits, '-' and '_'
 * (service labels). Anything else (a '.', NUL, '*', '\\', space, 8-bit)
 * would make the printed name say something the labels do not. */
static bool host_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

int dnsgate_wire__name(const uint8_t *d, size_t size, char *name, size_t len)
{
	size_t i = 0, n = 0;

	if (len < 2)
		return -ENAMETOOLONG;
	/* wire form: [len][bytes]... ending with the root's 0 */
	while (i < size && d[i]) {
		size_t l = d[i++], k;

		if (l > 63 || i + l > size)
			return -EINVAL;
		if (n && n + 1 < len)
			name[n++] = '.';
		for (k = 0; k < l; k++, i++) {
			uint8_t c = d[i];

			if (!host_byte(c))
				return -EILSEQ;
			if (n + 1 >= len)
				return -ENAMETOOLONG;
			name[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		}
	}
	if (!n)
		name[n++] = '.';  /* the root */
	name[n] = '\0';
	return 0;
}

int dnsgate_wire__question(const ldns_pkt *p, char *name, size_t len, uint16_t *ret_type)
{
	ldns_rr_list *q = ldns_pkt_question(p);
	ldns_rr *rr;
	int r;

	if (!q || ldns_rr_list_rr_count(q) != 1 || ldns_pkt_qdcount(p) != 1)
		return -EINVAL;
	rr = ldns_rr_list_rr(q, 0);
	*ret_type = (uint16_t)ldns_rr_get_type(rr);
	r = dnsgate_wire__name(ldns_rdf_data(ldns_rr_owner(rr)), ldns_rdf_size(ldns_rr_owner(rr)),
			       name, len);
	if (r == -EILSEQ) {
		/* for the trace: ldns's escaped form (\DDD, \.) */
		char *s = ldns_rdf2str(ldns_rr_owner(rr));

		snprintf(name, len, "%s", s ? s : "?");
		free(s);
	}
	return r;
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
