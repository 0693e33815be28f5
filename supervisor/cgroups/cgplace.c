// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgplace.h"
#include "cgroup.h"
#include "cleanup.h"
#include "gc.h"
#include "log.h"
#include "backends/sandbox_limits.h"
#include "systemd_scope.h"

#define SUPERVISOR_LEAF "ringfence-supervisor"

const char *cgplace__how_name(enum rf_cgplace_how how)
{
	switch (how) {
	case RF_CGPLACE_NAMED: return "named";
	case RF_CGPLACE_DELEGATED: return "delegated";
	case RF_CGPLACE_SYSTEMD: return "systemd-scope";
	case RF_CGPLACE_ROOT: break;
	}
	return "root";
}

/* path is mount or below it (a string prefix ending at a '/'). */
static bool inside(const char *path, const char *mount)
{
	size_t n = strlen(mount);

	return !strncmp(path, mount, n) && (path[n] == '/' || !path[n]);
}

static void set_base(struct rf_cgplace *p, const char *base)
{
	snprintf(p->base, sizeof(p->base), "%s", base);
	snprintf(p->dir, sizeof(p->dir), "%s/%s", strcmp(base, "/") ? base : "",
		 RF_CGROUP_PARENT);
}

/* --cgroup-parent: an existing cgroup2 directory of this hierarchy,
 * outside ringfence's own tree (gc owns everything below that). */
static int choose_named(const char *mount, const char *named, struct rf_cgplace *p,
			struct rf_error *e)
{
	char joined[PATH_MAX], real[PATH_MAX], own[PATH_MAX];
	uint64_t id;
	int err;

	if (named[0] != '/')
		return rf_error_set(e, -EINVAL, "--cgroup-parent",
				    "%s: not an absolute path", named);
	if (strlen(named) >= sizeof(p->base) - 64)
		return rf_error_set(e, -ENAMETOOLONG, "--cgroup-parent", "path too long");
	/* a cgroup path ("/system.slice/x") or one already below the mount */
	snprintf(joined, sizeof(joined), "%s%s", inside(named, mount) ? "" : mount, named);
	if (!realpath(joined, real))
		return rf_error_set(e, -errno, "--cgroup-parent", "%s: %s", joined,
				    strerror(errno));
	if (!inside(real, mount) || (err = cgroup__id_of(real, &id)) < 0)
		return rf_error_set(e, -EINVAL, "--cgroup-parent", "%s is no cgroup of the "
				    "cgroup2 hierarchy at %s", real, mount);
	snprintf(own, sizeof(own), "%s/%s", mount, RF_CGROUP_PARENT);
	if (inside(real, own))
		return rf_error_set(e, -EINVAL, "--cgroup-parent", "%s is inside ringfence's "
				    "own %s, where every cgroup is a sandbox", real, own);
	if (access(real, W_OK) < 0)
		return rf_error_set(e, -errno, "--cgroup-parent", "%s: %s", real,
				    strerror(errno));
	p->how = RF_CGPLACE_NAMED;
	set_base(p, real);
	snprintf(p->why, sizeof(p->why), "--cgroup-parent %s", named);
	return 0;
}

/* The nearest cgroup at or above ours that systemd delegated, or "". */
static void find_delegated(const char *mount, char *ret, size_t len)
{
	char path[PATH_MAX], *slash;

	ret[0] = '\0';
	if (cgroup__self_path(mount, path, sizeof(path)))
		return;
	while (strlen(path) > strlen(mount)) {
		if (cgroup__delegated(path)) {
			snprintf(ret, len, "%s", path);
			return;
		}
		slash = strrchr(path, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
}

int cgplace__choose(const char *mount, const char *named, struct rf_cgplace *p,
		    struct rf_error *e)
{
	char deleg[PATH_MAX];

	memset(p, 0, sizeof(*p));
	if (!mount || !mount[0]) {
		snprintf(p->why, sizeof(p->why), "no cgroup2 mount");
		return 0;
	}
	if (named)
		return choose_named(mount, named, p, e);
	find_delegated(mount, deleg, sizeof(deleg));
	if (deleg[0] && access(deleg, W_OK) == 0) {
		p->how = RF_CGPLACE_DELEGATED;
		set_base(p, deleg);
		snprintf(p->why, sizeof(p->why), "the caller's cgroup is delegated (%s carries "
			 "systemd's delegate xattr: a unit with Delegate=yes)", deleg);
		return 0;
	}
	if (systemd_scope__booted()) {
		p->how = RF_CGPLACE_SYSTEMD;
		snprintf(p->why, sizeof(p->why), "PID 1 is systemd and the caller's cgroup is "
			 "not delegated: a transient scope with Delegate=yes, made at start");
		return 0;
	}
	set_base(p, mount);
	snprintf(p->why, sizeof(p->why), "PID 1 is not systemd and the caller's cgroup is "
		 "not delegated: the cgroup2 root");
	return 0;
}

void cgplace__probe_controllers(const struct rf_cgplace *p, struct rf_caps *caps)
{
	bool only = false;
	int i, n;

	if (p->how != RF_CGPLACE_NAMED && p->how != RF_CGPLACE_DELEGATED)
		return;
	sandbox_limits__probe_at(caps, p->base);
	n = cgroup__direct_procs(p->base, getpid(), &only);
	if (n <= 0 || only || !strcmp(p->base, caps->cgroup_mount))
		return;
	for (i = 0; i <= RF_LIMIT_CPU; i++) {
		struct rf_backend_probe *c = &caps->cgroup_ctrl[i];

		if (!c->ok)
			continue;
		c->ok = false;
		c->err = -EBUSY;
		snprintf(c->detail, sizeof(c->detail), "%s holds %d processes of its own: cgroup "
			 "v2 enables no controller below such a cgroup (start ringfence in a "
			 "sub-cgroup of it; systemd: DelegateSubgroup=)", p->base, n);
	}
}

/* Alone in BASE: move to a leaf beside ringfence/, so BASE has no
 * processes and its subtree_control can take controllers. */
static int leave_base(struct rf_cgplace *p, struct rf_error *e)
{
	char leaf[sizeof(p->base) + 32], pid[24];
	bool only = false;
	int n, fd;

	n = cgroup__direct_procs(p->base, getpid(), &only);
	if (n != 1 || !only)
		return 0;
	snprintf(leaf, sizeof(leaf), "%s/" SUPERVISOR_LEAF, p->base);
	if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
		return rf_error_set(e, -errno, "refused", "creating cgroup %s: %s", leaf,
				    strerror(errno));
	snprintf(leaf + strlen(leaf), sizeof(leaf) - strlen(leaf), "/cgroup.procs");
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(leaf, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return rf_error_set(e, err, "refused", "moving the supervisor to %s: %s", leaf,
				    strerror(-err));
	}
	close(fd);
	p->moved = true;
	return 0;
}

int cgplace__setup(struct rf_cgplace *p, const char *sandbox, struct rf_error *e)
{
	char mount[512], self[PATH_MAX], desc[256];
	int err;

	if (p->how == RF_CGPLACE_SYSTEMD) {
		snprintf(p->unit, sizeof(p->unit), "ringfence-%s.scope", sandbox);
		snprintf(desc, sizeof(desc), "ringfence sandbox %s", sandbox);
		err = systemd_scope__start(p->unit, desc, e);
		if (!err && (err = cgroup__find_v2_mount(mount, sizeof(mount))) == 0)
			err = cgroup__self_path(mount, self, sizeof(self));
		if (err)
			return e->err ? rf_error_wrap(e, "refused") :
			       rf_error_set(e, err, "refused", "finding the scope's cgroup: %s",
					    strerror(-err));
		set_base(p, self);
	}
	if (p->how != RF_CGPLACE_ROOT && (err = leave_base(p, e)))
		return err;
	if (mkdir(p->dir, 0755) < 0 && errno != EEXIST)
		return rf_error_set(e, -errno, "refused", "creating cgroup %s: %s", p->dir,
				    strerror(errno));
	/* gc walks MOUNT/ringfence anyway */
	if (p->how == RF_CGPLACE_ROOT)
		return 0;
	err = gc__note_parent(p->dir);
	return err ? rf_error_set(e, err, "refused", "recording %s for gc: %s", p->dir,
				  strerror(-err)) : 0;
}

bool cgplace__at_pinned(const struct rf_cgplace *p, const char *mount)
{
	char own[600];

	snprintf(own, sizeof(own), "%s/%s", mount, RF_CGROUP_PARENT);
	return !strcmp(p->dir, own);
}

json_t *cgplace__json(const struct rf_cgplace *p)
{
	json_t *o = json_object();

	if (p->dir[0])
		json_object_set_new(o, "parent", json_string(p->dir));
	json_object_set_new(o, "how", json_string(cgplace__how_name(p->how)));
	json_object_set_new(o, "why", json_string(p->why));
	if (p->unit[0])
		json_object_set_new(o, "unit", json_string(p->unit));
	return o;
}
