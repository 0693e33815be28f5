/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The supervisors' pinned ring buffers of decisions (RF_PIN_DIR/<set>/
 * events) and their counters (.../stats), of every pinned set (pins.h:
 * one per build; two while an upgrade's old sandboxes end). The monitor
 * is their only consumer. Until a sandbox has run nothing is pinned:
 * attach is retried. When a set comes or goes, attach again follows the
 * sets pinned then.
 */
#ifndef RF_MON_EVENTS_H
#define RF_MON_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>

struct rf_decisions;

struct rf_decisions *decisions__new(ring_buffer_sample_fn fn, void *ctx);
void decisions__free(struct rf_decisions *d);
/* 0 attached now to the sets pinned now (the lost counter carried over),
 * 1 already attached to exactly them, -ENOENT nothing pinned, -ESTALE
 * only sets of another ABI, or -errno (then detached). */
int decisions__attach(struct rf_decisions *d);
bool decisions__attached(const struct rf_decisions *d);
/* The pinned sets are no longer those attached (one came, went or was
 * replaced). */
bool decisions__replaced(const struct rf_decisions *d);
void decisions__detach(struct rf_decisions *d);
/* How many sets are followed. */
size_t decisions__sets(const struct rf_decisions *d);
int decisions__epoll_fd(const struct rf_decisions *d);   /* -1 detached */
int decisions__poll(struct rf_decisions *d);
/* RF_STAT_RINGBUF_LOST summed over CPUs and the followed sets: with one
 * set its counter; it never goes back as sets come and go (a set met
 * first adds its whole counter: lost since it was loaded). */
int decisions__lost(struct rf_decisions *d, uint64_t *ret);
/* The identity of that counter for the saved state: the stats map id of
 * the oldest set attached first (a monitor restarted over the same sets
 * finds it again). */
uint32_t decisions__stats_id(const struct rf_decisions *d);
/* inotify on bpffs: readable when pinned objects come or go. */
int decisions__notify_fd(const struct rf_decisions *d);
/* Drain it; true when something changed (check attach again). */
bool decisions__notified(struct rf_decisions *d);

#endif
