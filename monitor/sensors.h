/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The monitor's own BPF programs (bpf/monitor.bpf.c): load, attach, read. */
#ifndef RF_MON_SENSORS_H
#define RF_MON_SENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "error.h"
#include "rf_abi.h"

struct rf_sensors;

/* Open and load (not attached yet); records go to fn. 0 or -errno with e. */
int sensors__open(size_t ringbuf_bytes, ring_buffer_sample_fn fn, void *ctx,
		  struct rf_sensors **ret, struct rf_error *e);
/* cpu_switch: attach the sched_switch CPU accounting too. The syscall
 * sensor (sys_exit) is not attached here: see sensors__syscalls. */
int sensors__attach(struct rf_sensors *s, bool cpu_switch, struct rf_error *e);
/* Attach (on) or detach the syscall sensor, tp_btf/sys_exit. Any program
 * there sends every syscall of every task on the host down the slow path,
 * so it is attached only while something needs it. 0 or -errno. */
int sensors__syscalls(struct rf_sensors *s, bool on);
bool sensors__syscalls_on(const struct rf_sensors *s);
void sensors__close(struct rf_sensors *s);

int sensors__epoll_fd(const struct rf_sensors *s);
int sensors__poll(struct rf_sensors *s);       /* consume what is there */

/* The ringfence parent cgroup: its children are sandboxes. */
void sensors__set_parent(struct rf_sensors *s, uint64_t cgid);
/* Watch a sandbox (kept if the programs made it already). */
int sensors__add(struct rf_sensors *s, uint64_t cgid, int64_t procs, bool armed);
/* Stop watching: its counters and its processes' memory go. */
void sensors__remove(struct rf_sensors *s, uint64_t cgid);
int sensors__acct(const struct rf_sensors *s, uint64_t cgid, struct rf_mon_acct *ret);
/* Every watched cgroup id (up to max); the count. */
size_t sensors__list(const struct rf_sensors *s, uint64_t *ids, size_t max);
/* Start a new peak period for procs_peak. */
void sensors__next_epoch(struct rf_sensors *s);
uint64_t sensors__epoch(const struct rf_sensors *s);
/* Seed a process's resident memory (found running at start). */
void sensors__seed_proc(struct rf_sensors *s, uint32_t tgid, uint64_t cgid, uint64_t rss);

/* Resident memory per sandbox: fn(cgid, bytes) for each process entry. */
void sensors__mem_foreach(const struct rf_sensors *s,
			  void (*fn)(uint64_t cgid, uint64_t bytes, void *ctx), void *ctx);
/* On-CPU time of the sandbox's tasks running right now (not yet in cpu_ns). */
uint64_t sensors__cpu_running(const struct rf_sensors *s, uint64_t cgid, uint64_t now_mono_ns);
/* Refresh the per-CPU snapshot used by sensors__cpu_running. */
void sensors__cpu_snapshot(struct rf_sensors *s);

/* rf_mon_stats counter, summed over CPUs. */
uint64_t sensors__stat(const struct rf_sensors *s, uint32_t idx);

#endif
