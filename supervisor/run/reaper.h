/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The watcher that makes a supervisor's death a decision: a small process
 * outside the sandbox (a child in its own process group, stdio on /dev/null) holding a pidfd of
 * the supervisor. When the supervisor dies without saying it is done
 * (SIGKILL, a crash), the reaper kills the sandbox's cgroup (cgroup.kill:
 * every process, whatever it forked), hands the ledger's final flow
 * counts to ringfence-monitor (the dead supervisor never sent them) and
 * removes its map entries and registry file; with keep_running it first waits until the cgroup is
 * empty. See docs/design.md, "Supervisor death".
 *
 * It shares the supervisor's memory (clone_vm.h) while it waits, so
 * starting and ending it copies and frees no page tables; it makes raw
 * syscalls only, and on the supervisor's death re-executes this binary
 * (RF_REAPER_CMD) to clean up in memory of its own: the dead process's
 * heap may have been anywhere in a malloc. One death it does not outlive:
 * the kernel's OOM killer kills every process sharing the victim's memory,
 * so the sandbox then stays confined (its map entries, Landlock and
 * seccomp stay) but running until `ringfence gc` (or the next run's) ends it.
 */
#ifndef RF_REAPER_H
#define RF_REAPER_H

#include <stdbool.h>
#include <sys/types.h>

/* `ringfence __reap NAME CGROUP KEEP PID START`: internal, the reaper's
 * clean-up after supervisor PID (started at START, registry.h) died.
 * RF_REAPER_UID_ENV in its environment: the dynamic uid it held, whose
 * lock file goes too unless a new run holds it already (dynuser.h); in
 * the environment, which a build without it ignores (an upgrade or a
 * downgrade between the start and the death keeps the argv it knows). */
#define RF_REAPER_CMD "__reap"
#define RF_REAPER_UID_ENV "RINGFENCE_REAP_UID"

struct rf_reaper {
	int done_fd;    /* write end: one byte = "cleaned up, exit"; -1: none */
	pid_t pid;
	void *block;    /* its stack and arguments (NULL: none) */
};

/* Start the reaper of sandbox name (cgroup cgroup_path, which may not
 * exist yet; dyn_uid: the run's dynamic uid, 0 none). 0 or -errno. */
int reaper__start(const char *name, const char *cgroup_path, bool keep_running, uid_t dyn_uid,
		  struct rf_reaper *ret);

/* Tell it the supervisor cleaned up itself; it exits (not waited for:
 * the caller may do other work while it does). NULL/-1 is fine. */
void reaper__tell(struct rf_reaper *r);

/* Tell it (if not told yet) and reap it. NULL/-1 is fine. */
void reaper__stop(struct rf_reaper *r);

/* RF_REAPER_CMD's argv (after the command name): 0 when the sandbox was
 * cleaned up, 1 otherwise, 2 for a usage error or a live supervisor. */
int reaper__main(int argc, char **argv);

#endif
