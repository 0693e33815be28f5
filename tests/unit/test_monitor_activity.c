// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The activity stream's fast writer (activity__dns_write) against the
 * jansson record (activity__line): the same bytes for every shape the
 * record takes; and the activity thread's ring (actq.c): exact counts of
 * what it rendered and dropped, order and sequence numbers kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "activity.h"
#include "actq.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)

static void dns_in(struct rf_input *in, const char *name, const char *suffix, uint32_t verdict)
{
	struct rf_dns_record *r = &in->u.dns;

	memset(in, 0, sizeof(*in));
	in->t_ns = T0 + 123456789;
	in->type = RF_IN_DNS;
	in->cgroup_id = r->cgroup_id = 4242;
	r->ts_boot_ns = in->t_ns;
	r->seq = 9;
	r->verdict = verdict;
	r->qtype = 1;
	r->protocol = IPPROTO_UDP;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->name_len = (uint16_t)strlen(r->name);
	r->suffix_off = suffix ? (uint16_t)(strlen(name) - strlen(suffix)) : RF_DNS_NO_SUFFIX;
	r->latency_us = 2500;
}

/* Both writers on one input: the same line. */
static void same(const struct rf_input *in, const struct rf_sandbox_info *si, uint64_t seq,
		 int64_t off, const struct rf_alert_origin *og)
{
	struct rf_act_sb sb;
	char buf[16384];
	char *line = activity__line(in, si, seq, off, og);
	int n;

	activity__sb_copy(&sb, si);
	n = activity__dns_write(in, &sb, seq, off, og, buf, sizeof(buf));
	assert_non_null(line);
	assert_true(n > 0);
	buf[n] = 0;
	if (strcmp(line, buf)) {
		fprintf(stderr, "jansson: %sfast:    %s", line, buf);
		fail();
	}
	free(line);
}

static void test_writer_same_bytes(void **state)
{
	static const uint32_t verdicts[] = { RF_DNS_ANSWERED, RF_DNS_REFUSED, RF_DNS_FAILED,
					     RF_DNS_AUDITED, 77 };
	struct rf_sandbox_info si = { 0 };
	struct rf_alert_origin og = { .hostname = "host-1" }, bare = { 0 };
	struct rf_input in;
	size_t v;

	(void)state;
	snprintf(si.sandbox, sizeof(si.sandbox), "sb \"q\" \\ x");
	snprintf(si.policy_id, sizeof(si.policy_id), "pol-1");
	snprintf(og.device_uid, sizeof(og.device_uid), "0123456789abcdef0123456789abcdef");
	for (v = 0; v < sizeof(verdicts) / sizeof(verdicts[0]); v++) {
		dns_in(&in, "a.example.com", "example.com", verdicts[v]);
		same(&in, &si, 1, 0, &og);
		same(&in, NULL, 2, 0, &bare);
	}
	/* answers: IPv4 and IPv6, the reason, a rebinding drop */
	dns_in(&in, "b.example.com", "example.com", RF_DNS_ANSWERED);
	in.u.dns.n_granted = 2;
	in.u.dns.n_dropped = 1;
	in.u.dns.family = AF_INET;
	in.u.dns.ttl = 300;
	inet_pton(AF_INET, "192.0.2.7", in.u.dns.addr);
	in.u.dns.reason = RF_REASON_DNS_REBIND;
	same(&in, &si, 3, 0, &og);
	in.u.dns.family = AF_INET6;
	in.u.dns.qtype = 28;
	inet_pton(AF_INET6, "2001:db8::9", in.u.dns.addr);
	in.u.dns.protocol = IPPROTO_TCP;
	same(&in, &si, 4, 0, &og);
	/* a name OCSF's hostname pattern refuses, with quotes and a backslash;
	 * unknown qtype and rcodes */
	dns_in(&in, "_x.\"odd\\name\".test", NULL, RF_DNS_REFUSED);
	in.u.dns.qtype = 999;
	in.u.dns.rcode = 4000;
	in.u.dns.reason = RF_REASON_DNS_NAME;
	same(&in, &si, 5, 0, &og);
	in.u.dns.rcode = 13;
	same(&in, &si, 6, 0, &og);
	/* labels (UTF-8 and control characters), the traceparent, times
	 * before 1970 and across seconds */
	si.n_labels = 3;
	snprintf(si.labels[0], sizeof(si.labels[0]), "team=caf\xc3\xa9");
	snprintf(si.labels[1], sizeof(si.labels[1]), "tab=a\tb\nc\x01");
	snprintf(si.labels[2], sizeof(si.labels[2]), "e=\xe2\x82\xac\xf0\x9f\x98\x80");
	snprintf(si.traceparent, sizeof(si.traceparent),
		 "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
	dns_in(&in, "c.example.com", "example.com", RF_DNS_ANSWERED);
	same(&in, &si, 7, 0, &og);
	same(&in, &si, 8, -(int64_t)T0 - 5 * (int64_t)MS, &og);
	same(&in, &si, 9, 1764700000LL * 1000000000LL + 999 * (int64_t)MS, &og);
	same(&in, &si, UINT32_MAX + 5ULL, 1764700001LL * 1000000000LL, &og);
	/* the empty name */
	dns_in(&in, "", NULL, RF_DNS_FAILED);
	same(&in, &si, 10, 0, &og);
}

static void test_writer_small_buffer(void **state)
{
	struct rf_input in;
	struct rf_act_sb sb = { 0 };
	struct rf_alert_origin og = { 0 };
	char buf[64];

	(void)state;
	dns_in(&in, "a.example.com", "example.com", RF_DNS_ANSWERED);
	assert_int_equal(activity__dns_write(&in, &sb, 1, 0, &og, buf, sizeof(buf)), -ENOSPC);
	in.type = RF_IN_DECISION;
	assert_int_equal(activity__dns_write(&in, &sb, 1, 0, &og, buf, sizeof(buf)), -EINVAL);
}

/* ---- the activity thread ---------------------------------------------------- */

struct sink {
	pthread_mutex_t gate;           /* held by the test: the thread waits in emit */
	pthread_mutex_t mu;
	char **lines;
	size_t n;
	int idles;
};

static void emit(void *ctx, const char *line, size_t len)
{
	struct sink *s = ctx;

	pthread_mutex_lock(&s->gate);
	pthread_mutex_unlock(&s->gate);
	assert_int_equal(strlen(line), len);
	pthread_mutex_lock(&s->mu);
	s->lines = realloc(s->lines, (s->n + 1) * sizeof(*s->lines));
	s->lines[s->n++] = strdup(line);
	pthread_mutex_unlock(&s->mu);
}

static void idle(void *ctx, bool reopen)
{
	struct sink *s = ctx;

	(void)reopen;
	pthread_mutex_lock(&s->mu);
	s->idles++;
	pthread_mutex_unlock(&s->mu);
}

/* A ring of 64 while the thread is held in its first emit: 64 queued (the
 * one being rendered keeps its slot), 36 dropped; released, all 64 come out
 * in order with sequence numbers 1..64, and the next push gets 101. */
static void test_ring_counts(void **state)
{
	struct sink s = { .gate = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER };
	struct rf_alert_origin og = { .hostname = "h" };
	struct rf_sandbox_info si = { 0 };
	struct rf_actq_stats st;
	struct rf_actq *q;
	struct rf_input in;
	struct timespec nap = { 0, 1000000 };
	char *want;
	int i, ok = 0;

	(void)state;
	snprintf(si.sandbox, sizeof(si.sandbox), "sb-r");
	pthread_mutex_lock(&s.gate);
	assert_int_equal(actq__open(64, 0, &og, emit, idle, &s, &q), 0);
	for (i = 0; i < 100; i++) {
		dns_in(&in, "r.example.com", "example.com", RF_DNS_ANSWERED);
		in.u.dns.seq = (uint64_t)i;
		ok += actq__push(q, &in, &si);
	}
	assert_int_equal(ok, 64);
	actq__stats(q, &st);
	assert_int_equal(st.queued, 100);
	assert_int_equal(st.dropped, 36);
	assert_int_equal(st.rendered + st.pending, 64);
	pthread_mutex_unlock(&s.gate);
	do {
		nanosleep(&nap, NULL);
		actq__stats(q, &st);
	} while (st.pending);
	assert_int_equal(st.rendered, 64);
	/* a kind without a writer is dropped, counted */
	in.type = RF_IN_TICK;
	assert_false(actq__push(q, &in, &si));
	dns_in(&in, "last.example.com", "example.com", RF_DNS_REFUSED);
	assert_true(actq__push(q, &in, NULL));
	actq__close(q);
	assert_int_equal(s.n, 65);
	for (i = 0; i < 64; i++) {
		dns_in(&in, "r.example.com", "example.com", RF_DNS_ANSWERED);
		in.u.dns.seq = (uint64_t)i;
		want = activity__line(&in, &si, (uint64_t)i + 1, 0, &og);
		assert_string_equal(s.lines[i], want);
		free(want);
	}
	dns_in(&in, "last.example.com", "example.com", RF_DNS_REFUSED);
	want = activity__line(&in, NULL, 102, 0, &og);
	assert_string_equal(s.lines[64], want);
	free(want);
	assert_true(s.idles > 0);
	for (i = 0; i < (int)s.n; i++)
		free(s.lines[i]);
	free(s.lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_same_bytes),
		cmocka_unit_test(test_writer_small_buffer),
		cmocka_unit_test(test_ring_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
