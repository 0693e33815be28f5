/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What dead supervisors left behind, found from the kernel's state: the
 * cgroups under MOUNT/ringfence and under every other sandbox parent in
 * use (cgplace.h; sandboxes and the probe's scratch cgroups), the keys of the per-sandbox pinned maps, and the registry
 * files. `ringfence gc` walks everything; every run start does the cheap
 * one (RF_GC_SAMPLE; map keys only of what it removed).
 */
#ifndef RF_GC_H
#define RF_GC_H

#include <stdbool.h>
#include <stdint.h>
#include "backends/enforcer.h"

#define RF_GC_FULL   (1u << 0)  /* also every map key whose cgroup id is no live sandbox's */
#define RF_GC_NOWAIT (1u << 1)  /* a gc or a start holds the lock: do nothing this time */
/* A run's start: no registry file is parsed but RF_GC_SAMPLES picked at
 * random (the reaper cleans after a dead supervisor; this catches what a
 * dead reaper left, amortized), so start-up does not grow with the number
 * of live sandboxes. Cgroups and temp files no registry file names go. */
#define RF_GC_SAMPLE (1u << 2)
#define RF_GC_SAMPLES 2

struct rf_gc_stats {
	unsigned cgroups;       /* sandbox cgroups removed */
	unsigned probes;        /* probe scratch cgroups removed */
	unsigned registry;      /* registry files (and writers' temp files) removed */
	unsigned long long map_entries;
	unsigned survivors;     /* sandboxes whose processes survived the kill: left */
};

/*
 * Remove what no live supervisor owns. A sandbox cgroup is owned while
 * its registry file names a live supervisor, or says keep-running and the
 * cgroup still has processes. enf NULL: no pinned maps (nothing to walk).
 * say: one line per thing removed (NULL: none). 0 or -errno (the lock).
 */
int gc__run(const struct rf_enforcer *enf, const char *mount, unsigned flags,
	    void (*say)(const char *line), struct rf_gc_stats *ret_stats);

/*
 * Held shared from creating a sandbox's cgroup until its registry file is
 * written, the one window in which a cgroup has no file naming its owner;
 * gc__run holds it exclusive. An fd to close, or -errno.
 */
int gc__start_lock(void);

/*
 * One sandbox whose supervisor is gone (the reaper's clean-up): kill its
 * cgroup, then remove its map entries and registry file. 0 (also when
 * there was nothing), -EBUSY when processes survived the kill.
 */
int gc__sandbox(const char *name, const char *cgroup_path);

/*
 * Record a sandbox parent other than MOUNT/ringfence (a delegated place,
 * cgplace.h) in RF_RUN_DIR/parents/<its cgroup id>, before any sandbox
 * cgroup is made in it, so gc walks it too; an entry whose cgroup is gone
 * (or is another cgroup now) is dropped by gc. 0 or -errno.
 */
int gc__note_parent(const char *dir);

#endif
