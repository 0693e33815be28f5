/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* This build's pinned set of enforcement programs and maps, which all its
 * sandboxes share (other builds' sets beside it: pins.h). */
#ifndef RF_ENFORCER_H
#define RF_ENFORCER_H

#include <stdbool.h>
#include <stdint.h>
#include "error.h"
#include "pins.h"
#include "plan/probe.h"
#include "unix_bytes.h"

/* The observe programs' links, in groups attached on their own: the
 * sys_exit tracepoint (every syscall of every task on the host), the exec
 * tracepoint (once per exec on the host: the loader kill), the sys_enter
 * one (every syscall again: only for an audit sandbox, whose successful
 * execs are recorded) and the ledger's unix bytes (the socket length
 * tracepoints: every socket send and receive on the host; before 6.7
 * fexit programs on af_unix's connect, sendmsg and recvmsg: unix_bytes.h). */
enum rf_obs_group {
	RF_OBS_SYSCALLS = 0,
	RF_OBS_EXEC = 1,
	RF_OBS_ENTER = 2,
	RF_OBS_UNIX_BYTES = 3,
	RF_OBS_GROUP_MAX,
};
#define RF_OBS_WANT(g) (1u << (g))
/* programs of the observe object a run can want at most */
#define RF_OBS_PROG_FDS 16
/* The programs of RF_OBS_UNIX_BYTES (observe.bpf.c) are named so. */
#define RF_OBS_UNIX_PREFIX "rf_obs_unix_"

struct rf_enforcer {
	int map_fd[RF_PIN_MAP_MAX]; /* by enum rf_pin_map; -1: meta, and the LSM
				     * object's maps unless it is loaded */
	uint32_t features;   /* RF_FEAT_* attached by the pinned set */
	bool loaded_now;     /* this call loaded and pinned them */
	int live_lock_fd;    /* shared lock held while a sandbox is live */
	/* by enum rf_obs_group: shared locks held while a sandbox that wants
	 * the group's tracepoints is live */
	int obs_lock_fd[RF_OBS_GROUP_MAX];
	/* the pinned programs of those groups, for the kernel's count of
	 * their skipped runs (enforcer__observe_skipped) */
	int obs_prog_fd[RF_OBS_PROG_FDS];
	unsigned int n_obs_prog;
};

/*
 * Load, attach and pin the programs once (to MOUNT/ringfence, parent_fd)
 * into this build's set RF_PIN_DIR/<set> (pins.h), or reuse it. Guarded
 * by RF_RUN_DIR/load.lock; holds the set's live lock (RF_RUN_DIR/
 * live-<set>.lock) shared until enforcer__close so `unload` and the
 * retiring of old sets cannot pull the programs from under a live
 * sandbox. Another build's set stays beside it: each set's programs judge
 * only the sandboxes in its own maps (the others pass). want_unix: also attach connect_unix/sendmsg_unix. want_lsm:
 * also load, attach and pin the BPF-LSM object (lsm.bpf.c; it shares the
 * network object's maps); added to a pinned set of this build that lacks
 * it without disturbing live sandboxes. want_observe: also load and pin
 * the observe object (observe.bpf.c) and attach its programs by pinned
 * links (attach_observe: the RF_OBS_WANT() groups this sandbox wants)
 * until the last supervisor that wanted a group ends (its lock in
 * RF_RUN_DIR, enforcer__observe_idle); pinned but not attached, the
 * next runs' probes find them without loading them again. A failure is -errno with e
 * filled (its why is the whole message: no where).
 * -ESTALE: this build's set is attached to another cgroup or incomplete,
 * and in use by live sandboxes.
 */
int enforcer__open(int parent_fd, bool want_unix, bool want_lsm, bool want_observe,
		   unsigned int attach_observe,
		   struct rf_enforcer **ret_enf, struct rf_error *e);
void enforcer__close(struct rf_enforcer *enf);

/* The payload of this sandbox's unix peers is counted: the kernel loaded
 * the programs of RF_OBS_UNIX_BYTES and they are attached for it. */
bool enforcer__unix_bytes(const struct rf_enforcer *enf);
/* With enforcer__unix_bytes: a connect's socket is keyed once it
 * succeeded (RF_LEDGER_UNIX_KEY_LATE: 6.7+ where fexit programs attach). */
bool enforcer__unix_key_late(const struct rf_enforcer *enf);
/* How this kernel counts it (the socket length tracepoints with the cgroup
 * unix hooks, 6.7+; fexit programs before), or not. */
enum rf_unix_bytes enforcer__kernel_unix_bytes(void);

/* A sandbox cgroup outside MOUNT/ringfence (cgplace.h) gets the pinned
 * cgroup programs attached to itself (BPF_F_ALLOW_MULTI, no link: gone
 * with the cgroup). 0 or -errno with e filled. */
int enforcer__attach_cgroup(const struct rf_enforcer *enf, int cgroup_fd, struct rf_error *e);

/* Load the real programs into a throwaway object and attach them to
 * cgroup_fd: the probe for the two cgroup-sock-addr backends. */
void enforcer__probe(int cgroup_fd, struct rf_backend_probe *ret_inet,
		     struct rf_backend_probe *ret_unix);

/* This build's complete pinned set is loaded (its meta map, pinned last):
 * 0 with both probes filled, or -ENOENT (then probe afresh). Whether its
 * links are attached to the cgroup parent_fd is enforcer__open's check. */
int enforcer__probe_pinned(int parent_fd, struct rf_backend_probe *ret_inet,
			   struct rf_backend_probe *ret_unix);

/* Load the real BPF-LSM object (with throwaway maps) and attach it for a
 * moment: 0 when this kernel takes every program, else -errno with the
 * reason in ret->detail. Its programs only act on sandboxes that ask. */
void enforcer__probe_lsm(struct rf_backend_probe *ret);
/* The same when the caller saw enforcer__lsm_pinned() true just now. */
void enforcer__probe_lsm_pinned(struct rf_backend_probe *ret);
/* This build's lsm.bpf.c programs are pinned and attached (the probe
 * needs no verifier pass then). */
bool enforcer__lsm_pinned(void);
/* This build's set was loaded with its lsm.bpf.c programs (the meta map
 * says so; the links themselves are not looked at). */
bool enforcer__lsm_loaded(void);

/* This build's set was loaded with its observe programs (the meta map
 * says so; enforcer__open checks their pins), or they load and attach
 * here (then detached again at once). */
void enforcer__probe_observe(struct rf_backend_probe *ret);

/* Sum of one rf_stats counter over all CPUs. */
int enforcer__stat(const struct rf_enforcer *enf, uint32_t idx, uint64_t *ret_val);

/*
 * Each group of the observe programs' links (attached by enforcer__open
 * for a sandbox that wants it) is unpinned, detaching it, when no
 * supervisor holds the group's lock: 1 when no group is wanted (unpinned,
 * or nothing was pinned), 0 when one is, or -errno. Takes load.lock: never call it
 * holding load.lock or live.lock. enforcer__close does it after
 * dropping its live.lock; gc and the reaper do it for dead supervisors.
 */
int enforcer__observe_idle(void);

/* The runs of this sandbox's observe programs the kernel skipped since
 * they were loaded, summed (ret_n): a tracing program is not run while
 * the same program is running on that CPU (its task preempted in it), and
 * the kernel counts that run as a recursion miss. Host-wide. -ENOENT: the
 * sandbox wants none. */
int enforcer__observe_skipped(const struct rf_enforcer *enf, uint64_t *ret_n);

/* Detach and unpin every build's set. Fails with -EBUSY while a supervisor
 * holds a set's live lock, unless force (the caller kills the sandboxes
 * first). */
int enforcer__unload(bool force);

/* Open the pinned maps without loading anything (status, monitor): of
 * this build's set, or of the set named set (pins.h; another ABI's is
 * -ESTALE: its maps are not this build's to read). -ENOENT when nothing
 * is pinned. */
int enforcer__open_pinned(struct rf_enforcer **ret_enf);
int enforcer__open_pinned_set(const char *set, struct rf_enforcer **ret_enf);

/* Unload every other build's set that is not the newest and whose last
 * sandbox has ended (no supervisor holds its live lock, no registry file
 * names a sandbox of it with processes). The last supervisor of a set,
 * its reaper and gc call it; a run that loads a new set does it under the
 * same load.lock. Takes load.lock: never call it holding load.lock or a
 * live lock. 0 or -errno (the lock). */
int enforcer__retire_idle(void);

#endif
