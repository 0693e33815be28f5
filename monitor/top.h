/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --top: a live terminal view of the sandboxes, their resource use and
 * recent alerts. The running monitor writes a status snapshot every
 * interval (atomically); --top renders it, or, when no monitor runs,
 * runs the monitor itself and renders its state.
 */
#ifndef RF_MON_TOP_H
#define RF_MON_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "detect.h"
#include "metrics.h"

#define RF_MON_STATUS_DEFAULT "/run/ringfence/monitor.status.json"
#define RF_TOP_RECENT 12

/* A snapshot: sandboxes (from the detectors), counters, recent alerts
 * (borrowed array of summaries). New reference. */
json_t *top__status(const struct rf_detect *d, const struct rf_metrics *m, json_t *recent,
		    int64_t wall_ms);
/* The summary of one alert record, for "recent". */
json_t *top__alert_summary(const struct rf_alert *a, int64_t wall_ms);
/* Write a snapshot atomically. */
int top__write(const char *path, json_t *status);
/* One frame. clear: home the cursor and clear the screen first. */
void top__render(FILE *f, json_t *status, bool clear);
/* Render path every second until SIGINT/SIGTERM (once: one frame). */
int top__client(const char *path, bool once);

#endif
