/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The directories on the way to an allowed network.unix pathname that a
 * rename could replace (plan.install.unix_pins): each one below the root
 * of a files.write subtree (its parent is writable), from the rule's root
 * down to the name's directory (a subtree name's own directory included).
 * The cgroup hooks judge the name as written; a directory holding a socket
 * outside the list renamed onto one of them would give that socket an
 * allowed name. The child binds each one present at start onto itself in
 * its own mount namespace (launch_opts.pin_dirs): rename(2) from or onto a
 * mount point, and rmdir of it, fail with EBUSY there, and a directory
 * renamed into one from elsewhere crosses a mount (EXDEV).
 */
#ifndef RF_UNIXPIN_H
#define RF_UNIXPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "launch/launch.h"

struct rf_policy;

/* Why a directory on the way is not pinned. */
enum unixpin_why {
	UNIXPIN_ABSENT,     /* absent at start: nothing for a mount to stand on */
	UNIXPIN_SYMLINK,    /* a symlink: replaceable, and a mount would follow it */
	UNIXPIN_NOT_DIR,    /* something else */
	UNIXPIN_BELOW,      /* below one of the above */
	UNIXPIN_PRIVATE,    /* in a private tmpfs of the sandbox: no socket of the
			     * outside can be there (no gap) */
};

struct unixpin_dir {
	char *path;                   /* no trailing '/' */
	bool pinned;
	enum unixpin_why why;         /* when not pinned */
};

struct rf_unix_pins {
	struct unixpin_dir *v;        /* sorted: a parent before its children */
	size_t n;
	const char **pin_dirs;        /* the pinned ones, NULL-terminated, in order */
	size_t n_open;                /* not pinned and not private: the gap stays */
};

/* The directories of p's pathnames below its write subtrees, each looked
 * at now (lstat), those below the private mounts m / the scratch aside.
 * 0 or -ENOMEM; ret is emptied first and freed with unixpin__free. */
int unixpin__plan(const struct rf_policy *p, const struct launch_mount *m, size_t n_m,
		  const char *scratch, struct rf_unix_pins *ret);
void unixpin__free(struct rf_unix_pins *pins);

/* The plan's "unix_pins": {"pinned": [...], "private": [...],
 * "unpinned": [{"path", "why"}]}. */
json_t *unixpin__json(const struct rf_unix_pins *pins);

#endif
