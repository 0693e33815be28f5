/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One sandbox's entries in the pinned maps, keyed by its cgroup id; its
 * policy maps are inner maps of its own (bpf/rf_sbmap.bpf.h), sized to the
 * policy. The one module that writes the pinned maps.
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

/* Entries a sandbox's network maps hold beyond its policy's, for grants
 * made while it runs (sbmaps__grant). */
#define RF_SB_GRANT_ROOM 1024

/* The pin name of kind k's outer map ("net4", ...). */
const char *sbmaps__kind_name(enum sb_kind k);

/* Does the policy fit a sandbox's maps (RF_SB_MAX_KEYS keys each)? 0, or
 * -E2BIG with e saying which map and how many keys: the refusal
 * sbmaps__install would make, for `check`. flags: the rf_sandbox flags
 * (path keys count only with the BPF-LSM judging files or exec). */
int sbmaps__capacity(uint32_t flags, const struct rf_net_entry *entries, size_t n_entries,
		     const struct rf_policy *policy, struct rf_error *e);

/* Rules first (each kind in an inner map of the sandbox's own, created
 * here), the rf_sandboxes entry last: the programs leave a cgroup alone
 * until that entry exists, and it exists before the command runs. On
 * failure everything written is removed again, and *ret_map (if not NULL)
 * names the map that refused ("net4", ...): -E2BIG, the policy needs more
 * than RF_SB_MAX_KEYS keys in it; -ENOSPC, the outer map holds
 * RF_MAX_SANDBOXES sandboxes already. */
int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map);

/* Remove what sbmaps__install wrote and the samples: one delete per
 * outer map, whatever the size of the policy (the observe_access map,
 * keyed by cgroup id and sequence, is walked when the sandbox had it).
 * Missing entries are no error. */
int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid);

/* The same, for a sandbox whose supervisor died. */
int sbmaps__purge(const struct rf_enforcer *enf, uint64_t cgid);

/* Allow (grant) or stop allowing (revoke) one network entry for a running
 * sandbox, in its own map of the entry's kind (host or CIDR; created if it
 * has none): a grant replaces an entry with the same prefix, and a granted
 * host also keeps the ports of the sandbox's CIDR entry covering it (a
 * host's entry answers alone). 0 or -errno (-ENOSPC: the sandbox's map is
 * full, RF_SB_GRANT_ROOM grants beyond its policy; -E2BIG: more than
 * RF_MAX_PORT_RANGES ranges together). Revoking an entry that is not
 * there is no error; revoking a host the policy names removes it too. */
int sbmaps__grant(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e);
int sbmaps__revoke(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e);

/* The kernel-state walk of gc: delete every key, in every per-sandbox map
 * (lib/pins.h: key_size != 0), whose cgroup id doomed() picks. doomed is
 * called once per key (it may count). 0 or the first -errno. */
int sbmaps__purge_where(const struct rf_enforcer *enf,
			bool (*doomed)(uint64_t cgid, void *ctx), void *ctx);

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
