// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live loop. Sources, each an fd in one epoll set:
 *   - the supervisor's pinned ring buffer of decisions (attached when it
 *     appears, re-attached when the pinned set is replaced);
 *   - the monitor's own ring buffer (syscalls, fork/exec/exit);
 *   - the registry (inotify), and the kernel asked by cgroup id whether a
 *     sandbox's cgroup still exists (entries of the gone leave at once);
 *   - a timer: detector ticks, and every interval a resource sample of
 *     each sandbox and the lost-event counters of every hop;
 *   - signals (signalfd): INT/TERM stop, HUP reopens the outputs (the
 *     unit's ExecReload=, logrotate's postrotate);
 *   - the metrics HTTP responder.
 * Every observation becomes one input record: recorded (--record) and fed
 * to the detectors; their alerts are formatted and queued for output.
 * The sandboxes the events belong to are followed by sandboxes.c; what the
 * loop works with is set up and torn down by setup.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <jansson.h>

#include "activity.h"
#include "actq.h"
#include "cleanup.h"
#include "clock.h"
#include "engine.h"
#include "events.h"
#include "fileio.h"
#include "flowwatch.h"
#include "log.h"
#include "output.h"
#include "pins.h"
#include "record.h"
#include "registry_watch.h"
#include "respond.h"
#include "sensors.h"
#include "sysnames.h"
#include "top.h"

#define MS 1000000ULL

/* ---- alerts out ------------------------------------------------------- */

void engine__on_alert(const struct rf_alert *a, void *ctx)
{
	struct rf_engine *e = ctx;
	_cleanup_free_ char *line = NULL;
	struct rf_alert acted;

	/* monitor.on_alert: the action first, so that its record says how it
	 * went */
	if (a->response != RF_RESP_ALERT && a->phase == RF_PHASE_OPEN) {
		const struct rf_sandbox_info *si = detect__info(e->det, a->cgroup_id);

		acted = *a;
		respond__act(&acted, si ? si->cgroup_path : NULL, NULL);
		if (acted.responded)
			rf_info("sandbox %s: %s on %s: %s", acted.sandbox,
				rf_response_name(acted.response), rf_rule_id(acted.rule),
				acted.response_result);
		a = &acted;
	}
	line = alert__line(a, ++e->seq, e->boot_to_real, &e->origin);
	int64_t wall = ((int64_t)a->time_ns + e->boot_to_real) / 1000000;

	metrics__count_alert(&e->m, a);
	if (!e->o->top || e->o->output) {
		if (!line || !output__push(e->out, line))
			rf_debug("output queue full: record %llu dropped",
				  (unsigned long long)e->seq);
	}
	if (line)
		sinks__push(e->sinks, line);
	if (e->recent) {
		json_array_insert_new(e->recent, 0, top__alert_summary(a, wall));
		while (json_array_size(e->recent) > RF_TOP_RECENT)
			json_array_remove(e->recent, json_array_size(e->recent) - 1);
	}
}

/* ---- inputs ------------------------------------------------------------- */

/* A DNS or flow record on the activity stream, named as the detectors
 * know its sandbox: queued for the activity thread, which renders it
 * (dropped and counted when that thread is behind: the drain never waits
 * for it). */
static void activity_out(struct rf_engine *e, const struct rf_input *in)
{
	if (e->actq)
		actq__push(e->actq, in, detect__info(e->det, in->cgroup_id));
}

/* On the activity thread: --activity, and the sinks with --sink-activity. */
void engine__act_emit(void *ctx, const char *line, size_t len)
{
	struct rf_engine *e = ctx;

	(void)len;
	if (e->act)
		output__push(e->act, line);
	if (e->sinks && e->o->sinks.activity)
		sinks__push(e->sinks, line);
}

void engine__act_idle(void *ctx, bool reopen)
{
	struct rf_engine *e = ctx;

	if (!e->act)
		return;
	if (reopen && output__reopen(e->act))
		rf_err("SIGHUP: reopen %s failed", e->o->activity);
	output__flush(e->act, 0);
	atomic_store(&e->act_out_dropped, output__dropped(e->act));
}

void engine__feed(void *ctx, const struct rf_input *in)
{
	struct rf_engine *e = ctx;

	metrics__count_input(&e->m, in);
	if (e->rec && record__write(e->rec, in))
		rf_debug("--record: write failed");
	detect__input(e->det, in);
	if (in->type == RF_IN_DNS || in->type == RF_IN_FLOW)
		activity_out(e, in);
}

/* ---- ring buffers ---------------------------------------------------------- */

/* The DNS gate's record of a query (rf_dns_note, kind RF_EV_DNS). */
static int on_dns(struct rf_engine *e, const void *data)
{
	struct rf_input in = { .type = RF_IN_DNS };
	struct rf_dns_record *r = &in.u.dns;
	char tmp[sizeof(r->name) + 1];

	memcpy(r, data, sizeof(*r));
	memcpy(tmp, r->name, sizeof(r->name));
	tmp[r->name_len < sizeof(r->name) ? r->name_len : sizeof(r->name) - 1] = 0;
	rf_printable(r->name, tmp, sizeof(r->name) - 1);
	r->name_len = (uint16_t)strlen(r->name);
	in.t_ns = r->ts_boot_ns;
	in.cgroup_id = r->cgroup_id;
	sandboxes__feed_input(&e->sbx, &in);
	return 0;
}

/* A FLOW input of the flow watcher: as a DNS record, it names a sandbox. */
static void on_flow(const struct rf_input *in, void *ctx)
{
	struct rf_engine *e = ctx;

	sandboxes__feed_input(&e->sbx, in);
}

int engine__on_decision(void *ctx, void *data, size_t size)
{
	struct rf_engine *e = ctx;
	struct rf_input in = { .type = RF_IN_DECISION };
	struct rf_event *ev = &in.u.decision;
	char tmp[sizeof(ev->path) + 1];

	if (size < sizeof(*ev))
		return 0;
	memcpy(ev, data, sizeof(*ev));
	if (ev->kind == RF_EV_DNS)
		return on_dns(e, data);
	if (ev->kind == RF_EV_FLOW) {
		struct rf_flow_record fr;

		memcpy(&fr, data, sizeof(fr));
		if (e->flows)
			flowwatch__final(e->flows, &fr, fr.ts_boot_ns, on_flow, e);
		return 0;
	}
	if (ev->kind != RF_EV_DECISION)
		return 0;
	memcpy(tmp, ev->comm, RF_COMM_LEN);
	tmp[RF_COMM_LEN] = 0;
	rf_printable(ev->comm, tmp, RF_COMM_LEN - 1);
	memcpy(tmp, ev->path, sizeof(ev->path));
	tmp[ev->path_len < sizeof(ev->path) ? ev->path_len : sizeof(ev->path) - 1] = 0;
	rf_printable(ev->path, tmp, sizeof(ev->path) - 1);
	in.t_ns = ev->ts_boot_ns;
	in.cgroup_id = ev->cgroup_id;
	sandboxes__feed_input(&e->sbx, &in);
	return 0;
}

int engine__on_sensor(void *ctx, void *data, size_t size)
{
	struct rf_engine *e = ctx;
	struct rf_mon_event ev;
	struct rf_input in = { 0 };
	char tmp[RF_MON_PATH_LEN + 1];

	if (size < sizeof(ev))
		return 0;
	memcpy(&ev, data, sizeof(ev));
	switch (ev.kind) {
	case RF_MON_EV_SYSCALL: in.type = RF_IN_SYSCALL; break;
	case RF_MON_EV_FORK: in.type = RF_IN_FORK; break;
	case RF_MON_EV_EXEC: in.type = RF_IN_EXEC; break;
	case RF_MON_EV_EXIT: in.type = RF_IN_EXIT; break;
	default: return 0;
	}
	in.t_ns = ev.ts_boot_ns;
	in.cgroup_id = ev.cgroup_id;
	in.u.proc.pid = ev.pid;
	in.u.proc.tid = ev.tid;
	in.u.proc.ppid = ev.ppid;
	in.u.proc.uid = ev.uid;
	in.u.proc.nr = ev.nr;
	in.u.proc.code = ev.code;
	memcpy(tmp, ev.comm, RF_COMM_LEN);
	tmp[RF_COMM_LEN] = 0;
	rf_printable(in.u.proc.comm, tmp, RF_COMM_LEN);
	if (ev.kind == RF_MON_EV_EXEC) {
		memcpy(tmp, ev.path, RF_MON_PATH_LEN);
		tmp[ev.path_len < RF_MON_PATH_LEN ? ev.path_len : RF_MON_PATH_LEN] = 0;
		rf_printable(in.u.proc.path, tmp, RF_MON_PATH_LEN);
	}
	if (ev.kind == RF_MON_EV_SYSCALL) {
		snprintf(in.u.proc.name, sizeof(in.u.proc.name), "%s", sysnames__name(ev.nr));
		in.u.proc.err = rf_syscall_errno(in.u.proc.name, ev.ret);
	}
	if (in.type == RF_IN_SYSCALL) {
		sandboxes__feed_input(&e->sbx, &in);   /* the one kind that makes an entry */
		return 0;
	}
	sandboxes__note(&e->sbx, ev.cgroup_id);
	engine__feed(e, &in);
	return 0;
}

static void coalesce(struct rf_engine *e)
{
	struct timespec ts = { 0, (long)e->o->coalesce_us * 1000L };

	if (e->o->coalesce_us)
		nanosleep(&ts, NULL);
}

void engine__drain(void *ctx)
{
	struct rf_engine *e = ctx;

	sensors__poll(e->sens);
	decisions__poll(e->dec);
}

static void lost_input(struct rf_engine *e, uint32_t hop, uint64_t n, bool before, uint64_t now)
{
	struct rf_input in = { .t_ns = now, .type = RF_IN_LOST };

	if (!n)
		return;
	in.u.lost.hop = hop;
	in.u.lost.count = n;
	in.u.lost.before_start = before;
	engine__feed(e, &in);
}

/* The saved kernel-decisions counter of the last monitor on this set. */
static bool state_load(struct rf_engine *e, uint32_t stats_id, uint64_t *ret)
{
	_cleanup_json_ json_t *o = NULL;
	bool ok;

	if (!e->o->state_path || !e->o->state_path[0])
		return false;
	o = json_load_file(e->o->state_path, 0, NULL);
	if (!o)
		return false;
	ok = json_integer_value(json_object_get(o, "stats_map_id")) == (json_int_t)stats_id &&
	     json_is_integer(json_object_get(o, "ringbuf_lost"));
	if (ok)
		*ret = (uint64_t)json_integer_value(json_object_get(o, "ringbuf_lost"));
	return ok;
}

static void state_save(struct rf_engine *e)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_FIXED };
	_cleanup_json_ json_t *o = NULL;
	_cleanup_free_ char *text = NULL;

	if (!e->o->state_path || !e->o->state_path[0] || !e->dec_baseline_set)
		return;
	o = json_pack("{s:I, s:I, s:I}", "stats_map_id", (json_int_t)e->dec_stats_id,
		      "ringbuf_lost", (json_int_t)e->dec_lost_last,
		      "time", (json_int_t)time(NULL));
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	if (text)
		fileio__write_atomic(e->o->state_path, text, strlen(text), &how);
}

static void poll_lost(struct rf_engine *e, uint64_t now)
{
	uint64_t v;

	if (decisions__attached(e->dec) && !decisions__lost(e->dec, &v)) {
		uint32_t id = decisions__stats_id(e->dec);

		if (!e->dec_baseline_set || id != e->dec_stats_id) {
			uint64_t base = 0;
			bool saved = state_load(e, id, &base);

			/* Lost while no monitor drained the ring: since the last
			 * monitor's report, or since the programs were loaded. */
			e->dec_baseline_set = true;
			e->dec_stats_id = id;
			e->dec_lost_last = v;
			if (saved && v >= base)
				lost_input(e, RF_HOP_KERNEL_DECISIONS, v - base, true, now);
			else
				lost_input(e, RF_HOP_KERNEL_DECISIONS, v, true, now);
		} else if (v >= e->dec_lost_last) {
			lost_input(e, RF_HOP_KERNEL_DECISIONS, v - e->dec_lost_last, false, now);
			e->dec_lost_last = v;
		}
		state_save(e);
	}
	v = sensors__stat(e->sens, RF_MON_STAT_RINGBUF_LOST);
	lost_input(e, RF_HOP_KERNEL_MONITOR, v - e->mon_lost_last, false, now);
	e->mon_lost_last = v;
	v = sensors__stat(e->sens, RF_MON_STAT_ACCT_FULL) +
	    sensors__stat(e->sens, RF_MON_STAT_PROCS_FULL);
	lost_input(e, RF_HOP_KERNEL_MAPS, v - e->maps_lost_last, false, now);
	e->maps_lost_last = v;
	v = output__dropped(e->out) + atomic_load(&e->act_out_dropped);
	if (e->actq) {
		struct rf_actq_stats as;

		actq__stats(e->actq, &as);
		v += as.dropped;
	}
	lost_input(e, RF_HOP_OUTPUT, v - e->out_lost_last, false, now);
	e->out_lost_last = v;
	v = sinks__dropped(e->sinks);
	lost_input(e, RF_HOP_SINKS, v - e->sinks_lost_last, false, now);
	e->sinks_lost_last = v;
	/* flows the flow table had no room for: their records are missing
	 * (the kernel's totals are not) */
	v = e->flows ? flowwatch__shed(e->flows) : 0;
	lost_input(e, RF_HOP_MONITOR_TABLES, v - e->flows_shed_last, false, now);
	e->flows_shed_last = v;
	e->m.lost[RF_HOP_MONITOR_TABLES] = detect__shed(e->det) + v;
}

static void ep_add(struct rf_engine *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	epoll_ctl(e->ep, EPOLL_CTL_ADD, fd, &ev);
}

void engine__decisions_check(struct rf_engine *e)
{
	int err;

	if (decisions__attached(e->dec) && !decisions__replaced(e->dec))
		return;
	if (decisions__attached(e->dec)) {
		/* what the sets that go still hold, then follow the sets now */
		decisions__poll(e->dec);
		epoll_ctl(e->ep, EPOLL_CTL_DEL, e->dec_fd_in_ep, NULL);
		e->dec_fd_in_ep = -1;
	}
	err = decisions__attach(e->dec);
	if (err == 0) {
		e->dec_fd_in_ep = decisions__epoll_fd(e->dec);
		ep_add(e, e->dec_fd_in_ep);
		rf_info("draining the decisions ring buffers (%s/*/%s) of %zu pinned set%s",
			RF_PIN_DIR, rf_pin_maps[RF_PIN_EVENTS].pin, decisions__sets(e->dec),
			decisions__sets(e->dec) == 1 ? "" : "s");
	} else if (err == -ESTALE) {
		rf_debug("pinned sets of another ABI only: not attached");
	}
	e->m.decisions_attached = decisions__attached(e->dec);
}

/* The figures the metrics take from the detectors and the sandboxes. */
static void metrics_refresh(struct rf_engine *e)
{
	e->m.sandboxes = detect__n_sandboxes(e->det);
	detect__table_stats(e->det, &e->m.table);
	e->m.cgroups_gone = e->sbx.cgroups_gone;
	sinks__stats(e->sinks, e->m.sinks);
	e->m.activity_on = e->actq != NULL;
	if (e->actq)
		actq__stats(e->actq, &e->m.activity);
}

static char *metrics_body(void *ctx)
{
	struct rf_engine *e = ctx;

	metrics_refresh(e);
	return metrics__render(&e->m);
}

/* The textfile metrics and the status snapshot (--top), every interval. */
static void write_views(struct rf_engine *e, uint64_t now)
{
	const char *status = e->o->status_path && e->o->status_path[0] ? e->o->status_path : NULL;
	_cleanup_json_ json_t *st = NULL;

	if (e->o->metrics_file) {
		_cleanup_free_ char *text = metrics__render(&e->m);

		if (text && metrics__write_file(e->o->metrics_file, text))
			rf_debug("--metrics-file: write failed");
	}
	if (!status && !e->o->top)
		return;
	st = top__status(e->det, &e->m, e->recent, ((int64_t)now + e->boot_to_real) / 1000000);
	if (st && status)
		top__write(status, st);
	if (st && e->o->top)
		top__render(stdout, st, true);
}

/*
 * The ledgers are read only for a consumer: activity records (--activity,
 * a sink with --sink-activity: the actq thread), a recording (a replay
 * makes them), or a live sandbox with monitor.egress_bytes. Without one,
 * an interval costs no bpf() per flow. The final counts still arrive on
 * the ring buffer (RF_EV_FLOW).
 */
static bool flows_wanted(const struct rf_engine *e)
{
	return e->actq || e->rec || detect__wants_flows(e->det);
}

static void periodic(struct rf_engine *e, uint64_t now)
{
	engine__decisions_check(e);
	sandboxes__find_parent(&e->sbx);
	engine__drain(e);
	sandboxes__sample(&e->sbx, now);
	if (e->flows && flows_wanted(e)) {
		flowwatch__poll(e->flows, now, on_flow, e);
		e->m.flow_polls++;
	} else if (e->flows) {
		flowwatch__idle(e->flows);
	}
	poll_lost(e, now);
	sandboxes__gc(&e->sbx, now);
	record__flush(e->rec);
	metrics_refresh(e);
	write_views(e, now);
}

void engine__final_drain(struct rf_engine *e)
{
	engine__drain(e);
	poll_lost(e, clock__boottime_ns());  /* reported now, saved as the baseline */
	state_save(e);
}

/* ---- the loop ------------------------------------------------------------------ */

/* SIGHUP: the alerts file opened again by its name (rotated away, a new
 * one is made) and the metrics file written at once (a new file each
 * time: nothing held open). Told to the service manager as a reload. */
static void reload(struct rf_engine *e)
{
	service__reloading();
	if (output__reopen(e->out))
		rf_err("SIGHUP: reopen %s failed", e->o->output);
	else if (e->o->output)
		rf_info("SIGHUP: %s reopened", e->o->output);
	actq__reopen(e->actq);
	if (e->o->metrics_file) {
		_cleanup_free_ char *text = metrics__render(&e->m);

		if (text && metrics__write_file(e->o->metrics_file, text))
			rf_err("SIGHUP: --metrics-file %s: write failed", e->o->metrics_file);
	}
	service__ready("reloaded");
}

static void on_signals(struct rf_engine *e)
{
	struct signalfd_siginfo si;

	while (read(e->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(e);
		else
			e->stop = true;
	}
}

static void on_timer(struct rf_engine *e)
{
	struct rf_input tick = { .type = RF_IN_TICK };
	uint64_t exp, now;

	if (read(e->tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		rf_debug("timerfd: %s", strerror(errno));
	now = clock__boottime_ns();
	if (now >= e->next_sample_ns) {
		periodic(e, now);
		e->next_sample_ns = now + e->o->interval_ms * MS;
	}
	tick.t_ns = now;
	engine__feed(e, &tick);
	service__watchdog_tick(&e->wd, now);
}

static void on_fd(struct rf_engine *e, int fd)
{
	if (fd == e->sfd) {
		on_signals(e);
	} else if (fd == e->tfd) {
		on_timer(e);
	} else if (fd == regwatch__fd(e->reg)) {
		regwatch__process(e->reg, sandboxes__reg_ops(&e->sbx));
	} else if (fd == sensors__epoll_fd(e->sens) || fd == e->dec_fd_in_ep) {
		/* The kernel wakes a consumer that has caught up at every
		 * record: wait a moment so one wakeup drains many. */
		coalesce(e);
		engine__drain(e);
	} else if (fd == decisions__notify_fd(e->dec)) {
		if (decisions__notified(e->dec))
			engine__decisions_check(e);
	} else if (e->http && fd == http__fd(e->http)) {
		http__process(e->http, metrics_body, e);
	}
}

int engine__loop(struct rf_engine *e)
{
	e->next_sample_ns = clock__boottime_ns();
	while (!e->stop) {
		struct epoll_event evs[16];
		int n, i;

		n = epoll_wait(e->ep, evs, 16, output__pending(e->out) ? 20 : -1);
		if (n < 0 && errno != EINTR) {
			rf_err("epoll_wait: %s", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++)
			on_fd(e, evs[i].data.fd);
		output__flush(e->out, 0);
	}
	return 0;
}
