/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The run's trace: JSON lines, one object per event (schemas/trace.schema.json). */
#ifndef RF_TRACE_H
#define RF_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <stdbool.h>

#include "rf_abi.h"

struct rf_trace;

/* path NULL: events are formatted and dropped (nothing to write to). */
int trace__open(const char *path, const char *sandbox, struct rf_trace **ret_trace);
void trace__close(struct rf_trace *trace);

/* Adds ts, seq, sandbox, event to fields (stolen) and writes one line.
 * 0, or the first write error (-ENOSPC, -EPIPE, ...): from then on the
 * trace is incomplete and nothing more is written to it. */
int trace__emit(struct rf_trace *trace, const char *event, json_t *fields);
/* Is anything written? (Without --trace, building an event is wasted.) */
bool trace__on(const struct rf_trace *trace);

/* That first write error (0: none) and how many lines were written whole. */
int trace__error(const struct rf_trace *trace, uint64_t *ret_written);

/* RFC 3339 UTC with nanoseconds, e.g. 2026-11-29T10:00:00.123456789Z. */
void trace__format_ts(const struct timespec *ts, char *buf, size_t len);

/* A kernel decision record as trace fields (kernel.deny), with its
 * "backend" and "attribution" ("kernel", or "inferred" for observe.bpf.c's
 * records, RF_EVF_INFERRED). backend NULL: named from the record alone
 * (cgroup-sock-addr or bpf-lsm by the op; inferred: seccomp, landlock). */
json_t *trace__deny_json(const struct rf_event *ev, const char *backend);
json_t *trace__event_json(const struct rf_event *ev);

#endif
