// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The service manager's notifications (service.h), libsystemd's sd_notify. */
#include <time.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "service.h"

static void notify(const char *what, int r)
{
	if (r < 0)
		rf_debug("sd_notify %s: %d", what, r);
}

void service__ready(const char *status)
{
	notify("READY", sd_notifyf(0, "READY=1\nSTATUS=%s", status));
}

void service__reloading(void)
{
	struct timespec ts;

	/* MONOTONIC_USEC: what systemd 253+ wants with RELOADING=1 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	notify("RELOADING", sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
				       (unsigned long long)ts.tv_sec * 1000000ULL +
				       (unsigned long long)ts.tv_nsec / 1000ULL));
}

void service__stopping(void)
{
	notify("STOPPING", sd_notify(0, "STOPPING=1"));
}

void service__watchdog_init(struct rf_watchdog *w, uint64_t now_ns)
{
	uint64_t usec = 0;

	w->usec = sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
	w->last_ns = now_ns;
	if (w->usec)
		rf_info("watchdog: a ping every %llu ms", (unsigned long long)(w->usec / 2000));
}

void service__watchdog_tick(struct rf_watchdog *w, uint64_t now_ns)
{
	if (!w->usec || now_ns - w->last_ns < w->usec * 1000 / 2)
		return;
	w->last_ns = now_ns;
	notify("WATCHDOG", sd_notify(0, "WATCHDOG=1"));
}
