// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-sandbox DNS gate (dnsgate.h): its configuration (the upstreams,
 * from the policy or the host), its sockets, and its life. The rest:
 * dnsgate_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "dnsgate_internal.h"
#include "log.h"
#include "pins.h"

/* The host's resolvers, as the supervisor's own resolver sees them. */
static int upstreams_from_host(struct rf_dnsgate *g)
{
	ldns_resolver *res = NULL;
	ldns_rdf **ns;
	size_t i, n;

	if (ldns_resolver_new_frm_file(&res, NULL) != LDNS_STATUS_OK)
		return -ENOENT;
	ns = ldns_resolver_nameservers(res);
	n = ldns_resolver_nameserver_count(res);
	for (i = 0; i < n && g->n_ups < GATE_UPSTREAM_MAX; i++) {
		struct rf_upstream *u = &g->ups[g->n_ups];
		size_t sz = ldns_rdf_size(ns[i]);

		if (ldns_rdf_get_type(ns[i]) != LDNS_RDF_TYPE_A &&
		    ldns_rdf_get_type(ns[i]) != LDNS_RDF_TYPE_AAAA)
			continue;
		memset(u, 0, sizeof(*u));
		u->family = sz == 4 ? AF_INET : AF_INET6;
		memcpy(u->addr, ldns_rdf_data(ns[i]), sz == 4 ? 4 : 16);
		u->port = 53;
		g->n_ups++;
	}
	ldns_resolver_deep_free(res);
	return g->n_ups ? 0 : -ENOENT;
}

static int sock_bind(int family, int type, const void *addr, uint16_t port, int *ret_fd)
{
	struct sockaddr_storage ss = { 0 };
	struct rf_upstream u = { .family = family, .port = port };
	socklen_t sl;
	int fd, one = 1;

	memcpy(u.addr, addr, family == AF_INET ? 4 : 16);
	dnsgate_sockaddr(&u, &ss, &sl);
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) ||
	    (type == SOCK_STREAM && listen(fd, 64))) {
		int err = -errno;

		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

static uint16_t sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
			  ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* UDP and TCP on 127.0.0.1, one port; then ::1 on that port if it can. */
static int listeners_open(struct rf_dnsgate *g)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 }, lo6[16] = { [15] = 1 };
	int tries, err = -EADDRINUSE;

	for (tries = 0; tries < 16 && err; tries++) {
		err = sock_bind(AF_INET, SOCK_DGRAM, lo4, 0, &g->lfd[L_UDP4]);
		if (err)
			return err;
		g->port4 = sock_port(g->lfd[L_UDP4]);
		err = sock_bind(AF_INET, SOCK_STREAM, lo4, g->port4, &g->lfd[L_TCP4]);
		if (err) {
			close(g->lfd[L_UDP4]);
			g->lfd[L_UDP4] = -1;
		}
	}
	if (err)
		return err;
	if (!sock_bind(AF_INET6, SOCK_DGRAM, lo6, g->port4, &g->lfd[L_UDP6])) {
		if (!sock_bind(AF_INET6, SOCK_STREAM, lo6, g->port4, &g->lfd[L_TCP6])) {
			g->port6 = g->port4;
		} else {
			close(g->lfd[L_UDP6]);
			g->lfd[L_UDP6] = -1;
		}
	}
	return 0;
}

static int gate_fds(struct rf_dnsgate *g)
{
	int err;

	g->up4 = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	g->up6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (g->up4 < 0 || g->ep < 0 || g->tfd < 0 || g->efd < 0)
		return -errno;
	err = listeners_open(g);
	return err ? err : dnsgate_serve__watch(g);
}

int dnsgate__open(const struct rf_dnsgate_opts *o, struct rf_dnsgate **ret_gate,
		  struct rf_error *err)
{
	struct rf_dnsgate *g;
	size_t i;
	int r;

	r = lazylib__ldns(err);
	if (r)
		return r;
	g = calloc(1, sizeof(*g));
	if (!g)
		return rf_error_set(err, -ENOMEM, "dns gate", "%s", strerror(ENOMEM));
	g->o = *o;
	g->up4 = g->up6 = g->ep = g->tfd = g->efd = -1;
	g->note_fd = rf_pins__get(RF_PIN_DNS_NOTE);
	if (g->note_fd < 0)
		rf_info("dns gate: %s/%s missing: its refusals reach the trace only",
			rf_pins__dir(), RF_PIN_DNS_NOTE);
	for (i = 0; i < L_MAX; i++)
		g->lfd[i] = -1;
	for (i = 0; i < GATE_TCP_MAX; i++)
		g->conns[i].fd = -1;
	for (i = 0; i < o->policy->dns.n_upstream && i < GATE_UPSTREAM_MAX; i++)
		g->ups[g->n_ups++] = o->policy->dns.upstream[i];
	r = g->n_ups ? 0 : upstreams_from_host(g);
	if (r) {
		dnsgate__close(g, NULL);
		return rf_error_set(err, r, "dns gate",
				    "no resolver to forward to (/etc/resolv.conf names none; "
				    "set network.dns.upstream)");
	}
	r = gate_fds(g);
	if (r) {
		dnsgate__close(g, NULL);
		return rf_error_set(err, r, "dns gate", "opening its sockets: %s", strerror(-r));
	}
	*ret_gate = g;
	return 0;
}

void dnsgate__address(const struct rf_dnsgate *g, struct rf_dns_gate *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->addr4[0] = 127;
	ret->addr4[3] = 1;
	ret->port4 = g->port4;
	ret->port6 = g->port6;
	ret->addr6[15] = 1;
}

void dnsgate__stats(const struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats)
{
	*ret_stats = g->st;
}

void dnsgate__close(struct rf_dnsgate *g, struct rf_dnsgate_stats *ret_stats)
{
	size_t i;

	if (!g)
		return;
	dnsgate__stop(g);
	/* every grant still open goes with the gate */
	dnsgate_grants__revoke_all(g);
	if (ret_stats)
		*ret_stats = g->st;
	for (i = 0; i < GATE_TCP_MAX; i++) {
		if (g->conns[i].fd >= 0)
			close(g->conns[i].fd);
		free(g->conns[i].buf);
	}
	for (i = 0; i < RF_DNS_PENDING_MAX; i++)
		free(g->pend[i].query);
	for (i = 0; i < L_MAX; i++)
		if (g->lfd[i] >= 0)
			close(g->lfd[i]);
	if (g->up4 >= 0)
		close(g->up4);
	if (g->up6 >= 0)
		close(g->up6);
	if (g->ep >= 0)
		close(g->ep);
	if (g->tfd >= 0)
		close(g->tfd);
	if (g->efd >= 0)
		close(g->efd);
	if (g->note_fd >= 0)
		close(g->note_fd);
	free(g->grants);
	free(g);
}
