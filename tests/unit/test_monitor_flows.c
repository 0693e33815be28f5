// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ledger's flows at the monitor: the flow watcher's records (what is
 * new since the previous one, a final one at the end, nothing twice), the
 * egress window (egress.c), the egress-volume rule through the detectors,
 * and the Network Activity record (activity.c), in virtual time. */
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
#include "egress.h"
#include "flowwatch.h"
#include "record.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)
#define CG 778

static struct rf_flow_key key_v4(const char *ip, uint16_t port, uint32_t flags)
{
	struct rf_flow_key k = { .cgroup_id = CG, .port = port, .family = AF_INET,
				 .proto = IPPROTO_TCP, .flags = flags };

	inet_pton(AF_INET, ip, k.addr);
	return k;
}

/* ---- egress.c ---------------------------------------------------------- */

/* The window slides: bytes older than it no longer count; the sandbox's
 * sum is over every destination, each destination's apart. */
static void test_egress_window(void **state)
{
	struct rf_egress st;
	struct rf_flow_key a = key_v4("192.0.2.1", 443, 0), b = key_v4("192.0.2.2", 443, 0);
	uint64_t total, dest;

	(void)state;
	egress__init(&st, 1600 * MS);     /* buckets of 100 ms */
	assert_null(egress__add(&st, &a, 0, T0, &total, &dest));
	assert_non_null(egress__add(&st, &a, 1000, T0, &total, &dest));
	assert_int_equal(total, 1000);
	assert_int_equal(dest, 1000);
	assert_non_null(egress__add(&st, &b, 500, T0 + 500 * MS, &total, &dest));
	assert_int_equal(total, 1500);
	assert_int_equal(dest, 500);
	/* inbound or outbound, the same peer is one destination */
	a.flags = RF_FLOW_INBOUND;
	assert_non_null(egress__add(&st, &a, 10, T0 + 1500 * MS, &total, &dest));
	assert_int_equal(total, 1510);
	assert_int_equal(dest, 1010);
	/* a's first 1000 bytes leave the window, b's 500 are still in it */
	assert_non_null(egress__add(&st, &a, 1, T0 + 1700 * MS, &total, &dest));
	assert_int_equal(total, 511);
	assert_int_equal(dest, 11);
	assert_int_equal(egress__sum(&st, &st.total, T0 + 10000 * MS), 0);
}

/* More destinations than the table holds: the least recently active one
 * makes room, the sandbox's sum loses nothing. */
static void test_egress_dests_bounded(void **state)
{
	struct rf_egress st;
	uint64_t total = 0, dest = 0;
	char ip[32];
	int i;

	(void)state;
	egress__init(&st, 60000 * MS);
	for (i = 0; i < RF_EGRESS_DESTS + 5; i++) {
		struct rf_flow_key k;

		snprintf(ip, sizeof(ip), "198.51.100.%d", i + 1);
		k = key_v4(ip, 80, 0);
		assert_non_null(egress__add(&st, &k, 100, T0 + (uint64_t)i * MS, &total, &dest));
		assert_int_equal(dest, 100);
	}
	assert_int_equal(total, 100 * (RF_EGRESS_DESTS + 5));
	assert_int_equal(st.evicted, 5);
}

/* ---- flowwatch.c (its final records; reading maps is the host tests') --- */

struct inputs {
	struct rf_input v[16];
	size_t n;
};

static void take(const struct rf_input *in, void *ctx)
{
	struct inputs *x = ctx;

	if (x->n < 16)
		x->v[x->n++] = *in;
}

/* A flow first seen in the supervisor's final record: everything is new;
 * a second final record of it adds nothing. */
static void test_flowwatch_final(void **state)
{
	struct rf_flowwatch *fw;
	struct rf_flow_record r = { .cgroup_id = CG, .kind = RF_EV_FLOW, .final = 1 };
	struct inputs x = { .n = 0 };
	const struct rf_in_flow *f;

	(void)state;
	assert_int_equal(flowwatch__new(4, &fw), 0);
	r.key = key_v4("127.0.0.1", 8080, RF_FLOW_LOOPBACK);
	r.flow = (struct rf_flow){ .connections = 2, .bytes_sent = 1000000, .bytes_received = 20,
				   .first_ns = T0, .last_ns = T0 + 50 * MS };
	snprintf(r.name, sizeof(r.name), "up.example.com");
	flowwatch__final(fw, &r, T0 + 60 * MS, take, &x);
	assert_int_equal(x.n, 1);
	f = &x.v[0].u.flow;
	assert_int_equal(x.v[0].type, RF_IN_FLOW);
	assert_int_equal(x.v[0].cgroup_id, CG);
	assert_true(f->final);
	assert_int_equal(f->bytes_sent, 1000000);
	assert_int_equal(f->bytes_received, 20);
	assert_int_equal(f->connections, 2);
	assert_int_equal(f->since_ns, T0);
	assert_string_equal(f->name, "up.example.com");
	flowwatch__final(fw, &r, T0 + 70 * MS, take, &x);
	assert_int_equal(x.n, 1);
	assert_int_equal(flowwatch__size(fw), 1);
	flowwatch__free(fw);
}

/* A table of 2: the third flow is shed and counted. */
static void test_flowwatch_bounded(void **state)
{
	struct rf_flowwatch *fw;
	struct rf_flow_record r = { .cgroup_id = CG, .kind = RF_EV_FLOW, .final = 1 };
	struct inputs x = { .n = 0 };
	int i;

	(void)state;
	assert_int_equal(flowwatch__new(2, &fw), 0);
	for (i = 0; i < 3; i++) {
		r.key = key_v4("127.0.0.1", (uint16_t)(9000 + i), 0);
		r.flow.bytes_sent = 1;
		flowwatch__final(fw, &r, T0, take, &x);
	}
	assert_int_equal(x.n, 2);
	assert_int_equal(flowwatch__shed(fw), 1);
	flowwatch__free(fw);
}

/* No consumer, no reads: each run's final records still come, and an
 * idle interval forgets them, so a table of 2 takes flows of many runs
 * without shedding. */
static void test_flowwatch_idle_forgets_ended(void **state)
{
	struct rf_flowwatch *fw;
	struct rf_flow_record r = { .cgroup_id = CG, .kind = RF_EV_FLOW, .final = 1 };
	struct inputs x = { .n = 0 };
	int i;

	(void)state;
	assert_int_equal(flowwatch__new(2, &fw), 0);
	for (i = 0; i < 10; i++) {
		r.key = key_v4("127.0.0.1", (uint16_t)(9000 + i), 0);
		r.flow.bytes_sent = 1;
		flowwatch__final(fw, &r, T0 + (uint64_t)i * MS, take, &x);
		assert_int_equal(flowwatch__size(fw), 1);
		flowwatch__idle(fw);
		assert_int_equal(flowwatch__size(fw), 0);
	}
	assert_int_equal(x.n, 10);
	assert_int_equal(flowwatch__shed(fw), 0);
	flowwatch__free(fw);
}

/* ---- the egress-volume rule ------------------------------------------------ */

struct alerts {
	struct rf_alert v[32];
	size_t n;
};

static void collect(const struct rf_alert *a, void *ctx)
{
	struct alerts *s = ctx;

	if (s->n < 32)
		s->v[s->n++] = *a;
}

static void feed_sandbox(struct rf_detect *d, uint64_t bytes, uint64_t window_ms)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = T0, .type = RF_IN_SANDBOX, .cgroup_id = CG };

	snprintf(si.sandbox, sizeof(si.sandbox), "sb-up");
	snprintf(si.policy_id, sizeof(si.policy_id), "pol");
	si.cgroup_id = CG;
	si.egress_bytes = bytes;
	si.egress_window_ms = window_ms;
	in.u.sb = &si;
	detect__input(d, &in);
}

static void feed_flow(struct rf_detect *d, uint64_t t, const char *ip, uint64_t sent,
		      const char *name)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_FLOW, .cgroup_id = CG };

	in.u.flow.key = key_v4(ip, 443, 0);
	in.u.flow.bytes_sent = sent;
	in.u.flow.since_ns = t - 1000 * MS;
	snprintf(in.u.flow.name, sizeof(in.u.flow.name), "%s", name);
	detect__input(d, &in);
}

static size_t opened(const struct alerts *s, const char *key)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i].rule == RF_RULE_EGRESS && s->v[i].phase == RF_PHASE_OPEN &&
		     (!key || !strcmp(s->v[i].key, key));
	return n;
}

/* 1 MB to one destination within the window, threshold 100 kB: one alert
 * for the destination (its name in it) and one for the sandbox. */
static void test_egress_over(void **state)
{
	struct alerts s = { .n = 0 };
	struct rf_detect *d;
	size_t i;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, 100000, 5000);
	for (i = 0; i < 10; i++)
		feed_flow(d, T0 + (i + 1) * 100 * MS, "203.0.113.7", 100000, "up.example.com");
	assert_int_equal(opened(&s, "dst:203.0.113.7:443/tcp"), 1);
	assert_int_equal(opened(&s, "sandbox"), 1);
	for (i = 0; i < s.n; i++) {
		if (s.v[i].rule != RF_RULE_EGRESS || s.v[i].phase != RF_PHASE_OPEN)
			continue;
		assert_int_equal(s.v[i].value, 200000);
		assert_int_equal(s.v[i].threshold, 100000);
		assert_int_equal(s.v[i].window_ms, 5000);
		assert_string_equal(s.v[i].dns_name, "up.example.com");
		assert_string_equal(s.v[i].dests[0].address, "203.0.113.7");
		assert_int_equal(s.v[i].dests[0].port, 443);
	}
	detect__free(d);
}

/* Under the threshold, or spread wider than the window, or without
 * monitor.egress_bytes: none. */
static void test_egress_under(void **state)
{
	struct alerts s = { .n = 0 };
	struct rf_detect *d;
	size_t i;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, 100000, 1000);
	feed_flow(d, T0 + MS, "203.0.113.7", 100000, "");
	for (i = 0; i < 10; i++)
		feed_flow(d, T0 + (i + 2) * 2000 * MS, "203.0.113.7", 90000, "");
	assert_int_equal(opened(&s, NULL), 0);
	detect__free(d);
	s.n = 0;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, 0, 0);
	feed_flow(d, T0 + MS, "203.0.113.7", 1ULL << 40, "");
	assert_int_equal(opened(&s, NULL), 0);
	detect__free(d);
}

/* ---- the Network Activity record ---------------------------------------- */

static void test_activity_flow(void **state)
{
	struct rf_input in = { .t_ns = T0 + 2000 * MS, .type = RF_IN_FLOW, .cgroup_id = CG };
	struct rf_in_flow *f = &in.u.flow;
	struct rf_sandbox_info si = { 0 };
	struct rf_alert_origin og = { .hostname = "h" };
	json_t *o, *dst, *src, *t, *um;

	(void)state;
	snprintf(si.sandbox, sizeof(si.sandbox), "sb-x");
	f->key = key_v4("127.0.0.1", 8080, RF_FLOW_LOOPBACK);
	f->total = (struct rf_flow){ .connections = 3, .bytes_sent = 5000, .bytes_received = 70,
				     .first_ns = T0, .last_ns = T0 + 1500 * MS };
	f->connections = 1;
	f->bytes_sent = 2000;
	f->bytes_received = 10;
	f->since_ns = T0 + 1000 * MS;
	snprintf(f->name, sizeof(f->name), "svc.example.com");
	o = activity__ocsf(&in, &si, 9, 0, &og);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "class_uid")), 4001);
	assert_int_equal(json_integer_value(json_object_get(o, "type_uid")), 400106);
	assert_int_equal(json_integer_value(json_object_get(o, "start_time")), 1001000);
	assert_int_equal(json_integer_value(json_object_get(o, "end_time")), 1001500);
	dst = json_object_get(o, "dst_endpoint");
	assert_string_equal(json_string_value(json_object_get(dst, "ip")), "127.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(dst, "port")), 8080);
	assert_string_equal(json_string_value(json_object_get(dst, "hostname")),
			    "svc.example.com");
	src = json_object_get(o, "src_endpoint");
	assert_string_equal(json_string_value(json_object_get(json_object_get(src, "container"),
							      "uid")), "sb-x");
	t = json_object_get(o, "traffic");
	assert_int_equal(json_integer_value(json_object_get(t, "bytes_out")), 2000);
	assert_int_equal(json_integer_value(json_object_get(t, "bytes_in")), 10);
	um = json_object_get(o, "unmapped");
	assert_int_equal(json_integer_value(json_object_get(um, "bytes_sent_total")), 5000);
	assert_int_equal(json_integer_value(json_object_get(um, "connections")), 1);
	assert_true(json_is_true(json_object_get(um, "loopback")));
	assert_true(json_is_false(json_object_get(um, "final")));
	json_decref(o);
	/* inbound: the peer is the source, the sandbox's port the destination */
	f->key.flags = RF_FLOW_INBOUND;
	f->name[0] = 0;
	o = activity__ocsf(&in, NULL, 10, 0, &og);
	src = json_object_get(o, "src_endpoint");
	dst = json_object_get(o, "dst_endpoint");
	assert_string_equal(json_string_value(json_object_get(src, "ip")), "127.0.0.1");
	assert_null(json_object_get(src, "port"));
	assert_int_equal(json_integer_value(json_object_get(dst, "port")), 8080);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(o, "connection_info"), "direction_id")), 1);
	json_decref(o);
}

/* A unix peer: traffic and byte totals only when its bytes are counted
 * (RF_FLOW_UNIX_BYTES); bytes_counted says which. */
static void test_activity_unix_bytes(void **state)
{
	struct rf_input in = { .t_ns = T0 + 2000 * MS, .type = RF_IN_FLOW, .cgroup_id = CG };
	struct rf_in_flow *f = &in.u.flow;
	struct rf_alert_origin og = { .hostname = "h" };
	json_t *o, *um, *t;

	(void)state;
	f->key = (struct rf_flow_key){ .cgroup_id = CG, .family = AF_UNIX, .proto = 1,
				       .flags = RF_FLOW_UNIX_BYTES };
	f->total = (struct rf_flow){ .connections = 1, .bytes_sent = 4321, .bytes_received = 9,
				     .first_ns = T0, .last_ns = T0 + 1500 * MS };
	f->connections = 1;
	f->bytes_sent = 4321;
	f->bytes_received = 9;
	f->since_ns = T0;
	snprintf(f->name, sizeof(f->name), "/run/app.sock");
	o = activity__ocsf(&in, NULL, 1, 0, &og);
	assert_non_null(o);
	t = json_object_get(o, "traffic");
	assert_int_equal(json_integer_value(json_object_get(t, "bytes_out")), 4321);
	assert_int_equal(json_integer_value(json_object_get(t, "bytes_in")), 9);
	um = json_object_get(o, "unmapped");
	assert_true(json_is_true(json_object_get(um, "bytes_counted")));
	assert_int_equal(json_integer_value(json_object_get(um, "bytes_sent_total")), 4321);
	assert_non_null(strstr(json_string_value(json_object_get(o, "message")),
			       "4321 bytes sent, 9 received"));
	json_decref(o);
	/* not counted (no tracepoints, an OCI container): no traffic, no totals */
	f->key.flags = 0;
	o = activity__ocsf(&in, NULL, 2, 0, &og);
	assert_null(json_object_get(o, "traffic"));
	um = json_object_get(o, "unmapped");
	assert_true(json_is_false(json_object_get(um, "bytes_counted")));
	assert_null(json_object_get(um, "bytes_sent_total"));
	json_decref(o);
}

/* One unix flow whether a read found its sandbox's ledger entry (marked)
 * or came after it was deleted (not): the mark stays, nothing doubles. */
static void test_flowwatch_unix_mark_sticks(void **state)
{
	struct rf_flowwatch *fw;
	struct rf_flow_record r = { .cgroup_id = CG, .kind = RF_EV_FLOW, .final = 1 };
	struct inputs x = { .n = 0 };

	(void)state;
	assert_int_equal(flowwatch__new(4, &fw), 0);
	r.key = (struct rf_flow_key){ .family = AF_UNIX, .proto = 1,
				      .flags = RF_FLOW_UNIX_BYTES };
	r.flow = (struct rf_flow){ .connections = 1, .bytes_sent = 10, .first_ns = T0,
				   .last_ns = T0 + MS };
	flowwatch__final(fw, &r, T0 + 2 * MS, take, &x);
	r.key.flags = 0;
	r.flow.bytes_sent = 25;
	flowwatch__final(fw, &r, T0 + 3 * MS, take, &x);
	assert_int_equal(flowwatch__size(fw), 1);
	assert_int_equal(x.n, 1);
	assert_true(x.v[0].u.flow.key.flags & RF_FLOW_UNIX_BYTES);
	flowwatch__free(fw);
}

/* The record format carries a FLOW input whole (--record, --replay). */
static void test_record_roundtrip(void **state)
{
	struct rf_input in = { .t_ns = T0, .type = RF_IN_FLOW, .cgroup_id = CG }, back;
	struct rf_sandbox_info si = { 0 };
	json_t *o;

	(void)state;
	in.u.flow.key = key_v4("192.0.2.9", 53, 0);
	in.u.flow.key.proto = IPPROTO_UDP;
	in.u.flow.total = (struct rf_flow){ 4, 400, 500, T0 - 5, T0 - 1 };
	in.u.flow.connections = 1;
	in.u.flow.bytes_sent = 40;
	in.u.flow.bytes_received = 50;
	in.u.flow.since_ns = T0 - 3;
	in.u.flow.final = true;
	snprintf(in.u.flow.name, sizeof(in.u.flow.name), "ns.example.com");
	o = record__to_json(&in);
	assert_non_null(o);
	assert_int_equal(record__from_json(o, &back, &si), 0);
	assert_memory_equal(&back.u.flow, &in.u.flow, sizeof(in.u.flow));
	json_decref(o);
	rf_sandbox_info_clear(&si);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_egress_window),
		cmocka_unit_test(test_egress_dests_bounded),
		cmocka_unit_test(test_flowwatch_final),
		cmocka_unit_test(test_flowwatch_bounded),
		cmocka_unit_test(test_flowwatch_idle_forgets_ended),
		cmocka_unit_test(test_egress_over),
		cmocka_unit_test(test_egress_under),
		cmocka_unit_test(test_activity_flow),
		cmocka_unit_test(test_activity_unix_bytes),
		cmocka_unit_test(test_flowwatch_unix_mark_sticks),
		cmocka_unit_test(test_record_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
