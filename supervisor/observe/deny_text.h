/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Denials for humans: one line per decision, from the same record the
 * trace's kernel.deny event is made of, e.g.
 *   denied: exec /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 (not in exec)
 * and the log of one run that `-v` and the exit summary print from.
 */
#ifndef RF_DENY_TEXT_H
#define RF_DENY_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rf_abi.h"

/* A rendered line always fits (a path is shortened to fit, see .c). */
#define RF_DENY_TEXT_LEN 400

/* -v: at most this many lines per second and per run. */
#define RF_DENY_PRINT_PER_SEC 10
#define RF_DENY_PRINT_PER_RUN 50
/* The exit summary lists this many (without -v). */
#define RF_DENY_SUMMARY_FIRST 3

/* ev as one line, without a prefix or newline; control bytes escaped. */
void deny_text__format(const struct rf_event *ev, char *buf, size_t size);

struct deny_log {
	uint64_t seen;               /* records passed to deny_log__add */
	uint64_t printed;            /* lines -v printed */
	uint64_t win_start_ms;       /* the current one-second window */
	unsigned int win_printed;    /* lines printed in it */
	unsigned int n_first;
	char first[RF_DENY_SUMMARY_FIRST][RF_DENY_TEXT_LEN];
};

/* Note one record; print it now (rf_info) when verbose and the limits
 * allow. now_ms: any monotonic clock in milliseconds. */
void deny_log__add(struct deny_log *l, const struct rf_event *ev, bool verbose,
		   uint64_t now_ms);

/* After the exit summary: with -v the count of lines not printed, else
 * the first few. unkept: denials the kernel counted but never recorded
 * (they never reached deny_log__add). Quiet (-q): nothing. */
void deny_log__finish(const struct deny_log *l, bool verbose, uint64_t unkept);

#endif
