/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One fd's events in an epoll set, changed only when they change. */
#ifndef RF_EPOLL_WANT_H
#define RF_EPOLL_WANT_H

#include <stdint.h>
#include <sys/epoll.h>

/* In a *cur of epoll_want__set: the fd is in the set. */
#define RF_EPOLL_IN_SET (1u << 31)

/* Set fd's events in ep to want (0: out of the set); *cur (0 at first)
 * keeps what is set, so nothing is asked of the kernel when nothing
 * changes. A regular file cannot be polled (EPERM): it stays out (it never
 * needs to be in), as does an fd the kernel would not add. */
static inline void epoll_want__set(int ep, int fd, uint32_t *cur, uint32_t want)
{
	struct epoll_event ev = { .events = want, .data.fd = fd };

	if (fd < 0 || (*cur & ~RF_EPOLL_IN_SET) == want)
		return;
	if (!want) {
		epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		*cur = 0;
		return;
	}
	if (!epoll_ctl(ep, *cur & RF_EPOLL_IN_SET ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev))
		*cur = want | RF_EPOLL_IN_SET;
}

#endif
