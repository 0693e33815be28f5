// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "pathrules.h"

struct builder {
	struct rf_path_entry *v;
	size_t n, cap;
	size_t dropped;
};

static int add(struct builder *b, const char *bytes, size_t len, bool terminate, uint32_t access)
{
	size_t klen = len + (terminate ? 1 : 0);
	struct rf_path_entry *e;

	if (klen > RF_PATH_KEY_LEN || klen == 0) {
		b->dropped++;
		return 0;
	}
	if (array__reserve((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)))
		return -ENOMEM;
	e = &b->v[b->n++];
	memset(e, 0, sizeof(*e));
	memcpy(e->key, bytes, len);
	e->len = (uint32_t)klen;   /* the terminator is the 0 already there */
	e->access = access;
	return 0;
}

static int add_list(struct builder *b, const struct rf_path_list *list, uint32_t access)
{
	size_t i;
	int err;

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

static int entry_cmp(const void *x, const void *y)
{
	const struct rf_path_entry *a = x, *b = y;
	uint32_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Exact (key, len) in the sorted array, or NULL. */
static const struct rf_path_entry *find(const struct rf_path_entry *v, size_t n,
					const uint8_t *key, uint32_t len)
{
	struct rf_path_entry probe;

	memset(&probe, 0, sizeof(probe));
	memcpy(probe.key, key, len);
	probe.len = len;
	return bsearch(&probe, v, n, sizeof(*v), entry_cmp);
}

int pathrules__build(const struct rf_policy *policy, struct rf_path_entry **ret_entries,
		     size_t *ret_n, size_t *ret_dropped)
{
	struct builder b = { 0 };
	uint32_t *own = NULL;
	size_t i, j, m;
	int err = 0;

	if (policy->files == RF_CONFINE_ALLOWLIST) {
		err = add_list(&b, &policy->files_read, RF_ACC_READ);
		if (!err)
			err = add_list(&b, &policy->files_write, RF_ACC_READ | RF_ACC_WRITE);
	}
	if (!err && policy->exec == RF_CONFINE_ALLOWLIST)
		err = add_list(&b, &policy->exec_paths, RF_ACC_EXEC);
	if (err)
		goto fail;

	/* Sort, merge duplicates. */
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), entry_cmp);
	for (i = 0, m = 0; i < b.n; i++) {
		if (m && !entry_cmp(&b.v[m - 1], &b.v[i]))
			b.v[m - 1].access |= b.v[i].access;
		else
			b.v[m++] = b.v[i];
	}
	b.n = m;

	/* Union with every covering subtree entry: the prefixes that end
	 * at a '/' of the key. Looked up in the bits as written (own[]),
	 * which is the same answer since covering is transitive. */
	own = calloc(b.n ? b.n : 1, sizeof(*own));
	if (!own) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < b.n; i++)
		own[i] = b.v[i].access;
	for (i = 0; i < b.n; i++) {
		struct rf_path_entry *e = &b.v[i];

		for (j = 0; j + 1 < e->len; j++) {
			const struct rf_path_entry *c;

			if (e->key[j] != '/')
				continue;
			c = find(b.v, b.n, e->key, (uint32_t)(j + 1));
			if (c)
				e->access |= own[c - b.v];
		}
	}
	free(own);
	*ret_entries = b.v;
	*ret_n = b.n;
	if (ret_dropped)
		*ret_dropped = b.dropped;
	return 0;
fail:
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

uint32_t pathrules__lookup(const struct rf_path_entry *v, size_t n, const char *path)
{
	uint8_t key[RF_PATH_KEY_LEN];
	size_t len = strlen(path), i;
	const struct rf_path_entry *best = NULL;

	if (len > RF_PATH_MAX)
		return 0;  /* the kernel denies: too long */
	memset(key, 0, sizeof(key));
	memcpy(key, path, len);
	/* The longest entry that is a prefix of path + terminator. */
	for (i = 0; i < n; i++) {
		if (v[i].len > len + 1 || memcmp(v[i].key, key, v[i].len))
			continue;
		if (!best || v[i].len > best->len)
			best = &v[i];
	}
	return best ? best->access : 0;
}
