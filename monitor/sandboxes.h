/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live monitor's sandbox tracking: which sandboxes the registry names
 * (followed by regwatch), which cgroup ids the kernel's events carry that
 * it does not (rescans, orphans, cgroups gone), the sensors' per-cgroup
 * entries kept in step, and every interval a resource sample of each.
 * What it observes goes out as input records through feed (the engine's),
 * so this file calls nothing of the event loop's.
 */
#ifndef RF_MON_SANDBOXES_H
#define RF_MON_SANDBOXES_H

#include <stdbool.h>
#include <stdint.h>
#include "input.h"
#include "registry_watch.h"
#include "table.h"

#define RF_SBX_MAX 1024
#define RF_SBX_UNKNOWN_MAX 64

struct rf_detect;
struct rf_sensors;

struct rf_sbx_live {
	bool used;
	uint64_t cgid;
	char name[RF_SANDBOX_LEN];
	char cgroup_path[512];
	uint32_t src;               /* rf_sample_src: cgroup v2 files present */
	uint64_t mem_acc;
	uint64_t disk_hw;           /* most disk-write bytes seen (the sum can drop) */
};

struct rf_sbx_unknown {
	uint64_t cgid;
	uint64_t since_ns;
};

struct rf_sandboxes {
	/* What it works with, set by the owner before use. */
	struct rf_sensors *sens;
	struct rf_detect *det;
	struct rf_regwatch *reg;
	bool want_syscalls;         /* attach the syscall sensor (--record) */
	void (*feed)(void *ctx, const struct rf_input *in);
	void (*drain)(void *ctx);   /* the sensors' and decisions' records so far */
	void *ctx;

	bool cpu_from_switch;       /* CPU time from sched_switch, not cpu.stat */
	uint64_t cgroups_gone;      /* entries ended because their cgroup is gone */
	int cg_mount_fd;            /* cgroup2 mount: liveness of a cgroup id */
	char cg_mount[512];
	uint64_t parent_cgid;
	/* A sandbox lives outside <cgroup2>/ringfence (a delegated place):
	 * the sensors look every cgroup up, not only that parent's children. */
	bool parent_off;
	bool initial_scan;          /* the registry scan before the programs attach */
	bool in_registry;           /* inside a registry callback: no nested rescans */

	struct rf_sbx_live sbs[RF_SBX_MAX];
	struct rf_index ix;
	struct rf_sbx_unknown unknown[RF_SBX_UNKNOWN_MAX];  /* rescanned-for cgroup ids */
	uint32_t unknown_next;
	struct rf_sbx_unknown orphans[RF_SBX_UNKNOWN_MAX];  /* kernel entries without registry */
	struct rf_reg_ops ops;
};

/* An empty table (no cgroup mount yet). 0 or -ENOMEM. */
int sandboxes__init(struct rf_sandboxes *x);
void sandboxes__free(struct rf_sandboxes *x);
/* Find the cgroup2 mount and the ringfence parent; whether CPU time comes
 * from sched_switch (bpf_cpu, or no cpu.stat). */
void sandboxes__find_cgroups(struct rf_sandboxes *x, bool bpf_cpu);
/* The registry's callbacks (add, remove) for regwatch. */
const struct rf_reg_ops *sandboxes__reg_ops(struct rf_sandboxes *x);
/* The first scan: sandboxes already running, their processes seeded. */
void sandboxes__scan_initial(struct rf_sandboxes *x);

/* An input of a cgroup that may be unknown: fed, with a registry rescan
 * if it lives, its entry ended right after if its cgroup is gone. */
void sandboxes__feed_input(struct rf_sandboxes *x, const struct rf_input *in);
/* An event of cgid: rescan the registry once if it is not known. */
void sandboxes__note(struct rf_sandboxes *x, uint64_t cgid);

/* Every interval: the parent cgroup once it exists, a resource sample of
 * each sandbox, and (sandboxes__gc) the entries to forget. */
void sandboxes__find_parent(struct rf_sandboxes *x);
void sandboxes__sample(struct rf_sandboxes *x, uint64_t now);
void sandboxes__gc(struct rf_sandboxes *x, uint64_t now);

#endif
