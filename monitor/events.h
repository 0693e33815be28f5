/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The supervisor's pinned ring buffer of decisions (RF_PIN_DIR/events) and
 * its counters (RF_PIN_DIR/stats). The monitor is its only consumer. Until
 * a sandbox has run nothing is pinned: attach is retried. When the pinned
 * set is replaced (unload, another build), the new one is attached.
 */
#ifndef RF_MON_EVENTS_H
#define RF_MON_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>

struct rf_decisions;

struct rf_decisions *decisions__new(ring_buffer_sample_fn fn, void *ctx);
void decisions__free(struct rf_decisions *d);
/* 0 attached now, 1 already attached to the pinned set, -ENOENT nothing
 * pinned, -ESTALE another ABI, or -errno. */
int decisions__attach(struct rf_decisions *d);
bool decisions__attached(const struct rf_decisions *d);
/* The pinned set is no longer the one attached (or gone). */
bool decisions__replaced(const struct rf_decisions *d);
void decisions__detach(struct rf_decisions *d);
int decisions__epoll_fd(const struct rf_decisions *d);   /* -1 detached */
int decisions__poll(struct rf_decisions *d);
/* RF_STAT_RINGBUF_LOST of the attached set, summed over CPUs. */
int decisions__lost(const struct rf_decisions *d, uint64_t *ret);
uint32_t decisions__stats_id(const struct rf_decisions *d);  /* map id */
/* inotify on bpffs: readable when pinned objects come or go. */
int decisions__notify_fd(const struct rf_decisions *d);
/* Drain it; true when something changed (check attach again). */
bool decisions__notified(struct rf_decisions *d);

#endif
