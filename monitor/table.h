/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A fixed-capacity index: 64-bit key -> slot number (open addressing). */
#ifndef RF_MON_TABLE_H
#define RF_MON_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct rf_index {
	uint64_t *keys;
	int32_t *vals;          /* -1 empty, -2 deleted, else the slot */
	size_t cap;             /* power of two, at least 2 x max items */
	size_t used;            /* live + deleted */
	size_t live;
};

int rf_index_init(struct rf_index *ix, size_t max_items);
void rf_index_free(struct rf_index *ix);
/* The slot of key, or -1. */
int32_t rf_index_get(const struct rf_index *ix, uint64_t key);
/* Insert or replace. 0, or -ENOSPC when over the bound given at init. */
int rf_index_put(struct rf_index *ix, uint64_t key, int32_t val);
void rf_index_del(struct rf_index *ix, uint64_t key);

/* FNV-1a, 64 bits. */
uint64_t rf_hash64(const void *p, size_t n, uint64_t h);
#define RF_HASH_SEED 0xcbf29ce484222325ULL

#endif
