/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The policy's "limits": the cgroup v2 controllers that hold memory, pids
 * and cpu, and the supervisor's own watch over the wall clock and the
 * command's output while it runs.
 */
#ifndef RF_SANDBOX_LIMITS_H
#define RF_SANDBOX_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "cgroup.h"
#include "error.h"
#include "names.h"
#include "out_relay.h"

struct rf_caps;
struct rf_plan;

/* Fill caps->cgroup_ctrl[]: is each controller listed in the cgroup2
 * hierarchy's cgroup.controllers at caps->cgroup_mount? Reads only. */
void sandbox_limits__probe(struct rf_caps *caps);
/* The same for the cgroup dir (a delegated place, cgplace.h). */
void sandbox_limits__probe_at(struct rf_caps *caps, const char *dir);

/* Enable the controllers the plan's limits use in BASE's (the cgroup2 root
 * or the delegated place, cgplace.h) and BASE/ringfence's
 * cgroup.subtree_control, then write the sandbox
 * cgroup's memory.max, memory.swap.max, memory.oom.group, pids.max and
 * cpu.max. 0, or -errno with e filled. */
int sandbox_limits__apply_cgroup(const struct rf_plan *plan, const char *base,
			 const struct rf_cgroup *cg, struct rf_error *e);

/* cpu.max for a percentage of one CPU: "QUOTA 100000". */
void sandbox_limits__cpu_max(uint64_t percent, char *buf, size_t len);

#define RF_LIMITS_OUT_MAX 2       /* stdout, stderr */

/* What the supervisor watches while the command runs. */
struct rf_limits_watch {
	uint64_t wall_seconds;    /* 0: none */
	uint64_t output_bytes;    /* 0: no relay */
	uint64_t memory_mb, pids; /* 0: none; else read memory.events / pids.events */
	const struct rf_cgroup *cg;     /* the sandbox cgroup (not owned) once started */
	int timer_fd;             /* the wall-clock deadline, -1 */
	int events_fd[2];         /* memory.events, pids.events (EPOLLPRI on change), -1 */
	int out_r[RF_LIMITS_OUT_MAX];   /* relay read ends, -1 */
	int child_w[RF_LIMITS_OUT_MAX]; /* the command's ends (>= 10) until launched, -1 */
	int dest[RF_LIMITS_OUT_MAX];    /* where the relay writes: 1, 2 */
	struct rf_out_relay out[RF_LIMITS_OUT_MAX]; /* ...through these, never blocking */
	uint32_t watched_r[RF_LIMITS_OUT_MAX];      /* epoll events set for out_r */
	int saved_err;            /* our stderr while it is out[1]'s description; -1 */
	uint64_t out_dropped;     /* bytes the reader never took at the end */
	uint64_t out_read;        /* bytes the command wrote */
	uint64_t out_delivered;   /* bytes passed on (at most output_bytes) */
	struct timespec start;
	enum rf_limit hit;        /* the limit that ended the run; RF_LIMIT_MAX: none */
	uint64_t hit_value;       /* what it measured (the limit's unit) */
	uint64_t hit_threshold;
	uint64_t hit_events;      /* memory: OOM kills; pids: forks refused */
	bool reported;            /* limit.exceeded written */
};

/* Pipes for the output relay when the plan has output_bytes. 0 or
 * -errno with e filled; w is valid for sandbox_limits__watch_close either way. */
int sandbox_limits__watch_init(struct rf_limits_watch *w, const struct rf_plan *plan,
		       struct rf_error *e);
/* The command is running in cg: close its pipe ends here, open the relay's
 * way to dest (out_relay.h), arm the clock. */
int sandbox_limits__watch_start(struct rf_limits_watch *w, const struct rf_cgroup *cg);
/* The fds to poll (readable): the deadline's; returns how many (0 or 1).
 * The relay's own fds come and go: sandbox_limits__watch. */
int sandbox_limits__watch_fds(const struct rf_limits_watch *w, int *fds);
/* Register / update the relay's fds in the epoll set ep (after every
 * event): a pipe read while its buffer has room, ringfence's side
 * watched for room while bytes wait. */
void sandbox_limits__watch(struct rf_limits_watch *w, int ep);
/* The cgroup's *.events files to poll for EPOLLPRI (a change): up to 2. */
int sandbox_limits__event_fds(const struct rf_limits_watch *w, int *fds);
/* fd became readable (or writable: the relay's far side): relay, or
 * note the deadline; an events file
 * changed: read the cgroup's counters. True when a limit was
 * reached just now (w->hit set). */
bool sandbox_limits__on_fd(struct rf_limits_watch *w, int fd);
/* The cgroup's own counters: the memory cap's OOM kill, a refused fork.
 * True when a limit was reached just now. */
bool sandbox_limits__check_cgroup(struct rf_limits_watch *w);
/* n bytes of the command's output came in elsewhere (the pty relay):
 * how many of them fit in the budget and go on; the rest ends the run
 * (*hit_now). Without output_bytes, all n. */
uint64_t sandbox_limits__admit_output(struct rf_limits_watch *w, uint64_t n, bool *hit_now);
/* Relay what is left in the pipes (all of it once every writer is gone)
 * while the reader takes it: one that takes nothing for a second gets
 * the rest dropped (w->out_dropped). */
void sandbox_limits__drain(struct rf_limits_watch *w);
/* {"limit": .., "value": .., "threshold": .., "unit": ..} for w->hit. */
json_t *sandbox_limits__exceeded_json(const struct rf_limits_watch *w);
/* For the stderr line: "limit wall_seconds=1 reached". */
void sandbox_limits__hit_text(const struct rf_limits_watch *w, char *buf, size_t len);
void sandbox_limits__watch_close(struct rf_limits_watch *w);
/* Bytes the cgroup's tasks wrote to block devices (io.stat wbytes summed
 * over devices): 0, or -errno (-ENOENT: no io controller there). */
int sandbox_limits__io_write_bytes(const struct rf_cgroup *cg, uint64_t *ret_bytes);
/* The cgroup's CPU time so far (cpu.stat usage_usec); 0 when unreadable. */
uint64_t sandbox_limits__cpu_usec(const struct rf_cgroup *cg);

#endif
