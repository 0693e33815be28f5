/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The watcher that makes a supervisor's death a decision: a small process
 * outside the sandbox (a child in its own session, stdio on /dev/null) holding a pidfd of
 * the supervisor. When the supervisor dies without saying it is done
 * (SIGKILL, a crash), the reaper kills the sandbox's cgroup (cgroup.kill:
 * every process, whatever it forked) and removes its map entries and
 * registry file; with keep_running it first waits until the cgroup is
 * empty. See docs/design.md, "Supervisor death".
 */
#ifndef RF_REAPER_H
#define RF_REAPER_H

#include <stdbool.h>
#include <sys/types.h>

struct rf_reaper {
	int done_fd;    /* write end: one byte = "cleaned up, exit"; -1: none */
	pid_t pid;
};

/* Fork the reaper of sandbox name (cgroup cgroup_path, which may not exist
 * yet). 0 or -errno. */
int reaper__start(const char *name, const char *cgroup_path, bool keep_running,
		  struct rf_reaper *ret);

/* Tell it the supervisor cleaned up itself; it exits. NULL/-1 is fine. */
void reaper__stop(struct rf_reaper *r);

#endif
