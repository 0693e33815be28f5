// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate: what the policy says of a name or an answer's address. */
#include <string.h>
#include <sys/socket.h>

#include "dnsgate_internal.h"

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

bool dnsgate_policy__private_allowed(const struct rf_policy *p, int family, const uint8_t *a)
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

size_t dnsgate_policy__match_entry(const struct rf_policy *p, const char *qname, size_t from)
{
	size_t i;

	for (i = from; i < p->n_connect; i++)
		if (endpoint__name_matches(&p->connect[i], qname))
			return i;
	return p->n_connect;
}
