/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Drain a non-blocking inotify fd, one callback per event. */
#ifndef RF_INOTIFY_EACH_H
#define RF_INOTIFY_EACH_H

#include <sys/inotify.h>

/* Calls fn for every queued event until the fd is empty. Returns the
 * number of events, or -errno of a read that failed other than with
 * EAGAIN/EINTR (events seen before it were delivered). */
int inotify__each(int fd, void (*fn)(const struct inotify_event *ev, void *ctx), void *ctx);

#endif
