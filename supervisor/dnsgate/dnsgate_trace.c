// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's records: dns.query and dns.deny lines, and each refusal
 * on the monitor's stream through rf_dns_note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>

#include "dnsgate_internal.h"
#include "names.h"

static void trace_emit(struct rf_dnsgate *g, const char *event, json_t *fields)
{
	if (g->o.trace)
		trace__emit(g->o.trace, event, fields);
	else
		json_decref(fields);
}

json_t *dnsgate_trace__addr_json(int family, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(family, a, s, sizeof(s));
	return json_string(s);
}

/* The same decision on the monitor's stream (rf_events), through
 * rf_dns_note: op dns_query, the name as the path, RF_EVF_DNS. Every one,
 * like the kernel's decisions; the ring buffer counts what it loses. */
static void note_deny(struct rf_dnsgate *g, const char *qname, enum rf_reason reason,
		      uint16_t qtype)
{
	struct rf_event ev = {
		.cgroup_id = g->o.cgid, .kind = RF_EV_DECISION, .class = RF_CLASS_NET,
		.op = RF_OP_DNS_QUERY, .reason = reason, .flags = RF_EVF_DNS,
		.verdict = g->o.audit ? RF_VERDICT_AUDITED : RF_VERDICT_DENIED,
		.pid = (uint32_t)getpid(), .protocol = IPPROTO_UDP, .port = RF_DNS_PORT,
		.arg = qtype,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ev, .ctx_size_in = sizeof(ev));

	if (g->note_fd < 0)
		return;
	snprintf(ev.comm, sizeof(ev.comm), "ringfence-dns");
	ev.path_len = (uint32_t)snprintf(ev.path, sizeof(ev.path), "%s", qname);
	if (ev.path_len >= sizeof(ev.path))
		ev.path_len = sizeof(ev.path) - 1;
	bpf_prog_test_run_opts(g->note_fd, &opts);
}

void dnsgate_trace__record(struct rf_dnsgate *g, struct rf_dns_record *rec, const char *qname,
			   uint16_t qtype, const struct client *c, uint64_t t0_us)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = rec, .ctx_size_in = sizeof(*rec));
	const struct rf_policy *pol = g->o.policy;
	size_t e = dnsgate_policy__match_entry(pol, qname, 0), n = strlen(qname);
	uint64_t now = dnsgate_now_us();

	if (g->note_fd < 0)
		return;
	rec->cgroup_id = g->o.cgid;
	rec->kind = RF_EV_DNS;
	rec->seq = g->dns_seq++;
	rec->pid = (uint32_t)getpid();
	rec->qtype = qtype;
	rec->protocol = c->udp_fd < 0 ? IPPROTO_TCP : IPPROTO_UDP;
	rec->name_len = (uint16_t)(n < sizeof(rec->name) ? n : sizeof(rec->name) - 1);
	memcpy(rec->name, qname, rec->name_len);
	/* the entry's own name is the tail of qname (endpoint__name_matches) */
	rec->suffix_off = RF_DNS_NO_SUFFIX;
	if (e < pol->n_connect && strlen(pol->connect[e].name) <= n)
		rec->suffix_off = (uint16_t)(n - strlen(pol->connect[e].name));
	rec->latency_us = (uint32_t)(now > t0_us ? (now - t0_us > UINT32_MAX ? UINT32_MAX :
								 now - t0_us) : 0);
	if (bpf_prog_test_run_opts(g->note_fd, &opts) || opts.retval == (uint32_t)-28)
		g->st.monitor_lost++;
}

/* dns.deny: a refused name or a dropped answer; the first
 * RF_DNS_TRACE_DENY_MAX of a run (a query loop must not fill the disk). */
void dnsgate_trace__deny(struct rf_dnsgate *g, const char *qname, uint16_t qtype,
			 enum rf_reason reason, size_t entry, json_t *dropped)
{
	char type[16];
	json_t *f;

	note_deny(g, qname, reason, qtype);
	if (g->deny_traced++ >= RF_DNS_TRACE_DENY_MAX) {
		json_decref(dropped);
		return;
	}
	snprintf(type, sizeof(type), "%u", qtype);
	{
		char *t = ldns_rr_type2str((ldns_rr_type)qtype);

		if (t)
			snprintf(type, sizeof(type), "%s", t);
		free(t);
	}
	f = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", qname, "type", type,
		      "op", names__op(RF_OP_DNS_QUERY), "reason", names__reason(reason),
		      "verdict", g->o.audit ? "audited" : "denied");
	if (f && entry < g->o.policy->n_connect)
		json_object_set_new(f, "entry", json_string(g->o.policy->connect[entry].text));
	if (f && dropped)
		json_object_set_new(f, "addresses", dropped);
	else
		json_decref(dropped);
	trace_emit(g, "dns.deny", f);
}

void dnsgate_trace__query(struct rf_dnsgate *g, const struct pending *p, const ldns_pkt *r,
			  json_t *granted)
{
	size_t e = dnsgate_policy__match_entry(g->o.policy, p->qname, 0);
	char *type = ldns_rr_type2str((ldns_rr_type)p->qtype);
	char *rcode = ldns_pkt_rcode2str(ldns_pkt_get_rcode(r));
	json_t *f;

	f = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", p->qname, "type", type ? type : "?",
		      "verdict", e < g->o.policy->n_connect ? "allowed" : "audited",
		      "rcode", rcode ? rcode : "?", "granted", granted);
	if (f && e < g->o.policy->n_connect)
		json_object_set_new(f, "entry", json_string(g->o.policy->connect[e].text));
	if (f)
		json_object_set_new(f, "grace_ms", json_integer(RF_DNS_GRACE_MS));
	free(type);
	free(rcode);
	trace_emit(g, "dns.query", f);
}
