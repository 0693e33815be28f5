/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One sandbox's entries in the pinned maps, keyed by its cgroup id; its
 * policy maps are inner maps of its own, from a pool of slots put into the
 * outer maps ahead of time (bpf/rf_sbmap.bpf.h). The one module that
 * writes the pinned maps.
 */
#ifndef RF_SBMAPS_H
#define RF_SBMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "enforcer.h"
#include "rules/netrules.h"
#include "policy/policy.h"
#include "error.h"
#include "rf_abi.h"

/* The per-sandbox inner maps, one per outer pinned map. */
enum sb_kind {
	SB_NET4, SB_NET6,       /* CIDRs: LPM tries */
	SB_HOST4, SB_HOST6,     /* single hosts: hashes, asked first */
	SB_UNIX, SB_PATHS, SB_SAMPLES, SB_KINDS
};

/* The pin name of kind k's outer map ("net4", ...). */
const char *sbmaps__kind_name(enum sb_kind k);

/* Does the policy fit a sandbox's maps (RF_SB_MAX_KEYS keys each)? 0, or
 * -E2BIG with e saying which map and how many keys: the refusal
 * sbmaps__install would make, for `check`. flags: the rf_sandbox flags
 * (path keys count only with the BPF-LSM judging files or exec). */
int sbmaps__capacity(uint32_t flags, const struct rf_net_entry *entries, size_t n_entries,
		     const struct rf_policy *policy, struct rf_error *e);

/* What a start cost beyond writing the keys (RINGFENCE_TIMINGS). */
struct sbmaps_note {
	unsigned grown;          /* slots added to the pool on this path: it had no
				  * free one of the class */
	unsigned outer_writes;   /* outer-map batch writes on this path (putting
				  * inner maps in; each waits for a grace period) */
	size_t cleaned;          /* keys emptied from a slot given back earlier */
	double grow_ms, clean_ms;
	unsigned top_up;         /* the class ran low: grow it by this many, off
				  * the path (sbmaps__top_up_async) */
	uint32_t top_up_class;
};

/* Grow the pool by note's top_up in a detached process (twice forked, none
 * of this process's fds), so that no later run waits on the kernel's grace
 * periods to get a slot; 0 when there is nothing to do. Call it once the
 * command runs: the fork is the only cost on this run's side. */
int sbmaps__top_up_async(const struct rf_enforcer *enf, const struct sbmaps_note *n);

/* The decisions the kernel keeps for a sandbox with these RF_SB_* flags
 * (rf_sandbox.sample_limit): more in audit mode, which learn reads. */
uint32_t sbmaps__sample_limit(uint32_t flags);

/* Free slots of size class c in the pool (-errno). */
int sbmaps__pool_free(const struct rf_enforcer *enf, uint32_t c);

/* Rules first (into the inner maps of a free pool slot of the policy's
 * size class, RF_SB_CLASS_KEYS), the slot named in rf_sb_slots, the
 * rf_sandboxes entry last: the programs leave a cgroup alone until that
 * entry exists, and it exists before the command runs. No outer map is
 * written unless the pool has no slot of the class (then it grows here,
 * said in ret_note). On failure everything written is removed again, and
 * *ret_map (if not NULL) names the map that refused ("net4", ...):
 * -E2BIG, the policy needs more than RF_SB_MAX_KEYS keys in it; -ENOSPC,
 * RF_MAX_SANDBOXES slots are in use. ret_note may be NULL. */
int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map,
		    struct sbmaps_note *ret_note);

/* Remove what sbmaps__install wrote and the samples: a delete in
 * rf_sandboxes and one in rf_sb_slots, whatever the size of the policy
 * (no outer map is written), then the slot given back: emptied here when
 * it holds at most 1,024 keys, else by a detached cleaner process (one at
 * a time, RF_RUN_DIR/clean.lock), off this exit's path and the next
 * start's (a taker that finds only slots being cleaned waits for it; a
 * dead cleaner's slot is DIRTY to the next taker or gc). The
 * observe_access map, keyed by cgroup id and sequence, is walked when the
 * sandbox had it. The slot is handed on
 * without waiting: a program that found it before the delete gets no
 * rules from it once it is another sandbox's (bpf/rf_sbmap.bpf.h).
 * Missing entries are no error. */
int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid);

/* The same, for a sandbox whose supervisor died. */
int sbmaps__purge(const struct rf_enforcer *enf, uint64_t cgid);

/* Allow (grant) or stop allowing (revoke) one network entry for a running
 * sandbox, in its own map of the entry's kind (host or CIDR): a grant replaces an entry with the same prefix, and a granted
 * host also keeps the ports of the sandbox's CIDR entry covering it (a
 * host's entry answers alone). 0 or -errno (-ENOSPC: the sandbox's map is
 * full, at least RF_SB_GRANT_ROOM grants beyond its policy; -E2BIG: more than
 * RF_MAX_PORT_RANGES ranges together). Revoking an entry that is not
 * there is no error; revoking a host the policy names removes it too. */
int sbmaps__grant(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e);
int sbmaps__revoke(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e);

/* The kernel-state walk of gc: delete every key, in every map keyed by
 * cgroup id (lib/pins.h: key_size != 0), whose cgroup id doomed() picks,
 * and give back the pool slots of those sandboxes. doomed is called once
 * per key (it may count). empty_all: also empty the slots left DIRTY (a
 * full gc). 0 or the first -errno. */
int sbmaps__purge_where(const struct rf_enforcer *enf,
			bool (*doomed)(uint64_t cgid, void *ctx), void *ctx, bool empty_all);

/* The pool after the pinned set was loaded or an object added to it: an
 * inner map of every outer map in every slot (the LSM object's paths map
 * added to the slots made before it), and at least min_free free slots of
 * the smallest class. Writes outer maps (each batch waits for a grace
 * period): never on a run's path but the first load's. 0 or -errno. */
#define RF_SB_POOL_MIN 16
int sbmaps__pool_fill(const struct rf_enforcer *enf, unsigned min_free);

/* The pool slot of a live sandbox (-ENOENT: none), for tests and tools. */
int sbmaps__slot_of(const struct rf_enforcer *enf, uint64_t cgid, uint32_t *ret_slot);

int sbmaps__read_sandbox(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_sandbox *ret_sb);
/* An fd of the sandbox's samples map (close it), or -errno (-ENOENT: none). */
int sbmaps__samples_open(const struct rf_enforcer *enf, uint64_t cgid);
/* From that fd: -ENOENT when that sample was not kept. */
int sbmaps__read_sample(int samples_fd, uint64_t cgid, uint64_t seq, struct rf_event *ret_ev);

/* observe.bpf.c's counts for the sandbox; -ENOENT when it has none. */
int sbmaps__read_observe(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_obs_sandbox *ret_obs);
/* Read and delete audit observation seq; -ENOENT when it is not there
 * (not yet written, or never kept). */
int sbmaps__take_access(const struct rf_enforcer *enf, uint64_t cgid, uint64_t seq,
			struct rf_event *ret_ev);

/*
 * The DNS gate (dnsgate.c). grant_host writes the exact host key of e
 * (a /32 or /128 with its whole port answer, netrules__host_entry) over
 * whatever was there; revoke_host deletes it (absent is fine). The gate
 * keeps the expiries; the kernel only sees keys come and go. Its keys
 * carry the cgroup id, so sbmaps__purge takes them with the rest.
 */
int sbmaps__grant_host(const struct rf_enforcer *enf, uint64_t cgid,
		       const struct rf_net_entry *e);
int sbmaps__revoke_host(const struct rf_enforcer *enf, uint64_t cgid, int family,
			const uint8_t *addr);
/* Steer the sandbox's DNS to gate (net.bpf.c); NULL: stop steering. */
int sbmaps__set_dns_gate(const struct rf_enforcer *enf, uint64_t cgid,
			 const struct rf_dns_gate *gate);

#endif
