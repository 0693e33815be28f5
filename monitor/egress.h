/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Egress volume of one sandbox, pure (time from the records): the payload
 * bytes it sent within a sliding window, in all and to each destination,
 * from the ledger's FLOW records (what each sent since its previous one).
 * The window is kept in RF_EGRESS_BUCKETS buckets (its granularity: a
 * sixteenth of it). Bounded: RF_EGRESS_DESTS destinations per sandbox, the
 * least recently active one makes room (the sandbox's sum is never lost).
 */
#ifndef RF_MON_EGRESS_H
#define RF_MON_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rf_abi.h"

/* Default of monitor.egress_window_ms. */
#define RF_EGRESS_WINDOW_MS_DEFAULT 10000
#define RF_EGRESS_BUCKETS 16
#define RF_EGRESS_DESTS 32

/* Bytes within the window: a ring of buckets. */
struct rf_egress_series {
	uint64_t bytes[RF_EGRESS_BUCKETS];
	uint64_t slot[RF_EGRESS_BUCKETS];   /* which bucket of time each holds */
	uint64_t last_ns;                   /* latest bytes added */
};

struct rf_egress_dest {
	bool used;
	struct rf_flow_key key;     /* cgroup_id and flags cleared: the peer */
	struct rf_egress_series s;
};

struct rf_egress {
	uint64_t window_ns;
	struct rf_egress_series total;
	struct rf_egress_dest d[RF_EGRESS_DESTS];
	uint64_t evicted;           /* destinations that made room */
};

/* A fresh state with this window. */
void egress__init(struct rf_egress *st, uint64_t window_ns);
/* bytes sent to k at t_ns. Returns the destination's series (NULL: bytes
 * 0, nothing changed); *ret_total and *ret_dest: the sums within the
 * window now. */
struct rf_egress_series *egress__add(struct rf_egress *st, const struct rf_flow_key *k,
				     uint64_t bytes, uint64_t t_ns, uint64_t *ret_total,
				     uint64_t *ret_dest);
/* The sum of a series within the window ending at t_ns. */
uint64_t egress__sum(const struct rf_egress *st, const struct rf_egress_series *s,
		     uint64_t t_ns);

#endif
