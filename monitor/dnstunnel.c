// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnstunnel.h"
#include "table.h"

/* One suffix: an open-addressing set of name hashes, each with the time
 * it was last seen; live counts those seen within the window as of the
 * last sweep plus the ones added since. */
struct rf_dnst_suffix {
	uint64_t hkey;
	uint64_t last_t;            /* LRU among suffixes */
	uint64_t oldest_t;          /* no entry older: a sweep before it finds nothing */
	uint64_t *h, *t;            /* h 0: empty */
	uint32_t cap, n;
};

double dnst__entropy(const char *s, size_t n)
{
	unsigned int count[256] = { 0 };
	double e = 0;
	size_t i;

	for (i = 0; i < n; i++)
		count[(unsigned char)s[i]]++;
	for (i = 0; n && i < 256; i++) {
		double p = (double)count[i] / (double)n;

		if (count[i])
			e -= p * log2(p);
	}
	return e;
}

static uint32_t slot_of(const struct rf_dnst_suffix *x, uint64_t h)
{
	uint32_t i = (uint32_t)h & (x->cap - 1);

	while (x->h[i] && x->h[i] != h)
		i = (i + 1) & (x->cap - 1);
	return i;
}

/* Rebuild at cap entries, keeping those seen at or after keep_from. */
static int rebuild(struct rf_dnst_suffix *x, uint32_t cap, uint64_t keep_from)
{
	uint64_t *h = calloc(cap, sizeof(*h)), *t = calloc(cap, sizeof(*t));
	struct rf_dnst_suffix nx = { .h = h, .t = t, .cap = cap, .oldest_t = UINT64_MAX };
	uint32_t i, j;

	if (!h || !t) {
		free(h);
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < x->cap; i++) {
		if (!x->h[i] || x->t[i] < keep_from)
			continue;
		j = slot_of(&nx, x->h[i]);
		nx.h[j] = x->h[i];
		nx.t[j] = x->t[i];
		nx.n++;
		if (x->t[i] < nx.oldest_t)
			nx.oldest_t = x->t[i];
	}
	free(x->h);
	free(x->t);
	x->h = nx.h;
	x->t = nx.t;
	x->cap = cap;
	x->n = nx.n;
	x->oldest_t = nx.oldest_t;
	return 0;
}

static struct rf_dnst_suffix *suffix_get(struct rf_dnst *st, uint64_t hkey, uint64_t t)
{
	struct rf_dnst_suffix *x;
	size_t i, lru = 0;

	for (i = 0; i < RF_DNST_SUFFIXES; i++) {
		if (st->s[i] && st->s[i]->hkey == hkey)
			return st->s[i];
		if (!st->s[i] || (st->s[lru] && st->s[i]->last_t < st->s[lru]->last_t))
			lru = i;
	}
	x = st->s[lru];
	if (x) {
		free(x->h);
		free(x->t);
		memset(x, 0, sizeof(*x));
	} else {
		x = calloc(1, sizeof(*x));
		if (!x)
			return NULL;
		st->s[lru] = x;
	}
	x->hkey = hkey;
	x->last_t = t;
	if (rebuild(x, 64, 0)) {
		free(x);
		st->s[lru] = NULL;
		return NULL;
	}
	return x;
}

/* The name's hash seen at t: the distinct names within the window, and
 * whether it is new in it. */
static int names_add(struct rf_dnst_suffix *x, uint64_t h, uint64_t t, uint64_t window_ns,
		     uint64_t limit, uint64_t *ret, bool *ret_new)
{
	uint64_t from = t > window_ns ? t - window_ns : 0;
	uint32_t i;

	h |= 1;                     /* 0 marks an empty slot */
	i = slot_of(x, h);
	*ret_new = false;
	if (x->h[i] && x->t[i] >= from) {
		x->t[i] = t;
		*ret = x->n;
		return 0;
	}
	*ret_new = true;
	if (!x->h[i] || x->n + 1 > limit) {
		/* a new name (or one back after its window): over the limit
		 * only if the names that count are still in the window */
		if (x->oldest_t < from && rebuild(x, x->cap, from))
			return -ENOMEM;
		if (x->n + 1 > x->cap / 2 && x->cap < 2 * RF_DNST_NAMES_MAX &&
		    rebuild(x, x->cap * 2, from))
			return -ENOMEM;
		i = slot_of(x, h);
	}
	if (!x->h[i]) {
		if (x->n >= RF_DNST_NAMES_MAX) {
			*ret = x->n;        /* held at the bound */
			return 0;
		}
		x->n++;
	}
	x->h[i] = h;
	x->t[i] = t;
	if (t < x->oldest_t)
		x->oldest_t = t;
	*ret = x->n;
	return 0;
}

/* The labels of name[0..end): the longest, or the most random-looking. */
static void labels_judge(const char *name, size_t end, const struct rf_dnst_limits *lim,
			 struct rf_dnst_result *ret)
{
	size_t a = 0, b;

	while (a < end) {
		const char *dot = memchr(name + a, '.', end - a);
		double e;

		b = dot ? (size_t)(dot - name) : end;
		e = b - a >= RF_DNST_ENTROPY_MIN_LEN ? dnst__entropy(name + a, b - a) : 0;
		if ((b - a > lim->label_len || e >= RF_DNST_ENTROPY_BITS) &&
		    b - a > ret->label_len) {
			ret->label_odd = true;
			ret->label_long = b - a > lim->label_len;
			ret->label_len = (uint32_t)(b - a);
			ret->entropy = e ? e : dnst__entropy(name + a, b - a);
			memcpy(ret->label, name + a, b - a < sizeof(ret->label) - 1 ? b - a :
			       sizeof(ret->label) - 1);
			ret->label[b - a < sizeof(ret->label) - 1 ? b - a : sizeof(ret->label) - 1] = 0;
		}
		a = b + 1;
	}
}

int dnst__add(struct rf_dnst *st, const char *name, size_t suffix_off, uint64_t t_ns,
	      const struct rf_dnst_limits *lim, struct rf_dnst_result *ret)
{
	size_t n = strlen(name), end = suffix_off < n ? suffix_off : n;
	const char *suffix = suffix_off < n ? name + suffix_off : name;
	uint64_t limit = lim->names < RF_DNST_NAMES_MAX ? lim->names : RF_DNST_NAMES_MAX - 1;
	struct rf_dnst_suffix *x;
	bool fresh;
	int err;

	memset(ret, 0, sizeof(*ret));
	x = suffix_get(st, rf_hash64(suffix, strlen(suffix), RF_HASH_SEED), t_ns);
	if (!x)
		return -ENOMEM;
	x->last_t = t_ns;
	err = names_add(x, rf_hash64(name, n, RF_HASH_SEED), t_ns, lim->window_ns, limit,
			&ret->distinct, &fresh);
	if (err)
		return err;
	ret->names_over = fresh && ret->distinct > limit;
	/* a name asked again carries nothing new */
	if (fresh)
		labels_judge(name, end, lim, ret);
	return 0;
}

void dnst__free(struct rf_dnst *st)
{
	size_t i;

	for (i = 0; i < RF_DNST_SUFFIXES; i++) {
		if (!st->s[i])
			continue;
		free(st->s[i]->h);
		free(st->s[i]->t);
		free(st->s[i]);
		st->s[i] = NULL;
	}
}
