/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* seccomp filters (libseccomp): the process boundary and the syscalls policy. */
#ifndef RF_SANDBOX_SECCOMP_H
#define RF_SANDBOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include "policy/policy.h"
#include "rf_abi.h"

/* One compiled filter, ready for the child to install without allocating. */
struct rf_seccomp_filter {
	struct sock_filter *insns;
	unsigned short len;
};

/* Syscall numbers the listener's profile rules cover (as the monitor's
 * per-sandbox bitmaps): above, none exists on the supported architectures. */
#define RF_SECCOMP_NR_MAX RF_MON_SYSCALL_MAX
#define RF_SECCOMP_NR_WORDS (RF_SECCOMP_NR_MAX / 64)

struct rf_seccomp {
	/* len 0: none. With a listener (notify), the one filter the
	 * supervisor hears: the boundary's rules, the profile's, or both. */
	struct rf_seccomp_filter boundary;
	struct rf_seccomp_filter allowlist;  /* len 0: none (no "syscalls", or in the above) */
	bool notify;                         /* the boundary refuses through a listener */
	bool boundary_rules;                 /* the process boundary is installed */
	/* The syscalls profile in the listener's filter (notify and "syscalls"):
	 * calls outside it (prof_out) are reported once each by the supervisor;
	 * those the filter hands it for the profile alone (prof_notify) are
	 * let through in alert mode (prof_alert), else answered EPERM. */
	bool profile;
	bool prof_alert;
	uint64_t prof_notify[RF_SECCOMP_NR_WORDS];
	uint64_t prof_out[RF_SECCOMP_NR_WORDS];
	char summary[512];                   /* what the filters do, for the trace */
};

/* The launcher's own calls between installing the listener's filter and
 * its execve (launch_child.c): an error report on RF_CHILD_FD_ERR and the
 * listener handed over on RF_CHILD_FD_NOTIFY (boundary_consts.h), before
 * the supervisor holds the listener, so they must never wait for its
 * answer. A profile without write or sendmsg lets these two through
 * ("deny": the listener-less second filter refuses them once the listener
 * is handed over). */

/* nr is in the bitmap set (RF_SECCOMP_NR_WORDS words). */
bool sandbox_seccomp__nr_in(const uint64_t *set, int nr);

/*
 * Build in the supervisor, before the clone. boundary: the process-boundary
 * denylist (EPERM): bpf, ptrace, process_vm_*, mount family, unshare/setns
 * and clone with namespace flags (clone3 gets ENOSYS so libc falls back to
 * clone), keyctl family, perf_event_open, kexec_*, module loading,
 * userfaultfd, io_uring_*, personality changes, TIOCSTI/TIOCLINUX ioctls;
 * any architecture but the native one is refused. policy->syscalls (when
 * present, on_violation "deny") becomes an allowlist with EPERM for the rest.
 * -EINVAL with err naming the entry (where "$.syscalls.allow[3]", why
 * "unknown syscall \"foo\" ...") for a name this architecture does not
 * have; any other failure fills err too (where "seccomp").
 * holes (RF_SECCOMP_HOLE_*, with boundary): Landlock's holes the boundary
 * filter closes as well (plan.install.seccomp_fs_meta, ...), and what it
 * closes where no BPF-LSM program does (seccomp_net_opts, _task_targets).
 */
enum rf_seccomp_hole {
	RF_SECCOMP_HOLE_FS_META = 1u << 0,  /* chmod/chown/utimes and xattr writes: EPERM */
	RF_SECCOMP_HOLE_FS_IOCTL = 1u << 1, /* inode-flag ioctls: EPERM */
	RF_SECCOMP_HOLE_MEMFD = 1u << 2,    /* memfd_create without MFD_NOEXEC_SEAL: EPERM */
	/* routing-header and source-route socket options (setsockopt
	 * IPV6_RTHDR, IPV6_2292PKTOPTIONS, IP_OPTIONS): EPERM */
	RF_SECCOMP_HOLE_NET_OPTS = 1u << 3,
	/* scheduling, priority and limits of a process named by pid
	 * (setpriority, ioprio_set, prlimit64 writes, sched_set*): only 0,
	 * the caller, is allowed; PRIO_USER and IOPRIO_WHO_USER never */
	RF_SECCOMP_HOLE_TASKS = 1u << 4,
	/* W^X (memory.deny_write_execute) where PR_SET_MDWE is missing: mmap
	 * writable and executable at once, mprotect/pkey_mprotect adding
	 * PROT_EXEC, shmat with SHM_EXEC: EPERM */
	RF_SECCOMP_HOLE_WX = 1u << 5,
};
int sandbox_seccomp__build(const struct rf_policy *policy, bool boundary, unsigned int holes,
			   struct rf_seccomp *ret, struct rf_error *err);
/* The same; notify: the boundary's refusals are SECCOMP_RET_USER_NOTIF
 * for the supervisor to answer (EPERM) and record, and the boundary also
 * refuses seccomp(SECCOMP_SET_MODE_FILTER) with a new listener (EPERM). */
int sandbox_seccomp__build_notify(const struct rf_policy *policy, bool boundary,
				  unsigned int holes, bool notify, struct rf_seccomp *ret,
				  struct rf_error *err);
void sandbox_seccomp__free(struct rf_seccomp *f);

/* The allowlist filter's rules one by one, for a runtime to install them
 * (`ringfence oci-seccomp`): the syscall's native name, the action (the
 * kernel's SECCOMP_RET_* value: ALLOW, or ERRNO | errno), the comparisons
 * (op: libseccomp's enum scmp_compare). Default: EPERM for the rest. */
#define RF_SECCOMP_SINK_CMP_MAX 6
struct rf_seccomp_cmp {
	unsigned int arg;
	int op;
	uint64_t a, b;  /* datum_a (the mask for a masked compare), datum_b */
};
struct rf_seccomp_sink {
	int (*rule)(void *arg, const char *name, uint32_t action,
		    const struct rf_seccomp_cmp *cmp, unsigned int n_cmp);
	void *arg;
};
/* 0, or -EINVAL (err naming the entry or "$.syscalls") for a policy
 * without a "deny" allowlist or a name this architecture lacks. */
int sandbox_seccomp__allowlist_rules(const struct rf_policy *policy,
				     const struct rf_seccomp_sink *sink, struct rf_error *err);

/* In the child, after no_new_privs, as the last step before execve:
 * async-signal-safe (only prctl/seccomp syscalls). 0 or -errno. */
int sandbox_seccomp__install(const struct rf_seccomp *f);
/* The same in two steps, for a notifying boundary: its listener fd in
 * *ret_listener (-1 otherwise); hand it over, then the allowlist. */
int sandbox_seccomp__install_boundary(const struct rf_seccomp *f, int *ret_listener);
int sandbox_seccomp__install_allowlist(const struct rf_seccomp *f);

/*
 * A call a notifying boundary's hole rules (RF_SECCOMP_HOLE_*) refused,
 * as its listener was told of it (nr, args): fill the record's op, class,
 * reason (boundary), arg, target_pid, syscall, need and flags (inferred,
 * as the boundary's own refusals are) and return true; false for any
 * other syscall (the boundary's own refusals: obs_syscalls__table).
 * ev's other fields are left as they are.
 */
bool sandbox_seccomp__hole_record(int nr, const uint64_t args[6], struct rf_event *ev);

/* Resolve a syscall name for the native architecture: its number, or
 * -ENOENT. For the planner and policy validation. */
int sandbox_seccomp__resolve(const char *name);

#endif
