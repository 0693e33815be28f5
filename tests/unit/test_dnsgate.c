/* Unit tests of the DNS gate's pure parts: which answers are private
 * (dnsgate__is_private) and the key a grant writes (netrules__host_entry). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "dnsgate/dnsgate.h"
#include "rules/netrules.h"

static bool private_text(const char *s)
{
	uint8_t a[16] = { 0 };

	if (inet_pton(AF_INET, s, a) == 1)
		return dnsgate__is_private(AF_INET, a);
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
	return dnsgate__is_private(AF_INET6, a);
}

static void test_private_ranges(void **state)
{
	static const char *const priv[] = {
		"127.0.0.1", "127.255.0.9", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.127.255.254",
		"224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00:ec2::254",
		"fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
	};
	static const char *const pub[] = {
		"1.1.1.1", "8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1",
		"100.63.255.255", "100.128.0.1", "151.101.0.223", "2a04:4e42::223",
		"2001:db8::1", "::ffff:8.8.8.8", "11.0.0.1", "126.255.255.255", "128.0.0.1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
		if (!private_text(priv[i]))
			fail_msg("%s should be private", priv[i]);
	for (i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
		if (private_text(pub[i]))
			fail_msg("%s should not be private", pub[i]);
}

/* Names from their wire labels: a label holding a '.', NUL or any byte a
 * host name cannot is not a host name, however it prints (issue 21:
 * "x\\.wild.example.test" printed like a child of wild.example.test). */
static void test_wire_labels(void **state)
{
	static const struct {
		const char *wire;   /* labels as [len]bytes, the root's 0 added */
		size_t size;
		int ret;
		const char *name;
	} cases[] = {
		{ "\003www\007Example\004test", 18, 0, "www.example.test" },
		{ "\001x\004wild\007example\004test", 21, 0, "x.wild.example.test" },
		{ "\006x.wild\007example\004test", 20, -EILSEQ, NULL },
		{ "\003a\000b\004test", 10, -EILSEQ, NULL },
		{ "\001*\004test", 7, -EILSEQ, NULL },
		{ "\003a b\004test", 9, -EILSEQ, NULL },
		{ "\003\303\251a\004test", 9, -EILSEQ, NULL },
		{ "\004_dns\004test", 10, 0, "_dns.test" },
		{ "\003xn-\004test", 9, 0, "xn-.test" },
		{ "", 0, 0, "." },
		{ "\077", 1, -EINVAL, NULL },         /* a label past the end */
	};
	char name[300];
	uint8_t wire[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		memcpy(wire, cases[i].wire, cases[i].size);
		wire[cases[i].size] = 0;
		r = dnsgate_wire__name(wire, cases[i].size + (cases[i].ret == -EINVAL ? 0 : 1),
				       name, sizeof(name));
		if (r != cases[i].ret)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].ret);
		if (!r && strcmp(name, cases[i].name))
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, name, cases[i].name);
	}
	/* a name longer than the buffer */
	memcpy(wire, "\003www\007example\004test", 18);
	wire[18] = 0;
	assert_int_equal(dnsgate_wire__name(wire, 19, name, 8), -ENAMETOOLONG);
}

static struct rf_addr_rule rule(const char *addr, int prefix, int lo, int hi)
{
	struct rf_addr_rule r = { 0 };

	if (inet_pton(AF_INET, addr, r.addr) == 1)
		r.family = AF_INET;
	else
		r.family = inet_pton(AF_INET6, addr, r.addr) == 1 ? AF_INET6 : 0;
	r.prefix_len = (uint8_t)prefix;
	r.port_lo = (uint16_t)lo;
	r.port_hi = (uint16_t)hi;
	return r;
}

/* A grant is a host key carrying its own ports, those of the CIDRs over it
 * and of a static entry for the same host; without it the key is what the
 * static rules alone give (or none). */
static void test_host_entry_merges_grants_with_static_rules(void **state)
{
	struct rf_addr_rule rules[] = { rule("10.0.0.0", 8, 80, 80), rule("10.9.9.9", 32, 22, 22) };
	struct rf_addr_rule grant[] = { rule("10.1.2.3", 32, 443, 443), rule("10.9.9.9", 32, 443, 443),
					rule("2001:db8::1", 128, 443, 443) };
	struct rf_net_entry e;
	uint8_t a[16] = { 0 };
	bool found;

	(void)state;
	inet_pton(AF_INET, "10.1.2.3", a);
	assert_int_equal(netrules__host_entry(rules, 2, grant, 1, AF_INET, a, &e, &found), 0);
	assert_true(found);
	assert_int_equal(e.prefix_len, 32);
	assert_int_equal(e.ports.n, 2);
	assert_int_equal(e.ports.r[0].lo, 80);
	assert_int_equal(e.ports.r[1].lo, 443);
	assert_true(e.ports.flags & RF_PORTS_EXACT_HOST);
	/* no grant left for it: no host key (the CIDR answers alone) */
	assert_int_equal(netrules__host_entry(rules, 2, NULL, 0, AF_INET, a, &e, &found), 0);
	assert_false(found);
	/* a static host entry stays, with its own ports, when the grant goes */
	inet_pton(AF_INET, "10.9.9.9", a);
	assert_int_equal(netrules__host_entry(rules, 2, &grant[1], 1, AF_INET, a, &e, &found), 0);
	assert_true(found);
	assert_int_equal(e.ports.n, 3);
	assert_int_equal(netrules__host_entry(rules, 2, NULL, 0, AF_INET, a, &e, &found), 0);
	assert_true(found);
	assert_int_equal(e.ports.n, 2);
	assert_int_equal(e.ports.r[0].lo, 22);
	/* IPv6 */
	memset(a, 0, sizeof(a));
	inet_pton(AF_INET6, "2001:db8::1", a);
	assert_int_equal(netrules__host_entry(rules, 2, &grant[2], 1, AF_INET6, a, &e, &found), 0);
	assert_true(found);
	assert_int_equal(e.prefix_len, 128);
	assert_int_equal(e.ports.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_ranges),
		cmocka_unit_test(test_wire_labels),
		cmocka_unit_test(test_host_entry_merges_grants_with_static_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
