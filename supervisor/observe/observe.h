/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user-space half of observe.bpf.c: which syscalls it watches, which
 * sandboxes ask for it, and the matching of its inferred records against
 * the policy (Landlock and seccomp keep no record of what they refused,
 * so a failed syscall is only a policy denial when the policy says so).
 */
#ifndef RF_OBSERVE_H
#define RF_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>
#include "rules/pathrules.h"
#include "plan/plan.h"
#include "policy/policy.h"
#include "rf_abi.h"

/* Which RF_SB_OBSERVE_* flags a sandbox gets: plan__sandbox_flags. */

/* Test-only, for make bench: true with RINGFENCE_TEST_HOOKS=1 and
 * RINGFENCE_TEST_NO_OBSERVE=1, and then the run sets no RF_SB_OBSERVE_*
 * flag for its sandbox (the programs stay attached and return at their
 * first check). Never from one stray variable. */
bool observe__test_disabled(void);

/* One sandbox's matcher and its counts. */
struct rf_observer {
	const struct rf_policy *policy;
	const struct rf_plan *plan;
	struct rf_path_entry *paths;    /* files + exec as pathrules builds them, */
	size_t n_paths;                 /* built on first use (observe__have) */
	bool paths_built;
	uint64_t inferred[RF_CLASS_KERNEL_MAX]; /* policy denials traced, by class */
	uint64_t audited[RF_CLASS_KERNEL_MAX];  /* audit: accesses it would refuse */
	uint64_t not_policy;            /* failed, but the policy allows it */
	bool dynamic_uid;               /* the command runs as a dynamic uid (dynuser.h) */
	uint64_t file_modes;            /* EACCES its file modes gave, not the policy
					 * (in not_policy too) */
	uint64_t next_access;           /* next rf_obs_access seq to take */
	uint64_t accesses;              /* candidates taken (failures and accesses) */
	uint64_t skipped;               /* queue slots given up on (counted lost) */
	uint64_t scratch_lost;          /* failed calls the kernel could not watch */
	uint64_t stall_seq;             /* the slot the drain waits for, and since */
	unsigned int stall_ticks;       /* how many drains */
	uint64_t denial_lines;          /* inferred denials traced */
	uint64_t untraced;              /* and past the trace's limit (not traced) */
	int verdict_fd;                 /* observe.bpf.c's rf_obs_verdict; -1: none */
	uint64_t published;             /* verdicts put on the monitor's ring buffer */
	uint64_t unpublished;           /* verdicts not put there (no program, full) */
	uint64_t *seen;                 /* audited lines written: hashes, 0 empty */
	size_t n_seen;
	uint64_t repeats;               /* audited accesses already traced once */
	char exec_denied[RF_EVENT_PATH_LEN]; /* the last exec denial's path */
};

int observe__init(struct rf_observer *o, const struct rf_policy *p, const struct rf_plan *plan);
void observe__free(struct rf_observer *o);

/* The access bits the policy's files and exec rules give path (absolute,
 * resolved; 0 for anything else), as the BPF-LSM would answer. The model
 * is built on the first call (a sandbox that is never judged never pays
 * for it); a failure to build it answers 0 (no rule) and is logged. */
uint32_t observe__have(struct rf_observer *o, const char *path);

/* Open the pinned rf_obs_verdict program (the sandbox is observed): 0, or
 * -errno, and then every verdict counts as unpublished. */
int observe__open_verdicts(struct rf_observer *o);

/*
 * Hand one judged record (a policy denial, or an audited access) to the
 * monitor's decision stream: rf_obs_verdict puts it on the pinned ring
 * buffer, as the deciding programs do with theirs. The kernel queues only
 * candidates; only what the policy refuses becomes a decision there.
 */
void observe__publish(struct rf_observer *o, const struct rf_event *ev);

/*
 * Judge an inferred record (RF_EVF_INFERRED): resolve its path (relative
 * to its process's cwd or dirfd where that can still be read), fill op,
 * need, have, reason as the policy answers, and the verdict (audited for
 * a successful access). true when the policy refuses it: a kernel.deny
 * line; false when the policy allows it (counted in not_policy for a
 * failure) or the syscall is not one the backend refuses. An audited
 * access already traced once (same class, op, need and path) is false,
 * counted in repeats, with the verdict set: still a decision.
 */
bool observe__judge(struct rf_observer *o, struct rf_event *ev);

/* The backend that refused an inferred record ("landlock-abi7",
 * "seccomp"), or NULL for a kernel record. */
const char *observe__backend(const struct rf_observer *o, const struct rf_event *ev,
			     char *buf, size_t len);

/* The program interpreter of an ELF file (PT_INTERP) or the #! line of a
 * script: what execve opens next (the kernel opens it, no syscall of the
 * command's names it). 0 when it has one. */
int observe__interpreter(const char *path, char *out, size_t len);

#endif
