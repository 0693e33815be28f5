/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The service manager that started the monitor (systemd, Type=notify):
 * readiness, reload and stop, and the watchdog, by sd_notify(3). Outside
 * a unit (no NOTIFY_SOCKET, no WATCHDOG_USEC) every call does nothing.
 */
#ifndef RF_MON_SERVICE_H
#define RF_MON_SERVICE_H

#include <stdint.h>

struct rf_watchdog {
	uint64_t usec;      /* WatchdogSec= of the unit; 0: none */
	uint64_t last_ns;   /* CLOCK_BOOTTIME of the last ping */
};

/* READY=1 with a STATUS= line (after start-up, and after a reload). */
void service__ready(const char *status);
/* RELOADING=1: SIGHUP is being handled. */
void service__reloading(void);
/* STOPPING=1: the undos run. */
void service__stopping(void);

/* Whether the unit asks for pings, and how often. */
void service__watchdog_init(struct rf_watchdog *w, uint64_t now_ns);
/* From the loop's timer: a ping every half watchdog period, so a loop that
 * stops turning gets the monitor restarted. */
void service__watchdog_tick(struct rf_watchdog *w, uint64_t now_ns);

#endif
