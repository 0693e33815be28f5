/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ringfence-monitor's messages on stderr (verbosity of supervisor/log.h). */
#ifndef RF_MON_MLOG_H
#define RF_MON_MLOG_H

void mon_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mon_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mon_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
