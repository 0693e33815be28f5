/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What may come in on fds 0-2 (stdio_vet.c). */
#ifndef RF_STDIO_VET_H
#define RF_STDIO_VET_H

#include <stdbool.h>

struct rf_error;

/* Each of fds 0-2 that is open must be a terminal or other character
 * device, a pipe, a regular file or a socket (sockets are judged further
 * by the caller). Anything else made outside the sandbox (an io_uring,
 * epoll, eventfd, signalfd, timerfd, pidfd, bpf or perf fd, a namespace,
 * a directory, an O_PATH fd) is refused: -EPERM with e naming the fd and
 * what it is. */
int stdio_vet__types(struct rf_error *e);

/* One of fds 0-2 is a unix socket: its peer outside may hand sockets in
 * (SCM_RIGHTS), which the plan states (gap net.passed-socket). */
bool stdio_vet__unix_socket(void);

#endif
