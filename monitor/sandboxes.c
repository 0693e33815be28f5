// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live monitor's sandbox tracking (sandboxes.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "clock.h"
#include "detect.h"
#include "log.h"
#include "paths.h"
#include "resources.h"
#include "sandboxes.h"
#include "sensors.h"

#define MS 1000000ULL
#define SEED_PROCS_MAX 4096
#define ORPHAN_GRACE_NS (30000 * MS)
#define UNKNOWN_GRACE_NS (10000 * MS)

int sandboxes__init(struct rf_sandboxes *x)
{
	x->cg_mount_fd = -1;
	x->ops = (struct rf_reg_ops){ .ctx = x };
	return rf_index_init(&x->ix, RF_SBX_MAX) ? -ENOMEM : 0;
}

void sandboxes__free(struct rf_sandboxes *x)
{
	rf_index_free(&x->ix);
	if (x->cg_mount_fd >= 0)
		close(x->cg_mount_fd);
	x->cg_mount_fd = -1;
}

static void feed(struct rf_sandboxes *x, const struct rf_input *in)
{
	x->feed(x->ctx, in);
}

static struct rf_sbx_live *sb_get(struct rf_sandboxes *x, uint64_t cgid)
{
	int32_t i = rf_index_get(&x->ix, cgid);

	return i >= 0 ? &x->sbs[i] : NULL;
}

static void sb_forget(struct rf_sandboxes *x, struct rf_sbx_live *s)
{
	rf_index_del(&x->ix, s->cgid);
	memset(s, 0, sizeof(*s));
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
static void seed_running(struct rf_sandboxes *x, const struct rf_sandbox_info *si,
			 const struct rf_reg_extra *rx)
{
	_cleanup_free_ pid_t *pids = calloc(SEED_PROCS_MAX, sizeof(*pids));
	bool armed;
	int n, i;

	if (!pids)
		return;
	n = resources__procs(si->cgroup_path, pids, SEED_PROCS_MAX);
	armed = !(rx->child_pid > 0 && rx->supervisor_pid > 0 &&
		  same_exe(rx->child_pid, rx->supervisor_pid));
	for (i = 0; i < n && i < SEED_PROCS_MAX; i++) {
		struct rf_input in = { .t_ns = clock__boottime_ns(), .type = RF_IN_PROC,
				       .cgroup_id = si->cgroup_id };
		uint64_t rss = 0;

		if (resources__proc_info(pids[i], &in.u.proc, &rss))
			continue;
		feed(x, &in);
		sensors__seed_proc(x->sens, (uint32_t)pids[i], si->cgroup_id, rss);
	}
	sensors__add(x->sens, si->cgroup_id, n > 0 ? n : 0, armed);
}

/*
 * The syscall sensor (sys_exit) slows every syscall of every task on the
 * host (x1.08-1.18), so it is attached only with --record: profiles are
 * learnt from recordings. Calls outside a sandbox's profile come from its
 * supervisor's seccomp listener instead (decisions of op "syscall"),
 * which costs nothing outside sandboxes.
 */
static void syscalls_update(struct rf_sandboxes *x)
{
	bool want = x->want_syscalls;
	int err;

	if (want == sensors__syscalls_on(x->sens))
		return;
	err = sensors__syscalls(x->sens, want);
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
static void watch_parent(struct rf_sandboxes *x, const char *cgroup_path)
{
	char parent[512], own[600], *slash;
	uint64_t id;

	if (x->parent_off)
		return;
	snprintf(parent, sizeof(parent), "%s", cgroup_path);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(own, sizeof(own), "%s/%s", x->cg_mount, RF_CGROUP_PARENT);
	if (x->cg_mount[0] && strcmp(parent, own)) {
		x->parent_off = true;
		x->parent_cgid = 0;
		sensors__set_parent(x->sens, 0);
		rf_debug("sandbox cgroups outside %s (%s): every cgroup is looked up", own, parent);
		return;
	}
	if (!x->parent_cgid && !cgroup__id_of(parent, &id)) {
		x->parent_cgid = id;
		sensors__set_parent(x->sens, id);
	}
}

/* A free slot for cgid, indexed; NULL when the table is full. */
static struct rf_sbx_live *sb_new(struct rf_sandboxes *x, uint64_t cgid)
{
	size_t i;

	for (i = 0; i < RF_SBX_MAX && x->sbs[i].used; i++)
		;
	if (i == RF_SBX_MAX || rf_index_put(&x->ix, cgid, (int32_t)i))
		return NULL;
	memset(&x->sbs[i], 0, sizeof(x->sbs[i]));
	x->sbs[i].used = true;
	x->sbs[i].cgid = cgid;
	return &x->sbs[i];
}

static void reg_add(const struct rf_sandbox_info *si, const struct rf_reg_extra *rx, void *ctx)
{
	struct rf_sandboxes *x = ctx;
	struct rf_input in = { .t_ns = clock__boottime_ns(), .type = RF_IN_SANDBOX,
			       .cgroup_id = si->cgroup_id };
	struct rf_sbx_live *s = sb_get(x, si->cgroup_id);

	if (!s) {
		s = sb_new(x, si->cgroup_id);
		if (!s) {
			rf_err("more than %d sandboxes: %s not watched", RF_SBX_MAX, si->sandbox);
			return;
		}
		if (x->initial_scan)
			seed_running(x, si, rx);
		else
			sensors__add(x->sens, si->cgroup_id, 0, false);
		rf_debug("sandbox %s (cgroup %llu) watched", si->sandbox,
			  (unsigned long long)si->cgroup_id);
	}
	snprintf(s->name, sizeof(s->name), "%s", si->sandbox);
	snprintf(s->cgroup_path, sizeof(s->cgroup_path), "%s", si->cgroup_path);
	syscalls_update(x);
	s->src = resources__probe(si->cgroup_path);
	watch_parent(x, si->cgroup_path);
	in.u.sb = si;
	feed(x, &in);
}

static void reg_remove(const char *sandbox, uint64_t cgid, void *ctx)
{
	struct rf_sandboxes *x = ctx;
	struct rf_input in = { .type = RF_IN_SANDBOX_END, .cgroup_id = cgid };
	struct rf_sbx_live *s = sb_get(x, cgid);

	/* Its last events first. */
	x->in_registry = true;
	x->drain(x->ctx);
	x->in_registry = false;
	in.t_ns = clock__boottime_ns();
	feed(x, &in);
	sensors__remove(x->sens, cgid);
	if (s) {
		sb_forget(x, s);
		syscalls_update(x);
	}
	rf_debug("sandbox %s ended", sandbox);
}

const struct rf_reg_ops *sandboxes__reg_ops(struct rf_sandboxes *x)
{
	x->ops.add = reg_add;
	x->ops.remove = reg_remove;
	x->ops.ctx = x;
	return &x->ops;
}

void sandboxes__scan_initial(struct rf_sandboxes *x)
{
	x->initial_scan = true;
	regwatch__scan(x->reg, sandboxes__reg_ops(x));
	x->initial_scan = false;
}

/* An event of a cgroup not (yet) in the registry: the supervisor writes
 * its entry before the command starts, so read the registry once. */
void sandboxes__note(struct rf_sandboxes *x, uint64_t cgid)
{
	size_t i;

	if (sb_get(x, cgid) || x->in_registry)
		return;
	for (i = 0; i < RF_SBX_UNKNOWN_MAX; i++)
		if (x->unknown[i].cgid == cgid)
			return;
	x->unknown[x->unknown_next++ % RF_SBX_UNKNOWN_MAX] =
		(struct rf_sbx_unknown){ .cgid = cgid, .since_ns = clock__boottime_ns() };
	regwatch__scan(x->reg, sandboxes__reg_ops(x));
}

/* ---- cgroups that are gone ---------------------------------------------------- */

/* An event of a cgroup neither the registry nor the detectors know, and
 * which no longer exists (a backlog from while no monitor ran): its input
 * still counts, then it ends at once, so it cannot hold a table slot. */
static bool cgroup_gone(struct rf_sandboxes *x, uint64_t cgid)
{
	if (sb_get(x, cgid) || detect__has(x->det, cgid))
		return false;
	return resources__cgroup_alive(x->cg_mount_fd, cgid) == 0;
}

static void end_gone(struct rf_sandboxes *x, uint64_t cgid)
{
	struct rf_input in = { .t_ns = clock__boottime_ns(), .type = RF_IN_SANDBOX_END,
			       .cgroup_id = cgid };

	x->cgroups_gone++;
	feed(x, &in);
}

void sandboxes__feed_input(struct rf_sandboxes *x, const struct rf_input *in)
{
	bool gone = cgroup_gone(x, in->cgroup_id);

	if (!gone)
		sandboxes__note(x, in->cgroup_id);
	feed(x, in);
	if (gone)
		end_gone(x, in->cgroup_id);
}

struct gone_list {
	struct rf_sandboxes *x;
	uint64_t *ids;
	size_t n, cap;
};

static void gone_collect(const struct rf_sandbox_status *st, void *ctx)
{
	struct gone_list *g = ctx;

	if (!st->ended && g->n < g->cap &&
	    resources__cgroup_alive(g->x->cg_mount_fd, st->cgroup_id) == 0)
		g->ids[g->n++] = st->cgroup_id;
}

/* Entries whose cgroup has gone away without the registry saying so (a
 * supervisor killed before it removed its file, a backlog). Registered
 * ones leave the table as on a registry removal. */
static void sweep_gone(struct rf_sandboxes *x)
{
	struct rf_table_stats ts;
	struct gone_list g = { .x = x };
	_cleanup_free_ uint64_t *ids = NULL;
	size_t i;

	for (i = 0; i < RF_SBX_MAX; i++) {
		struct rf_sbx_live *s = &x->sbs[i];
		uint64_t cgid = s->cgid;

		if (!s->used || resources__cgroup_alive(x->cg_mount_fd, cgid) != 0)
			continue;
		rf_debug("sandbox %s: its cgroup %llu is gone", s->name, (unsigned long long)cgid);
		sensors__remove(x->sens, cgid);
		sb_forget(x, s);
		end_gone(x, cgid);
	}
	syscalls_update(x);
	detect__table_stats(x->det, &ts);
	ids = calloc(ts.capacity, sizeof(*ids));
	if (!ids)
		return;
	g.ids = ids;
	g.cap = ts.capacity;
	detect__foreach_sandbox(x->det, gone_collect, &g);
	for (i = 0; i < g.n; i++)
		end_gone(x, g.ids[i]);
}

/* Kernel entries of cgroups that never reached the registry (and are
 * empty): forgotten after a grace period. */
static void orphans_gc(struct rf_sandboxes *x, uint64_t now)
{
	uint64_t ids[RF_SBX_MAX];
	size_t n = sensors__list(x->sens, ids, RF_SBX_MAX), i, k;

	for (i = 0; i < n; i++) {
		struct rf_mon_acct a;
		int slot = -1;

		if (sb_get(x, ids[i]))
			continue;
		for (k = 0; k < RF_SBX_UNKNOWN_MAX; k++)
			if (x->orphans[k].cgid == ids[i])
				slot = (int)k;
		if (slot < 0) {
			for (k = 0; k < RF_SBX_UNKNOWN_MAX && x->orphans[k].cgid; k++)
				;
			if (k < RF_SBX_UNKNOWN_MAX)
				x->orphans[k] = (struct rf_sbx_unknown){ .cgid = ids[i],
									 .since_ns = now };
			continue;
		}
		if (now > x->orphans[slot].since_ns + ORPHAN_GRACE_NS &&
		    !sensors__acct(x->sens, ids[i], &a) && a.procs <= 0) {
			sensors__remove(x->sens, ids[i]);
			x->orphans[slot].cgid = 0;
		}
	}
}

/* Events of cgroups that never showed up in the registry (it was gone
 * before the monitor read it): their alerts close after a while. */
static void unknown_gc(struct rf_sandboxes *x, uint64_t now)
{
	size_t i;

	for (i = 0; i < RF_SBX_UNKNOWN_MAX; i++) {
		struct rf_sbx_unknown *u = &x->unknown[i];
		struct rf_input in = { .t_ns = now, .type = RF_IN_SANDBOX_END };

		if (!u->cgid || now < u->since_ns + UNKNOWN_GRACE_NS)
			continue;
		if (!sb_get(x, u->cgid)) {
			in.cgroup_id = u->cgid;
			feed(x, &in);
		}
		u->cgid = 0;
	}
}

void sandboxes__gc(struct rf_sandboxes *x, uint64_t now)
{
	orphans_gc(x, now);
	unknown_gc(x, now);
	sweep_gone(x);
}

/* ---- cgroups ------------------------------------------------------------------- */

/* The ringfence parent cgroup, once the supervisor has made it. */
void sandboxes__find_parent(struct rf_sandboxes *x)
{
	char path[600];
	uint64_t id;

	if (x->parent_cgid || x->parent_off || !x->cg_mount[0])
		return;
	snprintf(path, sizeof(path), "%s/%s", x->cg_mount, RF_CGROUP_PARENT);
	if (!cgroup__id_of(path, &id)) {
		x->parent_cgid = id;
		sensors__set_parent(x->sens, id);
	}
}

void sandboxes__find_cgroups(struct rf_sandboxes *x, bool bpf_cpu)
{
	char path[600];
	int err;

	if (cgroup__find_v2_mount(x->cg_mount, sizeof(x->cg_mount))) {
		x->cg_mount[0] = 0;
		x->cpu_from_switch = true;
		return;
	}
	x->cg_mount_fd = open(x->cg_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = resources__cgroup_alive(x->cg_mount_fd, 1);
	if (err < 0)
		rf_info("cgroup ids cannot be looked up (%s): entries of sandboxes gone "
			"before the registry said so leave only when the table is full",
			strerror(-err));
	sandboxes__find_parent(x);
	snprintf(path, sizeof(path), "%s/%s/cpu.stat", x->cg_mount, RF_CGROUP_PARENT);
	x->cpu_from_switch = bpf_cpu || access(path, R_OK) != 0;
}

/* ---- resource samples ------------------------------------------------------------ */

static void mem_add(uint64_t cgid, uint64_t bytes, void *ctx)
{
	struct rf_sbx_live *s = sb_get(ctx, cgid);

	if (s)
		s->mem_acc += bytes;
}

/* Disk writes, read only for a sandbox whose policy bounds them
 * (monitor.disk_write_mb): /proc/PID/io of each of its processes costs a
 * read each per interval where io.stat is absent. */
static void sample_disk(struct rf_sandboxes *x, struct rf_sbx_live *s, struct rf_in_sample *m)
{
	const struct rf_sandbox_info *si = detect__info(x->det, s->cgid);
	uint64_t w;
	bool cg;

	if (!si || !si->disk_write_mb || resources__disk_write(s->cgroup_path, &w, &cg))
		return;
	if (w > s->disk_hw)
		s->disk_hw = w;
	m->disk_write_bytes = s->disk_hw;
	m->src |= RF_SRC_DISK_KNOWN | (cg ? RF_SRC_DISK_CGROUP : 0);
}

void sandboxes__sample(struct rf_sandboxes *x, uint64_t now)
{
	uint64_t mono = clock__mono_ns(), epoch = sensors__epoch(x->sens);
	size_t i;

	for (i = 0; i < RF_SBX_MAX; i++)
		x->sbs[i].mem_acc = 0;
	sensors__mem_foreach(x->sens, mem_add, x);
	sensors__cpu_snapshot(x->sens);
	for (i = 0; i < RF_SBX_MAX; i++) {
		struct rf_sbx_live *s = &x->sbs[i];
		struct rf_input in = { .t_ns = now, .type = RF_IN_SAMPLE };
		struct rf_in_sample *m = &in.u.sample;
		struct rf_mon_acct a;

		if (!s->used)
			continue;
		in.cgroup_id = s->cgid;
		if (!sensors__acct(x->sens, s->cgid, &a)) {
			m->cpu_ns = a.cpu_ns + sensors__cpu_running(x->sens, s->cgid, mono);
			m->procs = a.procs > 0 ? a.procs : 0;
			m->procs_peak = a.peak_epoch == epoch && a.procs_peak > m->procs ?
					a.procs_peak : m->procs;
		}
		m->mem_bytes = s->mem_acc;
		resources__read_cgroup(s->cgroup_path,
				       s->src & ~(x->cpu_from_switch ? RF_SRC_CPU_CGROUP : 0), m);
		sample_disk(x, s, m);
		feed(x, &in);
	}
	sensors__next_epoch(x->sens);
}
