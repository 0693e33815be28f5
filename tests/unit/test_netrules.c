/* Unit tests of the network rule compiler (netrules.c): no kernel needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "netrules.h"

static struct rf_addr_rule rule(const char *addr, int prefix, int lo, int hi)
{
	struct rf_addr_rule r = { 0 };

	if (inet_pton(AF_INET, addr, r.addr) == 1)
		r.family = AF_INET;
	else if (inet_pton(AF_INET6, addr, r.addr) == 1)
		r.family = AF_INET6;
	r.prefix_len = (uint8_t)prefix;
	r.port_lo = (uint16_t)lo;
	r.port_hi = (uint16_t)hi;
	return r;
}

static const struct rf_net_entry *find(const struct rf_net_entry *e, size_t n,
				       const char *addr, int prefix)
{
	uint8_t a[16] = { 0 };
	int fam = inet_pton(AF_INET, addr, a) == 1 ? AF_INET : AF_INET6;
	size_t i;

	if (fam == AF_INET6)
		inet_pton(AF_INET6, addr, a);
	for (i = 0; i < n; i++)
		if (e[i].family == fam && e[i].prefix_len == prefix &&
		    !memcmp(e[i].addr, a, fam == AF_INET ? 4 : 16))
			return &e[i];
	return NULL;
}

static void netrules_merges_overlapping_and_adjacent_ranges(void **state)
{
	struct rf_addr_rule r[] = {
		rule("10.0.0.1", 32, 80, 80), rule("10.0.0.1", 32, 81, 90),
		rule("10.0.0.1", 32, 85, 100), rule("10.0.0.1", 32, 443, 443),
	};
	struct rf_net_entry *e = NULL;
	size_t n = 0;
	struct rf_error err = { 0 };

	(void)state;
	assert_int_equal(netrules__build(r, 4, &e, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].ports.n, 2);
	assert_int_equal(e[0].ports.r[0].lo, 80);
	assert_int_equal(e[0].ports.r[0].hi, 100);
	assert_int_equal(e[0].ports.r[1].lo, 443);
	assert_true(e[0].ports.flags & RF_PORTS_EXACT_HOST);
	free(e);
}

/* A longer prefix inherits the ports of every prefix covering it, so the
 * kernel's single longest-prefix lookup answers completely. */
static void netrules_longer_prefix_inherits_covering_ports(void **state)
{
	struct rf_addr_rule r[] = {
		rule("10.0.0.0", 8, 443, 443), rule("10.1.0.0", 16, 80, 80),
		rule("10.1.2.3", 32, 22, 22), rule("192.168.0.0", 16, 53, 53),
	};
	const struct rf_net_entry *x;
	struct rf_net_entry *e = NULL;
	size_t n = 0;
	struct rf_error err = { 0 };

	(void)state;
	assert_int_equal(netrules__build(r, 4, &e, &n, &err), 0);
	assert_int_equal(n, 4);
	x = find(e, n, "10.1.0.0", 16);
	assert_non_null(x);
	assert_int_equal(x->ports.n, 2); /* 80, 443 */
	assert_false(x->ports.flags & RF_PORTS_EXACT_HOST);
	x = find(e, n, "10.1.2.3", 32);
	assert_non_null(x);
	assert_int_equal(x->ports.n, 3); /* 22, 80, 443 */
	x = find(e, n, "192.168.0.0", 16);
	assert_int_equal(x->ports.n, 1); /* unrelated: only 53 */
	x = find(e, n, "10.0.0.0", 8);
	assert_int_equal(x->ports.n, 1); /* shorter prefixes gain nothing */
	free(e);
}

/* 169.254.169.254 named exactly keeps only its own ports: a covering
 * 0.0.0.0/0 must not extend to cloud metadata. */
static void netrules_metadata_host_does_not_inherit_cidr_ports(void **state)
{
	struct rf_addr_rule r[] = {
		rule("0.0.0.0", 0, 443, 443), rule("169.254.169.254", 32, 80, 80),
		rule("::", 0, 443, 443), rule("fd00:ec2::254", 128, 80, 80),
		rule("fe80::1", 128, 22, 22),
	};
	const struct rf_net_entry *x;
	struct rf_net_entry *e = NULL;
	size_t n = 0;
	struct rf_error err = { 0 };

	(void)state;
	assert_int_equal(netrules__build(r, 5, &e, &n, &err), 0);
	x = find(e, n, "169.254.169.254", 32);
	assert_non_null(x);
	assert_int_equal(x->ports.n, 1);
	assert_int_equal(x->ports.r[0].lo, 80);
	x = find(e, n, "fd00:ec2::254", 128);
	assert_int_equal(x->ports.n, 1);
	x = find(e, n, "fe80::1", 128);
	assert_int_equal(x->ports.n, 1);
	assert_int_equal(x->ports.r[0].lo, 22);
	free(e);
}

static void netrules_families_do_not_mix(void **state)
{
	struct rf_addr_rule r[] = { rule("0.0.0.0", 0, 1, 100), rule("::1", 128, 443, 443) };
	const struct rf_net_entry *x;
	struct rf_net_entry *e = NULL;
	size_t n = 0;
	struct rf_error err = { 0 };

	(void)state;
	assert_int_equal(netrules__build(r, 2, &e, &n, &err), 0);
	x = find(e, n, "::1", 128);
	assert_int_equal(x->ports.n, 1);
	assert_int_equal(x->ports.r[0].lo, 443);
	free(e);
}

static void netrules_too_many_ranges_is_refused(void **state)
{
	struct rf_addr_rule r[RF_MAX_PORT_RANGES + 1];
	struct rf_net_entry *e = NULL;
	size_t n = 0, i;
	struct rf_error err = { 0 };

	(void)state;
	for (i = 0; i <= RF_MAX_PORT_RANGES; i++)
		r[i] = rule("10.0.0.1", 32, (int)(1000 + 2 * i), (int)(1000 + 2 * i));
	assert_int_equal(netrules__build(r, RF_MAX_PORT_RANGES + 1, &e, &n, &err),
			 -E2BIG);
	assert_non_null(strstr(err.why, "10.0.0.1/32"));
	assert_string_equal(err.where, "network.connect");
	assert_null(e);
}

static void netrules_empty_policy_builds_nothing(void **state)
{
	struct rf_net_entry *e = NULL;
	size_t n = 7;
	struct rf_error err = { 0 };

	(void)state;
	assert_int_equal(netrules__build(NULL, 0, &e, &n, &err), 0);
	assert_int_equal(n, 0);
	free(e);
}

static void netrules_unix_keys_exact_and_subtree(void **state)
{
	struct rf_unix_rule exact = { .text = "/run/a.sock", .name = "/run/a.sock" };
	struct rf_unix_rule sub = { .text = "/run/app/", .name = "/run/app/", .subtree = true };
	struct rf_unix_rule abs = { .text = "@bus", .name = "bus", .abstract = true };
	struct rf_unix_key k;

	(void)state;
	netrules__unix_key(&exact, &k);
	assert_int_equal(k.data[0], RF_UNIX_PATHNAME);
	assert_memory_equal(&k.data[1], "/run/a.sock", 11);
	assert_int_equal(k.data[12], 0);
	assert_int_equal(k.prefixlen, 64 + 8 * (1 + 11 + 1)); /* terminator included */
	netrules__unix_key(&sub, &k);
	assert_int_equal(k.prefixlen, 64 + 8 * (1 + 9));      /* prefix only */
	netrules__unix_key(&abs, &k);
	assert_int_equal(k.data[0], RF_UNIX_ABSTRACT);
	assert_int_equal(k.prefixlen, 64 + 8 * (1 + 3 + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(netrules_merges_overlapping_and_adjacent_ranges),
		cmocka_unit_test(netrules_longer_prefix_inherits_covering_ports),
		cmocka_unit_test(netrules_metadata_host_does_not_inherit_cidr_ports),
		cmocka_unit_test(netrules_families_do_not_mix),
		cmocka_unit_test(netrules_too_many_ranges_is_refused),
		cmocka_unit_test(netrules_empty_policy_builds_nothing),
		cmocka_unit_test(netrules_unix_keys_exact_and_subtree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
