/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Alert records out: stdout or a file opened for append (reopened on
 * SIGHUP for log rotation). A bounded queue in front: a reader that does
 * not keep up never blocks the monitor; what does not fit is dropped and
 * counted (hop "output").
 */
#ifndef RF_MON_OUTPUT_H
#define RF_MON_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rf_output;

/* path NULL: stdout. max_bytes: the queue bound. 0 or -errno. */
int output__open(const char *path, size_t max_bytes, struct rf_output **ret);
/* Reopen the file (same path, append): after rotation. 0 or -errno. */
int output__reopen(struct rf_output *o);
void output__close(struct rf_output *o);
/* Queue a line; false when it did not fit (dropped, counted). */
bool output__push(struct rf_output *o, const char *line);
/* Write what the fd takes without blocking; wait_ms > 0: keep trying
 * that long (at exit). */
void output__flush(struct rf_output *o, int wait_ms);
bool output__pending(const struct rf_output *o);
int output__fd(const struct rf_output *o);
uint64_t output__dropped(const struct rf_output *o);

#endif
