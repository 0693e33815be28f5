/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-sandbox CPU time, memory and process count. From the cgroup v2 files
 * where the controllers are enabled (cpu.stat usage_usec, memory.current,
 * pids.current); where they are not (hybrid hosts), from the monitor's own
 * BPF accounting (sched_switch, rss_stat, fork/exit).
 */
#ifndef RF_MON_RESOURCES_H
#define RF_MON_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "input.h"

/* What the cgroup offers (rf_sample_src bits). */
uint32_t resources__probe(const char *cgroup_path);

/* Read the cgroup v2 values named by src into *s (others untouched). */
int resources__read_cgroup(const char *cgroup_path, uint32_t src, struct rf_in_sample *s);

/* Every process of the cgroup and its descendants (cgroup.procs), up to
 * max; returns the count found (may exceed max), or -errno. */
int resources__procs(const char *cgroup_path, pid_t *pids, size_t max);

/* Does the cgroup with this id still exist? Asked of the kernel by id
 * (open_by_handle_at on the cgroup2 mount, CAP_DAC_READ_SEARCH): 1 it
 * exists, 0 it is gone (ESTALE), -errno when the kernel cannot say. */
int resources__cgroup_alive(int cgroup2_mount_fd, uint64_t cgroup_id);

/* Bytes the cgroup's processes caused to be written to storage: io.stat's
 * wbytes over every device where the io controller is enabled (exact,
 * the kernel's own count; *ret_cgroup true), else the sum of write_bytes
 * of /proc/PID/io over its live processes (a process's count includes
 * the children it reaped; one reaped outside the cgroup takes its count
 * with it). 0 or -errno. */
int resources__disk_write(const char *cgroup_path, uint64_t *ret, bool *ret_cgroup);

/* A running process as a PROC input: comm, exe path, parent; rss bytes. */
int resources__proc_info(pid_t pid, struct rf_in_proc *p, uint64_t *ret_rss);

#endif
