// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "pathrules.h"
#include "sbmaps.h"

/* The sandbox judges files or exec with the BPF-LSM: it has rf_paths entries. */
#define PATH_FLAGS (RF_SB_LSM_FILES | RF_SB_LSM_EXEC)
/* The observe programs report for it: it has an rf_observe entry. */
#define OBSERVE_FLAGS (RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_ACCESS)

/* Batch update where the kernel has it for this map type, else one by one. */
static int update_many(int fd, const void *keys, const void *vals, size_t ksz, size_t vsz,
		       size_t n)
{
	__u32 cnt = (__u32)n;
	size_t i;

	if (!n)
		return 0;
	if (!bpf_map_update_batch(fd, keys, vals, &cnt, NULL))
		return 0;
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, (const char *)keys + i * ksz,
					(const char *)vals + i * vsz, BPF_ANY))
			return -errno;
	return 0;
}

static void delete_many(int fd, const void *keys, size_t ksz, size_t n)
{
	__u32 cnt = (__u32)n;
	size_t i;

	if (!n || !bpf_map_delete_batch(fd, keys, &cnt, NULL))
		return;
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, (const char *)keys + i * ksz);
}

/* The keys one sandbox owns, in the layout of each map. */
struct keyset {
	struct rf_net4_key *k4;
	struct rf_ports *v4;
	size_t n4;
	struct rf_net6_key *k6;
	struct rf_ports *v6;
	size_t n6;
	struct rf_unix_key *ku;
	__u32 *vu;
	size_t nu;
	struct rf_path_key *kp;
	__u32 *vp;
	size_t np;
};

static void keyset_free(struct keyset *ks)
{
	void *bufs[] = { ks->k4, ks->v4, ks->k6, ks->v6, ks->ku, ks->vu, ks->kp, ks->vp };
	size_t i;

	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(bufs[i]);
	memset(ks, 0, sizeof(*ks));
}

/* files.read/write and exec as rf_paths keys (pathrules.c). */
static int keyset_paths(uint64_t cgid, const struct rf_policy *policy, struct keyset *ks)
{
	struct rf_path_entry *e = NULL;
	size_t n = 0, i;
	int err;

	err = pathrules__build(policy, &e, &n, NULL);
	if (err)
		return err;
	ks->kp = calloc(n ? n : 1, sizeof(*ks->kp));
	ks->vp = calloc(n ? n : 1, sizeof(*ks->vp));
	if (!ks->kp || !ks->vp) {
		free(e);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pathrules__key(&e[i], cgid, &ks->kp[i]);
		ks->vp[i] = e[i].access;
	}
	ks->np = n;
	free(e);
	return 0;
}

static int keyset_build(uint64_t cgid, const struct rf_net_entry *entries, size_t n,
			const struct rf_policy *policy, struct keyset *ks)
{
	size_t i, m = n ? n : 1, u = policy->n_unix ? policy->n_unix : 1;

	memset(ks, 0, sizeof(*ks));
	ks->k4 = calloc(m, sizeof(*ks->k4));
	ks->v4 = calloc(m, sizeof(*ks->v4));
	ks->k6 = calloc(m, sizeof(*ks->k6));
	ks->v6 = calloc(m, sizeof(*ks->v6));
	ks->ku = calloc(u, sizeof(*ks->ku));
	ks->vu = calloc(u, sizeof(*ks->vu));
	if (!ks->k4 || !ks->v4 || !ks->k6 || !ks->v6 || !ks->ku || !ks->vu) {
		keyset_free(ks);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct rf_net_entry *e = &entries[i];

		if (e->family == AF_INET) {
			struct rf_net4_key *k = &ks->k4[ks->n4];

			k->prefixlen = 64 + e->prefix_len;
			k->cgroup_id = cgid;
			memcpy(k->addr, e->addr, 4);
			ks->v4[ks->n4++] = e->ports;
		} else {
			struct rf_net6_key *k = &ks->k6[ks->n6];

			k->prefixlen = 64 + e->prefix_len;
			k->cgroup_id = cgid;
			memcpy(k->addr, e->addr, 16);
			ks->v6[ks->n6++] = e->ports;
		}
	}
	for (i = 0; i < policy->n_unix; i++) {
		netrules__unix_key(&policy->unix_rules[i], &ks->ku[i]);
		ks->ku[i].cgroup_id = cgid;
		ks->vu[i] = 1;
	}
	ks->nu = policy->n_unix;
	return 0;
}

int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map)
{
	struct rf_sandbox sb = { .flags = flags, .sample_limit = RF_SAMPLE_LIMIT_DEFAULT };
	const char *map = NULL;
	const int *fd = enf->map_fd;
	struct keyset ks;
	int err;

	/* The LSM flags need the LSM object's programs and maps. */
	if ((flags & (PATH_FLAGS | RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS)) &&
	    (!(enf->features & RF_FEAT_LSM) || ((flags & PATH_FLAGS) && fd[RF_PIN_PATHS] < 0)))
		return -EOPNOTSUPP;
	if ((flags & OBSERVE_FLAGS) &&
	    (!(enf->features & RF_FEAT_OBSERVE) || fd[RF_PIN_OBSERVE] < 0))
		return -EOPNOTSUPP;
	err = keyset_build(cgid, entries, n_entries, policy, &ks);
	if (!err && (flags & PATH_FLAGS))
		err = keyset_paths(cgid, policy, &ks);
	if (err) {
		keyset_free(&ks);
		return err;
	}
	err = update_many(fd[RF_PIN_NET4], ks.k4, ks.v4, sizeof(*ks.k4), sizeof(*ks.v4), ks.n4);
	map = "net4";
	if (!err && (map = "net6"))
		err = update_many(fd[RF_PIN_NET6], ks.k6, ks.v6, sizeof(*ks.k6), sizeof(*ks.v6), ks.n6);
	if (!err && (map = "unix"))
		err = update_many(fd[RF_PIN_UNIX], ks.ku, ks.vu, sizeof(*ks.ku), sizeof(*ks.vu), ks.nu);
	if (!err && ks.np && (map = "paths"))
		err = update_many(fd[RF_PIN_PATHS], ks.kp, ks.vp, sizeof(*ks.kp), sizeof(*ks.vp), ks.np);
	if (!err && (flags & OBSERVE_FLAGS)) {
		struct rf_obs_sandbox obs = { 0 };

		map = "observe";
		err = bpf_map_update_elem(fd[RF_PIN_OBSERVE], &cgid, &obs, BPF_NOEXIST) ? -errno : 0;
	}
	if (!err && (map = "sandboxes"))
		err = bpf_map_update_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb, BPF_NOEXIST) ? -errno : 0;
	keyset_free(&ks);
	if (err)
		sbmaps__purge(enf, cgid);
	if (ret_map)
		*ret_map = err ? map : NULL;
	return err;
}

static int purge_map(int fd, size_t key_size, size_t off,
		     bool (*doomed)(uint64_t cgid, void *ctx), void *ctx);
static bool is_cgid(uint64_t cgid, void *ctx);

int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid,
		   const struct rf_net_entry *entries, size_t n_entries,
		   const struct rf_policy *policy)
{
	struct rf_sandbox sb = { 0 };
	const int *fd = enf->map_fd;
	struct keyset ks;
	uint64_t seq, end;
	int err;

	/* Without a sandbox entry the programs treat the cgroup as none of
	 * theirs; it goes first, after the caller killed every process. */
	if (!bpf_map_lookup_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb))
		bpf_map_delete_elem(fd[RF_PIN_SANDBOXES], &cgid);
	else
		sb.flags = PATH_FLAGS;  /* not known: remove its path keys too */
	end = sb.deny_seq < RF_SAMPLE_LIMIT_DEFAULT ? sb.deny_seq : RF_SAMPLE_LIMIT_DEFAULT;
	for (seq = 0; seq < end; seq++) {
		struct rf_sample_key k = { .cgroup_id = cgid, .seq = seq };

		bpf_map_delete_elem(fd[RF_PIN_SAMPLES], &k);
	}
	err = keyset_build(cgid, entries, n_entries, policy, &ks);
	if (!err && (sb.flags & PATH_FLAGS) && fd[RF_PIN_PATHS] >= 0)
		err = keyset_paths(cgid, policy, &ks);
	if (err) {
		keyset_free(&ks);
		return sbmaps__purge(enf, cgid);
	}
	delete_many(fd[RF_PIN_NET4], ks.k4, sizeof(*ks.k4), ks.n4);
	delete_many(fd[RF_PIN_NET6], ks.k6, sizeof(*ks.k6), ks.n6);
	delete_many(fd[RF_PIN_UNIX], ks.ku, sizeof(*ks.ku), ks.nu);
	if (ks.np)
		delete_many(fd[RF_PIN_PATHS], ks.kp, sizeof(*ks.kp), ks.np);
	keyset_free(&ks);
	if (fd[RF_PIN_OBSERVE] >= 0) {
		bpf_map_delete_elem(fd[RF_PIN_OBSERVE], &cgid);
		/* audit observations the supervisor did not take */
		purge_map(fd[RF_PIN_OBS_ACCESS], rf_pin_maps[RF_PIN_OBS_ACCESS].key_size,
			  rf_pin_maps[RF_PIN_OBS_ACCESS].cgid_off, is_cgid, &cgid);
	}
	return 0;
}

/*
 * Delete the keys whose cgroup id doomed() picks from a map. Keys are
 * collected first: deleting while walking with get_next_key restarts the
 * walk on hash maps. off: offset of the __u64 cgroup id inside the key.
 */
static int purge_map(int fd, size_t key_size, size_t off,
		     bool (*doomed)(uint64_t cgid, void *ctx), void *ctx)
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
		if (doomed(id, ctx)) {
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

int sbmaps__purge_where(const struct rf_enforcer *enf,
			bool (*doomed)(uint64_t cgid, void *ctx), void *ctx)
{
	const int *fd = enf->map_fd;
	int err = 0, e;
	size_t i;

	/* The table starts with rf_sandboxes: from then on the cgroup is no
	 * sandbox. Then every other map whose keys carry the sandbox's cgroup
	 * id (the LSM object's only when it is loaded). */
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		if (!rf_pin_maps[i].key_size || fd[i] < 0)
			continue;
		e = purge_map(fd[i], rf_pin_maps[i].key_size, rf_pin_maps[i].cgid_off, doomed, ctx);
		err = err ? err : e;
	}
	return err;
}

static bool is_cgid(uint64_t cgid, void *ctx)
{
	return cgid == *(const uint64_t *)ctx;
}

int sbmaps__purge(const struct rf_enforcer *enf, uint64_t cgid)
{
	int err = 0, e;

	/* The sandbox entry first: from then on the cgroup is no sandbox. */
	if (bpf_map_delete_elem(enf->map_fd[RF_PIN_SANDBOXES], &cgid) && errno != ENOENT)
		err = -errno;
	e = sbmaps__purge_where(enf, is_cgid, &cgid);
	return err ? err : e;
}

int sbmaps__read_sandbox(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_sandbox *ret_sb)
{
	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_SANDBOXES], &cgid, ret_sb) ? -errno : 0;
}

int sbmaps__read_sample(const struct rf_enforcer *enf, uint64_t cgid, uint64_t seq,
			struct rf_event *ret_ev)
{
	struct rf_sample_key k = { .cgroup_id = cgid, .seq = seq };

	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_SAMPLES], &k, ret_ev) ? -errno : 0;
}

int sbmaps__read_observe(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_obs_sandbox *ret_obs)
{
	if (enf->map_fd[RF_PIN_OBSERVE] < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_OBSERVE], &cgid, ret_obs) ? -errno : 0;
}

int sbmaps__take_access(const struct rf_enforcer *enf, uint64_t cgid, uint64_t seq,
			struct rf_event *ret_ev)
{
	struct rf_sample_key k = { .cgroup_id = cgid, .seq = seq };
	int fd = enf->map_fd[RF_PIN_OBS_ACCESS];

	if (fd < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(fd, &k, ret_ev))
		return -errno;
	bpf_map_delete_elem(fd, &k);
	return 0;
}

/* ---- The DNS gate's grants (dnsgate.c): one host key at a time. ---- */

int sbmaps__grant_host(const struct rf_enforcer *enf, uint64_t cgid,
		       const struct rf_net_entry *e)
{
	if (e->family == AF_INET) {
		struct rf_net4_key k = { .prefixlen = 64 + 32, .cgroup_id = cgid };

		memcpy(k.addr, e->addr, 4);
		return bpf_map_update_elem(enf->map_fd[RF_PIN_NET4], &k, &e->ports, BPF_ANY) ?
		       -errno : 0;
	} else {
		struct rf_net6_key k = { .prefixlen = 64 + 128, .cgroup_id = cgid };

		memcpy(k.addr, e->addr, 16);
		return bpf_map_update_elem(enf->map_fd[RF_PIN_NET6], &k, &e->ports, BPF_ANY) ?
		       -errno : 0;
	}
}

int sbmaps__revoke_host(const struct rf_enforcer *enf, uint64_t cgid, int family,
			const uint8_t *addr)
{
	int r;

	if (family == AF_INET) {
		struct rf_net4_key k = { .prefixlen = 64 + 32, .cgroup_id = cgid };

		memcpy(k.addr, addr, 4);
		r = bpf_map_delete_elem(enf->map_fd[RF_PIN_NET4], &k);
	} else {
		struct rf_net6_key k = { .prefixlen = 64 + 128, .cgroup_id = cgid };

		memcpy(k.addr, addr, 16);
		r = bpf_map_delete_elem(enf->map_fd[RF_PIN_NET6], &k);
	}
	return r && errno != ENOENT ? -errno : 0;
}

int sbmaps__set_dns_gate(const struct rf_enforcer *enf, uint64_t cgid,
			 const struct rf_dns_gate *gate)
{
	int fd = enf->map_fd[RF_PIN_DNS_GATES];

	if (fd < 0)
		return -EOPNOTSUPP;
	if (!gate)
		return bpf_map_delete_elem(fd, &cgid) && errno != ENOENT ? -errno : 0;
	return bpf_map_update_elem(fd, &cgid, gate, BPF_ANY) ? -errno : 0;
}
