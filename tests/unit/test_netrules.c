/* Unit tests of the network rule compiler (netrules.c): no kernel needed. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rules/netrules.h"

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

/* The one merge of port ranges (map entries, a granted host's union with
 * its CIDR, the Landlock port rules): sorted, overlapping and adjacent
 * ranges joined, nothing else. Ranges as "LO-HI LO-HI ...". */
static void netrules_merge_ports_cases(void **state)
{
	static const struct {
		const char *name, *in, *want;
	} cases[] = {
		{ "empty", "", "" },
		{ "one", "80-80", "80-80" },
		{ "duplicates", "443-443 443-443 443-443", "443-443" },
		{ "unsorted, disjoint", "443-443 22-22 80-80", "22-22 80-80 443-443" },
		{ "overlapping", "80-90 85-100", "80-100" },
		{ "adjacent", "1-5 6-10", "1-10" },
		{ "one apart stays apart", "1-5 7-10", "1-5 7-10" },
		{ "nested", "10-100 20-30 50-50", "10-100" },
		{ "a chain out of order", "30-40 1-10 11-20 21-29", "1-40" },
		{ "top port, no wrap", "65535-65535 1-1", "1-1 65535-65535" },
		{ "whole space", "1-65535 80-80 65534-65535", "1-65535" },
		{ "same low, longer first", "5-50 5-10", "5-50" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_port_range r[8];
		char got[128] = "";
		const char *p = cases[i].in;
		size_t n = 0, k, at = 0;
		unsigned lo, hi;
		int used;

		while (sscanf(p, "%u-%u%n", &lo, &hi, &used) == 2) {
			r[n++] = (struct rf_port_range){ (uint16_t)lo, (uint16_t)hi };
			p += used;
		}
		n = netrules__merge_ports(r, n);
		for (k = 0; k < n; k++)
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%u-%u", k ? " " : "",
					       r[k].lo, r[k].hi);
		if (strcmp(got, cases[i].want))
			fail_msg("%s: \"%s\" merged to \"%s\", want \"%s\"", cases[i].name,
				 cases[i].in, got, cases[i].want);
	}
}

/* Into a map value: the flags kept, at most RF_MAX_PORT_RANGES left. */
static void netrules_ports_of_bounds(void **state)
{
	struct rf_port_range r[RF_MAX_PORT_RANGES + 1];
	struct rf_ports out = { .flags = RF_PORTS_EXACT_HOST };
	size_t i;

	(void)state;
	for (i = 0; i <= RF_MAX_PORT_RANGES; i++)
		r[i] = (struct rf_port_range){ (uint16_t)(1000 - 2 * i), (uint16_t)(1000 - 2 * i) };
	assert_int_equal(netrules__ports_of(r, RF_MAX_PORT_RANGES + 1, &out), -E2BIG);
	assert_int_equal(netrules__ports_of(r, RF_MAX_PORT_RANGES, &out), 0);
	assert_int_equal(out.n, RF_MAX_PORT_RANGES);
	assert_int_equal(out.flags, RF_PORTS_EXACT_HOST);
	for (i = 1; i < out.n; i++)
		assert_true(out.r[i - 1].hi + 1 < out.r[i].lo);
	/* two halves of one range join: fits again */
	r[0] = (struct rf_port_range){ 1, 10 };
	r[1] = (struct rf_port_range){ 11, 20 };
	assert_int_equal(netrules__ports_of(r, 2, &out), 0);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.r[0].hi, 20);
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

/* The directories on the way to a pathname (unix.rebind under BPF-LSM):
 * each an exact key of their own kind, root left out, none for abstract. */
static void netrules_unix_way_keys(void **state)
{
	struct rf_unix_rule exact = { .text = "/run/a/s", .name = "/run/a/s" };
	struct rf_unix_rule sub = { .text = "/run/app/", .name = "/run/app/", .subtree = true };
	struct rf_unix_rule top = { .text = "/s", .name = "/s" };
	struct rf_unix_rule abs = { .text = "@a/b", .name = "a/b", .abstract = true };
	struct rf_unix_key k;
	size_t pos = 0;

	(void)state;
	assert_true(netrules__unix_way_key(&exact, &pos, &k));
	assert_int_equal(k.data[0], RF_UNIX_ANCESTOR);
	assert_memory_equal(&k.data[1], "/run", 5);   /* terminator included */
	assert_int_equal(k.prefixlen, 64 + 8 * (1 + 4 + 1));
	assert_true(netrules__unix_way_key(&exact, &pos, &k));
	assert_memory_equal(&k.data[1], "/run/a", 7);
	assert_int_equal(k.prefixlen, 64 + 8 * (1 + 6 + 1));
	assert_false(netrules__unix_way_key(&exact, &pos, &k));
	pos = 0;
	assert_true(netrules__unix_way_key(&sub, &pos, &k));
	assert_true(netrules__unix_way_key(&sub, &pos, &k));
	assert_memory_equal(&k.data[1], "/run/app", 9); /* the subtree's own directory */
	assert_false(netrules__unix_way_key(&sub, &pos, &k));
	pos = 0;
	assert_false(netrules__unix_way_key(&top, &pos, &k));
	pos = 0;
	assert_false(netrules__unix_way_key(&abs, &pos, &k));
}

/* Does prefix (a, plen) cover address b (the model of the old pairwise
 * compiler)? */
static bool model_covers(const uint8_t *a, int plen, const uint8_t *b)
{
	for (int i = 0; i < plen; i++)
		if (((a[i / 8] >> (7 - i % 8)) & 1) != ((b[i / 8] >> (7 - i % 8)) & 1))
			return false;
	return true;
}

/* Random nested v4 and v6 prefixes: every entry allows exactly the ports
 * of the rules whose prefix covers it (itself included), as a pairwise
 * check over all rules says. */
static void netrules_inheritance_matches_pairwise_model(void **state)
{
	enum { N = 80 };
	static const int lens4[] = { 0, 8, 12, 16, 20, 24, 32 }, lens6[] = { 16, 32, 48, 64, 128 };
	struct rf_addr_rule r[N];
	struct rf_net_entry *e = NULL;
	struct rf_error err = { 0 };
	size_t n = 0, i, j;

	(void)state;
	srand(15);
	for (i = 0; i < N; i++) {
		bool v6 = i % 3 == 0;
		int plen = v6 ? lens6[rand() % 5] : lens4[rand() % 7];
		uint8_t a[16] = { 0 };

		a[0] = v6 ? 0x20 : 10;
		for (j = 1; j < (v6 ? 16u : 4u); j++)
			a[j] = (uint8_t)(rand() % 3);  /* few values: much nesting */
		for (j = 0; j < 16; j++)       /* host bits clear, as parsed */
			if ((int)j * 8 >= plen)
				a[j] = 0;
			else if ((int)j * 8 + 8 > plen)
				a[j] &= (uint8_t)(0xff << (8 - (plen - (int)j * 8)));
		memset(&r[i], 0, sizeof(r[i]));
		r[i].family = v6 ? AF_INET6 : AF_INET;
		r[i].prefix_len = (uint8_t)plen;
		memcpy(r[i].addr, a, 16);
		/* 16 ports 2 apart: at most 16 ranges after merging */
		r[i].port_lo = r[i].port_hi = (uint16_t)(1000 + 2 * (rand() % 16));
	}
	assert_int_equal(netrules__build(r, N, &e, &n, &err), 0);
	for (i = 0; i < n; i++) {
		for (uint16_t port = 1000; port < 1032; port += 2) {
			bool want = false, have = false;

			for (j = 0; j < N; j++)
				want |= r[j].port_lo == port && r[j].family == e[i].family &&
					r[j].prefix_len <= e[i].prefix_len &&
					model_covers(r[j].addr, r[j].prefix_len, e[i].addr);
			for (uint32_t k = 0; k < e[i].ports.n; k++)
				have |= e[i].ports.r[k].lo <= port && port <= e[i].ports.r[k].hi;
			if (want != have)
				fail_msg("entry %zu (/%u): port %u %s", i, e[i].prefix_len, port,
					 want ? "missing" : "wrongly allowed");
		}
	}
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(netrules_merges_overlapping_and_adjacent_ranges),
		cmocka_unit_test(netrules_merge_ports_cases),
		cmocka_unit_test(netrules_ports_of_bounds),
		cmocka_unit_test(netrules_longer_prefix_inherits_covering_ports),
		cmocka_unit_test(netrules_metadata_host_does_not_inherit_cidr_ports),
		cmocka_unit_test(netrules_families_do_not_mix),
		cmocka_unit_test(netrules_too_many_ranges_is_refused),
		cmocka_unit_test(netrules_empty_policy_builds_nothing),
		cmocka_unit_test(netrules_unix_keys_exact_and_subtree),
		cmocka_unit_test(netrules_unix_way_keys),
		cmocka_unit_test(netrules_inheritance_matches_pairwise_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
