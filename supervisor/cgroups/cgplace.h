/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where sandbox cgroups live. Always BASE/ringfence/<sandbox>, BASE being,
 * first that applies: the cgroup named by --cgroup-parent; the nearest
 * cgroup at or above the caller's own that systemd delegated (a unit with
 * Delegate=yes: trusted.delegate or user.delegate set on it); when PID 1
 * is systemd, a transient scope with Delegate=yes made for this run
 * (systemd_scope.h); else the cgroup2 root (no manager to ask).
 */
#ifndef RF_CGPLACE_H
#define RF_CGPLACE_H

#include <stdbool.h>
#include <jansson.h>
#include "error.h"
#include "plan/probe.h"

enum rf_cgplace_how {
	RF_CGPLACE_ROOT,
	RF_CGPLACE_NAMED,       /* --cgroup-parent */
	RF_CGPLACE_DELEGATED,   /* the caller's delegated cgroup */
	RF_CGPLACE_SYSTEMD,     /* a transient scope */
};

struct rf_cgplace {
	enum rf_cgplace_how how;
	char base[2048];   /* systemd: empty until cgplace__setup made the scope */
	char dir[2100];    /* base/ringfence, the sandbox cgroups' parent */
	char why[512];
	char unit[192];    /* systemd: the scope's unit name */
	bool moved;        /* this process left base for base/ringfence-supervisor */
};

/* The name in the plan, the trace and the registry: "root", "named",
 * "delegated", "systemd-scope". */
const char *cgplace__how_name(enum rf_cgplace_how how);

/*
 * Decide, creating nothing. named: --cgroup-parent's value or NULL; an
 * absolute path inside the cgroup2 mount, or a cgroup path ("/a/b", taken
 * below the mount). A bad one: -EINVAL/-ENOENT/... with e filled (usage).
 */
int cgplace__choose(const char *mount, const char *named, struct rf_cgplace *ret,
		    struct rf_error *e);

/* Which controllers the sandbox cgroup can have there (caps->cgroup_ctrl):
 * those of BASE, unless BASE holds processes other than this one (cgroup
 * v2 enables no controller below a cgroup with processes of its own). */
void cgplace__probe_controllers(const struct rf_cgplace *p, struct rf_caps *caps);

/*
 * Make it: the systemd scope (for sandbox), leave BASE for a leaf when
 * this process is alone in it (so controllers can be enabled below),
 * mkdir BASE/ringfence, and record it for gc (gc__note_parent). 0 or
 * -errno with e filled.
 */
int cgplace__setup(struct rf_cgplace *p, const char *sandbox, struct rf_error *e);

/* The sandbox cgroups are under MOUNT/ringfence, where the pinned
 * programs are attached: no attachment of their own. */
bool cgplace__at_pinned(const struct rf_cgplace *p, const char *mount);

/* {"parent": dir, "how": .., "why": .., "unit": ..} for the plan. */
json_t *cgplace__json(const struct rf_cgplace *p);

#endif
