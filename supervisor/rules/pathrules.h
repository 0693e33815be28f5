/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* files.read/write and exec compiled into rf_paths entries (BPF-LSM). */
#ifndef RF_PATHRULES_H
#define RF_PATHRULES_H

#include <stddef.h>
#include <stdint.h>
#include "rf_abi.h"
#include "policy/policy.h"

/* One rf_paths entry: key bytes (an exact path ends with its 0 byte, a
 * subtree with its '/') and the access bits the longest match answers. */
struct rf_path_entry {
	uint8_t key[RF_PATH_KEY_LEN];
	uint32_t len;            /* bytes of key[] that are the prefix */
	uint32_t access;         /* enum rf_access */
};

/*
 * The entries of a policy: files.read gives RF_ACC_READ, files.write
 * RF_ACC_READ | RF_ACC_WRITE, exec RF_ACC_EXEC (each only when that class
 * is an allowlist). A subtree entry "/a/b/" also gives the directory
 * itself an exact entry "/a/b". Every entry carries the union of the bits
 * of every entry covering it (itself included), so the kernel's longest
 * prefix match alone answers. Sorted by key, no duplicates.
 *
 * An entry whose key would not fit RF_PATH_KEY_LEN is left out and
 * counted in *ret_dropped: the kernel denies paths that long anyway, so
 * leaving it out only narrows the policy.
 */
int pathrules__build(const struct rf_policy *policy, struct rf_path_entry **ret_entries,
		     size_t *ret_n, size_t *ret_dropped);

/* The LPM key of one entry for the sandbox cgid. */
void pathrules__key(const struct rf_path_entry *entry, uint64_t cgid,
		    struct rf_path_key *ret_key);

/* What the kernel answers for path (resolved, no terminator) against
 * entries: the access bits of the longest match, 0 when none matches.
 * The user-space model of the BPF lookup, for tests and `check`; entries
 * as pathrules__build gives them (sorted, keys end at a '/' or a 0 byte):
 * O(depth * log n). */
uint32_t pathrules__lookup(const struct rf_path_entry *entries, size_t n, const char *path);

#endif
