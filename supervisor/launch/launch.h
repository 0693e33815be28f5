/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Start the sandboxed command: clone3(CLONE_INTO_CGROUP), scrub, drop, exec. */
#ifndef RF_LAUNCH_H
#define RF_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "error.h"
#include "backends/sandbox_seccomp.h"
#include "backends/sandbox_landlock.h"
#include "pidns.h"

/* A fresh filesystem the child mounts over a host directory in its own
 * mount namespace (after its /proc, before the scratch): a private
 * /dev/shm, a private /tmp. */
struct launch_mount {
	const char *path;
	const char *fstype;       /* "proc" or "tmpfs" */
	const char *data;         /* mount data, e.g. "hidepid=ptraceable" */
	unsigned long flags;      /* MS_NOSUID | ... */
	/* Non-zero: the Landlock rights added on its root before the ruleset
	 * is applied (Landlock skips a mount point walking up from a file:
	 * the host directory's rule does not reach the new filesystem). */
	uint64_t landlock_access;
};

struct launch_opts {
	int cgroup_fd;           /* sandbox cgroup dir fd (CLONE_INTO_CGROUP) */
	char *const *argv;       /* argv[0]: a path, or a name looked up in the
				  * PATH of envp (default /usr/local/bin:/usr/bin:/bin) */
	char *const *envp;       /* the built environment */
	uid_t uid;               /* the user to run as */
	gid_t gid;
	bool keep_groups;        /* false: supplementary groups become {gid} */
	/* When either list is non-empty the child gets a private mount
	 * namespace: ro_mounts (every cgroup2 mount) become read-only there,
	 * so it cannot move itself out of its cgroup or make sub-cgroups
	 * even as uid 0; detach_mounts (bpffs, mqueue) are covered there by an
	 * empty read-only tmpfs. */
	const char *const *ro_mounts;
	const char *const *detach_mounts;
	/* ro_tree: every mount of the namespace read-only except the trees of
	 * rw_paths (NULL-terminated; missing ones skipped), which keep their
	 * own flags: metadata changes outside the write rules fail (EROFS). */
	bool ro_tree;
	const char *const *rw_paths;
	/* With ro_tree: directories bound onto themselves once the write
	 * trees are back (NULL-terminated, a parent first; NULL none), so
	 * rename and rmdir of them fail with EBUSY (run/unixpin.h). One that
	 * cannot be bound fails the launch. */
	const char *const *pin_dirs;
	/* > 2: a user namespace (dynuser.h): each rw_paths tree that needs it
	 * (launch__rw_needs_map) becomes an id-mapped copy of itself with its
	 * map (root's files the command's, files it makes root's on disk),
	 * with or without ro_tree; otherwise no mapping. */
	int idmap_fd;
	/* > 0: the connection ledger's rf_unix_sk map. The supervisor's own
	 * socket pair with the child (plan_notify) gets empty storage there:
	 * its bytes are never counted as the sandbox's unix peers'. */
	int unix_sk_fd;
	/* W^X memory (memory.deny_write_execute): prctl(PR_SET_MDWE) before
	 * the confinement, checked with PR_GET_MDWE. */
	bool mdwe;
	/* Applied last, in this order, after no_new_privs and the checks:
	 * a Landlock ruleset (-1: none; 0 is never a ruleset here) and the
	 * seccomp filters (NULL: none). Failing either is a SETUP failure:
	 * the command never runs with less than the plan says. */
	int landlock_fd;
	const struct rf_seccomp *seccomp;
	/* Above 2: the command's stdout / stderr (the supervisor's relay
	 * pipes, limits.output_bytes); otherwise the ones inherited. */
	int stdout_fd;
	int stderr_fd;
	/* Above 2: the command's pty (run/tty_relay.h), on the fds 0-2 that
	 * tty_std marks (instead of the above), made the controlling terminal
	 * of the command's new session. */
	int tty_fd;
	bool tty_std[3];
	/* Non-NULL: an empty tmpfs of scratch_mb MiB is mounted there in the
	 * child's (private) mount namespace (limits.scratch). */
	const char *scratch_path;
	uint64_t scratch_mb;
	/* The child always gets a mount namespace of its own and, over /proc,
	 * the procfs of its PID namespace (hidepid=ptraceable), whose root
	 * gets proc_landlock_access (see launch_mount). Then these, in order. */
	uint64_t proc_landlock_access;
	const struct rf_landlock_later *ll_later;   /* rules below /proc/, added there */
	size_t n_ll_later;
	const struct launch_mount *mounts;
	size_t n_mounts;
	/* Above 2: a detached devpts instance of the sandbox's own (the one
	 * tty_fd comes from), moved over /dev/pts after every devpts mount in
	 * detach_mounts is gone; devpts_landlock_access as for a mount. -1 or
	 * 0: none. */
	int devpts_fd;
	uint64_t devpts_landlock_access;
	/* Non-zero: the Landlock rights of the scratch directory, added on the
	 * tmpfs's root before the ruleset is applied. */
	uint64_t scratch_landlock_access;
	/* Above 2: a fanotify group (monitor.files, run/filewatch.h) the
	 * child marks each mount of its namespace with (FAN_MARK_MOUNT,
	 * fanotify_mask) after its last mount and before it drops its
	 * capabilities; the command never holds it. A mount made in the
	 * caller's namespace between its listing and the clone is missed. */
	int fanotify_fd;
	uint64_t fanotify_mask;
	/* the mount points the child's namespace copies (the caller's mount
	 * table, NULL-terminated), marked by path with its own /proc, mounts
	 * and scratch: the child opens no file for it (a BPF-LSM file policy
	 * judges the child's opens already) */
	const char *const *fanotify_mounts;
	/* Test-only: keep every capability (uid stays as given). Only for
	 * proving a kernel-side (BPF-LSM) boundary against a root process
	 * that holds its capabilities; the CLI gates it. */
	bool keep_caps;
};

/* Why a launch failed before the command ran. */
enum launch_stage {
	LAUNCH_STAGE_NONE = 0,
	LAUNCH_STAGE_SETUP = 1,  /* fds, mounts, groups, ids, no_new_privs, caps: 126 */
	LAUNCH_STAGE_EXEC = 2,   /* execve failed: ENOENT -> 127, else 126 */
};

struct launch_result {
	pid_t pid;               /* > 0 when the command was started */
	int pidfd;               /* CLOEXEC pidfd of the child, -1 if none */
	enum launch_stage failed_stage;
	int err;                 /* positive errno of the failure */
	char what[128];          /* which step failed, e.g. "setresuid" */
	int notify_fd;           /* CLOEXEC listener of a notifying seccomp boundary
				  * (opts->seccomp->notify), -1 if none */
	struct rf_pidns pidns;   /* the command's PID namespace and its init, when
				  * started (pid is the host pid); pidns__stop */
};

/*
 * Start argv inside the cgroup: clone3 with CLONE_INTO_CGROUP|CLONE_PIDFD
 * so the child never runs outside it, as PID 2 of a new PID namespace
 * whose init this makes first (pidns.h); res->pidns holds it. In the
 * child, in this order: reset signal dispositions and mask, close every
 * fd but 0-2, a session of its own (its pty the controlling terminal:
 * tty_fd), setgroups,
 * setresgid, setresuid, PR_SET_NO_NEW_PRIVS, drop every capability
 * (effective, permitted, inheritable, ambient and bounding; securebits
 * locked), then execve. Setup and exec errors travel back over a CLOEXEC
 * pipe, so this returns only once the command is executing (0, res->pid
 * set) or has failed (0, res->failed_stage set, child reaped).
 * Negative errno only when the clone itself failed.
 */
int launch__start(const struct launch_opts *opts, struct launch_result *res);

/* path is dir or below it (dir's trailing slashes ignored). */
bool launch__path_within(const char *path, const char *dir);

/* path lies in one of the private tmpfs mounts m (or the scratch, when
 * not NULL), which the child mounts over the host's trees after the
 * write areas: nothing of the host's there needs an id-mapping. */
bool launch__private_below(const struct launch_mount *m, size_t n_m, const char *scratch,
			   const char *path);

/* A write area a dynamic uid needs id-mapped: not below a private mount
 * (above), present, and a directory, or a file whose write permission
 * root's ids decide (not /dev/null: 0666). */
bool launch__rw_needs_map(const struct launch_mount *m, size_t n_m, const char *scratch,
			  const char *path);

/* Resolve --user (name or numeric uid, optionally ":group"); NULL means
 * the invoking user: SUDO_UID/SUDO_GID when set by sudo, else getuid().
 * 0, or -EINVAL (unknown user) or another -errno with err filled (where
 * "--user"); the outputs are untouched on failure. */
int launch__resolve_user(const char *spec, uid_t *ret_uid, gid_t *ret_gid,
			 struct rf_error *err);

/* Where this process's working directory lies against dir (a scratch
 * path), both canonical: 0 outside it, 1 dir itself, 2 below it, or
 * -errno (getcwd or realpath failed, e.g. a deleted cwd: callers refuse).
 * The cwd goes to ret_cwd (len bytes, "" on failure) when not NULL. */
int launch__cwd_within(const char *dir, char *ret_cwd, size_t len);

#endif
