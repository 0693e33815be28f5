// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "sbmaps.h"

int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy)
{
	struct rf_sandbox sb = { .flags = flags, .sample_limit = RF_SAMPLE_LIMIT_DEFAULT };
	__u32 one = 1;
	size_t i;
	int err = 0;

	for (i = 0; i < n_entries && !err; i++) {
		const struct rf_net_entry *e = &entries[i];

		if (e->family == AF_INET) {
			struct rf_net4_key k = { .prefixlen = 64 + e->prefix_len, .cgroup_id = cgid };

			memcpy(k.addr, e->addr, 4);
			err = bpf_map_update_elem(enf->net4_fd, &k, &e->ports, BPF_ANY) ? -errno : 0;
		} else {
			struct rf_net6_key k = { .prefixlen = 64 + e->prefix_len, .cgroup_id = cgid };

			memcpy(k.addr, e->addr, 16);
			err = bpf_map_update_elem(enf->net6_fd, &k, &e->ports, BPF_ANY) ? -errno : 0;
		}
	}
	for (i = 0; i < policy->n_unix && !err; i++) {
		struct rf_unix_key k;

		netrules__unix_key(&policy->unix_rules[i], &k);
		k.cgroup_id = cgid;
		err = bpf_map_update_elem(enf->unix_fd, &k, &one, BPF_ANY) ? -errno : 0;
	}
	if (!err)
		err = bpf_map_update_elem(enf->sandboxes_fd, &cgid, &sb, BPF_NOEXIST) ? -errno : 0;
	if (err)
		sbmaps__purge(enf, cgid);
	return err;
}

/*
 * Delete the keys of one cgroup from a map. Keys are collected first:
 * deleting while walking with get_next_key restarts the walk on hash maps.
 * off: offset of the __u64 cgroup id inside the key.
 */
static int purge_map(int fd, size_t key_size, size_t off, uint64_t cgid)
{
	unsigned char *keys = NULL, *prev, *next;
	size_t n = 0, cap = 0, i;
	bool first = true;
	int err = 0;

	prev = calloc(2, key_size);
	if (!prev)
		return -ENOMEM;
	next = prev + key_size;
	while (bpf_map_get_next_key(fd, first ? NULL : prev, next) == 0) {
		uint64_t id;

		first = false;
		memcpy(&id, next + off, sizeof(id));
		if (id == cgid) {
			if (n == cap) {
				size_t c = cap ? cap * 2 : 64;
				void *p = realloc(keys, c * key_size);

				if (!p) {
					err = -ENOMEM;
					goto cleanup;
				}
				keys = p;
				cap = c;
			}
			memcpy(keys + n * key_size, next, key_size);
			n++;
		}
		memcpy(prev, next, key_size);
	}
	for (i = 0; i < n; i++)
		if (bpf_map_delete_elem(fd, keys + i * key_size) && errno != ENOENT && !err)
			err = -errno;
cleanup:
	free(keys);
	free(prev);
	return err;
}

int sbmaps__purge(const struct rf_enforcer *enf, uint64_t cgid)
{
	int err = 0, e;

	/* The sandbox entry first: from then on the cgroup is no sandbox. */
	if (bpf_map_delete_elem(enf->sandboxes_fd, &cgid) && errno != ENOENT)
		err = -errno;
	e = purge_map(enf->net4_fd, sizeof(struct rf_net4_key),
		      offsetof(struct rf_net4_key, cgroup_id), cgid);
	err = err ? err : e;
	e = purge_map(enf->net6_fd, sizeof(struct rf_net6_key),
		      offsetof(struct rf_net6_key, cgroup_id), cgid);
	err = err ? err : e;
	e = purge_map(enf->unix_fd, sizeof(struct rf_unix_key),
		      offsetof(struct rf_unix_key, cgroup_id), cgid);
	err = err ? err : e;
	e = purge_map(enf->samples_fd, sizeof(struct rf_sample_key),
		      offsetof(struct rf_sample_key, cgroup_id), cgid);
	return err ? err : e;
}

int sbmaps__read_sandbox(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_sandbox *ret_sb)
{
	return bpf_map_lookup_elem(enf->sandboxes_fd, &cgid, ret_sb) ? -errno : 0;
}

int sbmaps__read_sample(const struct rf_enforcer *enf, uint64_t cgid, uint64_t seq,
			struct rf_event *ret_ev)
{
	struct rf_sample_key k = { .cgroup_id = cgid, .seq = seq };

	return bpf_map_lookup_elem(enf->samples_fd, &k, ret_ev) ? -errno : 0;
}
