// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "registry_fill.h"

static struct rf_reg_u64 opt(const struct rf_opt_u64 *v)
{
	return (struct rf_reg_u64){ .set = v->set, .v = v->v };
}

void registry_fill__policy(struct rf_registry_entry *e, const struct rf_policy *p)
{
	const struct rf_monitor *m = &p->monitor;

	memset(&e->monitor, 0, sizeof(e->monitor));
	e->monitor.present = true;
	if (m->present) {
		e->monitor.burst_count = opt(&m->deny_burst_count);
		e->monitor.burst_window_ms = opt(&m->deny_burst_window_ms);
		e->monitor.cpu_percent = opt(&m->cpu_percent);
		e->monitor.memory_mb = opt(&m->memory_mb);
		e->monitor.pids = opt(&m->pids);
		e->monitor.dns_names_count = opt(&m->dns_names_count);
		e->monitor.dns_names_window_ms = opt(&m->dns_names_window_ms);
		e->monitor.dns_label_len = opt(&m->dns_label_len);
		e->monitor.disk_write_mb = opt(&m->disk_write_mb);
		e->monitor.egress_bytes = opt(&m->egress_bytes);
		e->monitor.egress_window_ms = opt(&m->egress_window_ms);
		/* lent: the registry entry never frees the policy's names */
		e->monitor.has_exec = m->has_exec;
		e->monitor.exec = m->exec;
		e->monitor.n_exec = m->n_exec;
		if (m->on_alert != RF_ON_ALERT_ALERT)
			snprintf(e->monitor.on_alert, sizeof(e->monitor.on_alert), "%s",
				 m->on_alert == RF_ON_ALERT_KILL ? "kill" : "freeze");
	}
	memset(&e->syscalls, 0, sizeof(e->syscalls));
	if (!p->syscalls.present)
		return;
	e->syscalls.present = true;
	e->syscalls.alert = p->syscalls.on_violation == RF_VIOLATION_ALERT;
	e->syscalls.allow = p->syscalls.allow;
	e->syscalls.n_allow = p->syscalls.n_allow;
}
