// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One sandbox's entries in the pinned maps. The policy maps (net4, net6,
 * host4, host6, unix, paths) and the samples map are outer maps keyed by the cgroup id
 * whose values are the sandbox's own inner maps (bpf/rf_sbmap.bpf.h),
 * created here and sized to its policy: no sandbox can fill another's
 * map, and removing a sandbox is one delete per outer map.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "rules/pathrules.h"
#include "bpfutil.h"
#include "sbmaps.h"

/* The sandbox judges files or exec with the BPF-LSM: it has rf_paths entries. */
#define PATH_FLAGS (RF_SB_LSM_FILES | RF_SB_LSM_EXEC)
/* The observe programs report for it: it has an rf_observe entry. */
#define OBSERVE_FLAGS (RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_ACCESS)

/* The inner maps of each outer map as the BPF objects' templates declare
 * them (type, key, value, BPF_F_NO_PREALLOC): the kernel refuses others. */
struct inner_def {
	enum rf_pin_map outer;
	enum bpf_map_type type;
	size_t key_size, value_size;
	const char *name;
};

static const struct inner_def inner_defs[SB_KINDS] = {
	[SB_NET4] = { RF_PIN_NET4, BPF_MAP_TYPE_LPM_TRIE, sizeof(struct rf_net4_key),
		      sizeof(struct rf_ports), "rf_sb_net4" },
	[SB_NET6] = { RF_PIN_NET6, BPF_MAP_TYPE_LPM_TRIE, sizeof(struct rf_net6_key),
		      sizeof(struct rf_ports), "rf_sb_net6" },
	[SB_HOST4] = { RF_PIN_HOST4, BPF_MAP_TYPE_HASH, sizeof(struct rf_net4_key),
		       sizeof(struct rf_ports), "rf_sb_host4" },
	[SB_HOST6] = { RF_PIN_HOST6, BPF_MAP_TYPE_HASH, sizeof(struct rf_net6_key),
		       sizeof(struct rf_ports), "rf_sb_host6" },
	[SB_UNIX] = { RF_PIN_UNIX, BPF_MAP_TYPE_LPM_TRIE, sizeof(struct rf_unix_key),
		      sizeof(__u32), "rf_sb_unix" },
	[SB_PATHS] = { RF_PIN_PATHS, BPF_MAP_TYPE_LPM_TRIE, sizeof(struct rf_path_key),
		       sizeof(__u32), "rf_sb_paths" },
	[SB_SAMPLES] = { RF_PIN_SAMPLES, BPF_MAP_TYPE_HASH, sizeof(struct rf_sample_key),
			 sizeof(struct rf_event), "rf_sb_samples" },
};

const char *sbmaps__kind_name(enum sb_kind k)
{
	return rf_pin_maps[inner_defs[k].outer].pin;
}

static void net4_key(uint64_t cgid, const struct rf_net_entry *e, struct rf_net4_key *k)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 64 + e->prefix_len;
	k->cgroup_id = cgid;
	memcpy(k->addr, e->addr, 4);
}

static void net6_key(uint64_t cgid, const struct rf_net_entry *e, struct rf_net6_key *k)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 64 + e->prefix_len;
	k->cgroup_id = cgid;
	memcpy(k->addr, e->addr, 16);
}

/* The map kind of a network entry: a single host's hash, or a CIDR's trie. */
static enum sb_kind net_kind(const struct rf_net_entry *e)
{
	if (e->family == AF_INET)
		return e->prefix_len == 32 ? SB_HOST4 : SB_NET4;
	return e->prefix_len == 128 ? SB_HOST6 : SB_NET6;
}

/* The inner map's size: its keys, with room for grants on the network
 * maps; the samples map holds the sandbox's sample limit. */
static size_t inner_size(enum sb_kind k, size_t n)
{
	if (k == SB_SAMPLES)
		return RF_SAMPLE_LIMIT_DEFAULT;
	if (k <= SB_HOST6)
		return n + RF_SB_GRANT_ROOM;
	return n;
}

/* Keys per kind. Path keys: with paths (pathrules__build's entries, kept
 * for the caller), exactly; without, their cheap upper bound (two per
 * rule: a subtree also gives its directory an exact key), counted exactly
 * only when that exceeds the limit. */
static int count_keys(uint32_t flags, const struct rf_net_entry *entries, size_t n,
		      const struct rf_policy *policy, struct rf_path_entry **paths,
		      size_t ret_n[SB_KINDS])
{
	struct rf_path_entry *e = NULL;
	size_t i;
	int err = 0;

	memset(ret_n, 0, SB_KINDS * sizeof(*ret_n));
	for (i = 0; i < n; i++)
		ret_n[net_kind(&entries[i])]++;
	ret_n[SB_UNIX] = policy->n_unix;
	if (!(flags & PATH_FLAGS))
		return 0;
	ret_n[SB_PATHS] = 2 * (policy->files_read.n + policy->files_write.n + policy->exec_paths.n);
	if (paths || ret_n[SB_PATHS] > RF_SB_MAX_KEYS)
		err = pathrules__build(policy, &e, &ret_n[SB_PATHS], NULL);
	if (paths && !err)
		*paths = e;
	else
		free(e);
	return err;
}

static int too_big(const size_t n[SB_KINDS], const char **ret_map)
{
	int k;

	for (k = 0; k < SB_KINDS; k++)
		if (n[k] > RF_SB_MAX_KEYS) {
			*ret_map = sbmaps__kind_name(k);
			return k;
		}
	return -1;
}

int sbmaps__capacity(uint32_t flags, const struct rf_net_entry *entries, size_t n_entries,
		     const struct rf_policy *policy, struct rf_error *e)
{
	size_t n[SB_KINDS];
	const char *map;
	int k, err;

	err = count_keys(flags, entries, n_entries, policy, NULL, n);
	if (err)
		return rf_error_set(e, err, "refused", "compiling the policy maps: %s",
				    strerror(-err));
	k = too_big(n, &map);
	if (k >= 0)
		return rf_error_set(e, -E2BIG, "refused",
				    "the policy needs %zu %s keys; a sandbox's %s map holds at "
				    "most %d", n[k], map, map, RF_SB_MAX_KEYS);
	return 0;
}

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

/*
 * Keys and values on their way into one inner map, a chunk at a time: a
 * policy's worth of keys never sits in memory at once (at 100,000 rules
 * that was 15 MiB written once, each page a fault).
 */
#define CHUNK 1024

struct writer {
	int fd;                 /* the inner map; -1: none */
	size_t n;               /* keys buffered */
	size_t cap;             /* keys the buffers hold */
	unsigned char *keys, *vals;
};

static int writer_open(struct writer *w, enum sb_kind k, size_t n)
{
	const struct inner_def *d = &inner_defs[k];
	size_t buf = n < CHUNK ? (n ? n : 1) : CHUNK;  /* a small policy: small buffers */

	w->n = 0;
	w->cap = buf;
	w->keys = malloc(buf * d->key_size);
	w->vals = malloc(buf * d->value_size);
	if (!w->keys || !w->vals)
		return -ENOMEM;
	/* not libbpf's bpf_map_create: no probe programs per run (bpfutil.h) */
	w->fd = bpfutil__map_create(d->type, d->name, d->key_size, d->value_size,
				    (__u32)inner_size(k, n), BPF_F_NO_PREALLOC);
	return w->fd < 0 ? w->fd : 0;
}

static int writer_flush(struct writer *w, enum sb_kind k)
{
	int err = update_many(w->fd, w->keys, w->vals, inner_defs[k].key_size,
			      inner_defs[k].value_size, w->n);

	w->n = 0;
	return err;
}

/* The slots of the next key and value (written by the caller). */
static void *writer_key(struct writer *w, enum sb_kind k)
{
	return w->keys + w->n * inner_defs[k].key_size;
}

static void *writer_val(struct writer *w, enum sb_kind k)
{
	return w->vals + w->n * inner_defs[k].value_size;
}

static int writer_commit(struct writer *w, enum sb_kind k)
{
	return ++w->n == w->cap ? writer_flush(w, k) : 0;
}

static void writers_close(struct writer w[SB_KINDS])
{
	int k;

	for (k = 0; k < SB_KINDS; k++) {
		if (w[k].fd >= 0)
			close(w[k].fd);
		free(w[k].keys);
		free(w[k].vals);
	}
}

/* Every key of the sandbox into its writers. */
static int write_keys(uint64_t cgid, const struct rf_net_entry *entries, size_t n,
		      const struct rf_policy *policy, const struct rf_path_entry *paths,
		      size_t n_paths, struct writer w[SB_KINDS])
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		enum sb_kind k = net_kind(&entries[i]);

		if (entries[i].family == AF_INET)
			net4_key(cgid, &entries[i], writer_key(&w[k], k));
		else
			net6_key(cgid, &entries[i], writer_key(&w[k], k));
		memcpy(writer_val(&w[k], k), &entries[i].ports, sizeof(struct rf_ports));
		err = writer_commit(&w[k], k);
	}
	for (i = 0; !err && i < policy->n_unix; i++) {
		struct rf_unix_key *key = writer_key(&w[SB_UNIX], SB_UNIX);
		__u32 one = 1;

		netrules__unix_key(&policy->unix_rules[i], key);
		key->cgroup_id = cgid;
		memcpy(writer_val(&w[SB_UNIX], SB_UNIX), &one, sizeof(one));
		err = writer_commit(&w[SB_UNIX], SB_UNIX);
	}
	for (i = 0; !err && i < n_paths; i++) {
		pathrules__key(&paths[i], cgid, writer_key(&w[SB_PATHS], SB_PATHS));
		memcpy(writer_val(&w[SB_PATHS], SB_PATHS), &paths[i].access, sizeof(__u32));
		err = writer_commit(&w[SB_PATHS], SB_PATHS);
	}
	return err;
}

/* The sandbox's inner maps (a kind with nothing to hold gets none: the
 * programs answer "no rule" without one), filled, then each put in its
 * outer map under cgid. *ret_map: the map that failed. */
static int install_inner(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
			 const struct rf_net_entry *entries, size_t n_entries,
			 const struct rf_policy *policy, const char **ret_map)
{
	struct rf_path_entry *paths = NULL;
	struct writer w[SB_KINDS];
	size_t n[SB_KINDS];
	int k, err;

	for (k = 0; k < SB_KINDS; k++)
		w[k] = (struct writer){ .fd = -1 };
	err = count_keys(flags, entries, n_entries, policy, &paths, n);
	if (!err && too_big(n, ret_map) >= 0)
		err = -E2BIG;
	for (k = 0; !err && k < SB_KINDS; k++)
		if (n[k] || k == SB_SAMPLES) {
			*ret_map = sbmaps__kind_name(k);
			err = writer_open(&w[k], k, n[k]);
		}
	if (!err)
		err = write_keys(cgid, entries, n_entries, policy, paths, n[SB_PATHS], w);
	for (k = 0; !err && k < SB_KINDS; k++) {
		*ret_map = sbmaps__kind_name(k);
		if (w[k].fd >= 0)
			err = writer_flush(&w[k], k);
		if (!err && w[k].fd >= 0 &&
		    bpf_map_update_elem(enf->map_fd[inner_defs[k].outer], &cgid, &w[k].fd,
					BPF_NOEXIST))
			err = -errno;
	}
	writers_close(w);  /* the outer maps hold the inner ones now */
	free(paths);
	return err;
}

int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map)
{
	struct rf_sandbox sb = { .flags = flags, .sample_limit = RF_SAMPLE_LIMIT_DEFAULT };
	const char *map = NULL;
	const int *fd = enf->map_fd;
	int err;

	/* The LSM flags need the LSM object's programs and maps. */
	if ((flags & (PATH_FLAGS | RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS)) &&
	    (!(enf->features & RF_FEAT_LSM) || ((flags & PATH_FLAGS) && fd[RF_PIN_PATHS] < 0)))
		return -EOPNOTSUPP;
	if ((flags & OBSERVE_FLAGS) &&
	    (!(enf->features & RF_FEAT_OBSERVE) || fd[RF_PIN_OBSERVE] < 0))
		return -EOPNOTSUPP;
	err = install_inner(enf, cgid, flags, entries, n_entries, policy, &map);
	if (!err && (flags & OBSERVE_FLAGS)) {
		struct rf_obs_sandbox obs = { 0 };

		map = "observe";
		err = bpf_map_update_elem(fd[RF_PIN_OBSERVE], &cgid, &obs, BPF_NOEXIST) ? -errno : 0;
	}
	if (!err && (map = "sandboxes"))
		err = bpf_map_update_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb, BPF_NOEXIST) ? -errno : 0;
	if (err)
		sbmaps__remove(enf, cgid);
	if (ret_map)
		*ret_map = err ? map : NULL;
	return err;
}

static int purge_map(int fd, size_t key_size, size_t off,
		     bool (*doomed)(uint64_t cgid, void *ctx), void *ctx);
static bool is_cgid(uint64_t cgid, void *ctx);

static int delete_key(int fd, const void *key)
{
	if (fd < 0 || !bpf_map_delete_elem(fd, key) || errno == ENOENT)
		return 0;
	return -errno;
}

int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid)
{
	struct rf_sandbox sb = { 0 };
	const int *fd = enf->map_fd;
	int k, err, e;

	/* Without a sandbox entry the programs treat the cgroup as none of
	 * theirs; it goes first, after the caller killed every process. */
	if (bpf_map_lookup_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb))
		sb.flags = OBSERVE_FLAGS;  /* not known: look for observations too */
	err = delete_key(fd[RF_PIN_SANDBOXES], &cgid);
	/* One delete per outer map drops the sandbox's inner map whole. */
	for (k = 0; k < SB_KINDS; k++) {
		e = delete_key(fd[inner_defs[k].outer], &cgid);
		err = err ? err : e;
	}
	if (fd[RF_PIN_OBSERVE] >= 0 && (sb.flags & OBSERVE_FLAGS)) {
		e = delete_key(fd[RF_PIN_OBSERVE], &cgid);
		err = err ? err : e;
		/* audit observations the supervisor did not take */
		e = purge_map(fd[RF_PIN_OBS_ACCESS], rf_pin_maps[RF_PIN_OBS_ACCESS].key_size,
			      rf_pin_maps[RF_PIN_OBS_ACCESS].cgid_off, is_cgid, &cgid);
		err = err ? err : e;
	}
	return err;
}

/* An fd of sandbox cgid's inner map of kind k: -ENOENT when it has none. */
static int inner_fd(const struct rf_enforcer *enf, uint64_t cgid, enum sb_kind k)
{
	int outer = enf->map_fd[inner_defs[k].outer];
	__u32 id;
	int fd;

	if (outer < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(outer, &cgid, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

union net_key {
	struct rf_net4_key k4;
	struct rf_net6_key k6;
};

static int grant_key(uint64_t cgid, const struct rf_net_entry *e, enum sb_kind *ret_k,
		     union net_key *ret_key)
{
	if (e->family == AF_INET)
		net4_key(cgid, e, &ret_key->k4);
	else if (e->family == AF_INET6)
		net6_key(cgid, e, &ret_key->k6);
	else
		return -EAFNOSUPPORT;
	*ret_k = net_kind(e);
	return 0;
}

/* a and b merged into out: -E2BIG past RF_MAX_PORT_RANGES. */
static int ports_union(const struct rf_ports *a, const struct rf_ports *b, struct rf_ports *out)
{
	struct rf_port_range all[2 * RF_MAX_PORT_RANGES];

	if (a->n > RF_MAX_PORT_RANGES || b->n > RF_MAX_PORT_RANGES)
		return -EINVAL;
	memcpy(all, a->r, a->n * sizeof(*all));
	memcpy(all + a->n, b->r, b->n * sizeof(*all));
	return netrules__ports_of(all, a->n + b->n, out);
}

/* A host's entry answers alone (bpf/net.bpf.c): give a granted host the
 * ports of the sandbox's longest CIDR entry covering it too. */
static int grant_ports(const struct rf_enforcer *enf, uint64_t cgid, enum sb_kind k,
		       const union net_key *key, const struct rf_net_entry *e,
		       struct rf_ports *ret)
{
	struct rf_ports cidr;
	int fd, err = 0;

	*ret = e->ports;
	if (k != SB_HOST4 && k != SB_HOST6)
		return 0;
	fd = inner_fd(enf, cgid, k == SB_HOST4 ? SB_NET4 : SB_NET6);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	if (!bpf_map_lookup_elem(fd, key, &cidr))
		err = ports_union(&e->ports, &cidr, ret);
	close(fd);
	return err;
}

/* A sandbox without a map of kind k gets one holding key -> ports. */
static int grant_new_map(const struct rf_enforcer *enf, uint64_t cgid, enum sb_kind k,
			 const void *key, const struct rf_ports *ports)
{
	struct writer w = { .fd = -1 };
	int err = writer_open(&w, k, 1);

	if (!err) {
		memcpy(writer_key(&w, k), key, inner_defs[k].key_size);
		memcpy(writer_val(&w, k), ports, sizeof(*ports));
		err = writer_commit(&w, k);
	}
	if (!err)
		err = writer_flush(&w, k);
	if (!err && bpf_map_update_elem(enf->map_fd[inner_defs[k].outer], &cgid, &w.fd,
					BPF_NOEXIST))
		err = -errno;
	if (w.fd >= 0)
		close(w.fd);
	free(w.keys);
	free(w.vals);
	return err;
}

/* Write (add) or delete one network entry in the sandbox's map of its
 * kind; creates that map when the sandbox has none. */
static int grant_update(const struct rf_enforcer *enf, uint64_t cgid,
			const struct rf_net_entry *e, bool add)
{
	struct rf_ports ports;
	union net_key key;
	enum sb_kind k;
	int fd, err;

	err = grant_key(cgid, e, &k, &key);
	if (!err && add)
		err = grant_ports(enf, cgid, k, &key, e, &ports);
	if (err)
		return err;
	fd = inner_fd(enf, cgid, k);
	if (fd == -ENOENT && add)
		return grant_new_map(enf, cgid, k, &key, &ports);
	if (fd < 0)
		return add ? fd : (fd == -ENOENT ? 0 : fd);
	if (add)
		err = bpf_map_update_elem(fd, &key, &ports, BPF_ANY) ? -errno : 0;
	else
		err = delete_key(fd, &key);
	close(fd);
	return err;
}

int sbmaps__grant(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e)
{
	return grant_update(enf, cgid, e, true);
}

int sbmaps__revoke(const struct rf_enforcer *enf, uint64_t cgid, const struct rf_net_entry *e)
{
	return grant_update(enf, cgid, e, false);
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
	 * id (the LSM object's only when it is loaded); the outer maps of
	 * per-sandbox maps hold (at most) one key per sandbox. */
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
	/* Every map keyed by the cgroup id alone: a delete each; the rest
	 * (observe_access) by a walk. */
	return sbmaps__remove(enf, cgid);
}

int sbmaps__read_sandbox(const struct rf_enforcer *enf, uint64_t cgid,
			 struct rf_sandbox *ret_sb)
{
	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_SANDBOXES], &cgid, ret_sb) ? -errno : 0;
}

int sbmaps__samples_open(const struct rf_enforcer *enf, uint64_t cgid)
{
	return inner_fd(enf, cgid, SB_SAMPLES);
}

int sbmaps__read_sample(int samples_fd, uint64_t cgid, uint64_t seq, struct rf_event *ret_ev)
{
	struct rf_sample_key k = { .cgroup_id = cgid, .seq = seq };

	if (samples_fd < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(samples_fd, &k, ret_ev) ? -errno : 0;
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
	/* the sandbox's own host map (sbmaps__grant): e->ports is the
	 * whole set the host gets, never merged with an older grant */
	return sbmaps__grant(enf, cgid, e);
}

int sbmaps__revoke_host(const struct rf_enforcer *enf, uint64_t cgid, int family,
			const uint8_t *addr)
{
	struct rf_net_entry e = { .family = family };

	memcpy(e.addr, addr, family == AF_INET ? 4 : 16);
	e.prefix_len = family == AF_INET ? 32 : 128;
	return sbmaps__revoke(enf, cgid, &e);
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
