/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What supervisor/dnsgate*.c share; not for other callers (dnsgate.h).
 *   dnsgate.c         configuration: upstreams, sockets, open and close
 *   dnsgate_serve.c   the thread: one epoll loop, UDP and TCP clients, timer
 *   dnsgate_query.c   a client's query: checked, forwarded, retried, failed
 *   dnsgate_answer.c  an upstream's answer: filtered, granted, relayed
 *   dnsgate_send.c    replies on their way out (UDP, TCP with a length)
 *   dnsgate_wire.c    DNS messages through ldns: questions, replies, chains (sends nothing)
 *   dnsgate_grants.c  the addresses an answer opens, and their expiry
 *   dnsgate_policy.c  what the policy says of a name or an address
 *   dnsgate_trace.c   dns.query / dns.deny lines, and the monitor's note
 */
#ifndef RF_DNSGATE_INTERNAL_H
#define RF_DNSGATE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <jansson.h>
#include <ldns/ldns.h>

#include "dnsgate.h"
#include "util/lazy_ldns.h" /* every ldns_* call goes through it (lazylib.h) */

#define GATE_TCP_MAX 64
#define GATE_MSG_MAX 65535
#define GATE_UPSTREAM_MAX 8

enum { L_UDP4, L_UDP6, L_TCP4, L_TCP6, L_MAX };

/* Where a reply goes: a UDP peer of one listener, or a TCP client. */
struct client {
	int udp_fd;                  /* -1: TCP */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	int conn;                    /* TCP: index in conns */
	uint32_t gen;                /* TCP: the connection's generation */
};

struct pending {
	bool used;
	uint16_t up_id, client_id;
	struct client c;
	uint64_t deadline_ms;
	size_t upstream;             /* index in ups[] it went to */
	uint8_t *query;              /* as sent upstream (retries) */
	size_t query_len;
	char qname[RF_DNS_NAME_MAX + 2];
	uint16_t qtype;
	uint64_t t0_us;              /* received (CLOCK_MONOTONIC): the record's latency */
};

struct conn {
	int fd;                      /* -1: free */
	uint32_t gen;
	uint8_t *buf;                /* 2-byte length + message */
	size_t have;
};

struct grant {
	int family;
	uint8_t addr[16];
	size_t entry;                /* policy->connect[] index */
	uint64_t expiry_ms;
};

struct rf_dnsgate {
	struct rf_dnsgate_opts o;
	int lfd[L_MAX];
	uint16_t port4, port6;
	int up4, up6;                /* upstream sockets */
	struct rf_upstream ups[GATE_UPSTREAM_MAX];
	size_t n_ups;
	int ep, tfd, efd;
	pthread_t thread;
	bool running;
	struct pending pend[RF_DNS_PENDING_MAX];
	struct conn conns[GATE_TCP_MAX];
	struct grant *grants;
	size_t n_grants, cap_grants;
	uint64_t armed_ms;           /* what the timerfd is set for; 0: nothing */
	struct rf_dnsgate_stats st;
	uint64_t deny_traced;
	int note_fd;                 /* rf_dns_note (net.bpf.c); -1: the monitor gets none */
	uint64_t dns_seq;            /* rf_dns_record.seq of the next query */
	uint8_t rbuf[GATE_MSG_MAX];
};

#define DNSGATE_CHAIN_MAX 16    /* names of a CNAME chain followed */

static inline uint64_t dnsgate_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static inline uint64_t dnsgate_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The socket address of an upstream (or any family/address/port). */
static inline void dnsgate_sockaddr(const struct rf_upstream *u, struct sockaddr_storage *ss,
				    socklen_t *ret_len)
{
	memset(ss, 0, sizeof(*ss));
	if (u->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(u->port);
		memcpy(&s4->sin_addr, u->addr, 4);
		*ret_len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(u->port);
		memcpy(&s6->sin6_addr, u->addr, 16);
		*ret_len = sizeof(*s6);
	}
}

/* dnsgate_policy.c */
/* A private answer passes when the policy names it: rebind_allow, or an
 * IP/CIDR entry of network.connect covering it. */
bool dnsgate_policy__private_allowed(const struct rf_policy *p, int family, const uint8_t *a);
/* The first network.connect name entry matching qname at or after from;
 * n_connect when none. */
size_t dnsgate_policy__match_entry(const struct rf_policy *p, const char *qname, size_t from);

/* dnsgate_grants.c */
/* Open addr for every entry naming qname, for ttl (capped) + the grace. */
int dnsgate_grants__for_name(struct rf_dnsgate *g, const char *qname, int family,
			     const uint8_t *addr, uint32_t ttl);
/* Drop the grants that expired by now; then their keys. */
void dnsgate_grants__expire(struct rf_dnsgate *g, uint64_t now);
/* Revoke every grant still open (the gate closes). */
void dnsgate_grants__revoke_all(struct rf_dnsgate *g);

/* dnsgate_trace.c */
json_t *dnsgate_trace__addr_json(int family, const uint8_t *a);
/* dns.deny (and the monitor's note) for a refused name or dropped answers. */
void dnsgate_trace__deny(struct rf_dnsgate *g, const char *qname, uint16_t qtype,
			 enum rf_reason reason, size_t entry, json_t *dropped);
/* The query's rf_dns_record on the monitor's stream: rec holds what the
 * caller knows (verdict, reason, rcode, the answer's figures); qname,
 * qtype, the client's protocol, the matched suffix, the latency since
 * t0_us and the header are filled here. A record the ring buffer had no
 * room for is counted (stats monitor_lost) as the kernel counts it. */
void dnsgate_trace__record(struct rf_dnsgate *g, struct rf_dns_record *rec, const char *qname,
			   uint16_t qtype, const struct client *c, uint64_t t0_us);
/* dns.query for an answered name (takes granted). */
void dnsgate_trace__query(struct rf_dnsgate *g, const struct pending *p, const ldns_pkt *r,
			  json_t *granted);

/* dnsgate_wire.c */
/* The one question of a query: its name (dnsgate_wire__name) and type.
 * -EINVAL for anything but one question; -EILSEQ: not a host name (name
 * then holds ldns's escaped form, for the trace). */
int dnsgate_wire__question(const ldns_pkt *p, char *name, size_t len, uint16_t *ret_type);
/* An answer of our own: the question echoed, rcode, nothing else (NULL:
 * out of memory). */
ldns_pkt *dnsgate_wire__rcode_pkt(const ldns_pkt *q, uint8_t rcode);
/* The names the answer's CNAMEs lead to from the question's (in order;
 * DNSGATE_CHAIN_MAX at most, a loop ends it). Borrowed rdfs. */
size_t dnsgate_wire__chain(const ldns_pkt *r, ldns_rdf **chain);
/* An A/AAAA record of the chain: its address (v4-mapped made IPv4). */
bool dnsgate_wire__rr_address(const ldns_rr *rr, ldns_rdf *const *chain, size_t n,
			      int *ret_family, uint8_t *addr);

/* dnsgate_query.c */
void dnsgate_query__on_query(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
			     size_t len);
void dnsgate_query__free(struct pending *p);
/* Upstreams that did not answer in time: the next one, or SERVFAIL. */
void dnsgate_query__expire(struct rf_dnsgate *g, uint64_t now);

/* dnsgate_answer.c */
/* Read the upstream socket fd: each answer to a query in flight. */
void dnsgate_answer__on_upstream(struct rf_dnsgate *g, int fd);

/* dnsgate_send.c */
/* Send a reply to its client (UDP, or TCP with its length). */
void dnsgate_send__msg(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
		       size_t len);
/* p encoded and sent to its client. */
void dnsgate_send__pkt(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *p);
/* The question of q echoed with rcode and nothing else, sent to c. */
void dnsgate_send__rcode(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *q,
			 uint8_t rcode);
/* Close TCP client i (its generation moves on: replies in flight drop). */
void dnsgate_send__conn_close(struct rf_dnsgate *g, size_t i);

/* dnsgate_serve.c */
/* Put the gate's open descriptors into its epoll set. */
int dnsgate_serve__watch(struct rf_dnsgate *g);

#endif
