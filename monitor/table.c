// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "table.h"

uint64_t rf_hash64(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

int rf_index_init(struct rf_index *ix, size_t max_items)
{
	size_t cap = 16, i;

	memset(ix, 0, sizeof(*ix));
	while (cap < 2 * max_items + 2)
		cap *= 2;
	ix->keys = calloc(cap, sizeof(*ix->keys));
	ix->vals = malloc(cap * sizeof(*ix->vals));
	if (!ix->keys || !ix->vals) {
		rf_index_free(ix);
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		ix->vals[i] = -1;
	ix->cap = cap;
	return 0;
}

void rf_index_free(struct rf_index *ix)
{
	free(ix->keys);
	free(ix->vals);
	memset(ix, 0, sizeof(*ix));
}

int32_t rf_index_get(const struct rf_index *ix, uint64_t key)
{
	size_t m = ix->cap - 1, i = mix(key) & m, n;

	for (n = 0; n < ix->cap; n++, i = (i + 1) & m) {
		if (ix->vals[i] == -1)
			return -1;
		if (ix->vals[i] >= 0 && ix->keys[i] == key)
			return ix->vals[i];
	}
	return -1;
}

/* Drop the deleted markers: same arrays, re-inserted in place. */
static void rehash(struct rf_index *ix)
{
	size_t cap = ix->cap, i, m = cap - 1;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	int32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return;
	}
	memcpy(keys, ix->keys, cap * sizeof(*keys));
	memcpy(vals, ix->vals, cap * sizeof(*vals));
	for (i = 0; i < cap; i++)
		ix->vals[i] = -1;
	ix->used = ix->live = 0;
	for (i = 0; i < cap; i++) {
		size_t j;

		if (vals[i] < 0)
			continue;
		for (j = mix(keys[i]) & m; ix->vals[j] != -1; j = (j + 1) & m)
			;
		ix->keys[j] = keys[i];
		ix->vals[j] = vals[i];
		ix->used++;
		ix->live++;
	}
	free(keys);
	free(vals);
}

int rf_index_put(struct rf_index *ix, uint64_t key, int32_t val)
{
	size_t m = ix->cap - 1, i = mix(key) & m, n;
	ssize_t free_at = -1;

	for (n = 0; n < ix->cap; n++, i = (i + 1) & m) {
		if (ix->vals[i] == -1)
			break;
		if (ix->vals[i] == -2) {
			if (free_at < 0)
				free_at = (ssize_t)i;
			continue;
		}
		if (ix->keys[i] == key) {
			ix->vals[i] = val;
			return 0;
		}
	}
	if (ix->live + 1 > ix->cap / 2)
		return -ENOSPC;
	if (free_at < 0) {
		if (n == ix->cap)
			return -ENOSPC;
		free_at = (ssize_t)i;
		ix->used++;
	}
	ix->keys[free_at] = key;
	ix->vals[free_at] = val;
	ix->live++;
	if (ix->used > ix->cap * 3 / 4)
		rehash(ix);
	return 0;
}

void rf_index_del(struct rf_index *ix, uint64_t key)
{
	size_t m = ix->cap - 1, i = mix(key) & m, n;

	for (n = 0; n < ix->cap; n++, i = (i + 1) & m) {
		if (ix->vals[i] == -1)
			return;
		if (ix->vals[i] >= 0 && ix->keys[i] == key) {
			ix->vals[i] = -2;
			ix->live--;
			return;
		}
	}
}
