/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The dynamic user: root without --user runs the command as a uid of its own (systemd DynamicUser=). */
#ifndef RF_DYNUSER_H
#define RF_DYNUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 65536 uids (and gids of the same number) starting at 0x70000000: in the
 * block systemd's UIDS-GIDS.md leaves unused between the container range
 * (524288-1879048191) and the foreign range (2147352576-), clear of its
 * DynamicUser= range (61184-65519) and of every distribution's. */
#define RF_DYNUSER_BASE 1879048192U
#define RF_DYNUSER_COUNT 65536U
/* One lock file per uid; a uid is taken while a supervisor holds its flock. */
#define RF_DYNUSER_DIR "/run/ringfence/uid"

/* Why the command runs as the uid it runs as (the plan's user.why). */
enum rf_user_why {
	RF_USER_INVOKER,       /* no --user, not root: the caller's own ids */
	RF_USER_SUDO,          /* no --user under sudo: SUDO_UID/SUDO_GID */
	RF_USER_OPTION,        /* --user USER (not root) */
	RF_USER_ROOT,          /* --user root (or 0): uid 0, asked for */
	RF_USER_DYNAMIC,       /* root without --user: a dynamic uid */
	RF_USER_ROOT_AUDIT,    /* root without --user, an audit-mode policy
				* (learn): uid 0, nothing may be denied */
	RF_USER_ROOT_FALLBACK, /* root without --user, a dynamic uid impossible
				* (a write area cannot be id-mapped): uid 0,
				* the plan's gap user.root says why */
	RF_USER_WHY_MAX
};

struct rf_dynuser {
	enum rf_user_why why;
	uid_t uid;             /* the dynamic uid (gid the same), when taken */
	int lock_fd;           /* its lock file, held until the run ends; -1 */
	int userns_fd;         /* a user namespace whose map sends uid/gid 0 to
				* the dynamic id (the rest identity): the write
				* areas' id-mapped mounts; -1 when none is needed */
	char fallback[160];    /* RF_USER_ROOT_FALLBACK: why, one line */
};

/* "dynamic", "user", "root", ...: the plan's user.why. */
const char *dynuser__why_name(enum rf_user_why w);

/* Take a free dynamic uid (its lock), make the id-mapping user namespace
 * when there are write areas (rw_paths, n of them, missing ones skipped)
 * and prove each can be id-mapped. can_map false: no mount_setattr, none
 * can be mapped. files_open (files unrestricted): no dynamic uid, which
 * could leave files for the uid's next holder. A write
 * area that cannot be mapped, or that lies below a directory others may
 * not enter (root's 0700 /root: unreachable by its name), is no error: d->why becomes
 * RF_USER_ROOT_FALLBACK with d->fallback set, nothing held. 0 or -errno
 * (no uid free, /run not writable...). */
int dynuser__prepare(struct rf_dynuser *d, const char *const *rw_paths, size_t n,
		     bool can_map, bool files_open);

/* Whether file modes refuse a dynamic uid (no group of its own on the
 * host: "others") want (R_OK, W_OK, X_OK) on path, a directory on the way
 * included, where path lies outside the n areas (the write areas: id-mapped,
 * root's files there are its own). A directory is also listed and entered.
 * 1 with a one-line why, or 0 (a missing path too: nothing to say). */
int dynuser__refused(const char *path, int want, const char *const *areas, size_t n,
		     char *ret_why, size_t len);

/* Release the lock and the namespace fd (the uid is free again); the
 * lock file goes, unlinked while its lock is still held. */
void dynuser__release(struct rf_dynuser *d);

/* The lock of uid (in RF_DYNUSER_DIR, made if absent): its fd, -EAGAIN
 * while another holds it, or -errno. Held until dynuser__release. */
int dynuser__lock_uid(uid_t uid);

/* Remove the lock files of uids no run holds (a SIGKILLed supervisor's):
 * `ringfence gc`. 0 or -errno (the directory); *ret_removed counts them. */
int dynuser__sweep(unsigned *ret_removed);

/* The user namespace fd for uid/gid 0 <-> id, the rest identity. -errno. */
int dynuser__make_userns(uid_t id, int *ret_fd);

#endif
