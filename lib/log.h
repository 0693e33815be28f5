/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Program-level logging for both binaries: "PROG: [kind: ]message" on
 * stderr. Modules return errors; only the edges print them. */
#ifndef RF_LOG_H
#define RF_LOG_H

#include <stdbool.h>

extern int rf_verbosity;  /* 0 quiet, 1 normal, 2 verbose (-v) */

/* prog: the prefix of every line ("ringfence", "ringfence-monitor"). */
void rf_log_init(const char *prog, int verbosity);
void rf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Shown under -q too: what the user must know about this run's record. */
void rf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rf_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rf_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* jansson prints doubles with 17 significant digits; ours are measurements
 * rounded to what they mean, printed with at most 9 (0.515, 12.5). */
#define RF_JSON_REALS JSON_REAL_PRECISION(9)

#endif
