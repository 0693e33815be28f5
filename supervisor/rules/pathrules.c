// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/heap.h"
#include "pathrules.h"

/*
 * An entry while it is built: its key bytes are path[0..plen) followed
 * by a 0 byte when the key is longer (klen = plen + 1: an exact entry);
 * no 256-byte key is written until the output, and sorting moves 24 bytes.
 */
struct ref {
	const char *path;
	uint32_t plen, klen;
	uint32_t access;
};

struct builder {
	struct ref *v;
	size_t n, cap;
	size_t dropped;
};

static int add(struct builder *b, const char *path, size_t plen, bool terminate,
	       uint32_t access)
{
	size_t klen = plen + (terminate ? 1 : 0);

	if (klen > RF_PATH_KEY_LEN || klen == 0) {
		b->dropped++;
		return 0;
	}
	if (array__reserve((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)))
		return -ENOMEM;
	b->v[b->n++] = (struct ref){ path, (uint32_t)plen, (uint32_t)klen, access };
	return 0;
}

static int add_list(struct builder *b, const struct rf_path_list *list, uint32_t access)
{
	size_t i;
	int err;

	/* one growth for the whole list (a subtree may add a second key) */
	if (array__reserve((void **)&b->v, &b->cap, b->n + list->n, sizeof(*b->v)))
		return -ENOMEM;
	for (i = 0; i < list->n; i++) {
		const char *p = list->v[i].path;
		size_t len = strlen(p);

		if (len == 0)
			continue;
		if (list->v[i].subtree && p[len - 1] == '/') {
			err = add(b, p, len, false, access);
			/* the directory itself, unless it is "/" (the prefix
			 * "/" already covers the lookup "/\0") */
			if (!err && len > 1)
				err = add(b, p, len - 1, true, access);
		} else {
			err = add(b, p, len, true, access);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Key byte i of r (i < r->klen). */
static uint8_t key_byte(const struct ref *r, uint32_t i)
{
	return i < r->plen ? (uint8_t)r->path[i] : 0;
}

/* The order of the keys as bytes, a shorter key before its extensions
 * (memcmp of the common length, then the length). */
static int ref_cmp(const void *x, const void *y)
{
	const struct ref *a = x, *b = y;
	uint32_t n = a->klen < b->klen ? a->klen : b->klen;
	uint32_t m = a->plen < b->plen ? a->plen : b->plen;
	uint32_t i;
	int c;

	if (m > n)
		m = n;
	c = memcmp(a->path, b->path, m);
	if (c)
		return c;
	for (i = m; i < n; i++)
		if (key_byte(a, i) != key_byte(b, i))
			return key_byte(a, i) < key_byte(b, i) ? -1 : 1;
	return a->klen < b->klen ? -1 : a->klen > b->klen;
}

/* The access bits as written of the subtree key path[0..len) (len: up
 * to and with a '/'), 0 when there is none. subs: the subtree keys, sorted. */
static uint32_t subtree_bits(const struct ref *subs, size_t ns, const char *path, uint32_t len)
{
	struct ref probe = { path, len, len, 0 };
	const struct ref *c = bsearch(&probe, subs, ns, sizeof(*subs), ref_cmp);

	return c ? c->access : 0;
}

/* Sort, merge duplicates (their bits or'ed). */
static void sort_merge(struct builder *b)
{
	size_t i, m;

	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), ref_cmp);
	for (i = 0, m = 0; i < b->n; i++) {
		if (m && !ref_cmp(&b->v[m - 1], &b->v[i]))
			b->v[m - 1].access |= b->v[i].access;
		else
			b->v[m++] = b->v[i];
	}
	b->n = m;
}

/* The output: every entry with the union of the subtree entries covering
 * it (the prefixes that end at a '/' of its key), looked up in the bits
 * as written, which is the same answer since covering is transitive.
 * Only subtree keys (no terminator, ending in '/') can cover one. */
static int emit(const struct builder *b, struct rf_path_entry **ret_entries)
{
	struct rf_path_entry *out = heap__alloc(b->n * sizeof(*out));
	struct ref *subs = malloc((b->n ? b->n : 1) * sizeof(*subs));
	size_t ns = 0, i;
	uint32_t j;

	if (!out || !subs) {
		free(out);
		free(subs);
		return -ENOMEM;
	}
	for (i = 0; i < b->n; i++)
		if (b->v[i].klen == b->v[i].plen)
			subs[ns++] = b->v[i];   /* still sorted */
	for (i = 0; i < b->n; i++) {
		const struct ref *r = &b->v[i];
		uint32_t access = r->access;

		for (j = 0; ns && j + 1 < r->klen; j++)
			if (key_byte(r, j) == '/')
				access |= subtree_bits(subs, ns, r->path, j + 1);
		/* each entry written once, zeros after the key included */
		memcpy(out[i].key, r->path, r->plen);
		memset(out[i].key + r->plen, 0, sizeof(out[i].key) - r->plen);
		out[i].len = r->klen;
		out[i].access = access;
	}
	free(subs);
	*ret_entries = out;
	return 0;
}

int pathrules__build(const struct rf_policy *policy, struct rf_path_entry **ret_entries,
		     size_t *ret_n, size_t *ret_dropped)
{
	struct builder b = { 0 };
	int err = 0;

	if (policy->files == RF_CONFINE_ALLOWLIST) {
		err = add_list(&b, &policy->files_read, RF_ACC_READ);
		if (!err)
			err = add_list(&b, &policy->files_write, RF_ACC_READ | RF_ACC_WRITE);
	}
	if (!err && policy->exec == RF_CONFINE_ALLOWLIST)
		err = add_list(&b, &policy->exec_paths, RF_ACC_EXEC);
	if (!err) {
		sort_merge(&b);
		err = emit(&b, ret_entries);
	}
	if (!err) {
		*ret_n = b.n;
		if (ret_dropped)
			*ret_dropped = b.dropped;
	}
	free(b.v);
	return err;
}

void pathrules__key(const struct rf_path_entry *entry, uint64_t cgid, struct rf_path_key *key)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 64 + 8 * entry->len;
	key->cgroup_id = cgid;
	memcpy(key->path, entry->key, entry->len);
}

/* The entry whose key is exactly key[0..len), or NULL: a binary search
 * in build order (key bytes, a shorter key before its extensions). */
static const struct rf_path_entry *find(const struct rf_path_entry *v, size_t n,
					const uint8_t *key, uint32_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t m = v[mid].len < len ? v[mid].len : len;
		int c = memcmp(v[mid].key, key, m);

		if (!c)
			c = v[mid].len < len ? -1 : v[mid].len > len;
		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Only two kinds of key can be a prefix of path + terminator: the exact
 * key of path itself, and the subtree keys path[0..j] at each '/' j (a
 * subtree key ends at its '/', an exact one at its 0 byte, and a path has
 * no 0 byte). So the longest match is the first of those, longest first,
 * that is an entry: a binary search each, O(depth * log n) per lookup.
 */
uint32_t pathrules__lookup(const struct rf_path_entry *v, size_t n, const char *path)
{
	uint8_t key[RF_PATH_KEY_LEN];
	size_t len = strlen(path), j;
	const struct rf_path_entry *hit;

	if (len > RF_PATH_MAX)
		return 0;  /* the kernel denies: too long */
	memcpy(key, path, len);
	key[len] = 0;
	hit = find(v, n, key, (uint32_t)len + 1);
	for (j = len; !hit && j-- > 0;)
		if (key[j] == '/')
			hit = find(v, n, key, (uint32_t)j + 1);
	return hit ? hit->access : 0;
}
