// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "egress.h"

void egress__init(struct rf_egress *st, uint64_t window_ns)
{
	memset(st, 0, sizeof(*st));
	st->window_ns = window_ns ? window_ns : 1;
}

static uint64_t slot_of(const struct rf_egress *st, uint64_t t_ns)
{
	uint64_t w = st->window_ns / RF_EGRESS_BUCKETS;

	return t_ns / (w ? w : 1);
}

uint64_t egress__sum(const struct rf_egress *st, const struct rf_egress_series *s, uint64_t t_ns)
{
	uint64_t now = slot_of(st, t_ns), sum = 0;
	size_t i;

	/* the buckets of the last RF_EGRESS_BUCKETS slots, this one included */
	for (i = 0; i < RF_EGRESS_BUCKETS; i++)
		if (s->bytes[i] && s->slot[i] + RF_EGRESS_BUCKETS > now && s->slot[i] <= now)
			sum += s->bytes[i];
	return sum;
}

static void series_add(const struct rf_egress *st, struct rf_egress_series *s, uint64_t bytes,
		       uint64_t t_ns)
{
	uint64_t slot = slot_of(st, t_ns);
	size_t b = slot % RF_EGRESS_BUCKETS;

	if (s->slot[b] != slot) {
		s->slot[b] = slot;
		s->bytes[b] = 0;
	}
	s->bytes[b] += bytes;
	if (t_ns > s->last_ns)
		s->last_ns = t_ns;
}

/* The destination of k, made when new; a full table gives the least
 * recently active one. */
static struct rf_egress_dest *dest_get(struct rf_egress *st, const struct rf_flow_key *k)
{
	struct rf_egress_dest *free_d = NULL, *old = NULL;
	size_t i;

	for (i = 0; i < RF_EGRESS_DESTS; i++) {
		struct rf_egress_dest *d = &st->d[i];

		if (!d->used) {
			if (!free_d)
				free_d = d;
			continue;
		}
		if (!memcmp(&d->key, k, sizeof(*k)))
			return d;
		if (!old || d->s.last_ns < old->s.last_ns)
			old = d;
	}
	if (!free_d) {
		free_d = old;
		st->evicted++;
	}
	memset(free_d, 0, sizeof(*free_d));
	free_d->used = true;
	free_d->key = *k;
	return free_d;
}

struct rf_egress_series *egress__add(struct rf_egress *st, const struct rf_flow_key *k,
				     uint64_t bytes, uint64_t t_ns, uint64_t *ret_total,
				     uint64_t *ret_dest)
{
	struct rf_flow_key peer = *k;
	struct rf_egress_dest *d;

	if (!bytes)
		return NULL;
	peer.cgroup_id = 0;
	peer.flags = 0;
	d = dest_get(st, &peer);
	series_add(st, &st->total, bytes, t_ns);
	series_add(st, &d->s, bytes, t_ns);
	*ret_total = egress__sum(st, &st->total, t_ns);
	*ret_dest = egress__sum(st, &d->s, t_ns);
	return &d->s;
}
