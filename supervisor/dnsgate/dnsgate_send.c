// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The DNS gate's replies on their way out: to a UDP peer, or a TCP client
 * with its 2-byte length. Below the query and answer paths, which call it;
 * the wire format (dnsgate_wire.c) builds messages and sends nothing. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "dnsgate_internal.h"

void dnsgate_send__conn_close(struct rf_dnsgate *g, size_t i)
{
	struct conn *k = &g->conns[i];

	if (k->fd >= 0) {
		epoll_ctl(g->ep, EPOLL_CTL_DEL, k->fd, NULL);
		close(k->fd);
	}
	k->fd = -1;
	k->gen++;
	k->have = 0;
}

void dnsgate_send__msg(struct rf_dnsgate *g, const struct client *c, const uint8_t *msg,
			 size_t len)
{
	uint8_t hdr[2] = { (uint8_t)(len >> 8), (uint8_t)len };
	struct iovec iov[2] = { { hdr, 2 }, { (void *)msg, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct conn *k;

	if (c->udp_fd >= 0) {
		sendto(c->udp_fd, msg, len, MSG_DONTWAIT, (const struct sockaddr *)&c->peer,
		       c->peer_len);
		return;
	}
	k = &g->conns[c->conn];
	if (k->fd < 0 || k->gen != c->gen)
		return;
	/* Answers are small; a client that does not read them loses its
	 * connection rather than stalling the gate. */
	if (sendmsg(k->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)(len + 2))
		dnsgate_send__conn_close(g, (size_t)c->conn);
}

void dnsgate_send__pkt(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *p)
{
	uint8_t *wire = NULL;
	size_t len = 0;

	if (ldns_pkt2wire(&wire, p, &len) == LDNS_STATUS_OK)
		dnsgate_send__msg(g, c, wire, len);
	free(wire);
}

void dnsgate_send__rcode(struct rf_dnsgate *g, const struct client *c, const ldns_pkt *q,
			 uint8_t rcode)
{
	ldns_pkt *r = dnsgate_wire__rcode_pkt(q, rcode);

	if (!r)
		return;
	dnsgate_send__pkt(g, c, r);
	ldns_pkt_free(r);
}
