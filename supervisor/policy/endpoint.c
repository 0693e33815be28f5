/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * network.connect entries: HOST:PORT or HOST:LOW-HIGH, where HOST is an
 * IPv4 literal, a bracketed IPv6 literal, a CIDR, or a DNS name. Strict:
 * anything a resolver or a URL parser might read differently is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libpsl.h>

#include "util/lazy_psl.h"
#include "policy.h"

/* Longest HOST we look at: a bracketed IPv6 CIDR or a DNS name + dot. */
#define EP_HOST_MAX (RF_DNS_NAME_MAX + 1)

/* The caller knows the JSON path and puts it in err->where. */
#define ep_fail(err, ...) rf_error_set((err), -EINVAL, NULL, __VA_ARGS__)

static bool ep_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool ep_is_alnum(char c)
{
	return ep_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Decimal without sign or leading zeros, at most max. Returns 0, -ERANGE
 * when well-formed but > max, -EINVAL when malformed, -EDOM for a
 * leading zero.
 */
static int ep_parse_dec(const char *s, size_t len, unsigned max,
			unsigned *ret_v)
{
	unsigned v = 0;
	size_t i;

	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!ep_is_digit(s[i]))
			return -EINVAL;
	if (len > 1 && s[0] == '0')
		return -EDOM;
	if (len > 10)
		return -ERANGE;
	for (i = 0; i < len; i++) {
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > max)
			return -ERANGE;
	}
	*ret_v = v;
	return 0;
}

static int ep_parse_port(const char *s, size_t len, uint16_t *ret_port,
			 struct rf_error *err)
{
	unsigned v = 0;
	int r;

	if (len == 0)
		return ep_fail(err, "missing port");
	r = ep_parse_dec(s, len, 65535, &v);
	if (r == -EINVAL)
		return ep_fail(err,
			       "port must be a decimal number (1-65535)");
	if (r == -EDOM)
		return ep_fail(err, "port must not have leading zeros");
	if (r == -ERANGE || v == 0)
		return ep_fail(err, "port out of range (1-65535)");
	*ret_port = (uint16_t)v;
	return 0;
}

/* PORT or LOW-HIGH. */
static int ep_parse_ports(const char *s, struct rf_endpoint *ep,
			  struct rf_error *err)
{
	const char *dash = strchr(s, '-');
	int r;

	if (!dash) {
		r = ep_parse_port(s, strlen(s), &ep->port_lo, err);
		if (r < 0)
			return r;
		ep->port_hi = ep->port_lo;
		return 0;
	}
	if (dash == s || dash[1] == '\0' || strchr(dash + 1, '-'))
		return ep_fail(err,
			       "port range must be LOW-HIGH (1-65535)");
	r = ep_parse_port(s, (size_t)(dash - s), &ep->port_lo, err);
	if (r < 0)
		return r;
	r = ep_parse_port(dash + 1, strlen(dash + 1), &ep->port_hi, err);
	if (r < 0)
		return r;
	if (ep->port_lo > ep->port_hi)
		return ep_fail(err, "port range LOW is above HIGH");
	return 0;
}

/* "/N" suffix of a CIDR, N in 0..max. */
static int ep_parse_prefix(const char *s, unsigned max, uint8_t *ret_len,
			   struct rf_error *err)
{
	unsigned v = 0;

	if (ep_parse_dec(s, strlen(s), max, &v) < 0)
		return ep_fail(err, "invalid CIDR prefix length (0-%u)",
			       max);
	*ret_len = (uint8_t)v;
	return 0;
}

static bool ep_host_bits_clear(const uint8_t *addr, unsigned bytes,
			       unsigned prefix_len)
{
	unsigned i;

	for (i = 0; i < bytes; i++) {
		unsigned bit0 = i * 8;
		uint8_t mask;

		if (bit0 + 8 <= prefix_len)
			continue;
		mask = bit0 >= prefix_len ? 0xff :
			(uint8_t)(0xff >> (prefix_len - bit0));
		if (addr[i] & mask)
			return false;
	}
	return true;
}

static bool ep_is_v4_mapped(const uint8_t *a)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, pfx, sizeof(pfx)) == 0;
}

/* Inside the brackets: an IPv6 address, optionally /N. */
static int ep_parse_v6(char *host, struct rf_endpoint *ep,
		       struct rf_error *err)
{
	struct in_addr a4;
	char *slash;
	int r;

	if (host[0] == '\0')
		return ep_fail(err, "empty host");
	slash = strchr(host, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET6, host, ep->addr) != 1) {
		if (inet_pton(AF_INET, host, &a4) == 1)
			return ep_fail(err,
				       "IPv4 addresses must not be bracketed");
		return ep_fail(err, "invalid IPv6 address");
	}
	ep->family = AF_INET6;
	ep->prefix_len = 128;
	if (slash) {
		r = ep_parse_prefix(slash + 1, 128, &ep->prefix_len, err);
		if (r < 0)
			return r;
		ep->cidr = true;
	}
	/* A mapped prefix shorter than /96 would reach into IPv6 space
	 * outside ::ffff:0:0/96: it has no IPv4 meaning. */
	if (ep->cidr && ep->prefix_len < 96 && ep_is_v4_mapped(ep->addr))
		return ep_fail(err,
			       "IPv4-mapped CIDR prefix must be at least /96");
	if (!ep_host_bits_clear(ep->addr, 16, ep->prefix_len))
		return ep_fail(err, "host bits set in CIDR");

	/* ::ffff:a.b.c.d is IPv4 on the wire: store it as such. */
	if (ep_is_v4_mapped(ep->addr)) {
		memmove(ep->addr, ep->addr + 12, 4);
		memset(ep->addr + 4, 0, 12);
		ep->family = AF_INET;
		ep->prefix_len -= 96;
	}
	return 0;
}

static bool ep_all_numeric_labels(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!ep_is_digit(*p) && *p != '.')
			return false;
	return true;
}

/* RFC 1123 host name; lower-cased into ep->name without a trailing dot. */
static int ep_parse_name(const char *host, struct rf_endpoint *ep,
			 struct rf_error *err)
{
	size_t len = strlen(host), label = 0, i;
	struct in_addr a4;

	if (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0)
		return ep_fail(err, "invalid DNS name");
	if (len > RF_DNS_NAME_MAX)
		return ep_fail(err, "DNS name longer than %d bytes",
			       RF_DNS_NAME_MAX);

	for (i = 0; i <= len; i++) {
		char c = i < len ? host[i] : '.';

		if (c == '.') {
			if (label == 0)
				return ep_fail(err,
					       "empty label in DNS name");
			if (host[i - 1] == '-')
				return ep_fail(err,
					       "DNS label must not start or end with '-'");
			label = 0;
			continue;
		}
		if (c == '-' && label == 0)
			return ep_fail(err,
				       "DNS label must not start or end with '-'");
		if (!ep_is_alnum(c) && c != '-')
			return ep_fail(err, "invalid character in DNS name");
		if (++label > 63)
			return ep_fail(err, "DNS label longer than 63 bytes");
	}

	memcpy(ep->name, host, len);
	ep->name[len] = '\0';
	for (i = 0; i < len; i++)
		if (ep->name[i] >= 'A' && ep->name[i] <= 'Z')
			ep->name[i] = (char)(ep->name[i] - 'A' + 'a');

	if (ep_all_numeric_labels(ep->name))
		return ep_fail(err, "malformed IPv4 address");
	/* The resolver would read "0x7f.1" or "2130706433" as an address
	 * through inet_aton(): refuse what it would not treat as a name. */
	if (inet_aton(ep->name, &a4))
		return ep_fail(err,
			       "non-canonical IPv4 address (use dotted decimal)");
	ep->kind = RF_HOST_NAME;
	return 0;
}

/* Unbracketed host: IPv4, IPv4 CIDR or DNS name. */
static int ep_parse_host(char *host, struct rf_endpoint *ep,
			 struct rf_error *err)
{
	char *slash;
	int r;

	if (host[0] == '\0')
		return ep_fail(err, "empty host");

	slash = strchr(host, '/');
	if (slash) {
		*slash = '\0';
		if (inet_pton(AF_INET, host, ep->addr) != 1)
			return ep_fail(err,
				       "URLs and paths are not allowed ('/' only in an IP CIDR)");
		r = ep_parse_prefix(slash + 1, 32, &ep->prefix_len, err);
		if (r < 0)
			return r;
		ep->cidr = true;
		if (!ep_host_bits_clear(ep->addr, 4, ep->prefix_len))
			return ep_fail(err, "host bits set in CIDR");
		ep->kind = RF_HOST_ADDR;
		ep->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET, host, ep->addr) == 1) {
		ep->kind = RF_HOST_ADDR;
		ep->family = AF_INET;
		ep->prefix_len = 32;
		return 0;
	}
	return ep_parse_name(host, ep, err);
}

/*
 * "*.NAME" must leave a registrable domain above the star: "*.com",
 * "*.co.uk" or "*.github.io" would open every site under a public suffix
 * (the Public Suffix List, libpsl; unknown top-level labels count as
 * public, so "*.test" is refused and "*.example.test" is not).
 */
static const psl_ctx_t *ep_psl(void)
{
	/* The newer of libpsl's built-in list and the system's, loaded once
	 * and kept for the process's life. */
	static psl_ctx_t *latest;
	static bool tried;

	if (!tried) {
		tried = true;
		latest = psl_latest(NULL);
	}
	return latest ? latest : psl_builtin();
}

int endpoint__wildcard_for(const char *name, char *buf, size_t len, struct rf_error *err)
{
	const psl_ctx_t *psl;
	const char *dom;
	int r = lazylib__psl(err);

	if (r)
		return r;
	psl = ep_psl();
	dom = psl ? psl_registrable_domain(psl, name) : NULL;
	if (!dom || dom == name || (size_t)snprintf(buf, len, "*.%s", dom) >= len)
		return 0;
	return 1;
}

static int ep_check_wildcard(struct rf_endpoint *ep, struct rf_error *err)
{
	const psl_ctx_t *psl;
	int r;

	if (ep->kind != RF_HOST_NAME)
		return ep_fail(err, "a wildcard must name a domain, not an IP address");
	r = lazylib__psl(err);
	if (r)
		return r;
	psl = ep_psl();
	if (!psl || psl_is_public_suffix(psl, ep->name))
		return ep_fail(err, "wildcard over a public suffix (\"%s\"): name a domain "
			       "below it", ep->name);
	return 0;
}

static int ep_parse(const char *text, struct rf_endpoint *ep,
		    struct rf_error *err)
{
	char host[EP_HOST_MAX + 1];
	const char *p, *colon, *ports;
	size_t host_len, n_colons = 0;
	int r;

	if (text[0] == '\0')
		return ep_fail(err, "empty entry");
	for (p = text; *p; p++) {
		if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
			return ep_fail(err, "whitespace is not allowed");
		if (*p == ':')
			n_colons++;
	}
	if (strstr(text, "://"))
		return ep_fail(err, "URLs are not allowed (expected HOST:PORT)");
	if (strchr(text, '@'))
		return ep_fail(err, "user-info ('@') is not allowed");
	if (strchr(text, '%'))
		return ep_fail(err, "IPv6 zone ids ('%%') are not allowed");
	if (strchr(text, '?'))
		return ep_fail(err, "wildcards are not allowed");
	if (text[0] == '*' && text[1] != '.')
		return ep_fail(err, "a wildcard must be a leading '*.' before a domain");
	if (strchr(text + 1, '*'))
		return ep_fail(err, "wildcards are only allowed as a leading '*.'");
	if (text[0] == '*') {
		ep->wildcard = true;
		text += 2;
	}

	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close)
			return ep_fail(err, "missing ']' after IPv6 address");
		if (close[1] == '\0')
			return ep_fail(err, "missing port (expected HOST:PORT)");
		if (close[1] != ':')
			return ep_fail(err, "expected ':' after ']'");
		ports = close + 2;
		if (strchr(ports, '/'))
			return ep_fail(err, "URLs and paths are not allowed");
		host_len = (size_t)(close - text - 1);
		if (host_len > EP_HOST_MAX)
			return ep_fail(err, "invalid IPv6 address");
		memcpy(host, text + 1, host_len);
		host[host_len] = '\0';
		ep->kind = RF_HOST_ADDR;
		r = ep_parse_v6(host, ep, err);
	} else {
		if (n_colons == 0)
			return ep_fail(err, "missing port (expected HOST:PORT)");
		if (n_colons > 1)
			return ep_fail(err,
				       "IPv6 addresses must be bracketed ([ADDR]:PORT)");
		colon = strchr(text, ':');
		ports = colon + 1;
		if (strchr(ports, '/'))
			return ep_fail(err, "URLs and paths are not allowed");
		host_len = (size_t)(colon - text);
		if (host_len > EP_HOST_MAX)
			return ep_fail(err, "DNS name longer than %d bytes",
				       RF_DNS_NAME_MAX);
		memcpy(host, text, host_len);
		host[host_len] = '\0';
		r = ep_parse_host(host, ep, err);
	}
	if (r < 0)
		return r;
	if (ep->wildcard) {
		r = ep_check_wildcard(ep, err);
		if (r < 0)
			return r;
	}
	if (ports[0] == '\0')
		return ep_fail(err, "missing port (expected HOST:PORT)");
	return ep_parse_ports(ports, ep, err);
}

static char *ep_malloc(void *ctx, size_t bytes)
{
	(void)ctx;
	return malloc(bytes);
}

int endpoint__parse(const char *text, struct rf_endpoint *ret_ep,
		    struct rf_error *err)
{
	return endpoint__parse_in(text, ret_ep, ep_malloc, NULL, err);
}

int endpoint__parse_in(const char *text, struct rf_endpoint *ret_ep,
		       char *(*alloc)(void *ctx, size_t bytes), void *ctx,
		       struct rf_error *err)
{
	char name[RF_DNS_NAME_MAX + 1] = "";
	struct rf_endpoint ep = { .name = name };
	size_t tlen, nlen;
	int r;

	if (!ret_ep)
		return -EINVAL;
	memset(ret_ep, 0, sizeof(*ret_ep));
	if (!text)
		return ep_fail(err, "empty entry");

	r = ep_parse(text, &ep, err);
	if (r < 0)
		return r;
	/* One allocation: the text, then the name. */
	tlen = strlen(text) + 1;
	nlen = strlen(name) + 1;
	ep.text = alloc(ctx, tlen + nlen);
	if (!ep.text) {
		return rf_error_set(err, -ENOMEM, NULL, "out of memory");
	}
	memcpy(ep.text, text, tlen);
	ep.name = memcpy(ep.text + tlen, name, nlen);
	*ret_ep = ep;
	return 0;
}

void endpoint__clear(struct rf_endpoint *ep)
{
	if (!ep)
		return;
	free(ep->text);
	memset(ep, 0, sizeof(*ep));
}

bool endpoint__name_matches(const struct rf_endpoint *ep, const char *qname)
{
	size_t n = strlen(ep->name), q = strlen(qname);

	if (ep->kind != RF_HOST_NAME)
		return false;
	if (!ep->wildcard)
		return q == n && !strcmp(qname, ep->name);
	return q > n + 1 && qname[q - n - 1] == '.' && !strcmp(qname + q - n, ep->name);
}

int endpoint__parse_upstream(const char *text, struct rf_upstream *ret_up,
			     struct rf_error *err)
{
	char name[RF_DNS_NAME_MAX + 1] = "";
	struct rf_endpoint ep = { .name = name };
	char buf[96];
	int r;

	memset(ret_up, 0, sizeof(*ret_up));
	/* A bare address gets port 53; then the entry grammar does the rest. */
	if (text[0] == '[' ? !strstr(text, "]:") : !strchr(text, ':'))
		snprintf(buf, sizeof(buf), "%s:53", text);
	else
		snprintf(buf, sizeof(buf), "%s", text);
	r = ep_parse(buf, &ep, err);
	if (r < 0)
		return r;
	if (ep.kind != RF_HOST_ADDR || ep.cidr || ep.port_lo != ep.port_hi)
		return ep_fail(err, "expected an IP address with an optional port");
	ret_up->family = ep.family;
	memcpy(ret_up->addr, ep.addr, 16);
	ret_up->port = ep.port_lo;
	return 0;
}

int endpoint__parse_prefix(const char *text, struct rf_prefix *ret_pfx,
			   struct rf_error *err)
{
	char name[RF_DNS_NAME_MAX + 1] = "";
	struct rf_endpoint ep = { .name = name };
	char buf[96];
	int r;
	const char *colon = strchr(text, ':');

	memset(ret_pfx, 0, sizeof(*ret_pfx));
	if (strlen(text) > 80 || strpbrk(text, "[]") || (colon && !strchr(colon + 1, ':')))
		return ep_fail(err, "expected an IP address or CIDR without brackets or port");
	snprintf(buf, sizeof(buf), strchr(text, ':') ? "[%s]:1" : "%s:1", text);
	r = ep_parse(buf, &ep, err);
	if (r < 0)
		return r;
	if (ep.kind != RF_HOST_ADDR)
		return ep_fail(err, "expected an IP address or CIDR");
	ret_pfx->family = ep.family;
	memcpy(ret_pfx->addr, ep.addr, 16);
	ret_pfx->prefix_len = ep.prefix_len;
	return 0;
}

bool endpoint__is_sensitive(int family, const uint8_t *addr)
{
	/* fd00:ec2::254, the IPv6 instance metadata address. */
	static const uint8_t md6[16] = { 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0x02, 0x54 };

	if (!addr)
		return false;
	if (family == AF_INET)
		return addr[0] == 169 && addr[1] == 254;
	if (family != AF_INET6)
		return false;
	if (addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80)
		return true;
	if (memcmp(addr, md6, sizeof(md6)) == 0)
		return true;
	return ep_is_v4_mapped(addr) && addr[12] == 169 && addr[13] == 254;
}
