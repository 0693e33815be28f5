// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alert.h"
#include "cleanup.h"
#include "log.h"
#include "top.h"

static void add_sandbox(const struct rf_sandbox_status *s, void *ctx)
{
	json_t *arr = ctx;

	json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:b, s:b, s:f, s:I, s:I, s:I, s:I, "
		"s:I, s:{s:I, s:I, s:I}}",
		"sandbox", s->sandbox, "policy_id", s->policy_id,
		"cgroup_id", (json_int_t)s->cgroup_id, "ended", s->ended, "sampled", s->sampled,
		"cpu_percent", (double)(long long)(s->cpu_percent * 10.0 + 0.5) / 10.0, "mem_bytes", (json_int_t)s->mem_bytes,
		"procs", (json_int_t)s->procs, "denials", (json_int_t)s->denials,
		"syscalls_seen", (json_int_t)s->syscalls_seen,
		"open_alerts", (json_int_t)s->open_alerts,
		"thresholds", "cpu_percent", (json_int_t)s->thr_cpu_percent,
		"memory_mb", (json_int_t)s->thr_memory_mb, "pids", (json_int_t)s->thr_pids));
}

json_t *top__status(const struct rf_detect *d, const struct rf_metrics *m, json_t *recent,
		    int64_t wall_ms)
{
	json_t *o, *sbs = json_array(), *lost = json_object(), *table;
	char dt[48];
	int i;

	detect__foreach_sandbox(d, add_sandbox, sbs);
	for (i = 0; i < RF_HOP_MAX; i++)
		json_object_set_new(lost, rf_hop_name((uint32_t)i), json_integer((json_int_t)m->lost[i]));
	alert__format_ms(wall_ms, dt, sizeof(dt));
	table = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
			  "entries", (json_int_t)m->table.entries,
			  "capacity", (json_int_t)m->table.capacity,
			  "shed", (json_int_t)m->table.shed,
			  "ended_removed", (json_int_t)m->table.ended_freed,
			  "idle_removed", (json_int_t)m->table.idle_freed,
			  "cgroups_gone", (json_int_t)m->cgroups_gone);
	o = json_pack("{s:s, s:i, s:I, s:s, s:b, s:I, s:o, s:o, s:o, s:O}",
		      "version", RF_MON_VERSION, "pid", (int)getpid(), "time", (json_int_t)wall_ms,
		      "time_dt", dt, "decisions_attached", m->decisions_attached,
		      "events", (json_int_t)(m->events[RF_EVSRC_DECISION] + m->events[RF_EVSRC_SYSCALL] +
					     m->events[RF_EVSRC_FORK] + m->events[RF_EVSRC_EXEC] +
					     m->events[RF_EVSRC_EXIT]),
		      "lost", lost, "table", table, "sandboxes", sbs, "recent_alerts", recent ? recent : json_null());
	return o;
}

json_t *top__alert_summary(const struct rf_alert *a, int64_t wall_ms)
{
	char dt[48];

	alert__format_ms(wall_ms, dt, sizeof(dt));
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "time_dt", dt,
			 "severity", rf_severity_short(rf_alert_severity(a)),
			 "rule", rf_rule_id(a->rule), "phase", rf_phase_name(a->phase),
			 "sandbox", a->sandbox[0] ? a->sandbox : "-", "key", a->key,
			 "count", (json_int_t)a->count, "uid", a->uid);
}

int top__write(const char *path, json_t *status)
{
	_cleanup_free_ char *text = json_dumps(status, JSON_COMPACT | RF_JSON_REALS);

	if (!text)
		return -ENOMEM;
	/* Readers never see half a snapshot: a temp file, then rename. */
	return metrics__write_file(path, text);
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static long long num(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

void top__render(FILE *f, json_t *st, bool clear)
{
	json_t *sbs = json_object_get(st, "sandboxes"), *rec = json_object_get(st, "recent_alerts");
	json_t *lost = json_object_get(st, "lost"), *v;
	const char *k;
	size_t i;
	char thr[32];

	if (clear)
		fputs("\033[H\033[2J", f);
	fprintf(f, "ringfence-monitor %s  pid %lld  %s  decisions ring buffer: %s\n",
		str(st, "version"), num(st, "pid"), str(st, "time_dt"),
		json_is_true(json_object_get(st, "decisions_attached")) ? "drained" :
		"not pinned yet");
	fprintf(f, "events %lld  lost:", num(st, "events"));
	json_object_foreach(lost, k, v)
		fprintf(f, " %s %lld", k, (long long)json_integer_value(v));
	v = json_object_get(st, "table");
	if (v)
		fprintf(f, "\nsandbox table %lld/%lld  shed %lld  cgroups gone %lld",
			num(v, "entries"), num(v, "capacity"), num(v, "shed"), num(v, "cgroups_gone"));
	fprintf(f, "\n\n%-28s %-16s %7s %10s %6s %8s %8s %6s  %s\n", "SANDBOX", "POLICY", "CPU%",
		"MEM MiB", "PROCS", "DENIALS", "SYSCALLS", "ALERTS", "THRESHOLDS cpu/mem/pids");
	json_array_foreach(sbs, i, v) {
		json_t *t = json_object_get(v, "thresholds");

		if (json_is_true(json_object_get(v, "ended")))
			continue;
		snprintf(thr, sizeof(thr), "%lld/%lld/%lld", num(t, "cpu_percent"),
			 num(t, "memory_mb"), num(t, "pids"));
		fprintf(f, "%-28.28s %-16.16s %7.1f %10.1f %6lld %8lld %8lld %6lld  %s\n",
			str(v, "sandbox"), str(v, "policy_id"),
			json_real_value(json_object_get(v, "cpu_percent")),
			(double)num(v, "mem_bytes") / 1048576.0, num(v, "procs"), num(v, "denials"),
			num(v, "syscalls_seen"), num(v, "open_alerts"), thr);
	}
	fprintf(f, "\nRecent alerts\n%-24s %-8s %-18s %-6s %-28s %-16s %s\n", "TIME", "SEV", "RULE",
		"PHASE", "SANDBOX", "KEY", "COUNT");
	json_array_foreach(rec, i, v)
		fprintf(f, "%-24s %-8s %-18s %-6s %-28.28s %-16.16s %lld\n", str(v, "time_dt"),
			str(v, "severity"), str(v, "rule"), str(v, "phase"), str(v, "sandbox"),
			str(v, "key"), num(v, "count"));
	fflush(f);
}

static volatile sig_atomic_t top_stop;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

int top__client(const char *path, bool once)
{
	struct sigaction sa = { .sa_handler = on_stop };
	int frames = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!top_stop) {
		json_t *st = json_load_file(path, 0, NULL);

		if (!st) {
			if (once) {
				fprintf(stderr, "ringfence-monitor: no status at %s (is the monitor "
					"running?)\n", path);
				return 1;
			}
			if (!once)
				fputs("\033[H\033[2J", stdout);
			printf("waiting for a running ringfence-monitor (no status at %s)\n", path);
			fflush(stdout);
		} else {
			top__render(stdout, st, !once);
			json_decref(st);
		}
		if (once)
			break;
		frames++;
		sleep(1);
	}
	return 0;
}
