/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's connection ledger (bpf/rf_ledger.bpf.h) as FLOW inputs:
 * every interval the rf_flows map of each pinned set is read, and each
 * destination whose counts moved since its previous record becomes one
 * record carrying what is new (so the records' counts add up to the
 * kernel's totals, none counted twice). At the end of a run the
 * supervisor hands each flow's last counts over (RF_EV_FLOW, before it
 * deletes them): that is the flow's final record, always written.
 */
#ifndef RF_MON_FLOWWATCH_H
#define RF_MON_FLOWWATCH_H

#include <stddef.h>
#include <stdint.h>
#include "input.h"

/* Flows followed at once: one set's rf_flows holds RF_LEDGER_FLOWS. */
#define RF_FLOWWATCH_MAX 65536
/* A flow not seen in any map for this many reads (and not ended) is
 * forgotten: its set is gone. */
#define RF_FLOWWATCH_MISSES 10

struct rf_flowwatch;
typedef void (*rf_flow_fn)(const struct rf_input *in, void *ctx);

int flowwatch__new(size_t max, struct rf_flowwatch **ret);
void flowwatch__free(struct rf_flowwatch *fw);

/* One FLOW record per flow of a flows map fd and a unix flows map unix_fd
 * (names: its flow_names map, ledger: its ledger map, which says whose
 * unix bytes are counted; any -1: none) that is new or moved, at
 * t_ns (a unix peer's name in the record's name). Reading every pinned set is
 * flowwatch__poll's; this is its one-map part (tests give a map of their
 * own). */
void flowwatch__read(struct rf_flowwatch *fw, int flows_fd, int unix_fd, int names_fd,
		     int ledger_fd, uint64_t t_ns, rf_flow_fn fn, void *ctx);
/* Every pinned set's maps (at most 8, as the decisions), then the flows
 * no map had for RF_FLOWWATCH_MISSES reads are forgotten. */
void flowwatch__poll(struct rf_flowwatch *fw, uint64_t t_ns, rf_flow_fn fn, void *ctx);
/* An interval without reading the maps (no consumer): the flows whose
 * final record came are forgotten (no read will miss them now), so the
 * table never fills with runs that ended. */
void flowwatch__idle(struct rf_flowwatch *fw);
/* The supervisor's last counts of a flow: its final FLOW record (what is
 * new since the previous one, maybe nothing). */
void flowwatch__final(struct rf_flowwatch *fw, const struct rf_flow_record *r, uint64_t t_ns,
		      rf_flow_fn fn, void *ctx);
/* Flows the table had no room for (counted as monitor-tables losses). */
uint64_t flowwatch__shed(const struct rf_flowwatch *fw);
size_t flowwatch__size(const struct rf_flowwatch *fw);

#endif
