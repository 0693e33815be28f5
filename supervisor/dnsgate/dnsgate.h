/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-sandbox DNS gate: a small resolver the supervisor runs for one
 * sandbox. net.bpf.c steers the sandbox's DNS (UDP and TCP to port 53, any
 * address) to it. It answers names that network.connect allows by
 * forwarding them to the host's resolvers (or network.dns.upstream), and
 * before the answer leaves it opens exactly the A/AAAA addresses in it
 * (CNAME chains followed) for the entry's ports, until the record's TTL
 * plus a grace has passed. Every other name gets REFUSED. Messages are
 * parsed and built with ldns.
 */
#ifndef RF_DNSGATE_H
#define RF_DNSGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/enforcer.h"
#include "error.h"
#include "rules/netrules.h"
#include "policy/policy.h"
#include "rf_abi.h"
#include "observe/trace.h"

#define RF_DNS_GRACE_MS 5000          /* kept open past an answer's TTL */
#define RF_DNS_TTL_MAX 86400          /* longer TTLs are cut to this (s) */
#define RF_DNS_UPSTREAM_TIMEOUT_MS 2000
#define RF_DNS_PENDING_MAX 256        /* queries in flight; more: SERVFAIL */
#define RF_DNS_TRACE_DENY_MAX 256     /* dns.deny lines per run (all are counted) */

struct rf_dnsgate;

struct rf_dnsgate_opts {
	const struct rf_policy *policy;
	const struct rf_addr_rule *rules; /* the static rules (IP/CIDR entries) */
	size_t n_rules;
	const struct rf_enforcer *enf;
	uint64_t cgid;
	struct rf_trace *trace;          /* may be NULL; written from the gate's thread */
	bool audit;                      /* record refusals, refuse nothing */
};

/* Counters, read after dnsgate__stop. */
struct rf_dnsgate_stats {
	uint64_t queries, allowed, denied, dropped_answers, granted, expired, servfail;
	uint64_t monitor_lost;       /* DNS records the events ring buffer had no room for */
};

/*
 * Bind the gate's listeners (UDP and TCP on 127.0.0.1 and, where it
 * exists, ::1, one ephemeral port) and an upstream socket per family;
 * nothing is served until dnsgate__serve. The upstream list is the
 * policy's or /etc/resolv.conf's (none: -ENOENT, the run fails closed).
 */
int dnsgate__open(const struct rf_dnsgate_opts *o, struct rf_dnsgate **ret_gate,
		  struct rf_error *err);
/* Where it listens, for rf_dns_gates. */
void dnsgate__address(const struct rf_dnsgate *g, struct rf_dns_gate *ret);
/* Start the gate's thread (one epoll loop; it wakes only for traffic and
 * for the next expiry). Call after the last fork/clone of the supervisor. */
int dnsgate__serve(struct rf_dnsgate *g);
/* Stop the thread (queries in flight get no answer). */
void dnsgate__stop(struct rf_dnsgate *g);
/* The counters so far; call after dnsgate__stop (the thread writes them). */
void dnsgate__stats(const struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats);
/* Stop, revoke every grant still open, close everything. NULL is fine. */
void dnsgate__close(struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats);

/* Is addr one a name must not lead to unless the policy says so:
 * loopback, unspecified, link-local, cloud metadata, RFC 1918, CGNAT,
 * unique-local, multicast? (family AF_INET or AF_INET6, network order) */
bool dnsgate__is_private(int family, const uint8_t *addr);

/* A domain name from its wire labels (size bytes of [len][label]...,
 * uncompressed): lower case, joined by '.', no trailing dot ("." for the
 * root). -EILSEQ when a label holds a byte a host name cannot (a '.', NUL,
 * '*', '\\', space, 8-bit): such a name is never matched against the
 * policy, since its printed form would name other labels. -ENAMETOOLONG,
 * -EINVAL (malformed). */
int dnsgate_wire__name(const uint8_t *wire, size_t size, char *name, size_t len);

#endif
