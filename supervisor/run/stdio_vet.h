/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What may come in on fds 0-2 (stdio_vet.c). */
#ifndef RF_STDIO_VET_H
#define RF_STDIO_VET_H

struct rf_error;

/* Each of fds 0-2 that is open must be a terminal or other character
 * device, a pipe, a regular file or a socket (sockets are judged further
 * by the caller). Anything else made outside the sandbox (an io_uring,
 * epoll, eventfd, signalfd, timerfd, pidfd, bpf or perf fd, a namespace,
 * a directory, an O_PATH fd) is refused: -EPERM with e naming the fd and
 * what it is. */
int stdio_vet__types(struct rf_error *e);

#endif
