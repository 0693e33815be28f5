// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence-monitor: command line (its options: options.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/resource.h>

#include "engine.h"
#include "log.h"
#include "metrics.h"
#include "options.h"
#include "paths.h"
#include "privs.h"
#include "replay.h"
#include "setup.h"
#include "top.h"

static uint64_t mem_total_mb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size >> 20 : 0;
}

/* A monitor holds the lock: --top only reads its snapshot. */
static bool monitor_running(void)
{
	int fd = open(RF_MON_LOCK, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) != 0;
	close(fd);
	return held;
}

static uint64_t or_default(uint64_t v, uint64_t def)
{
	return v == UNSET ? def : v;
}

static int run_replay(struct cli *c)
{
	if (c->profile)
		return replay__profile(c->replay, c->profile);
	/* A replay has no live CPU count or RAM: thresholds not given are off. */
	c->detect.cpu_percent = or_default(c->detect.cpu_percent, 0);
	c->detect.memory_mb = or_default(c->detect.memory_mb, 0);
	c->detect.pids = or_default(c->detect.pids, 0);
	return replay__run_sinks(c->replay, c->o.output, c->o.activity, &c->detect,
				 c->o.metrics_file, sinks__any(&c->o.sinks) ? &c->o.sinks : NULL);
}

static int run_live(struct cli *c)
{
	long ncpu;

	if (c->top && monitor_running())
		return top__client(c->o.status_path, c->once);
	if (c->top && c->once) {
		fprintf(stderr, "ringfence-monitor: --top --once: no ringfence-monitor is running\n");
		return 1;
	}
	{
		char why[160];

		if (!privs__have(RF_PRIVS_MONITOR, why, sizeof(why))) {
			rf_err("%s", why);
			return 1;
		}
	}
	/* The ring buffers hold tens of milliseconds of a burst: a monitor
	 * the scheduler keeps waiting longer on a loaded host loses records,
	 * whatever its own speed. */
	if (c->boost && setpriority(PRIO_PROCESS, 0, -(int)c->boost))
		rf_info("--priority-boost %llu: %s", (unsigned long long)c->boost, strerror(errno));

	/* Thresholds for sandboxes whose policy sets none. */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->o.detect = c->detect;
	c->o.detect.cpu_percent = or_default(c->detect.cpu_percent,
					     90 * (uint64_t)(ncpu > 0 ? ncpu : 1));
	c->o.detect.memory_mb = or_default(c->detect.memory_mb, mem_total_mb() / 2);
	c->o.detect.pids = or_default(c->detect.pids, 1024);
	c->o.ringbuf_bytes = (size_t)c->ringbuf_kb << 10;
	c->o.queue_bytes = (size_t)c->queue_kb << 10;
	c->o.top = c->top;
	return setup__run(&c->o);
}

int main(int argc, char **argv)
{
	struct cli c = {
		.o = {
			.state_path = RF_MON_STATE_DEFAULT,
			.status_path = RF_MON_STATUS_DEFAULT,
			.registry_dir = RF_REGISTRY_DIR,
			.interval_ms = 1000,
			.tick_ms = 250,
			.coalesce_us = 500,
			.sinks = { .spool_dir = RF_MON_SPOOL_DEFAULT,
				   .drain_ms = RF_SINK_DRAIN_MS_DEFAULT },
		},
		.detect = { .cpu_percent = UNSET, .memory_mb = UNSET, .pids = UNSET },
		.ringbuf_kb = 1024,
		.queue_kb = 8192,
		.boost = 4,
		.spool_mb = RF_SINK_SPOOL_MB_DEFAULT,
		.verbosity = 1,
	};
	int status = options__parse(&c, argc, argv);

	if (status >= 0)
		return status;
	if (c.journal)
		c.o.sinks.addr[RF_SINK_JOURNAL] = "";
	c.o.sinks.spool_bytes = c.spool_mb << 20;
	c.o.sinks.queue_bytes = (size_t)c.queue_kb << 10;
	if (options__check(&c))
		return EXIT_USAGE;
	rf_log_init("ringfence-monitor", c.verbosity);
	return c.replay ? run_replay(&c) : run_live(&c);
}
