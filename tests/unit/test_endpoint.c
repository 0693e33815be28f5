/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests of endpoint__parse / endpoint__is_sensitive (network.connect). */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "policy/policy.h"

struct valid_case {
	const char *text;
	enum rf_host_kind kind;
	int family;                  /* ADDR only */
	const char *addr;            /* ADDR only, inet_pton of family */
	uint8_t prefix_len;
	bool cidr;
	const char *name;            /* NAME only */
	uint16_t lo, hi;
};

#define V4(t, a, pl, c, l, h) { t, RF_HOST_ADDR, AF_INET, a, pl, c, NULL, l, h }
#define V6(t, a, pl, c, l, h) { t, RF_HOST_ADDR, AF_INET6, a, pl, c, NULL, l, h }
#define NAME(t, n, l, h) { t, RF_HOST_NAME, 0, NULL, 0, false, n, l, h }

static const struct valid_case valid_cases[] = {
	/* IPv4 literals and CIDRs */
	V4("127.0.0.1:18080", "127.0.0.1", 32, false, 18080, 18080),
	V4("0.0.0.0:1", "0.0.0.0", 32, false, 1, 1),
	V4("255.255.255.255:65535", "255.255.255.255", 32, false, 65535, 65535),
	V4("10.1.0.0/16:443", "10.1.0.0", 16, true, 443, 443),
	V4("0.0.0.0/0:53", "0.0.0.0", 0, true, 53, 53),
	V4("192.0.2.7/32:80", "192.0.2.7", 32, true, 80, 80),
	V4("169.254.169.254:80", "169.254.169.254", 32, false, 80, 80),
	/* port ranges */
	V4("10.0.0.1:8000-8080", "10.0.0.1", 32, false, 8000, 8080),
	V4("10.0.0.1:1-65535", "10.0.0.1", 32, false, 1, 65535),
	V4("10.0.0.1:7-7", "10.0.0.1", 32, false, 7, 7),
	/* IPv6 literals and CIDRs */
	V6("[::1]:22", "::1", 128, false, 22, 22),
	V6("[2001:db8::1]:443", "2001:db8::1", 128, false, 443, 443),
	V6("[2001:DB8::ABCD]:443", "2001:db8::abcd", 128, false, 443, 443),
	V6("[fd00::/8]:443", "fd00::", 8, true, 443, 443),
	V6("[::/0]:80-81", "::", 0, true, 80, 81),
	V6("[2001:db8::/128]:1", "2001:db8::", 128, true, 1, 1),
	V6("[fe80::1]:80", "fe80::1", 128, false, 80, 80),
	V6("[fd00:ec2::254]:80", "fd00:ec2::254", 128, false, 80, 80),
	/* IPv4-mapped IPv6 is stored as IPv4 */
	V4("[::ffff:1.2.3.4]:80", "1.2.3.4", 32, false, 80, 80),
	V4("[::ffff:10.0.0.0/104]:443", "10.0.0.0", 8, true, 443, 443),
	V4("[::ffff:0.0.0.0/96]:443", "0.0.0.0", 0, true, 443, 443),
	V4("[::ffff:1.2.3.4/128]:443", "1.2.3.4", 32, true, 443, 443),
	/* DNS names: lower-cased, one trailing dot dropped */
	NAME("deb.debian.org:443", "deb.debian.org", 443, 443),
	NAME("Deb.Debian.ORG:80", "deb.debian.org", 80, 80),
	NAME("mirror.example.com.:8080-8090", "mirror.example.com", 8080, 8090),
	NAME("localhost:5432", "localhost", 5432, 5432),
	NAME("a-b.c0.example:1", "a-b.c0.example", 1, 1),
	NAME("1.2.3.example:1", "1.2.3.example", 1, 1),
	NAME("123abc:1", "123abc", 1, 1),
};

static void test_endpoint_parses_valid_entries(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
		const struct valid_case *c = &valid_cases[i];
		struct rf_endpoint ep;
		uint8_t want[16] = {};
		struct rf_error e = { 0 };
		int r;

		r = endpoint__parse(c->text, &ep, &e);
		if (r != 0)
			print_error("case %zu \"%s\": %s\n", i, c->text, e.why);
		assert_int_equal(r, 0);
		assert_string_equal(ep.text, c->text);
		assert_int_equal(ep.kind, c->kind);
		assert_int_equal(ep.port_lo, c->lo);
		assert_int_equal(ep.port_hi, c->hi);
		if (c->kind == RF_HOST_ADDR) {
			assert_int_equal(ep.family, c->family);
			assert_int_equal(inet_pton(c->family, c->addr, want), 1);
			assert_memory_equal(ep.addr, want, sizeof(want));
			assert_int_equal(ep.prefix_len, c->prefix_len);
			assert_int_equal(ep.cidr, c->cidr);
			assert_string_equal(ep.name, "");
		} else {
			assert_string_equal(ep.name, c->name);
		}
		endpoint__clear(&ep);
		assert_null(ep.text);
	}
}

struct invalid_case {
	const char *text;
	const char *why;             /* substring of the reason */
};

static const struct invalid_case invalid_cases[] = {
	{ "", "empty entry" },
	/* wildcards */
	{ "*:80", "a wildcard must be a leading '*.' before a domain" },
	{ "*example.com:443", "a wildcard must be a leading '*.' before a domain" },
	{ "10.0.0.1:*", "wildcards are only allowed as a leading '*.'" },
	{ "a.*.example.com:443", "wildcards are only allowed as a leading '*.'" },
	{ "*.*.example.com:443", "wildcards are only allowed as a leading '*.'" },
	{ "exa?ple.com:443", "wildcards are not allowed" },
	/* wildcards over a public suffix (libpsl) or an address */
	{ "*.com:443", "wildcard over a public suffix" },
	{ "*.co.uk:443", "wildcard over a public suffix" },
	{ "*.github.io:443", "wildcard over a public suffix" },
	{ "*.test:443", "wildcard over a public suffix" },
	{ "*.10.0.0.1:443", "a wildcard must name a domain, not an IP address" },
	{ "*.[::1]:443", "a wildcard must name a domain, not an IP address" },
	{ "*.:443", "empty host" },
	{ "*.ex_ample.test:443", "invalid character in DNS name" },
	/* URLs, paths, schemes */
	{ "http://example.com:80", "URLs are not allowed" },
	{ "https://example.com", "URLs are not allowed" },
	{ "example.com:80/path", "URLs and paths are not allowed" },
	{ "example.com/path:80", "URLs and paths are not allowed" },
	{ "[::1]:80/x", "URLs and paths are not allowed" },
	{ "tcp:example.com:80", "IPv6 addresses must be bracketed" },
	{ "http:example.com", "port must be a decimal number" },
	/* user-info */
	{ "user@example.com:22", "user-info ('@') is not allowed" },
	{ "user:pw@10.0.0.1:22", "user-info ('@') is not allowed" },
	/* missing port */
	{ "example.com", "missing port" },
	{ "10.0.0.1", "missing port" },
	{ "example.com:", "missing port" },
	{ "[::1]", "missing port" },
	{ "[::1]:", "missing port" },
	{ "10.0.0.0/8", "missing port" },
	/* port syntax and range */
	{ "example.com:0", "port out of range (1-65535)" },
	{ "example.com:65536", "port out of range (1-65535)" },
	{ "example.com:99999999999999999999", "port out of range (1-65535)" },
	{ "example.com:080", "port must not have leading zeros" },
	{ "example.com:+80", "port must be a decimal number" },
	{ "example.com:8o", "port must be a decimal number" },
	{ "example.com:0x50", "port must be a decimal number" },
	{ "example.com:-80", "port range must be LOW-HIGH" },
	{ "example.com:80-", "port range must be LOW-HIGH" },
	{ "example.com:1-2-3", "port range must be LOW-HIGH" },
	{ "example.com:90-80", "port range LOW is above HIGH" },
	{ "example.com:0-80", "port out of range (1-65535)" },
	{ "example.com:80-65536", "port out of range (1-65535)" },
	/* empty host */
	{ ":80", "empty host" },
	{ "[]:80", "empty host" },
	/* IPv6 form */
	{ "::1:80", "IPv6 addresses must be bracketed" },
	{ "2001:db8::1:443", "IPv6 addresses must be bracketed" },
	{ "[::1:80", "missing ']'" },
	{ "[::1]80", "expected ':' after ']'" },
	{ "[2001:db8::g]:80", "invalid IPv6 address" },
	{ "[1.2.3.4]:80", "IPv4 addresses must not be bracketed" },
	/* whitespace */
	{ " example.com:80", "whitespace is not allowed" },
	{ "example.com:80 ", "whitespace is not allowed" },
	{ "example.com :80", "whitespace is not allowed" },
	{ "example.com:\t80", "whitespace is not allowed" },
	{ "example.com\n:80", "whitespace is not allowed" },
	/* zone ids */
	{ "[fe80::1%eth0]:80", "zone ids ('%') are not allowed" },
	{ "[fe80::1%25eth0]:80", "zone ids ('%') are not allowed" },
	/* CIDR */
	{ "10.1.0.1/16:443", "host bits set in CIDR" },
	{ "[fd00::1/8]:443", "host bits set in CIDR" },
	{ "[::ffff:10.0.0.1/104]:443", "host bits set in CIDR" },
	{ "10.0.0.0/33:443", "invalid CIDR prefix length (0-32)" },
	{ "10.0.0.0/:443", "invalid CIDR prefix length (0-32)" },
	{ "10.0.0.0/08:443", "invalid CIDR prefix length (0-32)" },
	{ "10.0.0.0/-1:443", "invalid CIDR prefix length (0-32)" },
	{ "[fd00::/129]:443", "invalid CIDR prefix length (0-128)" },
	{ "[::ffff:0.0.0.0/95]:443", "IPv4-mapped CIDR prefix must be at least /96" },
	{ "[::ffff:10.0.0.0/80]:443", "IPv4-mapped CIDR prefix must be at least /96" },
	/* malformed IPv4 / numeric names */
	{ "1.2.3:80", "malformed IPv4 address" },
	{ "256.1.1.1:80", "malformed IPv4 address" },
	{ "1.2.3.4.5:80", "malformed IPv4 address" },
	{ "010.0.0.1:80", "malformed IPv4 address" },
	{ "2130706433:80", "malformed IPv4 address" },
	{ "0x7f.0.0.1:80", "non-canonical IPv4 address" },
	{ "0x7f000001:80", "non-canonical IPv4 address" },
	/* DNS names */
	{ "-example.com:80", "must not start or end with '-'" },
	{ "example-.com:80", "must not start or end with '-'" },
	{ "a.-b.com:80", "must not start or end with '-'" },
	{ "exa_mple.com:80", "invalid character in DNS name" },
	{ "ex\xc3\xa4mple.com:80", "invalid character in DNS name" },
	{ "example..com:80", "empty label in DNS name" },
	{ ".example.com:80", "empty label in DNS name" },
	{ "example.com..:80", "empty label in DNS name" },
	{ ".:80", "invalid DNS name" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com:80",
	  "DNS label longer than 63 bytes" },
};

static void test_endpoint_rejects_invalid_entries_with_reason(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(invalid_cases) / sizeof(invalid_cases[0]); i++) {
		const struct invalid_case *c = &invalid_cases[i];
		struct rf_endpoint ep;
		struct rf_error e = { 0 };
		int r;

		r = endpoint__parse(c->text, &ep, &e);
		if (r != -EINVAL || !strstr(e.why, c->why))
			print_error("case %zu \"%s\": r=%d why=\"%s\", want \"%s\"\n",
				    i, c->text, r, e.why, c->why);
		assert_int_equal(r, -EINVAL);
		assert_int_equal(e.err, -EINVAL);
		assert_non_null(strstr(e.why, c->why));
		/* A failed parse leaves nothing to free. */
		assert_null(ep.text);
	}
}

/* Names of exactly 253 bytes pass; 254 fail, trailing dot excluded. */
static void test_endpoint_dns_name_length_limit(void **state)
{
	char name[300], text[320];
	struct rf_error e = { 0 };
	struct rf_endpoint ep;
	size_t i;

	(void)state;
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	memset(name, 'a', sizeof(name));
	for (i = 63; i < 253; i += 64)
		name[i] = '.';
	name[253] = '\0';
	snprintf(text, sizeof(text), "%s:443", name);
	assert_int_equal(endpoint__parse(text, &ep, &e), 0);
	assert_int_equal(strlen(ep.name), 253);
	endpoint__clear(&ep);

	snprintf(text, sizeof(text), "%s.:443", name);
	assert_int_equal(endpoint__parse(text, &ep, &e), 0);
	assert_string_equal(ep.name, name);
	endpoint__clear(&ep);

	snprintf(text, sizeof(text), "%sa:443", name);
	assert_int_equal(endpoint__parse(text, &ep, &e), -EINVAL);
	assert_non_null(strstr(e.why, "DNS name longer than 253 bytes"));

	memset(text, 'a', 300);
	strcpy(text + 300, ":443");
	assert_int_equal(endpoint__parse(text, &ep, &e), -EINVAL);
	assert_non_null(strstr(e.why, "DNS name longer than 253 bytes"));
}

static void test_endpoint_null_text_and_small_why_buffer(void **state)
{
	struct rf_endpoint ep;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(endpoint__parse(NULL, &ep, &e), -EINVAL);
	/* The reason is filled; where is left to the caller (it knows the
	 * JSON path). */
	assert_int_equal(endpoint__parse("*:80", &ep, &e), -EINVAL);
	assert_string_equal(e.why, "a wildcard must be a leading '*.' before a domain");
	assert_string_equal(e.where, "");
	assert_int_equal(endpoint__parse("*:80", &ep, NULL), -EINVAL);
	endpoint__clear(NULL);
}

struct sensitive_case {
	int family;
	const char *addr;
	bool sensitive;
};

static const struct sensitive_case sensitive_cases[] = {
	{ AF_INET, "169.254.169.254", true },
	{ AF_INET, "169.254.0.0", true },
	{ AF_INET, "169.254.255.255", true },
	{ AF_INET, "169.253.255.255", false },
	{ AF_INET, "169.255.0.0", false },
	{ AF_INET, "127.0.0.1", false },
	{ AF_INET, "10.0.0.1", false },
	{ AF_INET6, "fe80::1", true },
	{ AF_INET6, "febf:ffff::1", true },
	{ AF_INET6, "fec0::1", false },
	{ AF_INET6, "fe7f::1", false },
	{ AF_INET6, "fd00:ec2::254", true },
	{ AF_INET6, "fd00:ec2::253", false },
	{ AF_INET6, "fd00:ec2::1:254", false },
	{ AF_INET6, "::ffff:169.254.169.254", true },
	{ AF_INET6, "::ffff:169.254.0.1", true },
	{ AF_INET6, "::ffff:10.0.0.1", false },
	{ AF_INET6, "::169.254.169.254", false },
	{ AF_INET6, "::1", false },
	{ AF_INET6, "2001:db8::1", false },
};

static void test_endpoint_is_sensitive(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sensitive_cases) / sizeof(sensitive_cases[0]); i++) {
		const struct sensitive_case *c = &sensitive_cases[i];
		uint8_t addr[16] = {};

		assert_int_equal(inet_pton(c->family, c->addr, addr), 1);
		if (endpoint__is_sensitive(c->family, addr) != c->sensitive)
			print_error("case %zu %s\n", i, c->addr);
		assert_int_equal(endpoint__is_sensitive(c->family, addr), c->sensitive);
	}
	assert_false(endpoint__is_sensitive(AF_INET, NULL));
	assert_false(endpoint__is_sensitive(AF_UNIX, (const uint8_t *)"\xa9\xfe\0\0"));
}

/* The parser accepts sensitive hosts; exactness is the kernel's business,
 * and a mapped literal is normalised so the kernel sees the IPv4 form. */
static void test_endpoint_sensitive_hosts_parse_and_normalise(void **state)
{
	struct rf_endpoint ep;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(endpoint__parse("[::ffff:169.254.169.254]:80", &ep, &e), 0);
	assert_int_equal(ep.family, AF_INET);
	assert_true(endpoint__is_sensitive(ep.family, ep.addr));
	assert_false(ep.cidr);
	endpoint__clear(&ep);

	assert_int_equal(endpoint__parse("169.254.0.0/16:80", &ep, &e), 0);
	assert_true(endpoint__is_sensitive(ep.family, ep.addr));
	assert_true(ep.cidr);
	endpoint__clear(&ep);
}

/* "*.example.test" covers names strictly below it, nothing else. */
static void test_endpoint_wildcard_matches(void **state)
{
	struct rf_endpoint ep, plain;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(endpoint__parse("*.Example.TEST:443", &ep, &e), 0);
	assert_true(ep.wildcard);
	assert_int_equal(ep.kind, RF_HOST_NAME);
	assert_string_equal(ep.name, "example.test");
	assert_string_equal(ep.text, "*.Example.TEST:443");
	assert_true(endpoint__name_matches(&ep, "a.example.test"));
	assert_true(endpoint__name_matches(&ep, "b.c.example.test"));
	assert_false(endpoint__name_matches(&ep, "example.test"));
	assert_false(endpoint__name_matches(&ep, "badexample.test"));
	assert_false(endpoint__name_matches(&ep, ".example.test"));
	assert_false(endpoint__name_matches(&ep, "example.test.evil"));
	assert_int_equal(endpoint__parse("example.test:443", &plain, &e), 0);
	assert_false(plain.wildcard);
	assert_true(endpoint__name_matches(&plain, "example.test"));
	assert_false(endpoint__name_matches(&plain, "a.example.test"));
	endpoint__clear(&ep);
	endpoint__clear(&plain);
}

static void test_endpoint_upstream_and_prefix(void **state)
{
	struct rf_upstream up;
	struct rf_prefix pfx;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(endpoint__parse_upstream("127.0.0.1", &up, &e), 0);
	assert_int_equal(up.family, AF_INET);
	assert_int_equal(up.port, 53);
	assert_int_equal(endpoint__parse_upstream("127.0.0.1:5353", &up, &e), 0);
	assert_int_equal(up.port, 5353);
	assert_int_equal(endpoint__parse_upstream("[::1]:5353", &up, &e), 0);
	assert_int_equal(up.family, AF_INET6);
	assert_int_equal(endpoint__parse_upstream("[::1]", &up, &e), 0);
	assert_int_equal(up.port, 53);
	assert_int_equal(endpoint__parse_upstream("dns.example:53", &up, &e), -EINVAL);
	assert_int_equal(endpoint__parse_upstream("10.0.0.0/8", &up, &e), -EINVAL);
	assert_int_equal(endpoint__parse_prefix("127.77.0.0/16", &pfx, &e), 0);
	assert_int_equal(pfx.prefix_len, 16);
	assert_int_equal(endpoint__parse_prefix("fd00::/8", &pfx, &e), 0);
	assert_int_equal(pfx.family, AF_INET6);
	assert_int_equal(endpoint__parse_prefix("10.0.0.1", &pfx, &e), 0);
	assert_int_equal(pfx.prefix_len, 32);
	assert_int_equal(endpoint__parse_prefix("10.0.0.1/8", &pfx, &e), -EINVAL);
	assert_int_equal(endpoint__parse_prefix("[::1]", &pfx, &e), -EINVAL);
	assert_int_equal(endpoint__parse_prefix("example.test", &pfx, &e), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_parses_valid_entries),
		cmocka_unit_test(test_endpoint_rejects_invalid_entries_with_reason),
		cmocka_unit_test(test_endpoint_dns_name_length_limit),
		cmocka_unit_test(test_endpoint_null_text_and_small_why_buffer),
		cmocka_unit_test(test_endpoint_is_sensitive),
		cmocka_unit_test(test_endpoint_sensitive_hosts_parse_and_normalise),
		cmocka_unit_test(test_endpoint_wildcard_matches),
		cmocka_unit_test(test_endpoint_upstream_and_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
