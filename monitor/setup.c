// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live monitor's steps (setup.h). */
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

#include "actq.h"
#include "cgroup.h"
#include "cleanup.h"
#include "clock.h"
#include "error.h"
#include "events.h"
#include "flowwatch.h"
#include "log.h"
#include "output.h"
#include "paths.h"
#include "record.h"
#include "registry_watch.h"
#include "sensors.h"
#include "sinks.h"
#include "service.h"
#include "setup.h"
#include "steps.h"

/* Test only: a smaller sandbox table (docs/testing.md). */
#define ENV_TEST_MAX_SANDBOXES "RINGFENCE_MONITOR_TEST_MAX_SANDBOXES"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The monitor must not run inside a sandbox cgroup; not dumpable: same-uid
 * processes cannot ptrace it or read its memory. */
static int step_boundary(void *ctx, struct rf_step_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4200];
	int ret = 0;

	(void)ctx;
	while (f && !ret && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3) && (strstr(line, "/" RF_CGROUP_PARENT "/") ||
						 strstr(line, "/" RF_CGROUP_PARENT "\n")))
			ret = rf_error_set(&err->e, -EPERM, NULL, "this process is in the ringfence "
					   "cgroup tree (%.*s): the monitor runs outside every "
					   "sandbox", (int)strcspn(line + 3, "\n"), line + 3);
	if (!ret)
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return ret;
}

/* One consumer of the ring buffer: the lock holds the holder's pid. */
static int step_lock(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	_cleanup_close_ int fd = -1;
	char buf[32];

	mkdir("/run/ringfence", 0755);
	fd = open(RF_MON_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return rf_error_set(&err->e, -errno, NULL, "open %s: %s", RF_MON_LOCK,
				    strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = 0;
		return rf_error_set(&err->e, -EBUSY, NULL, "another ringfence-monitor (pid %s) "
				    "consumes the ring buffer already: it has one consumer",
				    buf[0] ? buf : "?");
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

		if (pwrite(fd, buf, (size_t)n, 0) < 0)
			rf_debug("write %s: %s", RF_MON_LOCK, strerror(errno));
	}
	e->lock_fd = TAKE_FD(fd);
	return 0;
}

static void undo_lock(void *ctx)
{
	close_fd(&((struct rf_engine *)ctx)->lock_fd);
}

/* The wall clock of alerts and who sends them. */
static int step_origin(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	(void)err;
	e->boot_to_real = clock__boot_to_real();
	alert__origin_local(&e->origin);
	e->m.start_time = (double)time(NULL);
	return 0;
}

static int step_output(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret = output__open(e->o->output, e->o->queue_bytes, &e->out);

	if (ret)
		return rf_error_set(&err->e, ret, NULL, "--output %s: %s",
				    e->o->output ? e->o->output : "-", strerror(-ret));
	return 0;
}

static void undo_output(void *ctx)
{
	struct rf_engine *e = ctx;

	output__close(e->out);
	e->out = NULL;
}

/* The sinks' threads, after the output and before the detectors: the
 * detectors' last alerts at shutdown reach them, then they drain. */
static int step_sinks(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	return sinks__open(&e->o->sinks, e->origin.hostname, &e->sinks, &err->e);
}

static void undo_sinks(void *ctx)
{
	struct rf_engine *e = ctx;

	sinks__close(e->sinks, NULL);
	e->sinks = NULL;
}

static int step_activity(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret;

	if (!e->o->activity && !(e->sinks && e->o->sinks.activity))
		return 0;
	if (e->o->activity) {
		ret = output__open(e->o->activity, e->o->queue_bytes, &e->act);
		if (ret)
			return rf_error_set(&err->e, ret, NULL, "--activity %s: %s", e->o->activity,
					    strerror(-ret));
	}
	/* the ring: about as many records as the output queue holds lines */
	ret = actq__open((e->o->queue_bytes ? e->o->queue_bytes : 8u << 20) / 1024,
			 e->boot_to_real, &e->origin, engine__act_emit, engine__act_idle, e,
			 &e->actq);
	if (ret)
		return rf_error_set(&err->e, ret, NULL, "the activity thread: %s", strerror(-ret));
	return 0;
}

static void undo_activity(void *ctx)
{
	struct rf_engine *e = ctx;

	actq__close(e->actq);
	e->actq = NULL;
	if (e->act) {
		output__flush(e->act, 2000);
		output__close(e->act);
	}
	e->act = NULL;
}

/* --top's recent alerts (made before the detectors: their last alerts
 * at shutdown still land here). */
static int step_recent(void *ctx, struct rf_step_error *err)
{
	(void)err;
	((struct rf_engine *)ctx)->recent = json_array();
	return 0;
}

static void undo_recent(void *ctx)
{
	struct rf_engine *e = ctx;

	json_decref(e->recent);
	e->recent = NULL;
}

static int step_detectors(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	struct rf_detect_opts dopts = e->o->detect;
	const char *env = getenv(ENV_TEST_MAX_SANDBOXES);
	int ret;

	if (env && *env) {
		unsigned long v = strtoul(env, NULL, 10);

		if (v >= 1 && v <= 1048576)
			dopts.max_sandboxes = v;
		rf_info("%s=%s: a sandbox table of %zu (test only)", ENV_TEST_MAX_SANDBOXES, env,
			dopts.max_sandboxes);
	}
	ret = detect__new(&dopts, engine__on_alert, e, &e->det);
	if (ret)
		return rf_error_set(&err->e, ret, "detectors", "%s", strerror(-ret));
	return 0;
}

/* Every open alert closes (reason "shutdown") into the output. */
static void undo_detectors(void *ctx)
{
	struct rf_engine *e = ctx;

	detect__finish(e->det, clock__boottime_ns());
	detect__free(e->det);
	e->det = NULL;
}

/* The ledger's flows (flowwatch.h): read every interval. */
static int step_flows(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret = flowwatch__new(0, &e->flows);

	return ret ? rf_error_set(&err->e, ret, "flows", "%s", strerror(-ret)) : 0;
}

static void undo_flows(void *ctx)
{
	struct rf_engine *e = ctx;

	flowwatch__free(e->flows);
	e->flows = NULL;
}

static int step_record(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	struct rf_record_header h = { .boot_to_real_ns = e->boot_to_real, .ticks = true,
				      .tick_ms = e->o->tick_ms };
	int ret;

	if (!e->o->record)
		return 0;
	h.defaults = *detect__opts(e->det);
	ret = record__open(e->o->record, &h, &e->rec);
	if (ret)
		return rf_error_set(&err->e, ret, NULL, "--record %s: %s", e->o->record,
				    strerror(-ret));
	return 0;
}

static void undo_record(void *ctx)
{
	struct rf_engine *e = ctx;

	record__close(e->rec);
	e->rec = NULL;
}

static int step_http(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	return e->o->metrics_addr ? http__open(e->o->metrics_addr, &e->http, &err->e) : 0;
}

static void undo_http(void *ctx)
{
	struct rf_engine *e = ctx;

	http__close(e->http);
	e->http = NULL;
}

static int step_sandbox_table(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret = sandboxes__init(&e->sbx);

	if (ret)
		return rf_error_set(&err->e, ret, "sandbox table", "%s", strerror(-ret));
	e->sbx.det = e->det;
	e->sbx.want_syscalls = e->o->record != NULL;
	e->sbx.feed = engine__feed;
	e->sbx.drain = engine__drain;
	e->sbx.ctx = e;
	return 0;
}

static void undo_sandbox_table(void *ctx)
{
	sandboxes__free(&((struct rf_engine *)ctx)->sbx);
}

/* The monitor's BPF programs, loaded (attached after the registry's
 * sandboxes are seeded). */
static int step_sensors(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret = sensors__open(e->o->ringbuf_bytes, engine__on_sensor, e, &e->sens, &err->e);

	e->sbx.sens = e->sens;
	return ret;
}

static void undo_sensors(void *ctx)
{
	struct rf_engine *e = ctx;

	sensors__close(e->sens);
	e->sens = e->sbx.sens = NULL;
}

static int step_cgroups(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	(void)err;
	sandboxes__find_cgroups(&e->sbx, e->o->bpf_cpu);
	return 0;
}

static int step_registry(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	int ret = regwatch__open(e->o->registry_dir, &e->reg);

	if (ret)
		return rf_error_set(&err->e, ret, NULL, "registry %s: %s", e->o->registry_dir,
				    strerror(-ret));
	e->sbx.reg = e->reg;
	return 0;
}

static void undo_registry(void *ctx)
{
	struct rf_engine *e = ctx;

	regwatch__close(e->reg);
	e->reg = e->sbx.reg = NULL;
}

/* Sandboxes already running, before the programs attach: their counts
 * start from what is there now. */
static int step_scan(void *ctx, struct rf_step_error *err)
{
	(void)err;
	sandboxes__scan_initial(&((struct rf_engine *)ctx)->sbx);
	return 0;
}

static int step_attach(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	return sensors__attach(e->sens, e->sbx.cpu_from_switch, &err->e);
}

static int step_decisions(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;

	e->dec = decisions__new(engine__on_decision, e);
	if (!e->dec)
		return rf_error_set(&err->e, -ENOMEM, "decisions", "%s", strerror(ENOMEM));
	e->dec_fd_in_ep = -1;
	return 0;
}

/* The records so far go through the detectors before anything closes. */
static void undo_decisions(void *ctx)
{
	struct rf_engine *e = ctx;

	engine__final_drain(e);
	decisions__free(e->dec);
	e->dec = NULL;
}

static int ep_add(struct rf_engine *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(e->ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Signals and the tick timer as fds, everything in one epoll set. */
static int step_loop(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
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
		return rf_error_set(&err->e, -errno, "signalfd, timerfd, epoll", "%s",
				    strerror(errno));
	its.it_interval.tv_sec = (time_t)(e->o->tick_ms / 1000);
	its.it_interval.tv_nsec = (long)(e->o->tick_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	timerfd_settime(e->tfd, 0, &its, NULL);
	ep_add(e, e->sfd);
	ep_add(e, e->tfd);
	ep_add(e, regwatch__fd(e->reg));
	ep_add(e, sensors__epoll_fd(e->sens));
	if (e->http)
		ep_add(e, http__fd(e->http));
	if (decisions__notify_fd(e->dec) >= 0)
		ep_add(e, decisions__notify_fd(e->dec));
	return 0;
}

static void undo_loop(void *ctx)
{
	struct rf_engine *e = ctx;

	close_fd(&e->ep);
	close_fd(&e->tfd);
	close_fd(&e->sfd);
}

/* The decisions ring buffer if the supervisor has pinned it already. */
static int step_start(void *ctx, struct rf_step_error *err)
{
	struct rf_engine *e = ctx;
	const struct rf_engine_opts *o = e->o;
	char status[128];

	(void)err;
	engine__decisions_check(e);
	rf_info("watching %zu sandboxes; CPU time from %s; alerts to %s", regwatch__count(e->reg),
		e->sbx.cpu_from_switch ? "sched_switch (BPF)" : "cgroup v2 cpu.stat",
		o->output ? o->output : (o->top ? "the view only" : "stdout"));
	/* Type=notify: started once every source is attached */
	service__watchdog_init(&e->wd, clock__boottime_ns());
	snprintf(status, sizeof(status), "watching %zu sandboxes", regwatch__count(e->reg));
	service__ready(status);
	return 0;
}

#define EXIT_FAILED 1

/* In order; undone in reverse. The detectors' undo closes their alerts
 * into the output, and the decisions' drains what the kernel still holds
 * into the detectors: each comes after what it writes to. */
static const struct rf_step setup_steps[] = {
	{ "boundary", step_boundary, NULL, EXIT_FAILED, false },
	{ "lock", step_lock, undo_lock, EXIT_FAILED, false },
	{ "origin", step_origin, NULL, EXIT_FAILED, false },
	{ "output", step_output, undo_output, EXIT_FAILED, false },
	{ "sinks", step_sinks, undo_sinks, EXIT_FAILED, false },
	{ "activity", step_activity, undo_activity, EXIT_FAILED, false },
	{ "recent", step_recent, undo_recent, EXIT_FAILED, false },
	{ "detectors", step_detectors, undo_detectors, EXIT_FAILED, false },
	{ "flows", step_flows, undo_flows, EXIT_FAILED, false },
	{ "record", step_record, undo_record, EXIT_FAILED, false },
	{ "metrics-http", step_http, undo_http, EXIT_FAILED, false },
	{ "sandbox-table", step_sandbox_table, undo_sandbox_table, EXIT_FAILED, false },
	{ "sensors", step_sensors, undo_sensors, EXIT_FAILED, false },
	{ "cgroups", step_cgroups, NULL, EXIT_FAILED, false },
	{ "registry", step_registry, undo_registry, EXIT_FAILED, false },
	{ "scan", step_scan, NULL, EXIT_FAILED, false },
	{ "attach", step_attach, NULL, EXIT_FAILED, false },
	{ "decisions", step_decisions, undo_decisions, EXIT_FAILED, false },
	/* owed_before: fds made before one failed are closed too */
	{ "loop", step_loop, undo_loop, EXIT_FAILED, true },
	{ "start", step_start, NULL, EXIT_FAILED, false },
};

int setup__run(const struct rf_engine_opts *o)
{
	_cleanup_free_ struct rf_engine *e = calloc(1, sizeof(*e));
	struct rf_steps steps = { .steps = setup_steps,
				  .n = sizeof(setup_steps) / sizeof(setup_steps[0]) };
	int rc;

	if (!e)
		return EXIT_FAILED;
	e->o = o;
	e->ep = e->tfd = e->sfd = e->lock_fd = e->dec_fd_in_ep = -1;
	rc = steps__run(&steps, e, NULL);
	if (!rc) {
		rc = engine__loop(e);
		service__stopping();
	}
	steps__undo(&steps, e);
	return rc;
}
