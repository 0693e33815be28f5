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
 *   - signals (signalfd): INT/TERM stop, HUP reopens the output;
 *   - the metrics HTTP responder.
 * Every observation becomes one input record: recorded (--record) and fed
 * to the detectors; their alerts are formatted and queued for output.
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

#include "alert.h"
#include "cgroup.h"
#include "paths.h"
#include "pins.h"
#include "engine.h"
#include "events.h"
#include "metrics.h"
#include "log.h"
#include "output.h"
#include "record.h"
#include "registry_watch.h"
#include "resources.h"
#include "sensors.h"
#include "sysnames.h"
#include "table.h"
#include "top.h"

#define MS 1000000ULL
#define SB_MAX 1024
#define SEED_PROCS_MAX 4096
#define UNKNOWN_MAX 64
#define ORPHAN_GRACE_NS (30000 * MS)
/* Test only: a smaller sandbox table (docs/testing.md). */
#define ENV_TEST_MAX_SANDBOXES "RINGFENCE_MONITOR_TEST_MAX_SANDBOXES"

struct sb_live {
	bool used;
	uint64_t cgid;
	char name[RF_SANDBOX_LEN];
	char cgroup_path[512];
	uint32_t src;               /* rf_sample_src: cgroup v2 files present */
	uint64_t mem_acc;
};

struct unknown {
	uint64_t cgid;
	uint64_t since_ns;
};

struct engine {
	const struct rf_engine_opts *o;
	struct rf_detect *det;
	struct rf_output *out;
	struct rf_recorder *rec;
	struct rf_metrics m;
	struct rf_regwatch *reg;
	struct rf_sensors *sens;
	struct rf_decisions *dec;
	struct rf_http *http;
	int ep, tfd, sfd, lock_fd;
	int cg_mount_fd;            /* cgroup2 mount: liveness of a cgroup id */
	int dec_fd_in_ep;
	int64_t boot_to_real;
	struct rf_alert_origin origin;
	uint64_t seq;
	bool stop;
	bool initial_scan;          /* the registry scan before the programs attach */
	bool in_registry;           /* inside a registry callback: no nested rescans */
	bool cpu_from_switch;
	uint64_t parent_cgid;
	/* A sandbox lives outside <cgroup2>/ringfence (a delegated place):
	 * the sensors look every cgroup up, not only that parent's children. */
	bool parent_off;
	char cg_mount[512];

	struct sb_live sbs[SB_MAX];
	struct rf_index sb_ix;
	struct unknown unknown[UNKNOWN_MAX];    /* rescanned-for cgroup ids */
	uint32_t unknown_next;
	struct unknown orphans[UNKNOWN_MAX];    /* kernel entries without registry */

	uint64_t next_sample_ns;
	bool dec_baseline_set;
	uint64_t dec_lost_last;
	uint32_t dec_stats_id;
	uint64_t mon_lost_last, maps_lost_last, out_lost_last;
	json_t *recent;
};

int64_t engine__boot_to_real(void)
{
	struct timespec r, b;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_BOOTTIME, &b);
	return ((int64_t)r.tv_sec - b.tv_sec) * 1000000000LL + (r.tv_nsec - b.tv_nsec);
}

uint64_t engine__boottime_ns(void)
{
	struct timespec b;

	clock_gettime(CLOCK_BOOTTIME, &b);
	return (uint64_t)b.tv_sec * 1000000000ULL + (uint64_t)b.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* ---- alerts out ------------------------------------------------------- */

static void on_alert(const struct rf_alert *a, void *ctx)
{
	struct engine *e = ctx;
	char *line = alert__line(a, ++e->seq, e->boot_to_real, &e->origin);
	int64_t wall = ((int64_t)a->time_ns + e->boot_to_real) / 1000000;

	metrics__count_alert(&e->m, a);
	if (!e->o->top || e->o->output) {
		if (!line || !output__push(e->out, line))
			rf_debug("output queue full: record %llu dropped",
				  (unsigned long long)e->seq);
	}
	free(line);
	if (e->recent) {
		json_array_insert_new(e->recent, 0, top__alert_summary(a, wall));
		while (json_array_size(e->recent) > RF_TOP_RECENT)
			json_array_remove(e->recent, json_array_size(e->recent) - 1);
	}
}

/* ---- inputs ------------------------------------------------------------- */

static void feed(struct engine *e, const struct rf_input *in)
{
	metrics__count_input(&e->m, in);
	if (e->rec && record__write(e->rec, in))
		rf_debug("--record: write failed");
	detect__input(e->det, in);
}

static struct sb_live *sb_get(struct engine *e, uint64_t cgid)
{
	int32_t i = rf_index_get(&e->sb_ix, cgid);

	return i >= 0 ? &e->sbs[i] : NULL;
}

/* ---- registry ------------------------------------------------------------ */

static bool same_exe(pid_t a, pid_t b)
{
	char pa[64], pb[64], ea[512], eb[512];
	ssize_t na, nb;

	snprintf(pa, sizeof(pa), "/proc/%d/exe", (int)a);
	snprintf(pb, sizeof(pb), "/proc/%d/exe", (int)b);
	na = readlink(pa, ea, sizeof(ea) - 1);
	nb = readlink(pb, eb, sizeof(eb) - 1);
	if (na <= 0 || nb <= 0)
		return false;
	ea[na] = eb[nb] = 0;
	return !strcmp(ea, eb);
}

/* A sandbox already running when the monitor starts: its processes (for
 * lineage, count and memory), and whether its command runs yet. */
static void seed_running(struct engine *e, const struct rf_sandbox_info *si,
			 const struct rf_reg_extra *x)
{
	pid_t *pids = calloc(SEED_PROCS_MAX, sizeof(*pids));
	bool armed;
	int n, i;

	if (!pids)
		return;
	n = resources__procs(si->cgroup_path, pids, SEED_PROCS_MAX);
	armed = !(x->child_pid > 0 && x->supervisor_pid > 0 &&
		  same_exe(x->child_pid, x->supervisor_pid));
	for (i = 0; i < n && i < SEED_PROCS_MAX; i++) {
		struct rf_input in = { .t_ns = engine__boottime_ns(), .type = RF_IN_PROC,
				       .cgroup_id = si->cgroup_id };
		uint64_t rss = 0;

		if (resources__proc_info(pids[i], &in.u.proc, &rss))
			continue;
		feed(e, &in);
		sensors__seed_proc(e->sens, (uint32_t)pids[i], si->cgroup_id, rss);
	}
	sensors__add(e->sens, si->cgroup_id, n > 0 ? n : 0, armed);
	free(pids);
}

/*
 * The syscall sensor (sys_exit) slows every syscall of every task on the
 * host (x1.08-1.18), so it is attached only with --record: profiles are
 * learnt from recordings. Calls outside a sandbox's profile come from its
 * supervisor's seccomp listener instead (decisions of op "syscall"),
 * which costs nothing outside sandboxes.
 */
static void syscalls_update(struct engine *e)
{
	bool want = e->o->record != NULL;
	int err;

	if (want == sensors__syscalls_on(e->sens))
		return;
	err = sensors__syscalls(e->sens, want);
	if (err) {
		rf_err("attach the syscall sensor (tp_btf/sys_exit): %s", strerror(-err));
		return;
	}
	rf_debug("syscall sensor %s", want ? "attached" : "detached");
}

/* The sensors count only the children of the ringfence cgroup while
 * every sandbox is one; a sandbox elsewhere (cgplace: a delegated place,
 * a systemd scope) turns that off for good: then the entries made from
 * the registry (sensors__add) are what they find. */
static void watch_parent(struct engine *e, const char *cgroup_path)
{
	char parent[512], own[600], *slash;
	uint64_t id;

	if (e->parent_off)
		return;
	snprintf(parent, sizeof(parent), "%s", cgroup_path);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(own, sizeof(own), "%s/%s", e->cg_mount, RF_CGROUP_PARENT);
	if (e->cg_mount[0] && strcmp(parent, own)) {
		e->parent_off = true;
		e->parent_cgid = 0;
		sensors__set_parent(e->sens, 0);
		rf_debug("sandbox cgroups outside %s (%s): every cgroup is looked up", own, parent);
		return;
	}
	if (!e->parent_cgid && !cgroup__id_of(parent, &id)) {
		e->parent_cgid = id;
		sensors__set_parent(e->sens, id);
	}
}

static void reg_add(const struct rf_sandbox_info *si, const struct rf_reg_extra *x, void *ctx)
{
	struct engine *e = ctx;
	struct rf_input in = { .t_ns = engine__boottime_ns(), .type = RF_IN_SANDBOX,
			       .cgroup_id = si->cgroup_id };
	struct sb_live *s = sb_get(e, si->cgroup_id);
	size_t i;

	if (!s) {
		for (i = 0; i < SB_MAX && e->sbs[i].used; i++)
			;
		if (i == SB_MAX || rf_index_put(&e->sb_ix, si->cgroup_id, (int32_t)i)) {
			rf_err("more than %d sandboxes: %s not watched", SB_MAX, si->sandbox);
			return;
		}
		s = &e->sbs[i];
		memset(s, 0, sizeof(*s));
		s->used = true;
		s->cgid = si->cgroup_id;
		if (e->initial_scan)
			seed_running(e, si, x);
		else
			sensors__add(e->sens, si->cgroup_id, 0, false);
		rf_debug("sandbox %s (cgroup %llu) watched", si->sandbox,
			  (unsigned long long)si->cgroup_id);
	}
	snprintf(s->name, sizeof(s->name), "%s", si->sandbox);
	snprintf(s->cgroup_path, sizeof(s->cgroup_path), "%s", si->cgroup_path);
	syscalls_update(e);
	s->src = resources__probe(si->cgroup_path);
	watch_parent(e, si->cgroup_path);
	in.u.sb = si;
	feed(e, &in);
}

static void drain(struct engine *e);

static void reg_remove(const char *sandbox, uint64_t cgid, void *ctx)
{
	struct engine *e = ctx;
	struct rf_input in = { .type = RF_IN_SANDBOX_END, .cgroup_id = cgid };
	struct sb_live *s = sb_get(e, cgid);

	/* Its last events first. */
	e->in_registry = true;
	drain(e);
	e->in_registry = false;
	in.t_ns = engine__boottime_ns();
	feed(e, &in);
	sensors__remove(e->sens, cgid);
	if (s) {
		rf_index_del(&e->sb_ix, cgid);
		memset(s, 0, sizeof(*s));
		syscalls_update(e);
	}
	rf_debug("sandbox %s ended", sandbox);
}

static const struct rf_reg_ops *reg_ops(struct engine *e)
{
	static struct rf_reg_ops ops = { .add = reg_add, .remove = reg_remove };

	ops.ctx = e;
	return &ops;
}

/* An event of a cgroup not (yet) in the registry: the supervisor writes
 * its entry before the command starts, so read the registry once. */
static void maybe_rescan(struct engine *e, uint64_t cgid)
{
	size_t i;

	if (sb_get(e, cgid) || e->in_registry)
		return;
	for (i = 0; i < UNKNOWN_MAX; i++)
		if (e->unknown[i].cgid == cgid)
			return;
	e->unknown[e->unknown_next++ % UNKNOWN_MAX] =
		(struct unknown){ .cgid = cgid, .since_ns = engine__boottime_ns() };
	regwatch__scan(e->reg, reg_ops(e));
}

/* ---- cgroups that are gone ---------------------------------------------------- */

/* An event of a cgroup neither the registry nor the detectors know, and
 * which no longer exists (a backlog from while no monitor ran): its input
 * still counts, then it ends at once, so it cannot hold a table slot. */
static bool cgroup_gone(struct engine *e, uint64_t cgid)
{
	if (sb_get(e, cgid) || detect__has(e->det, cgid))
		return false;
	return resources__cgroup_alive(e->cg_mount_fd, cgid) == 0;
}

static void end_gone(struct engine *e, uint64_t cgid)
{
	struct rf_input in = { .t_ns = engine__boottime_ns(), .type = RF_IN_SANDBOX_END,
			       .cgroup_id = cgid };

	e->m.cgroups_gone++;
	feed(e, &in);
}

/* One input of a sandbox that may be unknown: registry rescan if it lives,
 * end of the entry right after if its cgroup is gone. */
static void feed_sandbox_input(struct engine *e, const struct rf_input *in)
{
	bool gone = cgroup_gone(e, in->cgroup_id);

	if (!gone)
		maybe_rescan(e, in->cgroup_id);
	feed(e, in);
	if (gone)
		end_gone(e, in->cgroup_id);
}

struct gone_list {
	struct engine *e;
	uint64_t *ids;
	size_t n, cap;
};

static void gone_collect(const struct rf_sandbox_status *st, void *ctx)
{
	struct gone_list *g = ctx;

	if (!st->ended && g->n < g->cap &&
	    resources__cgroup_alive(g->e->cg_mount_fd, st->cgroup_id) == 0)
		g->ids[g->n++] = st->cgroup_id;
}

/* Every interval: entries whose cgroup has gone away without the registry
 * saying so (a supervisor killed before it removed its file, a backlog).
 * Registered ones leave the engine's table as on a registry removal. */
static void sweep_gone(struct engine *e)
{
	struct rf_table_stats ts;
	struct gone_list g = { .e = e };
	size_t i;

	for (i = 0; i < SB_MAX; i++) {
		struct sb_live *s = &e->sbs[i];
		uint64_t cgid = s->cgid;

		if (!s->used || resources__cgroup_alive(e->cg_mount_fd, cgid) != 0)
			continue;
		rf_debug("sandbox %s: its cgroup %llu is gone", s->name, (unsigned long long)cgid);
		sensors__remove(e->sens, cgid);
		rf_index_del(&e->sb_ix, cgid);
		memset(s, 0, sizeof(*s));
		end_gone(e, cgid);
	}
	syscalls_update(e);
	detect__table_stats(e->det, &ts);
	g.ids = calloc(ts.capacity, sizeof(*g.ids));
	if (!g.ids)
		return;
	g.cap = ts.capacity;
	detect__foreach_sandbox(e->det, gone_collect, &g);
	for (i = 0; i < g.n; i++)
		end_gone(e, g.ids[i]);
	free(g.ids);
}

/* ---- ring buffers ---------------------------------------------------------- */

static int on_decision(void *ctx, void *data, size_t size)
{
	struct engine *e = ctx;
	struct rf_input in = { .type = RF_IN_DECISION };
	struct rf_event *ev = &in.u.decision;
	char tmp[sizeof(ev->path) + 1];

	if (size < sizeof(*ev))
		return 0;
	memcpy(ev, data, sizeof(*ev));
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
	feed_sandbox_input(e, &in);
	return 0;
}

static int on_sensor(void *ctx, void *data, size_t size)
{
	struct engine *e = ctx;
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
		feed_sandbox_input(e, &in);   /* the one kind that makes an entry */
		return 0;
	}
	maybe_rescan(e, ev.cgroup_id);
	feed(e, &in);
	return 0;
}

static void coalesce(struct engine *e)
{
	struct timespec ts = { 0, (long)e->o->coalesce_us * 1000L };

	if (e->o->coalesce_us)
		nanosleep(&ts, NULL);
}

static void drain(struct engine *e)
{
	sensors__poll(e->sens);
	decisions__poll(e->dec);
}

/* ---- periodic work ------------------------------------------------------------ */

static void mem_add(uint64_t cgid, uint64_t bytes, void *ctx)
{
	struct engine *e = ctx;
	struct sb_live *s = sb_get(e, cgid);

	if (s)
		s->mem_acc += bytes;
}

static void sample_all(struct engine *e, uint64_t now)
{
	uint64_t mono = mono_ns(), epoch = sensors__epoch(e->sens);
	size_t i;

	for (i = 0; i < SB_MAX; i++)
		e->sbs[i].mem_acc = 0;
	sensors__mem_foreach(e->sens, mem_add, e);
	sensors__cpu_snapshot(e->sens);
	for (i = 0; i < SB_MAX; i++) {
		struct sb_live *s = &e->sbs[i];
		struct rf_input in = { .t_ns = now, .type = RF_IN_SAMPLE };
		struct rf_in_sample *m = &in.u.sample;
		struct rf_mon_acct a;

		if (!s->used)
			continue;
		in.cgroup_id = s->cgid;
		if (!sensors__acct(e->sens, s->cgid, &a)) {
			m->cpu_ns = a.cpu_ns + sensors__cpu_running(e->sens, s->cgid, mono);
			m->procs = a.procs > 0 ? a.procs : 0;
			m->procs_peak = a.peak_epoch == epoch && a.procs_peak > m->procs ?
					a.procs_peak : m->procs;
		}
		m->mem_bytes = s->mem_acc;
		resources__read_cgroup(s->cgroup_path,
				       s->src & ~(e->cpu_from_switch ? RF_SRC_CPU_CGROUP : 0), m);
		feed(e, &in);
	}
	sensors__next_epoch(e->sens);
}

static void lost_input(struct engine *e, uint32_t hop, uint64_t n, bool before, uint64_t now)
{
	struct rf_input in = { .t_ns = now, .type = RF_IN_LOST };

	if (!n)
		return;
	in.u.lost.hop = hop;
	in.u.lost.count = n;
	in.u.lost.before_start = before;
	feed(e, &in);
}

/* The saved kernel-decisions counter of the last monitor on this set. */
static bool state_load(struct engine *e, uint32_t stats_id, uint64_t *ret)
{
	json_t *o;
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
	json_decref(o);
	return ok;
}

static void state_save(struct engine *e)
{
	json_t *o;
	char tmp[4200];

	if (!e->o->state_path || !e->o->state_path[0] || !e->dec_baseline_set)
		return;
	o = json_pack("{s:I, s:I, s:I}", "stats_map_id", (json_int_t)e->dec_stats_id,
		      "ringbuf_lost", (json_int_t)e->dec_lost_last,
		      "time", (json_int_t)time(NULL));
	snprintf(tmp, sizeof(tmp), "%s.tmp", e->o->state_path);
	if (o && !json_dump_file(o, tmp, JSON_COMPACT))
		rename(tmp, e->o->state_path);
	json_decref(o);
}

static void poll_lost(struct engine *e, uint64_t now)
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
	v = output__dropped(e->out);
	lost_input(e, RF_HOP_OUTPUT, v - e->out_lost_last, false, now);
	e->out_lost_last = v;
	e->m.lost[RF_HOP_MONITOR_TABLES] = detect__shed(e->det);
}

static void ep_add(struct engine *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	epoll_ctl(e->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void decisions_check(struct engine *e)
{
	int err;

	if (decisions__attached(e->dec) && !decisions__replaced(e->dec))
		return;
	if (decisions__attached(e->dec)) {
		rf_info("the pinned enforcement set was replaced: re-attaching");
		decisions__poll(e->dec);
		epoll_ctl(e->ep, EPOLL_CTL_DEL, e->dec_fd_in_ep, NULL);
		decisions__detach(e->dec);
		e->dec_fd_in_ep = -1;
	}
	err = decisions__attach(e->dec);
	if (err == 0) {
		e->dec_fd_in_ep = decisions__epoll_fd(e->dec);
		ep_add(e, e->dec_fd_in_ep);
		rf_info("draining the decisions ring buffer %s/%s", RF_PIN_DIR,
			rf_pin_maps[RF_PIN_EVENTS].pin);
	} else if (err == -ESTALE) {
		rf_debug("pinned set of another ABI: not attached");
	}
	e->m.decisions_attached = decisions__attached(e->dec);
}

/* Kernel entries of cgroups that never reached the registry (and are
 * empty): forgotten after a grace period. */
static void orphans_gc(struct engine *e, uint64_t now)
{
	uint64_t ids[SB_MAX];
	size_t n = sensors__list(e->sens, ids, SB_MAX), i, k;

	for (i = 0; i < n; i++) {
		struct rf_mon_acct a;
		int slot = -1;

		if (sb_get(e, ids[i]))
			continue;
		for (k = 0; k < UNKNOWN_MAX; k++)
			if (e->orphans[k].cgid == ids[i])
				slot = (int)k;
		if (slot < 0) {
			for (k = 0; k < UNKNOWN_MAX && e->orphans[k].cgid; k++)
				;
			if (k < UNKNOWN_MAX)
				e->orphans[k] = (struct unknown){ .cgid = ids[i], .since_ns = now };
			continue;
		}
		if (now > e->orphans[slot].since_ns + ORPHAN_GRACE_NS &&
		    !sensors__acct(e->sens, ids[i], &a) && a.procs <= 0) {
			sensors__remove(e->sens, ids[i]);
			e->orphans[slot].cgid = 0;
		}
	}
}

/* Events of cgroups that never showed up in the registry (it was gone
 * before the monitor read it): their alerts close after a while. */
static void unknown_gc(struct engine *e, uint64_t now)
{
	size_t i;

	for (i = 0; i < UNKNOWN_MAX; i++) {
		struct unknown *u = &e->unknown[i];
		struct rf_input in = { .t_ns = now, .type = RF_IN_SANDBOX_END };

		if (!u->cgid || now < u->since_ns + 10000 * MS)
			continue;
		if (!sb_get(e, u->cgid)) {
			in.cgroup_id = u->cgid;
			feed(e, &in);
		}
		u->cgid = 0;
	}
}

/* The ringfence parent cgroup, once the supervisor has made it. */
static void find_parent(struct engine *e)
{
	char path[600];
	uint64_t id;

	snprintf(path, sizeof(path), "%s/%s", e->cg_mount, RF_CGROUP_PARENT);
	if (!cgroup__id_of(path, &id)) {
		e->parent_cgid = id;
		sensors__set_parent(e->sens, id);
	}
}

static char *metrics_body(void *ctx)
{
	struct engine *e = ctx;

	e->m.sandboxes = detect__n_sandboxes(e->det);
	detect__table_stats(e->det, &e->m.table);
	return metrics__render(&e->m);
}

static void periodic(struct engine *e, uint64_t now)
{
	json_t *st;

	decisions_check(e);
	if (!e->parent_cgid && !e->parent_off && e->cg_mount[0])
		find_parent(e);
	drain(e);
	sample_all(e, now);
	poll_lost(e, now);
	orphans_gc(e, now);
	unknown_gc(e, now);
	sweep_gone(e);
	record__flush(e->rec);
	e->m.sandboxes = detect__n_sandboxes(e->det);
	detect__table_stats(e->det, &e->m.table);
	if (e->o->metrics_file) {
		char *text = metrics__render(&e->m);

		if (text && metrics__write_file(e->o->metrics_file, text))
			rf_debug("--metrics-file: write failed");
		free(text);
	}
	if ((e->o->status_path && e->o->status_path[0]) || e->o->top) {
		st = top__status(e->det, &e->m, e->recent, ((int64_t)now + e->boot_to_real) / 1000000);
		if (st && e->o->status_path && e->o->status_path[0])
			top__write(e->o->status_path, st);
		if (st && e->o->top)
			top__render(stdout, st, true);
		json_decref(st);
	}
}

/* ---- start and stop ------------------------------------------------------------ */

static int take_lock(struct engine *e)
{
	char buf[32];
	int fd;

	mkdir("/run/ringfence", 0755);
	fd = open(RF_MON_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		rf_err("open %s: %s", RF_MON_LOCK, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = 0;
		rf_err("another ringfence-monitor (pid %s) consumes the ring buffer already: "
			"it has one consumer", buf[0] ? buf : "?");
		close(fd);
		return -EBUSY;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

		if (pwrite(fd, buf, (size_t)n, 0) < 0)
			rf_debug("write %s: %s", RF_MON_LOCK, strerror(errno));
	}
	e->lock_fd = fd;
	return 0;
}

/* The monitor must not run inside a sandbox cgroup. */
static int check_boundary(void)
{
	char line[4200];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int err = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3) && (strstr(line, "/" RF_CGROUP_PARENT "/") ||
						 strstr(line, "/" RF_CGROUP_PARENT "\n"))) {
			rf_err("this process is in the ringfence cgroup tree (%.*s): the monitor "
				"runs outside every sandbox", (int)strcspn(line + 3, "\n"), line + 3);
			err = -EPERM;
		}
	fclose(f);
	return err;
}

/* Where alerts go: the output queue, the detectors, --record and --metrics. */
static int setup_outputs(struct engine *e)
{
	const struct rf_engine_opts *o = e->o;
	struct rf_detect_opts dopts;
	const char *env;
	char why[512];
	int err;

	err = output__open(o->output, o->queue_bytes, &e->out);
	if (err) {
		rf_err("--output %s: %s", o->output ? o->output : "-", strerror(-err));
		return err;
	}
	dopts = o->detect;
	env = getenv(ENV_TEST_MAX_SANDBOXES);
	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 10);

		if (v >= 1 && v <= 1048576)
			dopts.max_sandboxes = v;
		rf_info("%s=%s: a sandbox table of %zu (test only)", ENV_TEST_MAX_SANDBOXES, env,
			dopts.max_sandboxes);
	}
	err = detect__new(&dopts, on_alert, e, &e->det);
	if (err)
		return err;
	if (o->record) {
		struct rf_record_header h = { .boot_to_real_ns = e->boot_to_real, .ticks = true,
					      .tick_ms = o->tick_ms };

		h.defaults = *detect__opts(e->det);
		err = record__open(o->record, &h, &e->rec);
		if (err) {
			rf_err("--record %s: %s", o->record, strerror(-err));
			return err;
		}
	}
	if (o->metrics_addr) {
		err = http__open(o->metrics_addr, &e->http, why, sizeof(why));
		if (err) {
			rf_err("%s", why);
			return err;
		}
	}
	return 0;
}

/* The sensors, attached after the registry's sandboxes are seeded. */
static int setup_sources(struct engine *e)
{
	const struct rf_engine_opts *o = e->o;
	char why[512];
	int err;

	err = sensors__open(o->ringbuf_bytes, on_sensor, e, &e->sens, why, sizeof(why));
	if (err) {
		rf_err("%s", why);
		return err;
	}
	if (!cgroup__find_v2_mount(e->cg_mount, sizeof(e->cg_mount))) {
		char path[600];

		e->cg_mount_fd = open(e->cg_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		err = resources__cgroup_alive(e->cg_mount_fd, 1);
		if (err < 0)
			rf_info("cgroup ids cannot be looked up (%s): entries of sandboxes gone "
				"before the registry said so leave only when the table is full",
				strerror(-err));
		find_parent(e);
		snprintf(path, sizeof(path), "%s/%s/cpu.stat", e->cg_mount, RF_CGROUP_PARENT);
		e->cpu_from_switch = o->bpf_cpu || access(path, R_OK) != 0;
	} else {
		e->cpu_from_switch = true;
	}
	err = regwatch__open(o->registry_dir, &e->reg);
	if (err) {
		rf_err("registry %s: %s", o->registry_dir, strerror(-err));
		return err;
	}
	/* Sandboxes already running, before the programs attach: their
	 * counts start from what is there now. */
	e->initial_scan = true;
	regwatch__scan(e->reg, reg_ops(e));
	e->initial_scan = false;
	err = sensors__attach(e->sens, e->cpu_from_switch, why, sizeof(why));
	if (err) {
		rf_err("%s", why);
		return err;
	}
	e->dec = decisions__new(on_decision, e);
	if (!e->dec)
		return -ENOMEM;
	e->dec_fd_in_ep = -1;
	return 0;
}

/* Signals and the tick timer as fds, everything in one epoll set. */
static int setup_loop(struct engine *e)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct itimerspec its = { 0 };
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	e->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	e->ep = epoll_create1(EPOLL_CLOEXEC);
	if (e->sfd < 0 || e->tfd < 0 || e->ep < 0)
		return -errno;
	its.it_interval.tv_sec = (time_t)(e->o->tick_ms / 1000);
	its.it_interval.tv_nsec = (long)(e->o->tick_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	timerfd_settime(e->tfd, 0, &its, NULL);
	ev.data.fd = e->sfd;
	epoll_ctl(e->ep, EPOLL_CTL_ADD, e->sfd, &ev);
	ep_add(e, e->tfd);
	ep_add(e, regwatch__fd(e->reg));
	ep_add(e, sensors__epoll_fd(e->sens));
	if (e->http)
		ep_add(e, http__fd(e->http));
	if (decisions__notify_fd(e->dec) >= 0)
		ep_add(e, decisions__notify_fd(e->dec));
	return 0;
}

static int setup(struct engine *e)
{
	const struct rf_engine_opts *o = e->o;
	int err;

	err = check_boundary();
	if (err)
		return err;
	/* Not dumpable: same-uid processes cannot ptrace it or read its memory. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	err = take_lock(e);
	if (err)
		return err;
	e->boot_to_real = engine__boot_to_real();
	alert__origin_local(&e->origin);
	e->m.start_time = (double)time(NULL);
	err = setup_outputs(e);
	if (err)
		return err;
	e->recent = json_array();
	if (rf_index_init(&e->sb_ix, SB_MAX))
		return -ENOMEM;
	err = setup_sources(e);
	if (!err)
		err = setup_loop(e);
	if (err)
		return err;
	decisions_check(e);
	rf_info("watching %zu sandboxes; CPU time from %s; alerts to %s", regwatch__count(e->reg),
		 e->cpu_from_switch ? "sched_switch (BPF)" : "cgroup v2 cpu.stat",
		 o->output ? o->output : (o->top ? "the view only" : "stdout"));
	return 0;
}

static void teardown(struct engine *e)
{
	if (e->det) {
		uint64_t now = engine__boottime_ns();

		if (e->sens && e->dec && e->out) {
			drain(e);
			poll_lost(e, now);  /* reported now, saved as the baseline below */
		}
		detect__finish(e->det, now);
	}
	state_save(e);
	output__close(e->out);
	record__close(e->rec);
	http__close(e->http);
	decisions__free(e->dec);
	sensors__close(e->sens);
	regwatch__close(e->reg);
	detect__free(e->det);
	rf_index_free(&e->sb_ix);
	json_decref(e->recent);
	if (e->ep >= 0)
		close(e->ep);
	if (e->tfd >= 0)
		close(e->tfd);
	if (e->sfd >= 0)
		close(e->sfd);
	if (e->lock_fd >= 0)
		close(e->lock_fd);
	if (e->cg_mount_fd >= 0)
		close(e->cg_mount_fd);
}

int engine__run(const struct rf_engine_opts *o)
{
	struct engine *e = calloc(1, sizeof(*e));
	int rc = 0;

	if (!e)
		return 1;
	e->o = o;
	e->ep = e->tfd = e->sfd = e->lock_fd = e->cg_mount_fd = -1;
	if (setup(e)) {
		rc = 1;
		goto out;
	}
	e->next_sample_ns = engine__boottime_ns();
	while (!e->stop) {
		struct epoll_event evs[16];
		int n, i;

		n = epoll_wait(e->ep, evs, 16, output__pending(e->out) ? 20 : -1);
		if (n < 0 && errno != EINTR) {
			rf_err("epoll_wait: %s", strerror(errno));
			rc = 1;
			break;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == e->sfd) {
				struct signalfd_siginfo si;

				while (read(e->sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGHUP) {
						if (output__reopen(e->out))
							rf_err("SIGHUP: reopen %s failed", o->output);
					} else {
						e->stop = true;
					}
				}
			} else if (fd == e->tfd) {
				uint64_t exp, now;
				struct rf_input tick = { .type = RF_IN_TICK };

				if (read(e->tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
					rf_debug("timerfd: %s", strerror(errno));
				now = engine__boottime_ns();
				if (now >= e->next_sample_ns) {
					periodic(e, now);
					e->next_sample_ns = now + o->interval_ms * MS;
				}
				tick.t_ns = now;
				feed(e, &tick);
			} else if (fd == regwatch__fd(e->reg)) {
				regwatch__process(e->reg, reg_ops(e));
			} else if (fd == sensors__epoll_fd(e->sens) || fd == e->dec_fd_in_ep) {
				/* The kernel wakes a consumer that has caught up at every
				 * record: wait a moment so one wakeup drains many. */
				coalesce(e);
				drain(e);
			} else if (fd == decisions__notify_fd(e->dec)) {
				if (decisions__notified(e->dec))
					decisions_check(e);
			} else if (e->http && fd == http__fd(e->http)) {
				http__process(e->http, metrics_body, e);
			}
		}
		output__flush(e->out, 0);
	}
out:
	teardown(e);
	free(e);
	return rc;
}
