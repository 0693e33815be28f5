// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DNS tunnelling signs (dnstunnel.c), the dns-tunnel rule through the
 * detectors, and the DNS Activity record (activity.c), in virtual time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "activity.h"
#include "detect.h"
#include "dnstunnel.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)
#define CG 777

static const struct rf_dnst_limits lim = { .names = 10, .window_ns = 1000 * MS,
					   .label_len = 40 };

static size_t off_of(const char *name, const char *suffix)
{
	return strlen(name) - strlen(suffix);
}

/* N distinct names under one suffix: over at N + 1, not before; the same
 * name again is not a new one. */
static void test_distinct_names(void **state)
{
	struct rf_dnst st = { 0 };
	struct rf_dnst_result r;
	char name[64];
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "n%d.example.com", i);
		assert_int_equal(dnst__add(&st, name, off_of(name, "example.com"),
					   T0 + (uint64_t)i * MS, &lim, &r), 0);
		assert_false(r.names_over);
		assert_int_equal(r.distinct, (uint64_t)i + 1);
	}
	assert_int_equal(dnst__add(&st, "n3.example.com", 3, T0 + 20 * MS, &lim, &r), 0);
	assert_false(r.names_over);
	assert_int_equal(r.distinct, 10);
	assert_int_equal(dnst__add(&st, "n10.example.com", 4, T0 + 21 * MS, &lim, &r), 0);
	assert_true(r.names_over);
	assert_int_equal(r.distinct, 11);
	/* another suffix counts apart */
	assert_int_equal(dnst__add(&st, "a.other.org", 2, T0 + 22 * MS, &lim, &r), 0);
	assert_false(r.names_over);
	assert_int_equal(r.distinct, 1);
	dnst__free(&st);
}

/* The window slides: names older than it no longer count. */
static void test_window_slides(void **state)
{
	struct rf_dnst st = { 0 };
	struct rf_dnst_result r;
	char name[64];
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "x%d.example.com", i);
		assert_int_equal(dnst__add(&st, name, off_of(name, "example.com"),
					   T0 + (uint64_t)i * 100 * MS, &lim, &r), 0);
	}
	/* at T0 + 1500 ms the first five (0..400 ms) are out of the window */
	assert_int_equal(dnst__add(&st, "y.example.com", 2, T0 + 1500 * MS, &lim, &r), 0);
	assert_false(r.names_over);
	assert_int_equal(r.distinct, 6);  /* x5..x9 (500 ms is the window's start) and y */
	/* a burst within one window is seen whatever came before */
	for (i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "z%d.example.com", i);
		assert_int_equal(dnst__add(&st, name, off_of(name, "example.com"),
					   T0 + 5000 * MS + (uint64_t)i * MS, &lim, &r), 0);
	}
	assert_true(r.names_over);
	assert_int_equal(r.distinct, 12);
	dnst__free(&st);
}

/* Labels: a long one, a random-looking one, and words that are neither;
 * the allowed suffix's own labels are never judged. */
static void test_labels(void **state)
{
	struct rf_dnst st = { 0 };
	struct rf_dnst_result r;
	const char *lng = "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeee.t.example.com";
	const char *rnd = "mzxw6ytboi4dsnrugq3tmnzyhe2dcmrt.example.com";
	const char *word = "storage-service-frontend-primary.example.com";
	const char *suffix_long = "www.aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeee.com";

	(void)state;
	assert_int_equal(dnst__add(&st, lng, off_of(lng, "example.com"), T0, &lim, &r), 0);
	assert_true(r.label_odd);
	assert_true(r.label_long);
	assert_int_equal(r.label_len, 44);
	assert_int_equal(dnst__add(&st, rnd, off_of(rnd, "example.com"), T0, &lim, &r), 0);
	assert_true(r.label_odd);
	assert_false(r.label_long);
	assert_true(r.entropy >= RF_DNST_ENTROPY_BITS);
	assert_int_equal(dnst__add(&st, word, off_of(word, "example.com"), T0, &lim, &r), 0);
	assert_false(r.label_odd);
	assert_int_equal(dnst__add(&st, suffix_long, 4, T0, &lim, &r), 0);
	assert_false(r.label_odd);
	dnst__free(&st);
}

static void test_entropy(void **state)
{
	(void)state;
	assert_true(dnst__entropy("aaaa", 4) == 0);
	assert_true(dnst__entropy("abab", 4) == 1);
	assert_true(dnst__entropy("abcd", 4) == 2);
}

/* More suffixes than the table holds: the least recently used makes room. */
static void test_suffix_lru(void **state)
{
	struct rf_dnst st = { 0 };
	struct rf_dnst_result r;
	char name[64];
	int i;

	(void)state;
	for (i = 0; i < RF_DNST_SUFFIXES + 4; i++) {
		snprintf(name, sizeof(name), "a.s%d.com", i);
		assert_int_equal(dnst__add(&st, name, 2, T0 + (uint64_t)i * MS, &lim, &r), 0);
		assert_int_equal(r.distinct, 1);
	}
	dnst__free(&st);
}

/* ---- through the detectors ------------------------------------------------ */

struct sink {
	struct rf_alert v[64];
	size_t n;
};

static void collect(const struct rf_alert *a, void *ctx)
{
	struct sink *s = ctx;

	if (s->n < 64)
		s->v[s->n++] = *a;
}

static void feed_sandbox(struct rf_detect *d, uint64_t names, uint64_t window_ms)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = T0, .type = RF_IN_SANDBOX, .cgroup_id = CG };

	snprintf(si.sandbox, sizeof(si.sandbox), "sb-dns");
	snprintf(si.policy_id, sizeof(si.policy_id), "pol");
	si.cgroup_id = CG;
	si.dns_names = names;
	si.dns_window_ms = window_ms;
	in.u.sb = &si;
	detect__input(d, &in);
}

static void feed_dns(struct rf_detect *d, uint64_t t, const char *name, const char *suffix,
		     uint32_t verdict)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_DNS, .cgroup_id = CG };
	struct rf_dns_record *r = &in.u.dns;

	r->kind = RF_EV_DNS;
	r->cgroup_id = CG;
	r->verdict = verdict;
	r->qtype = 1;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->name_len = (uint16_t)strlen(name);
	r->suffix_off = suffix ? (uint16_t)(strlen(name) - strlen(suffix)) : RF_DNS_NO_SUFFIX;
	detect__input(d, &in);
}

static size_t count_rule(const struct sink *s, enum rf_rule rule, const char *key)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i].rule == rule && s->v[i].phase == RF_PHASE_OPEN &&
		     (!key || !strcmp(s->v[i].key, key));
	return n;
}

/* 200 distinct names under an allowed wildcard: one dns-tunnel alert;
 * refused names never count. */
static void test_detect_200_names(void **state)
{
	struct sink s = { .n = 0 };
	struct rf_detect *d;
	char name[64];
	int i;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, 100, 10000);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "r%d.evil.test", i);
		feed_dns(d, T0 + (uint64_t)i * MS, name, NULL, RF_DNS_REFUSED);
	}
	assert_int_equal(count_rule(&s, RF_RULE_DNS_TUNNEL, NULL), 0);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "c%d.example.com", i);
		feed_dns(d, T0 + 400 * MS + (uint64_t)i * MS, name, "example.com",
			 RF_DNS_ANSWERED);
	}
	assert_int_equal(count_rule(&s, RF_RULE_DNS_TUNNEL, "names:example.com"), 1);
	for (i = 0; i < (int)s.n; i++)
		if (s.v[i].rule == RF_RULE_DNS_TUNNEL) {
			assert_string_equal(s.v[i].dns_signal, "distinct-names");
			assert_string_equal(s.v[i].dns_suffix, "example.com");
			assert_int_equal(s.v[i].value, 101);
			assert_int_equal(s.v[i].threshold, 100);
			assert_int_equal(s.v[i].window_ms, 10000);
		}
	detect__free(d);
}

/* ... and under the threshold, spread wider than the window, none. */
static void test_detect_spread_out(void **state)
{
	struct sink s = { .n = 0 };
	struct rf_detect *d;
	char name[64];
	int i;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, 50, 1000);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "c%d.example.com", i);
		feed_dns(d, T0 + (uint64_t)i * 100 * MS, name, "example.com", RF_DNS_ANSWERED);
	}
	assert_int_equal(count_rule(&s, RF_RULE_DNS_TUNNEL, NULL), 0);
	detect__free(d);
}

/* ---- the DNS Activity record ------------------------------------------------ */

static void test_activity_record(void **state)
{
	struct rf_input in = { .t_ns = T0, .type = RF_IN_DNS, .cgroup_id = CG };
	struct rf_dns_record *r = &in.u.dns;
	struct rf_sandbox_info si = { 0 };
	struct rf_alert_origin og = { .hostname = "h" };
	json_t *o, *q;

	(void)state;
	snprintf(si.sandbox, sizeof(si.sandbox), "sb-x");
	r->verdict = RF_DNS_ANSWERED;
	r->qtype = 28;
	r->protocol = IPPROTO_TCP;
	snprintf(r->name, sizeof(r->name), "a.example.com");
	r->name_len = 13;
	r->suffix_off = 2;
	r->n_granted = 1;
	r->family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8::1", r->addr);
	r->ttl = 60;
	o = activity__dns(&in, &si, 7, 0, &og);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "class_uid")), 4003);
	assert_int_equal(json_integer_value(json_object_get(o, "type_uid")), 400306);
	assert_int_equal(json_integer_value(json_object_get(o, "action_id")), 1);
	q = json_object_get(o, "query");
	assert_string_equal(json_string_value(json_object_get(q, "hostname")), "a.example.com");
	assert_string_equal(json_string_value(json_object_get(q, "type")), "AAAA");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(o, "answers"), 0), "rdata")), "2001:db8::1");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(o, "connection_info"), "protocol_name")), "tcp");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(o, "unmapped"), "suffix")), "example.com");
	json_decref(o);
	/* refused, and a name OCSF's hostname pattern does not take */
	r->verdict = RF_DNS_REFUSED;
	r->rcode = 5;
	r->n_granted = 0;
	snprintf(r->name, sizeof(r->name), "_x.bad_name.test");
	r->name_len = (uint16_t)strlen(r->name);
	r->suffix_off = RF_DNS_NO_SUFFIX;
	o = activity__dns(&in, NULL, 8, 0, &og);
	assert_int_equal(json_integer_value(json_object_get(o, "action_id")), 2);
	assert_string_equal(json_string_value(json_object_get(o, "disposition")), "Blocked");
	assert_string_equal(json_string_value(json_object_get(o, "rcode")), "Refused");
	assert_null(json_object_get(o, "query"));
	assert_null(json_object_get(o, "answers"));
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(o, "unmapped"), "name")), "_x.bad_name.test");
	json_decref(o);
}

static void test_rcodes(void **state)
{
	(void)state;
	assert_int_equal(activity__rcode_id(0), 0);
	assert_int_equal(activity__rcode_id(23), 23);
	assert_int_equal(activity__rcode_id(13), 24);
	assert_int_equal(activity__rcode_id(4000), 25);
	assert_string_equal(activity__rcode_caption(3), "NXDomain");
	assert_true(activity__hostname_ok("a-b.c9"));
	assert_false(activity__hostname_ok("a..b"));
	assert_false(activity__hostname_ok("-a.b"));
	assert_false(activity__hostname_ok(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distinct_names),
		cmocka_unit_test(test_window_slides),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_entropy),
		cmocka_unit_test(test_suffix_lru),
		cmocka_unit_test(test_detect_200_names),
		cmocka_unit_test(test_detect_spread_out),
		cmocka_unit_test(test_activity_record),
		cmocka_unit_test(test_rcodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
