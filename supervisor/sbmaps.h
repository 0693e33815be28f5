/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One sandbox's entries in the shared maps, keyed by its cgroup id. */
#ifndef RF_SBMAPS_H
#define RF_SBMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "enforcer.h"
#include "netrules.h"
#include "policy.h"
#include "rf_abi.h"

/* Rules first, the rf_sandboxes entry last: the programs leave a cgroup
 * alone until that entry exists, and it exists before the command runs.
 * On failure everything written is removed again, and *ret_map (if not
 * NULL) names the map that refused ("net4", ...): ENOSPC says which is full. */
int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map);

/* Remove what sbmaps__install wrote (same arguments), and the samples. */
int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid,
		   const struct rf_net_entry *entries, size_t n_entries,
		   const struct rf_policy *policy);

/* Remove every entry of cgid from every map by walking them all: for a
 * sandbox whose supervisor died (its rules are not known). */
int sbmaps__purge(const struct rf_enforcer *enf, uint64_t cgid);

/* The kernel-state walk of gc: delete every key, in every per-sandbox map
 * (lib/pins.h: key_size != 0), whose cgroup id doomed() picks. doomed is
 * called once per key (it may count). 0 or the first -errno. */
int sbmaps__purge_where(const struct rf_enforcer *enf,
			bool (*doomed)(uint64_t cgid, void *ctx), void *ctx);

int sbmaps__read_sandbox(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_sandbox *ret_sb);
/* -ENOENT when that sample was not kept. */
int sbmaps__read_sample(const struct rf_enforcer *enf, uint64_t cgid, uint64_t seq,
			struct rf_event *ret_ev);

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
