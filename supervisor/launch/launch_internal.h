/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What supervisor/launch*.c share: the plan, the child's report; not for other callers. */
#ifndef RF_LAUNCH_INTERNAL_H
#define RF_LAUNCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launch.h"

struct passwd;

/* What the child sends when it gives up; one write, well under PIPE_BUF. */
struct child_err {
	int32_t stage;
	int32_t err;
	char what[64];
};

/* Everything that allocates, done before the clone. */
struct launch_plan {
	char **cands;            /* execve candidates, in PATH order */
	size_t n_cands;
	bool searched;           /* argv[0] had no '/': execvp rules */
	gid_t *groups;
	size_t n_groups;
	int last_cap;
	int err_w;                /* the error pipe's write end (launch_run's
				   * pipefd[1], which it closes) */
	int ll_fd;                /* Landlock ruleset, duplicated >= 10; -1 none */
	int idmap_fd;             /* opts->idmap_fd, duplicated >= 10; -1 none */
	int notify_w;             /* the child's end of the socket that hands the
				   * boundary's seccomp listener over (>= 10); -1 none */
	int fan_fd;               /* the fanotify group, duplicated >= 10; -1 none */
	int ctty_fd;              /* no pty of our own: the caller's controlling
				   * terminal, opened here for the child to drop
				   * (TIOCNOTTY) before it is confined; -1 none */
	unsigned long *ro_flags;  /* per ro_mounts entry: flags it keeps */
	size_t n_ro;
	const char **rw_sorted;   /* opts->rw_paths, shortest first (a tree moved
				   * back later lands on top of its parent's) */
	int *rw_fds;              /* the child's detached copies of them */
	bool *rw_map;             /* which copies are id-mapped (idmap_fd) */
	size_t n_rw;
	char *rw_cwd;             /* the cwd, entered again once the trees are
				   * back (it still names the read-only mount) */
	bool new_ns;
	int devpts_fd;            /* opts->devpts_fd where /dev/pts is a directory
				   * to move it onto; -1 none */
	char scratch_opts[96];    /* tmpfs mount data for opts->scratch_path */
	bool chdir_scratch;       /* the cwd is the scratch path: enter the tmpfs */
	const char *chdir_mount;  /* the cwd is this private mount's path: enter it */
	bool mkdir_scratch;       /* the scratch path lies in a private tmpfs mounted
				   * before it: made there first */
};

/* The child after clone3 (launch_child.c): set up, drop, confine, exec;
 * reports a failure over p->err_w and exits. err_r: the pipe's read end. */
_Noreturn void launch_child__main(const struct launch_opts *o, const struct launch_plan *p,
				  char *const *envp, int err_r);

struct clone_args;

/* clone3(args) with CLONE_VM | CLONE_VFORK added, the child on a stack of
 * its own running fn(arg), which never returns (launch_vfork.c). The
 * pid once the child has exec'd or exited, or -errno. */
long launch_vfork__clone(struct clone_args *args, void (*fn)(void *), void *arg);

/* Copy src into dst (len bytes, NUL-terminated, truncated): safe in the child. */
void launch_child__copy_what(char *dst, size_t len, const char *src);

/* One passwd query by name, or by uid when name is NULL (launch_user.c);
 * *buf grows as needed, the caller frees it. 0, -ENOENT or another -errno. */
int launch_user__pw_lookup(const char *name, uid_t uid, struct passwd *pw, char **buf);

#endif
