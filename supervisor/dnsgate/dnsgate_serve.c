// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The DNS gate's thread: one epoll set holding the listeners, the upstream
 * sockets, TCP clients, an eventfd to stop and a timerfd armed for the
 * next grant expiry or upstream timeout only, so an idle gate never wakes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "dnsgate_internal.h"

#define EV_LISTEN 1ull
#define EV_UP4 2ull
#define EV_UP6 3ull
#define EV_CONN 4ull
#define EV_TIMER 5ull
#define EV_STOP 6ull
#define EV(kind, idx) ((kind) << 32 | (uint64_t)(idx))

static int ep_add(struct rf_dnsgate *g, int fd, uint64_t data)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = data };

	return epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

int dnsgate_serve__watch(struct rf_dnsgate *g)
{
	int i, err = 0;

	for (i = 0; !err && i < L_MAX; i++)
		if (g->lfd[i] >= 0)
			err = ep_add(g, g->lfd[i], EV(EV_LISTEN, i));
	if (!err)
		err = ep_add(g, g->up4, EV(EV_UP4, 0));
	if (!err && g->up6 >= 0)
		err = ep_add(g, g->up6, EV(EV_UP6, 0));
	if (!err)
		err = ep_add(g, g->tfd, EV(EV_TIMER, 0));
	if (!err)
		err = ep_add(g, g->efd, EV(EV_STOP, 0));
	return err;
}

static void on_udp(struct rf_dnsgate *g, int fd)
{
	struct client c = { .udp_fd = fd, .conn = -1 };
	uint8_t buf[4096];
	ssize_t n;

	for (;;) {
		c.peer_len = sizeof(c.peer);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&c.peer,
			     &c.peer_len);
		if (n < 0)
			return;
		dnsgate_query__on_query(g, &c, buf, (size_t)n);
	}
}

static void on_accept(struct rf_dnsgate *g, int lfd)
{
	int fd;
	size_t i;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		for (i = 0; i < GATE_TCP_MAX && g->conns[i].fd >= 0; i++)
			;
		if (i == GATE_TCP_MAX || (!g->conns[i].buf &&
					  !(g->conns[i].buf = malloc(GATE_MSG_MAX + 2))) ||
		    ep_add(g, fd, EV(EV_CONN, i))) {
			close(fd);  /* overloaded: the client's DNS fails */
			continue;
		}
		g->conns[i].fd = fd;
		g->conns[i].have = 0;
	}
}

/* Messages on a TCP connection: a 2-byte length, then the message. */
static void on_conn(struct rf_dnsgate *g, size_t i)
{
	struct conn *k = &g->conns[i];
	ssize_t n;

	n = read(k->fd, k->buf + k->have, GATE_MSG_MAX + 2 - k->have);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			dnsgate_send__conn_close(g, i);
		return;
	}
	k->have += (size_t)n;
	while (k->fd >= 0 && k->have >= 2) {
		size_t len = (size_t)k->buf[0] << 8 | k->buf[1];
		struct client c = { .udp_fd = -1, .conn = (int)i, .gen = k->gen };

		if (k->have < len + 2)
			break;
		dnsgate_query__on_query(g, &c, k->buf + 2, len);
		if (k->fd < 0)
			break;
		memmove(k->buf, k->buf + 2 + len, k->have - 2 - len);
		k->have -= 2 + len;
	}
}

/* Arm the timer for the earliest expiry or deadline, or disarm it: the
 * gate wakes for nothing else. */
static void timer_arm(struct rf_dnsgate *g)
{
	struct itimerspec its = { 0 };
	uint64_t next = 0, now = dnsgate_now_ms();
	size_t i;

	for (i = 0; i < g->n_grants; i++)
		if (!next || g->grants[i].expiry_ms < next)
			next = g->grants[i].expiry_ms;
	for (i = 0; i < RF_DNS_PENDING_MAX; i++)
		if (g->pend[i].used && (!next || g->pend[i].deadline_ms < next))
			next = g->pend[i].deadline_ms;
	if (next && next <= now)
		next = now + 1;
	if (next == g->armed_ms)
		return;
	g->armed_ms = next;
	its.it_value.tv_sec = (time_t)(next / 1000);
	its.it_value.tv_nsec = (long)(next % 1000) * 1000000;
	timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_timer(struct rf_dnsgate *g)
{
	uint64_t ticks, now = dnsgate_now_ms();

	if (read(g->tfd, &ticks, sizeof(ticks)) < 0 && errno == EAGAIN)
		return;
	g->armed_ms = 0;
	dnsgate_grants__expire(g, now);
	dnsgate_query__expire(g, now);
}

static void *gate_main(void *arg)
{
	struct rf_dnsgate *g = arg;
	struct epoll_event evs[16];
	int n, i;

	for (;;) {
		timer_arm(g);
		n = epoll_wait(g->ep, evs, 16, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			uint64_t kind = evs[i].data.u64 >> 32;
			uint32_t idx = (uint32_t)evs[i].data.u64;

			if (kind == EV_STOP)
				return NULL;
			if (kind == EV_TIMER)
				on_timer(g);
			else if (kind == EV_UP4 || kind == EV_UP6)
				dnsgate_answer__on_upstream(g, kind == EV_UP4 ? g->up4 : g->up6);
			else if (kind == EV_CONN)
				on_conn(g, idx);
			else if (idx == L_UDP4 || idx == L_UDP6)
				on_udp(g, g->lfd[idx]);
			else
				on_accept(g, g->lfd[idx]);
		}
	}
	return NULL;
}

int dnsgate__serve(struct rf_dnsgate *g)
{
	sigset_t all, old;
	int err;

	/* Signals stay the main thread's (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&g->thread, NULL, gate_main, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	g->running = !err;
	return err;
}

void dnsgate__stop(struct rf_dnsgate *g)
{
	uint64_t one = 1;

	if (!g || !g->running)
		return;
	if (write(g->efd, &one, sizeof(one)) == sizeof(one))
		pthread_join(g->thread, NULL);
	else
		pthread_cancel(g->thread);
	g->running = false;
}
