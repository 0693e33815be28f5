/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cgroup v2: find the mount, the ringfence parent, one cgroup per sandbox. */
#ifndef RF_CGROUP_H
#define RF_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RF_CGROUP_PARENT "ringfence"
/* MOUNT/ringfence/containers: where a container runtime makes the cgroups
 * of containers under BPF-LSM rules (podman --cgroup-parent=
 * /ringfence/containers); gc leaves it, and what is below it, alone. */
#define RF_CGROUP_CONTAINERS "containers"

/* The cgroup2 mount point, from /proc/self/mountinfo (/sys/fs/cgroup on
 * pure v2 hosts, /sys/fs/cgroup/unified on hybrid ones). 0, -ENOENT when
 * no cgroup2 is mounted, or another negative errno. */
int cgroup__find_v2_mount(char *ret_path, size_t len);

/* Open (creating if needed, mode 0755) MOUNT/ringfence: the one cgroup the
 * BPF programs attach to. Returns an O_DIRECTORY|O_CLOEXEC fd or -errno. */
int cgroup__open_parent(const char *mount);

struct rf_cgroup {
	int dir_fd;          /* O_DIRECTORY|O_CLOEXEC, for CLONE_INTO_CGROUP */
	uint64_t id;         /* the cgroup id (kernfs inode number) */
	char path[4096];     /* PARENT/NAME (PARENT: MOUNT/ringfence or a delegated one) */
};

/* Create DIR/NAME through DIR's open parent_fd (must not exist: -EEXIST). */
int cgroup__create_under(int parent_fd, const char *dir, const char *name,
			 struct rf_cgroup *ret_cg);
/* Remove a cgroup this process made under parent_fd and no process ever
 * entered (a probe's): one rmdir, not cgroup__destroy's kill, wait and
 * walk, which it falls back to when the rmdir is refused. */
int cgroup__remove_unused(int parent_fd, struct rf_cgroup *cg);

/* Create MOUNT/ringfence/NAME (must not exist: -EEXIST). */
int cgroup__create(const char *mount, const char *name, struct rf_cgroup *ret_cg);

/* Create DIR/NAME, DIR an existing cgroup2 directory (a sandbox parent
 * elsewhere than MOUNT/ringfence: delegated, systemd's, or named). */
int cgroup__create_at(const char *dir, const char *name, struct rf_cgroup *ret_cg);

/* MOUNT + this process's cgroup v2 path (/proc/self/cgroup's "0::"). */
int cgroup__self_path(const char *mount, char *ret_path, size_t len);

/* systemd marks the cgroup of a unit with Delegate=yes with the xattr
 * trusted.delegate=1 (user.delegate=1 from a user manager): 1 when path
 * carries it, else 0. */
int cgroup__delegated(const char *path);

/* Processes directly in the cgroup (not below): how many, and whether
 * every one of them is pid (ret_only_pid). -errno on failure. */
int cgroup__direct_procs(const char *path, pid_t pid, bool *ret_only_pid);

/* Number of processes in the cgroup (cgroup.procs lines), or -errno. */
int cgroup__count_procs(const struct rf_cgroup *cg);

/* SIGKILL every process in the cgroup (cgroup.kill where the kernel has
 * it, else a loop over cgroup.procs until empty), wait until it is empty
 * (bounded), then rmdir it and close dir_fd. Accepts a cgroup whose
 * dir_fd is -1 (already destroyed) and one that no longer exists. */
int cgroup__destroy(struct rf_cgroup *cg);

/* Same for a cgroup known only by path (stale sandbox clean-up). */
int cgroup__destroy_path(const char *path);

/* The cgroup is gone or holds no process anywhere below it (cgroup.events). */
bool cgroup__is_empty(const char *path);

/* The cgroup id of a path (inode number of the directory), or -errno. */
int cgroup__id_of(const char *path, uint64_t *ret_id);

#endif
