/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Landlock: files, exec, TCP connect ports and scoping, where BPF-LSM is missing. */
#ifndef RF_SANDBOX_LANDLOCK_H
#define RF_SANDBOX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "policy/policy.h"
#include "rf_abi.h"

struct rf_landlock_opts {
	int abi;                  /* the kernel's ABI (probe) */
	bool fs;                  /* handle files + exec (both must be confined or
				   * both unrestricted is not required: an
				   * unrestricted class gets a rule for "/") */
	bool net_connect;         /* handle TCP connect by port (ABI >= 4) */
	bool scope_abstract_unix; /* ABI >= 6: no abstract unix sockets outside */
	bool scope_signal;        /* ABI >= 6: no signals to processes outside */
	bool private_tmp;         /* /tmp is a private tmpfs (plan.priv.tmp) */
	bool unix_names;          /* write rules holding an allowed unix name make no
				   * sockets nor symlinks (plan.install.landlock_unix_names) */
	bool approximate;         /* policy opted into the nearest safe
				   * approximation for entries Landlock cannot
				   * express exactly */
};

/* One entry that could not be expressed exactly and was approximated. */
struct rf_landlock_approx {
	char where[64];           /* "$.files.write[2]" */
	char what[256];           /* what was done instead, e.g. "dropped: does not exist" */
};

/* One entry Landlock cannot take as written (without "approximate"). */
struct rf_landlock_refusal {
	enum rf_class cls;        /* RF_CLASS_FILE or RF_CLASS_EXEC */
	char text[640];           /* "$.exec[0] \"/bin/sh\": is a symlink to ...; hint" */
};

#define RF_LANDLOCK_REFUSALS_MAX 8

/* An entry below /proc/: added by the child once its PID namespace's
 * procfs is mounted (the supervisor's /proc is another filesystem). */
struct rf_landlock_later {
	const char *path;         /* the policy's text */
	uint64_t access;
	bool subtree;
};

struct rf_landlock {
	int ruleset_fd;           /* -1 when nothing is handled */
	int abi;
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
	size_t n_fs_rules, n_net_rules;
	/* limits.scratch: the rights of the policy's entries naming exactly
	 * the scratch directory. Landlock skips a mount point when it walks up
	 * from a file, so the tmpfs mounted there later gets them again, as a
	 * rule the child adds on its root (sandbox_landlock__add_path). */
	uint64_t scratch_access;
	/* The same for the PID namespace's /proc, the private /dev/shm and a
	 * private /tmp (0 for a shared one). Entries below the two tmpfs
	 * paths get no rule: they name the host's hidden files. */
	uint64_t proc_access, shm_access, tmp_access;
	/* ...and the sandbox's own devpts over /dev/pts (tty_relay.h). */
	uint64_t devpts_access;
	struct rf_landlock_later *later;  /* the entries below /proc/ */
	size_t n_later;
	struct rf_landlock_approx *approx;
	size_t n_approx;
	enum rf_class refused_class; /* after a failed build (-EINVAL): the class
				      * of the entry that failed, exec or file;
				      * the rest of *ret is empty */
	/* After that failure: every such entry (up to the cap), each with
	 * its class, so a person fixes them in one go. */
	struct rf_landlock_refusal refusals[RF_LANDLOCK_REFUSALS_MAX];
	size_t n_refusals;
};

/*
 * Build the ruleset in the supervisor (opens each path with O_PATH, adds
 * the rules). files.read -> READ_FILE (+ READ_DIR on directories);
 * files.write -> read + every write-class right the ABI has (WRITE_FILE,
 * REMOVE_*, MAKE_*, REFER, TRUNCATE, IOCTL_DEV); exec -> EXECUTE (+ READ_FILE
 * so the loader can map it). A "/x/" subtree entry must be an existing
 * directory, an exact entry an existing non-directory. -EINVAL with err
 * naming the entry (where "$.files.write[1] \"/out/x\"", why "does not
 * exist", hint "Landlock rules need ...") when an entry cannot be expressed
 * exactly and opts->approximate is false, and ret->refused_class telling
 * its class (every such entry in ret->refusals, err the first); with approximate, the entry is handled as documented and
 * listed in ret->approx. Every other failure fills err too.
 */
int sandbox_landlock__build(const struct rf_policy *policy,
			    const struct rf_landlock_opts *opts,
			    struct rf_landlock *ret, struct rf_error *err);
void sandbox_landlock__free(struct rf_landlock *ll);

/* In the child before restricting: one more subtree rule on path (the
 * scratch tmpfs). Async-signal-safe. 0 or -errno. */
int sandbox_landlock__add_path(int ruleset_fd, const char *path, uint64_t access);

/* One rf_landlock_later entry, resolved where the caller stands (the
 * child, after its mounts; /proc/self is then its own). A path that does
 * not exist there is skipped (0). Async-signal-safe. 0 or -errno. */
int sandbox_landlock__add_later(int ruleset_fd, const struct rf_landlock_later *e);

/* In the child after no_new_privs: landlock_restrict_self, asking (ABI 7+)
 * that denials after the exec are logged too. Async-signal-safe. */
int sandbox_landlock__restrict(int ruleset_fd);

#endif
