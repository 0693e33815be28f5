// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One sandbox's entries in the pinned maps. The policy maps (net4, net6,
 * host4, host6, unix, paths) and the samples map are outer arrays of maps
 * indexed by pool slot (bpf/rf_sbmap.bpf.h). A slot's inner maps are put
 * into the outer maps once, when the pool is made or grown: each such
 * write waits for an RCU grace period in the kernel (synchronize_rcu,
 * 10 ms and more), so a run only takes a free slot (rf_slots, under
 * RF_RUN_DIR/slots.lock), fills its maps and names it in rf_sb_slots, a
 * plain hash; its end deletes that entry and empties the maps. No sandbox
 * can fill another's map, and removing a sandbox is one delete.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "rules/pathrules.h"
#include "bpfutil.h"
#include "registry.h"
#include "runlock.h"
#include "sbmaps.h"

/* The sandbox judges files or exec with the BPF-LSM: it has rf_paths entries. */
#define PATH_FLAGS (RF_SB_LSM_FILES | RF_SB_LSM_EXEC)
/* The observe programs report for it: it has an rf_observe entry. */
#define OBSERVE_FLAGS (RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_ACCESS)

/* Keys a run's end deletes itself from the slot it gives back; a slot
 * with more is left DIRTY for the next taker of its class or gc. */
#define CLEAN_NOW_KEYS 1024
/* Slots of a class a pool grown on a run's path gets at once (the cost is
 * one grace period per outer map, whatever the number). */
static const unsigned grow_batch[RF_SB_CLASSES] = { 8, 2, 1 };
_Static_assert(sizeof(grow_batch) / sizeof(grow_batch[0]) == RF_SB_CLASSES, "grow_batch");
/* Free slots of its class a run may leave behind before the pool is grown
 * in the background (sbmaps__top_up_async), off every run's path. */
static const unsigned low_water[RF_SB_CLASSES] = { 4, 1, 1 };
_Static_assert(sizeof(low_water) / sizeof(low_water[0]) == RF_SB_CLASSES, "low_water");
/* A sample a program of a sandbox writes while its slot is given back
 * lands in the slot's next owner's map: room for a few. */
#define SAMPLE_SLACK 16

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

/* The inner map's size in a slot of class c: the class's keys, with room
 * for grants on the network maps; the samples map holds the sandbox's
 * sample limit (and a few strays, SAMPLE_SLACK). */
static uint32_t inner_size(enum sb_kind k, uint32_t c)
{
	if (k == SB_SAMPLES)
		return (c ? RF_SAMPLE_LIMIT_AUDIT : RF_SAMPLE_LIMIT_DEFAULT) + SAMPLE_SLACK;
	if (k <= SB_HOST6)
		return RF_SB_CLASS_KEYS(c) + RF_SB_GRANT_ROOM;
	return RF_SB_CLASS_KEYS(c);
}

/* The smallest class whose maps hold n[k] keys of every kind. */
static uint32_t class_of(const size_t n[SB_KINDS])
{
	uint32_t c;
	int k;

	for (c = 0; c + 1 < RF_SB_CLASSES; c++) {
		for (k = 0; k < SB_KINDS && (k == SB_SAMPLES || n[k] <= RF_SB_CLASS_KEYS(c)); k++)
			;
		if (k == SB_KINDS)
			break;
	}
	return c;
}

/* The directories on the way to the pathname rules, for
 * RF_SB_LSM_UNIX_NAMES (a directory two names share counts twice: the
 * same key written twice). */
static size_t unix_way_count(const struct rf_policy *policy)
{
	struct rf_unix_key key;
	size_t i, pos, n = 0;

	for (i = 0; i < policy->n_unix; i++)
		for (pos = 0; netrules__unix_way_key(&policy->unix_rules[i], &pos, &key);)
			n++;
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
	if (flags & RF_SB_LSM_UNIX_NAMES)
		ret_n[SB_UNIX] += unix_way_count(policy);
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

/* A writer of n keys into the inner map fd (not the writer's to close). */
static int writer_open(struct writer *w, enum sb_kind k, int fd, size_t n)
{
	const struct inner_def *d = &inner_defs[k];
	size_t buf = n < CHUNK ? (n ? n : 1) : CHUNK;  /* a small policy: small buffers */

	w->fd = fd;
	w->n = 0;
	w->cap = buf;
	w->keys = malloc(buf * d->key_size);
	w->vals = malloc(buf * d->value_size);
	return w->keys && w->vals ? 0 : -ENOMEM;
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
		free(w[k].keys);
		free(w[k].vals);
	}
}

/* Every key of the sandbox into its writers. */
static int write_keys(uint64_t cgid, uint32_t flags, const struct rf_net_entry *entries,
		      size_t n, const struct rf_policy *policy, const struct rf_path_entry *paths,
		      size_t n_paths, struct writer w[SB_KINDS])
{
	struct rf_unix_key way;
	size_t i, pos;
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
		for (pos = 0; !err && (flags & RF_SB_LSM_UNIX_NAMES) &&
			      netrules__unix_way_key(&policy->unix_rules[i], &pos, &way);) {
			way.cgroup_id = cgid;
			memcpy(writer_key(&w[SB_UNIX], SB_UNIX), &way, sizeof(way));
			memcpy(writer_val(&w[SB_UNIX], SB_UNIX), &one, sizeof(one));
			err = writer_commit(&w[SB_UNIX], SB_UNIX);
		}
	}
	for (i = 0; !err && i < n_paths; i++) {
		pathrules__key(&paths[i], cgid, writer_key(&w[SB_PATHS], SB_PATHS));
		memcpy(writer_val(&w[SB_PATHS], SB_PATHS), &paths[i].access, sizeof(__u32));
		err = writer_commit(&w[SB_PATHS], SB_PATHS);
	}
	return err;
}

/* ---- The pool of slots. rf_slots is written under slots.lock only. ---- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int slots_lock(void)
{
	return runlock__take("slots.lock", LOCK_EX);
}

static int slot_read(const struct rf_enforcer *enf, uint32_t i, struct rf_slot *ret)
{
	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOTS], &i, ret) ? -errno : 0;
}

static int slot_write(const struct rf_enforcer *enf, uint32_t i, const struct rf_slot *s)
{
	return bpf_map_update_elem(enf->map_fd[RF_PIN_SLOTS], &i, s, BPF_ANY) ? -errno : 0;
}

/*
 * The slots' bookkeeping, in batches where the kernel has them: every
 * slot (all), or up to the first EMPTY one (the pool grows into the
 * lowest EMPTY indices and no slot is EMPTY again, so the rest are EMPTY
 * too): *ret_n read, at least that one when there is one.
 */
#define SLOT_CHUNK 64

static int slots_read(const struct rf_enforcer *enf, struct rf_slot *s, bool all, size_t *ret_n)
{
	int fd = enf->map_fd[RF_PIN_SLOTS];
	__u32 keys[SLOT_CHUNK], in, out, cnt, i;
	bool batch = true, empty = false;
	size_t n = 0;

	while (n < RF_MAX_SANDBOXES && (all || !empty)) {
		cnt = RF_MAX_SANDBOXES - n < SLOT_CHUNK ? (__u32)(RF_MAX_SANDBOXES - n) : SLOT_CHUNK;
		in = (__u32)n - 1;
		if (batch && bpf_map_lookup_batch(fd, n ? &in : NULL, &out, keys, s + n, &cnt, NULL) &&
		    errno != ENOENT)
			batch = false;  /* older kernels: one at a time */
		if (!batch) {
			cnt = 1;
			if (bpf_map_lookup_elem(fd, &(__u32){ (__u32)n }, s + n))
				return -errno;
		}
		if (!cnt)
			break;
		for (i = 0; i < cnt; i++)
			empty |= s[n + i].state == RF_SLOT_EMPTY;
		n += cnt;
	}
	*ret_n = n;
	return 0;
}

/* RF_SLOT_BUSY whose process is gone: its work undone, it counts as DIRTY. */
static bool busy_dead(const struct rf_slot *s)
{
	return s->state == RF_SLOT_BUSY &&
	       (kill((pid_t)s->pid, 0) && errno == ESRCH ? true :
		registry__proc_start((pid_t)s->pid) != s->start);
}

static struct rf_slot busy_slot(uint32_t class)
{
	/* this process's start, read once per process (a grower or the
	 * cleaner is a process of its own): pool_grow marks up to 64 slots
	 * under slots.lock */
	static pid_t pid;
	static uint64_t start;
	pid_t me = getpid();

	if (pid != me) {
		start = registry__proc_start(me);
		pid = me;
	}
	return (struct rf_slot){ .state = RF_SLOT_BUSY, .class = class, .pid = (__u32)me,
				 .start = start };
}

/*
 * The first BUSY slot of class c (any class: c < 0) in the snapshot all
 * whose process is gone, given *claim (its class kept) if it is still that
 * BUSY slot under slots.lock: its index, or -1. Called without the lock:
 * whether a process is gone is two /proc reads, and hundreds of starts
 * may be queued for the lock while a pool grows (a start waited 1-4 s
 * behind such scans: docs/benchmarks.md, 1 vs 500 live sandboxes).
 */
static long busy_dead_take(const struct rf_enforcer *enf, const struct rf_slot *all,
			   size_t nall, long c, const struct rf_slot *claim)
{
	struct rf_slot now, w;
	long got = -1;
	size_t i;
	int lock;

	for (i = 0; got < 0 && i < nall; i++) {
		if (all[i].state != RF_SLOT_BUSY || (c >= 0 && all[i].class != (uint32_t)c) ||
		    !busy_dead(&all[i]))
			continue;
		lock = slots_lock();
		if (lock < 0)
			return -1;
		if (!slot_read(enf, (uint32_t)i, &now) && now.state == RF_SLOT_BUSY &&
		    now.pid == all[i].pid && now.start == all[i].start) {
			w = *claim;
			w.class = now.class;
			if (!slot_write(enf, (uint32_t)i, &w))
				got = (long)i;
		}
		close(lock);
	}
	return got;
}

static bool outer_present(const struct rf_enforcer *enf, enum sb_kind k)
{
	return enf->map_fd[inner_defs[k].outer] >= 0;
}

/* A new, empty inner map of kind k for a slot of class c. Not libbpf's
 * bpf_map_create: no probe programs (bpfutil.h). */
static int inner_create(enum sb_kind k, uint32_t c)
{
	const struct inner_def *d = &inner_defs[k];

	return bpfutil__map_create(d->type, d->name, d->key_size, d->value_size,
				   inner_size(k, c), BPF_F_NO_PREALLOC);
}

_Static_assert(SB_KINDS <= RF_SB_KINDS_MAX, "rf_slot_maps holds every kind");

/* Slot i's inner map of kind k is fd: its id noted in rf_slot_maps (best
 * effort: without it the outer map is read, which may wait). */
static void slot_id_note(const struct rf_enforcer *enf, __u32 i, enum sb_kind k, int fd)
{
	int ids = enf->map_fd[RF_PIN_SLOT_MAPS];
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	struct rf_slot_maps m;

	memset(&info, 0, sizeof(info));
	if (ids < 0 || bpf_map_lookup_elem(ids, &i, &m) ||
	    bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	m.id[k] = info.id;
	bpf_map_update_elem(ids, &i, &m, BPF_ANY);
}

/* Put new inner maps of kind k into the outer map at slots idx[0..n)
 * (classes cls[]): one batch, so one grace period on kernels that wait
 * once per batch (6.1 waits for none in a batch). *ret_writes counts the
 * batches. */
static int outer_fill(const struct rf_enforcer *enf, enum sb_kind k, const __u32 *idx,
		      const uint32_t *cls, size_t n, unsigned *ret_writes)
{
	int outer = enf->map_fd[inner_defs[k].outer], err = 0;
	__u32 *fds = calloc(n ? n : 1, sizeof(*fds));
	size_t i, made = 0;

	if (!fds)
		return -ENOMEM;
	for (i = 0; i < n; i++, made++) {
		int fd = inner_create(k, cls[i]);

		if (fd < 0) {
			err = fd;
			break;
		}
		fds[i] = (__u32)fd;
	}
	if (!err) {
		err = update_many(outer, idx, fds, sizeof(*idx), sizeof(*fds), n);
		*ret_writes += 1;
	}
	for (i = 0; i < made; i++) {
		if (!err)
			slot_id_note(enf, idx[i], k, (int)fds[i]);
		close((int)fds[i]);  /* the outer map holds them now */
	}
	free(fds);
	return err;
}

/* The inner map of kind k at slot i: an fd to close, or -errno (-ENOENT:
 * the slot has none). */
static int slot_inner_fd(const struct rf_enforcer *enf, uint32_t i, enum sb_kind k)
{
	int outer = enf->map_fd[inner_defs[k].outer], ids = enf->map_fd[RF_PIN_SLOT_MAPS];
	struct rf_slot_maps m;
	__u32 id;
	int fd;

	if (outer < 0)
		return -ENOENT;
	if (ids >= 0 && !bpf_map_lookup_elem(ids, &i, &m) && m.id[k]) {
		fd = bpf_map_get_fd_by_id(m.id[k]);
		if (fd >= 0)
			return fd;
	}
	if (bpf_map_lookup_elem(outer, &i, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	slot_id_note(enf, i, k, fd);
	return fd;
}

/* Keys of one map, collected first (deleting while walking restarts a
 * hash walk), then deleted; at most *budget of them (then -E2BIG with
 * what was collected deleted). *budget is what is left. */
static int map_empty(int fd, size_t key_size, size_t *budget, size_t *ret_n)
{
	unsigned char *keys = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;

	for (;;) {
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			void *p = realloc(keys, c * key_size);

			if (!p) {
				err = -ENOMEM;
				break;
			}
			keys = p;
			cap = c;
		}
		if (bpf_map_get_next_key(fd, n ? keys + (n - 1) * key_size : NULL,
					 keys + n * key_size))
			break;
		if (n == *budget) {
			err = -E2BIG;
			break;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		if (bpf_map_delete_elem(fd, keys + i * key_size) && errno != ENOENT && !err)
			err = -errno;
	*budget -= n;
	*ret_n += n;
	free(keys);
	return err;
}

/* A hash map emptied in batches (BPF_MAP_LOOKUP_AND_DELETE_BATCH: one
 * syscall per CHUNK keys instead of two per key; 10,000 keys took ~100 ms
 * one by one), at most *budget keys (then -E2BIG). -EOPNOTSUPP: the kernel
 * has no batch for it (the caller goes one by one). */
static int hash_empty(int fd, const struct inner_def *d, size_t *budget, size_t *ret_n)
{
	unsigned char *keys = malloc(CHUNK * d->key_size), *vals = malloc(CHUNK * d->value_size);
	__u32 batch, cnt;
	int err = 0;

	if (!keys || !vals)
		err = -ENOMEM;
	while (!err) {
		cnt = *budget < CHUNK ? (__u32)*budget : CHUNK;
		if (!cnt) {
			/* the budget spent: more left? */
			if (!bpf_map_get_next_key(fd, NULL, keys))
				err = -E2BIG;
			break;
		}
		/* from the start each time: the keys before are gone */
		if (bpf_map_lookup_and_delete_batch(fd, NULL, &batch, keys, vals, &cnt, NULL) &&
		    errno != ENOENT) {
			/* no batch here (the kernel's ENOTSUPP is 524), or a
			 * bucket larger than cnt: the rest one by one */
			err = errno == EINVAL || errno == 524 || errno == EOPNOTSUPP ||
					      errno == ENOSPC ?
				      -EOPNOTSUPP : -errno;
			cnt = 0;
		}
		*budget -= cnt;
		*ret_n += cnt;
		if (!err && !cnt)
			break;  /* empty */
	}
	free(keys);
	free(vals);
	return err;
}

/*
 * The inner maps of the slot this process took, kept open from its
 * install to its removal (a run has one sandbox): opening them again by
 * id at the end cost 21 syscalls a run. The same maps: a slot's inner
 * map of a kind, once in its outer map, is never replaced (outer_fill
 * only fills a slot that has none, and no outer entry is ever deleted);
 * slot_release empties only a slot the caller still owns. A detached
 * helper forgets them (it closes the supervisor's fds).
 */
static struct {
	uint32_t slot;          /* UINT32_MAX: none held */
	int fd1[SB_KINDS];      /* fd + 1; 0: none */
} held = { .slot = UINT32_MAX };

static void held_forget(void)
{
	memset(&held, 0, sizeof(held));
	held.slot = UINT32_MAX;
}

/* Slot i's held fds, handed over to the caller (-1 where none). */
static void held_take(uint32_t i, int ret_fds[SB_KINDS])
{
	int k;

	for (k = 0; k < SB_KINDS; k++)
		ret_fds[k] = held.slot == i ? held.fd1[k] - 1 : -1;
	if (held.slot == i)
		held_forget();
}

/* Keep fds (slot i's, just installed): fds[] is -1 after. */
static void held_put(uint32_t i, int fds[SB_KINDS])
{
	int old[SB_KINDS], k;

	held_take(held.slot, old);
	for (k = 0; k < SB_KINDS; k++) {
		if (old[k] >= 0)
			close(old[k]);
		held.fd1[k] = fds[k] + 1;
		fds[k] = -1;
	}
	held.slot = i;
}

/* Empty slot i's inner maps, at most budget keys. 0 (all empty), -E2BIG
 * (more left), or -errno. *ret_n: keys deleted. have: fds of them already
 * open (-1: none; the caller closes them), or NULL. */
static int slot_empty(const struct rf_enforcer *enf, uint32_t i, const int *have, size_t budget,
		      size_t *ret_n)
{
	int k, err = 0;

	for (k = 0; !err && k < SB_KINDS; k++) {
		bool mine = !have || have[k] < 0;
		int fd = mine ? slot_inner_fd(enf, i, k) : have[k];

		if (fd == -ENOENT)
			continue;
		if (fd < 0)
			return fd;
		err = inner_defs[k].type == BPF_MAP_TYPE_HASH ?
			      hash_empty(fd, &inner_defs[k], &budget, ret_n) : -EOPNOTSUPP;
		if (err == -EOPNOTSUPP)
			err = map_empty(fd, inner_defs[k].key_size, &budget, ret_n);
		if (mine)
			close(fd);
	}
	return err;
}

/*
 * Grow the pool by up to n slots of class c: EMPTY indices marked BUSY,
 * their inner maps made and written into the outer maps (one batch per
 * outer map), then FREE; the first goes to owner instead when owner is
 * not 0 (*ret_first). -ENOSPC: every index is in use.
 */
static int pool_grow(const struct rf_enforcer *enf, uint32_t c, unsigned n, uint64_t owner,
		     uint32_t *ret_first, struct sbmaps_note *note)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all)), s;
	__u32 idx[64];
	uint32_t cls[64];
	size_t got = 0, nall = 0, i;
	double t0 = now_ms();
	int lock, err, k;

	if (!all)
		return -ENOMEM;
	n = n > 64 ? 64 : n;
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, true, &nall);
	for (i = 0; !err && i < nall && got < n; i++) {
		if (all[i].state != RF_SLOT_EMPTY)
			continue;
		s = busy_slot(c);
		err = slot_write(enf, (uint32_t)i, &s);
		idx[got] = (__u32)i;
		cls[got++] = c;
	}
	if (lock >= 0)
		close(lock);
	free(all);
	if (!err && !got)
		err = -ENOSPC;
	for (k = 0; !err && k < SB_KINDS; k++)
		if (outer_present(enf, k))
			err = outer_fill(enf, k, idx, cls, got, note ? &note->outer_writes : &(unsigned){0});
	lock = slots_lock();
	for (i = 0; lock >= 0 && i < got; i++) {
		/* a failure leaves them DIRTY: a taker fills what is missing */
		s = (struct rf_slot){ .state = err ? RF_SLOT_DIRTY : RF_SLOT_FREE, .class = c };
		if (!err && i == 0 && owner) {
			s.state = RF_SLOT_OWNED;
			s.cgid = owner;
			*ret_first = idx[0];
		}
		slot_write(enf, idx[i], &s);
	}
	if (lock >= 0)
		close(lock);
	if (note && got) {
		note->grown += (unsigned)got;
		note->grow_ms += now_ms() - t0;
	}
	return err ? err : (lock < 0 ? lock : 0);
}

/*
 * A slot of class c for cgid, marked OWNED: a FREE one; else one the
 * cleaner is emptying, once it is done; else a DIRTY one (emptied here);
 * else a new one (the pool grown on this path, noted).
 */
static int slot_claim(const struct rf_enforcer *enf, uint64_t cgid, uint32_t c,
		      uint32_t *ret_slot, struct sbmaps_note *note)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all));
	struct rf_slot s = { .cgid = cgid, .state = RF_SLOT_OWNED, .class = c };
	long pick = -1, dirty = -1;
	size_t i, n = 0, nall = 0;
	unsigned in_class = 0, free_left = 0, busy = 0, grow_by = grow_batch[c];
	bool waited = false;
	double t0;
	int lock, err;

	if (!all)
		return -ENOMEM;
rescan:
	/* the states only, under the lock (busy_dead_take asks after it
	 * whether a BUSY slot's process is gone) */
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, false, &nall);
	for (i = 0; !err && i < nall; i++) {
		if (all[i].class != c || all[i].state == RF_SLOT_EMPTY)
			continue;
		/* a pool that ran dry grows by half its size, at least the
		 * class's batch: few growths however many sandboxes are live */
		grow_by = ++in_class / 2 > grow_by ? in_class / 2 : grow_by;
		if (all[i].state == RF_SLOT_FREE && pick < 0)
			pick = (long)i;
		else if (all[i].state == RF_SLOT_FREE)
			free_left++;
		else if (dirty < 0 && all[i].state == RF_SLOT_DIRTY)
			dirty = (long)i;
		else if (all[i].state == RF_SLOT_BUSY)
			busy++;
	}
	/* running low: the caller grows it once its command runs */
	if (!err && note && pick >= 0 && free_left < low_water[c]) {
		note->top_up = grow_by;
		note->top_up_class = c;
	}
	if (!err && pick < 0)
		pick = dirty;
	if (!err && pick >= 0)
		err = slot_write(enf, (uint32_t)pick, &s);
	if (lock >= 0)
		close(lock);
	if (!err && pick < 0 && busy) {
		/* a slot whose worker died: its work undone, it counts as DIRTY */
		pick = dirty = busy_dead_take(enf, all, nall, c, &s);
		/* Nothing to take but slots being worked on (the cleaner's,
		 * most likely): waiting for the cleaner costs less than
		 * growing the pool (a grace period per outer map). Once. */
		if (pick < 0 && !waited) {
			lock = runlock__take("clean.lock", LOCK_SH);
			if (lock >= 0)
				close(lock);
			waited = true;
			in_class = free_left = busy = 0;
			grow_by = grow_batch[c];
			goto rescan;
		}
	}
	free(all);
	if (err)
		return err;
	if (pick < 0)
		return pool_grow(enf, c, grow_by, cgid, ret_slot, note);
	*ret_slot = (uint32_t)pick;
	if (pick != dirty)
		return 0;
	t0 = now_ms();
	err = slot_empty(enf, (uint32_t)pick, NULL, SIZE_MAX, &n);
	if (note) {
		note->cleaned += n;
		note->clean_ms += now_ms() - t0;
	}
	return err;
}

/* Fds of slot i's inner maps (-1: that outer map is not there); a missing
 * one (a slot grown half-way, or the LSM object added after the slot was
 * made) is made and written into its outer map here. */
static int slot_fds(const struct rf_enforcer *enf, uint32_t i, uint32_t c, int fds[SB_KINDS],
		    struct sbmaps_note *note)
{
	int k, err = 0;

	for (k = 0; k < SB_KINDS; k++)
		fds[k] = -1;
	for (k = 0; !err && k < SB_KINDS; k++) {
		if (!outer_present(enf, k))
			continue;
		fds[k] = slot_inner_fd(enf, i, k);
		if (fds[k] == -ENOENT) {
			err = outer_fill(enf, k, &i, &c, 1, note ? &note->outer_writes : &(unsigned){0});
			fds[k] = err ? -1 : slot_inner_fd(enf, i, k);
		}
		if (!err && fds[k] < 0)
			err = fds[k];
	}
	return err;
}

static void fds_close(int fds[SB_KINDS])
{
	int k;

	for (k = 0; k < SB_KINDS; k++)
		if (fds[k] >= 0)
			close(fds[k]);
}

/* Give slot i back from cgid (a no-op when it is not cgid's): emptied
 * here up to budget keys, then FREE (0); with more left, DIRTY (1). */
static int slot_release(const struct rf_enforcer *enf, uint32_t i, uint64_t cgid, size_t budget,
			size_t *ret_n)
{
	struct rf_slot s;
	int have[SB_KINDS], lock, err;
	size_t n = 0;

	held_take(i, have);
	lock = slots_lock();
	if (lock < 0) {
		fds_close(have);
		return lock;
	}
	err = slot_read(enf, i, &s);
	if (!err && (s.state != RF_SLOT_OWNED || s.cgid != cgid)) {
		close(lock);
		fds_close(have);
		return 0;
	}
	if (!err) {
		/* from here on the programs find no owner: no rules in it */
		s = busy_slot(s.class);
		err = slot_write(enf, i, &s);
	}
	close(lock);
	if (err) {
		fds_close(have);
		return err;
	}
	err = slot_empty(enf, i, have, budget, &n);
	fds_close(have);
	if (ret_n)
		*ret_n += n;
	s = (struct rf_slot){ .state = err ? RF_SLOT_DIRTY : RF_SLOT_FREE, .class = s.class };
	lock = slots_lock();
	if (lock < 0)
		return lock;
	slot_write(enf, i, &s);
	close(lock);
	return err == -E2BIG ? 1 : err;
}

int sbmaps__pool_free(const struct rf_enforcer *enf, uint32_t c)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all));
	size_t i, nall = 0;
	int lock, err, n = 0;

	if (!all)
		return -ENOMEM;
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, false, &nall);
	if (lock >= 0)
		close(lock);
	for (i = 0; !err && i < nall; i++)
		n += all[i].class == c && all[i].state == RF_SLOT_FREE;
	free(all);
	return err ? err : n;
}

/* A detached helper (the grower, the cleaner): none of the supervisor's
 * fds (a copy of its observe lock would keep the tracepoints attached, one
 * of its pipes an end open), the pinned maps opened afresh into *enf, one
 * helper of its kind at a time (lock_name, held till it exits; NB: a
 * second one is not needed). Exits when it cannot. */
static void detached_open(uint32_t features, const char *lock_name, int lock_op,
			  struct rf_enforcer *enf)
{
	int k, lock, fd;

	syscall(SYS_close_range, 0, ~0U, 0);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd == 0) {
		dup2(0, 1);
		dup2(0, 2);
	}
	*enf = (struct rf_enforcer){ .features = features, .live_lock_fd = -1 };
	for (k = 0; k < RF_PIN_MAP_MAX; k++)
		enf->map_fd[k] = -1;
	for (k = 0; k < RF_OBS_GROUP_MAX; k++)
		enf->obs_lock_fd[k] = -1;
	lock = runlock__take(lock_name, lock_op);
	if (lock < 0 || rf_pins__open_maps(features, enf->map_fd))
		_exit(lock < 0 ? 0 : 1);
}

/* The grower: the pool grown only if it is still low. */
static void __attribute__((noreturn)) top_up_child(uint32_t features, uint32_t c, unsigned n)
{
	struct rf_enforcer enf;
	int k;

	detached_open(features, "grow.lock", LOCK_EX | LOCK_NB, &enf);
	k = sbmaps__pool_free(&enf, c);
	if (k >= 0 && (unsigned)k < low_water[c] && pool_grow(&enf, c, n, 0, NULL, NULL))
		_exit(1);
	_exit(0);
}

/* One DIRTY (or abandoned BUSY) slot marked BUSY by this process: its
 * index, or -1 when there is none. */
static long dirty_take(const struct rf_enforcer *enf, uint32_t *ret_class)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all)), s;
	size_t i, nall = 0;
	long pick = -1;
	int lock, err;

	if (!all)
		return -1;
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, false, &nall);
	for (i = 0; !err && pick < 0 && i < nall; i++)
		if (all[i].state == RF_SLOT_DIRTY)
			pick = (long)i;
	if (pick >= 0) {
		*ret_class = all[pick].class;
		s = busy_slot(all[pick].class);
		if (slot_write(enf, (uint32_t)pick, &s))
			pick = -1;
	}
	if (lock >= 0)
		close(lock);
	if (!err && pick < 0) {
		s = busy_slot(0);
		pick = busy_dead_take(enf, all, nall, -1, &s);
		if (pick >= 0)
			*ret_class = all[pick].class;
	}
	free(all);
	return pick;
}

/* The cleaner: every DIRTY slot emptied and FREE again, one at a time
 * (marked BUSY meanwhile: no taker picks it; if the cleaner dies, it is
 * DIRTY again to them, busy_dead). */
static void __attribute__((noreturn)) clean_child(uint32_t features)
{
	struct rf_enforcer enf;
	struct rf_slot s;
	uint32_t c = 0;
	long i;
	size_t n = 0;

	detached_open(features, "clean.lock", LOCK_EX, &enf);
	while ((i = dirty_take(&enf, &c)) >= 0) {
		int err = slot_empty(&enf, (uint32_t)i, NULL, SIZE_MAX, &n), lock;

		s = (struct rf_slot){ .state = err ? RF_SLOT_DIRTY : RF_SLOT_FREE, .class = c };
		lock = slots_lock();
		slot_write(&enf, (uint32_t)i, &s);
		if (lock >= 0)
			close(lock);
		if (err)
			_exit(1);
	}
	_exit(0);
}

/* Run fn in a process that is nobody's child to wait for (forked twice). */
static int spawn_detached(void (*fn)(uint32_t, uint32_t, unsigned), uint32_t features,
			  uint32_t c, unsigned n)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		held_forget();
		pid = fork();
		if (pid == 0)
			fn(features, c, n);
		_exit(pid < 0 ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -ECHILD;
}

static void clean_fn(uint32_t features, uint32_t c, unsigned n)
{
	(void)c;
	(void)n;
	clean_child(features);
}

int sbmaps__top_up_async(const struct rf_enforcer *enf, const struct sbmaps_note *n)
{
	if (!enf || !n || !n->top_up)
		return 0;
	return spawn_detached(top_up_child, enf->features, n->top_up_class, n->top_up);
}

int sbmaps__pool_fill(const struct rf_enforcer *enf, unsigned min_free)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all));
	__u32 *idx = malloc(RF_MAX_SANDBOXES * sizeof(*idx));
	uint32_t *cls = malloc(RF_MAX_SANDBOXES * sizeof(*cls));
	unsigned writes = 0, free_0 = 0;
	size_t i, n, nall = 0;
	int lock, err, k;

	if (!all || !idx || !cls || enf->map_fd[RF_PIN_SLOTS] < 0) {
		err = !all || !idx || !cls ? -ENOMEM : -ENOENT;
		goto cleanup;
	}
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, false, &nall);
	if (lock >= 0)
		close(lock);
	/* slots made before an outer map was there (the LSM object added to
	 * the pinned set later): their inner maps of it */
	for (k = 0; !err && k < SB_KINDS; k++) {
		if (!outer_present(enf, k))
			continue;
		for (i = 0, n = 0; i < nall; i++) {
			int fd;

			if (all[i].state == RF_SLOT_EMPTY || all[i].state == RF_SLOT_BUSY)
				continue;
			fd = slot_inner_fd(enf, (uint32_t)i, k);
			if (fd >= 0) {
				close(fd);
				continue;
			}
			idx[n] = (__u32)i;
			cls[n++] = all[i].class;
		}
		err = n ? outer_fill(enf, k, idx, cls, n, &writes) : 0;
	}
	for (i = 0; !err && i < nall; i++)
		free_0 += all[i].state == RF_SLOT_FREE && all[i].class == 0;
	if (!err && free_0 < min_free)
		err = pool_grow(enf, 0, min_free - free_0, 0, NULL, NULL);
cleanup:
	free(all);
	free(idx);
	free(cls);
	return err;
}

/* The sandbox's slot: -ENOENT when it has none. */
static int sb_slot(const struct rf_enforcer *enf, uint64_t cgid, struct rf_sb_slot *ret)
{
	if (enf->map_fd[RF_PIN_SB_SLOTS] < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(enf->map_fd[RF_PIN_SB_SLOTS], &cgid, ret) ? -errno : 0;
}

/* An fd of sandbox cgid's inner map of kind k: -ENOENT when it has none. */
static int inner_fd(const struct rf_enforcer *enf, uint64_t cgid, enum sb_kind k)
{
	struct rf_sb_slot ref;
	int err = sb_slot(enf, cgid, &ref);

	return err ? err : slot_inner_fd(enf, ref.slot, k);
}

/* A slot of the policy's class for cgid, filled with its keys, named in
 * rf_sb_slots. *ret_map: the map that failed; *ret_slot: the slot taken
 * (UINT32_MAX: none). */
static int install_inner(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
			 const struct rf_net_entry *entries, size_t n_entries,
			 const struct rf_policy *policy, const char **ret_map, uint32_t *ret_slot,
			 struct sbmaps_note *note)
{
	struct rf_path_entry *paths = NULL;
	struct writer w[SB_KINDS];
	struct rf_sb_slot ref;
	int fds[SB_KINDS];
	size_t n[SB_KINDS];
	int k, err;

	for (k = 0; k < SB_KINDS; k++) {
		w[k] = (struct writer){ .fd = -1 };
		fds[k] = -1;
	}
	err = count_keys(flags, entries, n_entries, policy, &paths, n);
	if (!err && too_big(n, ret_map) >= 0)
		err = -E2BIG;
	ref.class = err ? 0 : class_of(n);
	/* audit keeps up to RF_SAMPLE_LIMIT_AUDIT samples: class 1's room */
	if (!err && (flags & RF_SB_AUDIT) && !ref.class)
		ref.class = 1;
	if (!err) {
		*ret_map = "slots";
		err = slot_claim(enf, cgid, ref.class, ret_slot, note);
	}
	if (!err)
		err = slot_fds(enf, *ret_slot, ref.class, fds, note);
	for (k = 0; !err && k < SB_KINDS; k++)
		if (n[k] && fds[k] >= 0) {
			*ret_map = sbmaps__kind_name(k);
			err = writer_open(&w[k], k, fds[k], n[k]);
		}
	if (!err)
		err = write_keys(cgid, flags, entries, n_entries, policy, paths, n[SB_PATHS], w);
	for (k = 0; !err && k < SB_KINDS; k++) {
		*ret_map = sbmaps__kind_name(k);
		if (w[k].fd >= 0)
			err = writer_flush(&w[k], k);
	}
	if (!err) {
		*ret_map = "sb_slots";
		ref.slot = *ret_slot;
		err = bpf_map_update_elem(enf->map_fd[RF_PIN_SB_SLOTS], &cgid, &ref, BPF_NOEXIST) ?
		      -errno : 0;
	}
	writers_close(w);
	if (!err)
		held_put(*ret_slot, fds);  /* for its removal (held above) */
	fds_close(fds);
	free(paths);
	return err;
}

uint32_t sbmaps__sample_limit(uint32_t flags)
{
	return flags & RF_SB_AUDIT ? RF_SAMPLE_LIMIT_AUDIT : RF_SAMPLE_LIMIT_DEFAULT;
}

int sbmaps__install(const struct rf_enforcer *enf, uint64_t cgid, uint32_t flags,
		    const struct rf_net_entry *entries, size_t n_entries,
		    const struct rf_policy *policy, const char **ret_map,
		    struct sbmaps_note *ret_note)
{
	struct rf_sandbox sb = { .flags = flags, .sample_limit = sbmaps__sample_limit(flags) };
	const char *map = NULL;
	const int *fd = enf->map_fd;
	uint32_t slot = UINT32_MAX;
	int err;

	if (ret_note)
		memset(ret_note, 0, sizeof(*ret_note));
	/* The LSM flags need the LSM object's programs and maps. */
	if ((flags & (PATH_FLAGS | RF_SB_LSM_UNIX | RF_SB_LSM_PROCESS)) &&
	    (!(enf->features & RF_FEAT_LSM) || ((flags & PATH_FLAGS) && fd[RF_PIN_PATHS] < 0)))
		return -EOPNOTSUPP;
	if ((flags & OBSERVE_FLAGS) &&
	    (!(enf->features & RF_FEAT_OBSERVE) || fd[RF_PIN_OBSERVE] < 0))
		return -EOPNOTSUPP;
	err = install_inner(enf, cgid, flags, entries, n_entries, policy, &map, &slot, ret_note);
	if (!err && (flags & OBSERVE_FLAGS)) {
		struct rf_obs_sandbox obs = { 0 };

		map = "observe";
		err = bpf_map_update_elem(fd[RF_PIN_OBSERVE], &cgid, &obs, BPF_NOEXIST) ? -errno : 0;
	}
	/* The programs that found this entry read the slot here, not in
	 * rf_sb_slots (one hash lookup less per decision): the same slot,
	 * which the sandbox keeps for its life. */
	if (!err && slot != UINT32_MAX)
		sb.slot1 = slot + 1;
	if (!err && (map = "sandboxes"))
		err = bpf_map_update_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb, BPF_NOEXIST) ? -errno : 0;
	if (err) {
		sbmaps__remove(enf, cgid);
		if (slot != UINT32_MAX)  /* taken, but not named in rf_sb_slots */
			slot_release(enf, slot, cgid, SIZE_MAX, NULL);
	}
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

/* The sandbox's slot given back: its rf_sb_slots entry deleted (the
 * programs stop finding it), then the slot emptied up to budget keys. */
static int slot_drop(const struct rf_enforcer *enf, uint64_t cgid, size_t budget, size_t *ret_n)
{
	struct rf_sb_slot ref;
	int err, e;

	if (sb_slot(enf, cgid, &ref))
		return 0;
	err = delete_key(enf->map_fd[RF_PIN_SB_SLOTS], &cgid);
	e = slot_release(enf, ref.slot, cgid, budget, ret_n);
	return err ? err : e;
}

int sbmaps__remove(const struct rf_enforcer *enf, uint64_t cgid)
{
	struct rf_sandbox sb = { 0 };
	const int *fd = enf->map_fd;
	int err, e;

	/* Without a sandbox entry the programs treat the cgroup as none of
	 * theirs; it goes first, after the caller killed every process. */
	if (bpf_map_lookup_elem(fd[RF_PIN_SANDBOXES], &cgid, &sb))
		sb.flags = OBSERVE_FLAGS;  /* not known: look for observations too */
	err = delete_key(fd[RF_PIN_SANDBOXES], &cgid);
	/* One delete in rf_sb_slots; no outer map is written. A slot with
	 * more keys than a run's end empties is the cleaner's, off the path
	 * of this run's exit and of the next run's start. */
	e = slot_drop(enf, cgid, CLEAN_NOW_KEYS, NULL);
	if (e == 1)
		e = spawn_detached(clean_fn, enf->features, 0, 0);
	err = err ? err : e;
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

int sbmaps__slot_of(const struct rf_enforcer *enf, uint64_t cgid, uint32_t *ret_slot)
{
	struct rf_sb_slot ref;
	int err = sb_slot(enf, cgid, &ref);

	if (!err)
		*ret_slot = ref.slot;
	return err;
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

/* Write (add) or delete one network entry in the sandbox's map of its
 * kind (every slot has one of each). */
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

/* gc's walk of the pool: the slots of doomed sandboxes given back and
 * emptied whole; with empty_all (a full gc, off every run's path), the
 * DIRTY ones and those of dead BUSY processes emptied too. */
static int pool_purge(const struct rf_enforcer *enf, bool (*doomed)(uint64_t cgid, void *ctx),
		      void *ctx, bool empty_all)
{
	struct rf_slot *all = malloc(RF_MAX_SANDBOXES * sizeof(*all));
	int lock, err = 0, e;
	size_t nall = 0;
	uint32_t i;

	if (!all)
		return -ENOMEM;
	if (enf->map_fd[RF_PIN_SLOTS] < 0)
		goto cleanup;
	lock = slots_lock();
	err = lock < 0 ? lock : slots_read(enf, all, false, &nall);
	if (lock >= 0)
		close(lock);
	for (i = 0; !err && i < nall; i++) {
		struct rf_slot s = all[i];

		if (s.state == RF_SLOT_OWNED && doomed(s.cgid, ctx)) {
			delete_key(enf->map_fd[RF_PIN_SB_SLOTS], &s.cgid);
			e = slot_release(enf, i, s.cgid, SIZE_MAX, NULL);
			err = err ? err : e;
		} else if (empty_all && (s.state == RF_SLOT_DIRTY || busy_dead(&s))) {
			/* taken as a sandbox of none (cgid 0) to empty it */
			struct rf_slot own = { .state = RF_SLOT_OWNED, .class = s.class };

			lock = slots_lock();
			if (lock >= 0 && !slot_read(enf, i, &s) &&
			    (s.state == RF_SLOT_DIRTY || busy_dead(&s)))
				e = slot_write(enf, i, &own);
			else
				e = 1;
			if (lock >= 0)
				close(lock);
			if (!e)
				e = slot_release(enf, i, 0, SIZE_MAX, NULL);
			err = err ? err : (e > 0 ? 0 : e);
		}
	}
cleanup:
	free(all);
	return err;
}

int sbmaps__purge_where(const struct rf_enforcer *enf,
			bool (*doomed)(uint64_t cgid, void *ctx), void *ctx, bool empty_all)
{
	const int *fd = enf->map_fd;
	int err, e;
	size_t i;

	/* rf_sandboxes first: from then on the cgroup is no sandbox; then
	 * the slots (found through their owners before rf_sb_slots goes);
	 * then every other map whose keys carry the sandbox's cgroup id (the
	 * LSM object's only when it is loaded). */
	err = purge_map(fd[RF_PIN_SANDBOXES], rf_pin_maps[RF_PIN_SANDBOXES].key_size, 0, doomed,
			ctx);
	e = pool_purge(enf, doomed, ctx, empty_all);
	err = err ? err : e;
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		if (i == RF_PIN_SANDBOXES || !rf_pin_maps[i].key_size || fd[i] < 0)
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
	/* What a live supervisor takes itself at its end (flows.c): the
	 * ledger's totals and flows, by a walk each. */
	static const enum rf_pin_map ledger[] = { RF_PIN_LEDGER, RF_PIN_FLOWS, RF_PIN_FLOW_NAMES,
						  RF_PIN_UNIX_FLOWS };
	const int *fd = enf->map_fd;
	int err = sbmaps__remove(enf, cgid), e;
	size_t i;

	for (i = 0; i < sizeof(ledger) / sizeof(ledger[0]); i++) {
		if (fd[ledger[i]] < 0)
			continue;
		e = purge_map(fd[ledger[i]], rf_pin_maps[ledger[i]].key_size,
			      rf_pin_maps[ledger[i]].cgid_off, is_cgid, &cgid);
		err = err ? err : e;
	}
	return err;
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
