/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The supervisor's event loop while the command runs (run.c's wait step). */
#ifndef RF_WAIT_H
#define RF_WAIT_H

#include <signal.h>

struct launch_result;
struct sandbox;

/* A limit's fd fired (a relay pipe's cap, the deadline, a cgroup's events
 * file): the run records it and kills the sandbox. */
typedef void (*wait_limit_fn)(struct sandbox *sb);

/* Purely event-driven: the command's exit, signals (forwarded to it),
 * Landlock's audit records, the seccomp listener, the limits' fds, and the
 * samples tick (only while the command runs). An idle sandbox's supervisor
 * sleeps. Returns once the command's first process exited, its status in
 * *ret_info (waitid): 0 or -errno. */
int wait__loop(struct sandbox *sb, const struct launch_result *lr, wait_limit_fn on_limit,
	       siginfo_t *ret_info);

#endif
