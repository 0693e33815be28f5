/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* RFC 3339 UTC timestamps, as the trace, the registry and the alerts write them. */
#ifndef RF_TIMEFMT_H
#define RF_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* "2026-12-01T12:34:56.<frac>Z": frac printed with digits digits
 * (3: milliseconds, 9: nanoseconds). */
void timefmt__rfc3339(int64_t sec, long frac, int digits, char *buf, size_t len);

#endif
