/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What this kernel can enforce, found by loading and attaching for real. */
#ifndef RF_PROBE_H
#define RF_PROBE_H

#include <stdbool.h>
#include "names.h"
#include "backends/unix_bytes.h"

/* One backend: did its programs load and attach here? */
struct rf_backend_probe {
	bool ok;
	int err;                 /* negative errno of the first failure */
	char detail[256];        /* what was tried and what the kernel said */
	double ms;               /* how long the probe took */
};

#define RF_MFD_NOEXEC_SEAL 0x0008U  /* linux/memfd.h, 6.3+ */

struct rf_caps {
	char kernel_release[65];
	char cgroup_mount[256];
	struct rf_backend_probe cgroup_v2;       /* cgroup2 mounted, child created */
	/* The memory, pids and cpu controllers (index: enum rf_limit) are
	 * available in that cgroup2 hierarchy (limits.c). */
	struct rf_backend_probe cgroup_ctrl[RF_LIMIT_CPU + 1];
	/* The io controller there: disk_write_mb reads the sandbox's io.stat. */
	struct rf_backend_probe cgroup_io;
	struct rf_backend_probe sock_addr;       /* connect4/6, sendmsg4/6, sock_create */
	struct rf_backend_probe unix_sock_addr;  /* connect_unix/sendmsg_unix (6.7+) */
	struct rf_backend_probe bpf_lsm;         /* an lsm/ program loaded and attached */
	struct rf_backend_probe bpf_lsm_enforcer;/* this build's LSM enforcement programs
						  * (lsm.bpf.c) loaded and attached */
	struct rf_backend_probe landlock;        /* ruleset created */
	int landlock_abi;
	struct rf_backend_probe seccomp;         /* filter mode available */
	/* The kernel's audit, read and never changed: ok when AUDIT_GET over
	 * NETLINK_AUDIT answered. Landlock (ABI 7+) logs its denials there
	 * only while audit is enabled. */
	struct rf_backend_probe audit;
	int audit_enabled;                       /* status.enabled: 0 off, 1 on, 2 locked;
						  * -1 unknown */
	int audit_age_s;                         /* -1: asked now; else the age of the
						  * earlier answer "off" reused
						  * (RF_PROBE_AUDIT_REUSE_OFF) */
	bool landlock_audit_log;                 /* ABI 7+ and audit enabled */
	struct rf_backend_probe observe;         /* this build's observe programs
						  * (observe.bpf.c, tp_btf sys_enter/exit) */
	enum rf_unix_bytes unix_bytes;           /* how the ledger counts unix peers */
	int unprivileged_bpf_disabled;           /* sysctl value, -1 if unknown */
	bool memfd_noexec_seal;                  /* memfd_create takes MFD_NOEXEC_SEAL (6.3+) */
	bool mount_setattr;                      /* open_tree, move_mount, mount_setattr (5.12+) */
	bool mdwe;                               /* prctl(PR_SET_MDWE) (6.3+) */
	bool ipv6_rthdr2;                        /* a type-2 routing header in ancillary
						  * data is taken (CONFIG_IPV6_MIP6) */
};

enum rf_probe_flags {
	RF_PROBE_LSM = 1u << 0,     /* load and attach an lsm/ program */
	RF_PROBE_FRESH = 1u << 1,   /* load the network programs anew even when
				     * this build's are pinned and attached */
	RF_PROBE_AUDIT = 1u << 2,   /* read the kernel audit's status (AUDIT_GET:
				     * the kernel starts a thread to answer it, a
				     * wait of milliseconds on a busy host) */
	/* With RF_PROBE_AUDIT: an answer "off" another process got at most
	 * RF_PROBE_AUDIT_REUSE_S seconds ago on this boot is taken instead of
	 * asking (never an answer "on": see probe.c). Every answer asked
	 * is kept for the next one. */
	RF_PROBE_AUDIT_REUSE_OFF = 1u << 3,
	RF_PROBE_ALL = RF_PROBE_LSM | RF_PROBE_FRESH | RF_PROBE_AUDIT,
};

#define RF_PROBE_AUDIT_REUSE_S 30

/* Try the backends. Never fails as a whole: each failure is recorded in
 * its rf_backend_probe. Nothing is cached: without RF_PROBE_FRESH the
 * network backends are proven by this build's complete pinned set (the
 * enforcer step checks its links, under load.lock); otherwise (or without
 * one) by a fresh load and attach.
 * Without RF_PROBE_LSM, bpf_lsm is left "not probed" (err 0, !ok); without
 * RF_PROBE_AUDIT, audit too (audit_enabled -1, landlock_audit_log false). */
void probe__run(struct rf_caps *ret_caps, unsigned int flags);

/* The probe's scratch cgroups under MOUNT/ringfence (for gc): a name of
 * one, and whether the process that made it still runs. */
bool probe__is_scratch(const char *name);
bool probe__scratch_live(const char *name);

#endif
