/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The activity stream's own thread. The drain only copies an activity
 * input (and what the record says of its sandbox) into a bounded ring of
 * slots; a thread of its own renders each record (its kind's writer, from
 * a table) and hands the line to its emitter: --activity, the sinks. So the
 * cost of rendering never bounds the ring-buffer drain: when the thread
 * falls behind, the ring fills and records are dropped, counted. Every
 * record pushed ends rendered (then emitted) or dropped, or is still queued:
 * queued = rendered + dropped + pending, exactly.
 */
#ifndef RF_MON_ACTQ_H
#define RF_MON_ACTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activity.h"
#include "alert.h"
#include "input.h"

/* One record to render. */
struct rf_act_item {
	struct rf_input in;
	struct rf_act_sb sb;
	uint64_t seq;                   /* metadata.sequence */
};

/* Called on the activity thread with each rendered line ('\n' and a NUL
 * after it). */
typedef void (*rf_act_emit_fn)(void *ctx, const char *line, size_t len);
/* Called on the activity thread after every batch and about every 20 ms
 * when idle: flush what the emitter queued; reopen: SIGHUP came. */
typedef void (*rf_act_idle_fn)(void *ctx, bool reopen);

struct rf_actq_stats {
	uint64_t queued;        /* handed to actq__push */
	uint64_t rendered;      /* rendered and emitted */
	uint64_t dropped;       /* the ring was full, or the writer failed */
	uint64_t pending;       /* in the ring now */
};

struct rf_actq;

/* slots: the ring's size (rounded up to a power of two). 0 or -errno. */
int actq__open(size_t slots, int64_t boot_to_real_ns, const struct rf_alert_origin *og,
	       rf_act_emit_fn emit, rf_act_idle_fn idle, void *ctx, struct rf_actq **ret);
/* On the drain (one producer): queue in with its sandbox si (NULL:
 * unknown). false: dropped (ring full, or a kind without a writer), counted. */
bool actq__push(struct rf_actq *q, const struct rf_input *in, const struct rf_sandbox_info *si);
/* Ask the thread to call idle(ctx, true) (SIGHUP). NULL fine. */
void actq__reopen(struct rf_actq *q);
/* Render what is queued, stop the thread, free. NULL fine. */
void actq__close(struct rf_actq *q);
/* From the producer's thread. */
void actq__stats(struct rf_actq *q, struct rf_actq_stats *ret);
/* This thread below the drain: nice + 10 (the activity and sink threads). */
void actq__lower_priority(void);
/* The kinds of input with a writer (the activity stream's record kinds). */
bool actq__kind_known(enum rf_in_type t);

#endif
