// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <unistd.h>

#include "inotify_each.h"

int inotify__each(int fd, void (*fn)(const struct inotify_event *ev, void *ctx), void *ctx)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int count = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			fn(ev, ctx);
			count++;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return count;
}
