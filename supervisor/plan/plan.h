/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Policy -> least-privilege plan, fail closed against what the kernel can
 * do. The plan is data (enums, bits, numbers); plan_text.c renders it as
 * the trace, `check`, `probe` and the refusal lines print it.
 */
#ifndef RF_PLAN_H
#define RF_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "names.h"
#include "policy/policy.h"
#include "probe.h"
#include "rf_abi.h"

/* Independent extra layers under a class's backend (rf_class_plan.layers). */
enum rf_plan_layer {
	RF_LAYER_CAPABILITIES = 1u << 0,        /* every capability set emptied */
	RF_LAYER_CAPABILITIES_KEPT = 1u << 1,   /* --keep-caps test mode */
	RF_LAYER_SECCOMP = 1u << 2,             /* the boundary filter under bpf-lsm */
	RF_LAYER_LANDLOCK_TCP = 1u << 3,        /* TCP connect ports (ABI 4+) */
	RF_LAYER_LANDLOCK_SCOPE_UNIX = 1u << 4, /* abstract unix scoping (ABI 6+) */
	RF_LAYER_LANDLOCK_SCOPE_SIGNAL = 1u << 5, /* signal scoping (ABI 6+) */
	RF_LAYER_MDWE = 1u << 6,                /* W^X memory: prctl(PR_SET_MDWE), 6.3+ */
	RF_LAYER_SECCOMP_WX = 1u << 7,          /* W^X memory: the boundary filter */
};

/* What a class's note says. */
enum rf_plan_note {
	RF_NOTE_NONE = 0,
	RF_NOTE_UNRESTRICTED,     /* the policy opted out */
	RF_NOTE_LSM_FILE,         /* what the bpf-lsm programs judge, per class */
	RF_NOTE_LSM_EXEC,
	RF_NOTE_LSM_UNIX,
	RF_NOTE_LANDLOCK_FILE,    /* what Landlock does not cover, per class */
	RF_NOTE_LANDLOCK_EXEC,
	RF_NOTE_LANDLOCK_AUDIT,   /* audit: Landlock's rules not applied, accesses observed */
	RF_NOTE_PROCESS,          /* the boundary, from the plan's install flags */
	RF_NOTE_SYSCALLS_SECCOMP,
	RF_NOTE_SYSCALLS_ALERT,
	RF_NOTE_MONITOR,
	RF_NOTE_LIMITS,           /* what reaching each limit does */
	RF_NOTE_REFUSED,          /* the class's refusal: rf_class_plan.reason */
	RF_NOTE_NET_DNS_GATE,     /* network: names through the DNS gate (dnsgate.c) */
	RF_NOTE_NET_DNS_ONCE,     /* network: names resolved once before the start */
	RF_NOTE_MAX,
};

/* Why a class (or a --require) is refused. */
enum rf_plan_why {
	RF_WHY_LSM_PATH_TOO_LONG = 0, /* detail: the path; param: what the matcher holds */
	RF_WHY_NO_FS_BACKEND,         /* detail: landlock's probe; plan.lsm_state */
	RF_WHY_AUDIT_LANDLOCK,        /* plan.lsm_state; detail: the observe programs' probe */
	RF_WHY_LANDLOCK_TRUNCATE,     /* param: the Landlock ABI */
	RF_WHY_SOCK_ADDR,             /* detail: the probe */
	RF_WHY_NO_CGROUP2,            /* detail: the probe */
	RF_WHY_KEEP_CAPS,
	RF_WHY_SYSCALLS_AUDIT,
	RF_WHY_NO_SECCOMP,            /* detail: the probe */
	RF_WHY_REQUIRE_LSM,           /* --require bpf-lsm; detail: the probe */
	RF_WHY_REQUIRE_UNUSED,        /* --require; param: enum rf_backend */
	RF_WHY_SECCOMP_BUILD,         /* detail: the builder's words; param: -errno */
	RF_WHY_LANDLOCK_ENTRY,        /* detail: the entry Landlock cannot express */
	RF_WHY_LANDLOCK_BUILD,        /* detail: the builder's words; param: -errno */
	RF_WHY_NO_CONTROLLER,         /* param: enum rf_limit; detail: the probe */
	RF_WHY_LIMIT_NO_CGROUP2,      /* param: enum rf_limit; detail: the probe */
	RF_WHY_SCRATCH_PATH,          /* param: -errno (0: not a directory); detail: the path */
	RF_WHY_STRICT_GAPS,           /* --strict; detail: the class's gap ids */
	RF_WHY_SCRATCH_CWD,           /* param: -errno (0: below it); detail: the cwd */
	RF_WHY_TMP_CWD,               /* param: -errno (0: below /tmp); detail: the cwd */
	RF_WHY_MAX,
};

/* What the probe says of this build's bpf-lsm programs. */
enum rf_lsm_state {
	RF_LSM_AVAILABLE = 0,
	RF_LSM_NOT_LOADED,        /* the kernel has BPF-LSM, our programs did not load */
	RF_LSM_REFUSED,
	RF_LSM_NOT_PROBED,
	RF_LSM_STATE_MAX,
};

/* How a class's decisions reach the trace and the monitor. */
enum rf_plan_observed {
	RF_OBSV_NONE = 0,         /* not at all (no backend, or nothing records) */
	RF_OBSV_KERNEL,           /* the deciding BPF programs record each one: exact */
	RF_OBSV_INFERRED,         /* observe.bpf.c: syscalls that failed, matched in user space */
	RF_OBSV_AUDIT_INFERRED,   /* audit: accesses that succeeded, matched in user space */
	RF_OBSV_KERNEL_AUDIT,     /* Landlock logs each one to the kernel's audit (ABI 7+) */
	RF_OBSV_MAX,
};

/*
 * Known gaps: operations a backend does not confine although the policy
 * confines their class. Each has a stable id (shown in `check`, `probe` and
 * `sandbox.plan` as "gaps", and used by the attack suite tests/attack/ to
 * prove that each listed gap escapes and nothing unlisted does).
 * X(NAME, id, class, what); the planner sets plan.gaps bit RF_GAP_NAME.
 */
#define RF_GAPS(X)                                                                      \
	X(FILE_XATTR, "file.xattr", RF_CLASS_FILE,                                       \
	  "setxattr/removexattr (POSIX ACLs included, which change the mode) on files "   \
	  "outside the write rules: Landlock has no right for them; seccomp refuses "    \
	  "them only when the policy has no write rule, and this kernel lacks "          \
	  "mount_setattr (5.12+) to make the rest of the tree read-only")                \
	X(FILE_ATTR, "file.attr", RF_CLASS_FILE,                                         \
	  "chmod, chown and utimes of files outside the write rules, by path or through " \
	  "a read-only fd: Landlock has no right for them; seccomp refuses them only "   \
	  "when the policy has no write rule, and this kernel lacks mount_setattr "     \
	  "(5.12+) to make the rest of the tree read-only")                              \
	X(EXEC_MMAP, "exec.mmap", RF_CLASS_EXEC,                                         \
	  "a readable file mapped executable (mmap or mprotect with PROT_EXEC): "        \
	  "Landlock judges execve only, and seccomp cannot see which file a mapping is")  \
	X(EXEC_LOADER, "exec.loader", RF_CLASS_EXEC,                                     \
	  "`ld.so FILE`: the dynamic loader run as the program maps a readable FILE "    \
	  "itself; the observe programs (tp_btf), which kill it at exec, are not "       \
	  "attached for this sandbox (not available here, --no-observe, or Landlock "    \
	  "logs its own denials: no syscall tracepoint is attached then)")               \
	X(EXEC_MEMFD, "exec.memfd", RF_CLASS_EXEC,                                       \
	  "a memfd executed or mapped executable: Landlock does not judge memfds and "   \
	  "this kernel has no MFD_NOEXEC_SEAL for seccomp to insist on")                 \
	X(EXEC_ANON_CODE, "exec.anon-code", RF_CLASS_EXEC,                               \
	  "code copied into anonymous executable memory and called (a JIT, or a loader " \
	  "copying a readable file): exec judges files, never memory")                   \
	/* issue 13 (h13a): where no BPF-LSM program judges them */                      \
	X(NET_RTHDR_CMSG, "net.rthdr-cmsg", RF_CLASS_NET,                                \
	  "a routing header in sendmsg's ancillary data (IPV6_RTHDR type 2, on kernels " \
	  "with mobile IPv6) sends the datagram past the address judged: seccomp cannot " \
	  "read ancillary data, and the egress program did not stop it on 7.3 "        \
	  "(BPF-LSM's socket_sendmsg refuses it)")                                       \
	X(NET_PASSED_SOCKET, "net.passed-socket", RF_CLASS_NET,                          \
	  "a socket another process made, handed in over a unix socket to it "           \
	  "(SCM_RIGHTS: an allowed network.unix name, or a unix socket on fd 0-2): the " \
	  "cgroup hooks judge and the ledger counts a socket by the cgroup that made "   \
	  "it, so an inet one connects and sends past network.connect, the ledger and "  \
	  "egress_bytes, and an unconnected unix one connects to names network.unix "   \
	  "does not list (BPF-LSM refuses every socket but a unix one made outside, "   \
	  "and judges a unix connect by the caller)")                                    \
	X(UNIX_RENAME, "unix.rename", RF_CLASS_UNIX,                                     \
	  "a socket outside network.unix given an allowed name (renamed, linked or a "   \
	  "symlink) where the policy lets the sandbox write and Landlock cannot withhold " \
	  "making sockets and symlinks there (files unrestricted or not on Landlock): "   \
	  "the cgroup hooks judge the name as written, not the socket as it was bound "  \
	  "(BPF-LSM judges both)")                                                       \
	X(UNIX_RENAME_DIR, "unix.rename-dir", RF_CLASS_UNIX,                             \
	  "a directory holding a socket outside network.unix renamed onto the way to an " \
	  "allowed name, where a write rule holds a directory of that name that is "     \
	  "absent at start, a symlink or not a directory (the plan's unix_pins.unpinned " \
	  "names it), or files are not on Landlock with the write rules' own mounts: "  \
	  "the directories present at start are bound onto themselves (rename and rmdir " \
	  "fail with EBUSY), a mount needs a directory to stand on, Landlock cannot "    \
	  "refuse renaming a directory without refusing mkdir, and the cgroup hooks "    \
	  "judge the name as written (BPF-LSM judges the socket as it was bound)")       \
	X(UNIX_REBIND, "unix.rebind", RF_CLASS_UNIX,                                     \
	  "an allowed unix pathname in a directory the sandbox may write unlinked and "  \
	  "bound again by a socket of the sandbox's own, where the cgroup hooks hold "   \
	  "network.unix (no BPF-LSM) and Landlock cannot withhold making sockets and "   \
	  "symlinks there (files unrestricted or not on Landlock): a client outside "    \
	  "that connects to the name then reaches the sandbox instead of the server "    \
	  "the name was for (BPF-LSM refuses a socket, symlink or directory of the "     \
	  "sandbox's put at an allowed name or on its way)")                             \
	X(PROCESS_ROOT, "process.root", RF_CLASS_PROCESS,                                \
	  "started by root without --user, the command runs as uid 0 (no capabilities) " \
	  "instead of a dynamic uid: a write area cannot be id-mapped here, or lies "    \
	  "below a directory only root may enter, or files are unrestricted (a dynamic " \
	  "uid could leave files for the uid's next holder; the plan's user.fallback "   \
	  "says which and why), so root's files anywhere it can reach "                  \
	  "are its own; --user USER runs it as USER, --strict refuses the run")          \
	X(PROCESS_SIGIO, "process.sigio", RF_CLASS_PROCESS,                              \
	  "signals a file sends to its owner outside the sandbox (F_SETOWN, F_SETSIG, "  \
	  "F_NOTIFY): only BPF-LSM or Landlock's signal scoping (ABI 6) refuse them")   \
	/* issue 22: what the ledger's budgets do not hold */                            \
	X(LIMITS_EGRESS_UNIX, "limits.egress-unix", RF_CLASS_LIMITS,                     \
	  "egress_bytes budgets payload over IP (loopback included), never bytes "       \
	  "written to unix sockets; the ledger counts unix peers by the name given to "   \
	  "connect() or sendto(), with their payload bytes exact, while the observe "    \
	  "programs are attached for a counted sandbox: on 6.7+ the cgroup unix hooks "  \
	  "and the sock_send_length/sock_recv_length tracepoints (without the observe " \
	  "programs, under --no-observe, connections only, "                            \
	  "bytes null), before 6.7 fexit programs on af_unix's connect, sendmsg and "   \
	  "recvmsg (without them, or where the kernel refuses fexit programs, no unix " \
	  "peer is counted); sockets it did not connect (socketpairs, inherited or "    \
	  "received ones, connections its own listeners accept) from their first "      \
	  "byte, while a name is reachable (a policy that reaches no unix name keeps "   \
	  "the programs detached unless a unix socket made outside is on fd 0-2: none "   \
	  "of its sockets counted); splice() reads out of "                            \
	  "a unix stream socket only where the kernel takes fexit programs; a call "    \
	  "whose program run the kernel skipped on a busy CPU (sandbox.exit's "          \
	  "observe_skipped) is counted in another flow of the sandbox, or in none")     \
	X(LEDGER_UNIX, "ledger.unix", RF_CLASS_UNIX,                                     \
	  "the connection ledger counts no unix peer of this sandbox here (no unix "     \
	  "network.flow): Linux 6.7+ counts them through the cgroup unix hooks, not "    \
	  "attached here; earlier kernels through fexit programs on af_unix's connect, " \
	  "sendmsg and recvmsg, which this kernel refuses (or lacks the functions of) " \
	  "or which this run does not attach (--no-observe, or the observe programs do " \
	  "not load)")                                                                   \
	X(LIMITS_DISK_WRITEBACK, "limits.disk-writeback", RF_CLASS_LIMITS,               \
	  "disk_write_mb is read from the cgroup's io.stat (write bytes at the block "   \
	  "layer) every 100 ms: data still in the page cache is not counted until it "    \
	  "is written back, so a run may dirty more than the limit before it is "        \
	  "stopped; tmpfs writes are never disk writes")                                \
	/* issue 22: what monitor.files' fanotify watch does not see */                  \
	X(MONITOR_FILES_UNSEEN, "monitor.files-unseen", RF_CLASS_MONITOR,               \
	  "monitor.files reports files opened, read, written or executed on the "        \
	  "sandbox's own mounts: a directory opened or listed, and a file reached "      \
	  "through an fd passed in from outside the sandbox, are not reported; one "     \
	  "alert per path names the first process per access kind (the kernel's "        \
	  "ignore mark hides later ones)")

enum rf_gap {
#define RF_GAP_ENUM_(n, id, c, what) RF_GAP_##n,
	RF_GAPS(RF_GAP_ENUM_)
#undef RF_GAP_ENUM_
	RF_GAP_MAX,
};
_Static_assert(RF_GAP_MAX <= 64, "plan.gaps is a 64-bit mask");


const char *plan__gap_id(enum rf_gap g);
enum rf_class plan__gap_class(enum rf_gap g);
const char *plan__gap_what(enum rf_gap g);

#define RF_PLAN_DETAIL_LEN 700    /* text from outside: a probe, a builder */
#define RF_PLAN_REASON_LEN 700    /* a rendered "class: why" */
#define RF_PLAN_NOTE_LEN 600      /* a rendered note */

struct rf_plan_reason {
	enum rf_class cls;        /* the class refused; unused for --require */
	enum rf_plan_why code;
	int param;
	char detail[RF_PLAN_DETAIL_LEN];
};

struct rf_class_plan {
	enum rf_request request;
	bool required;            /* must be enforced for the run to start */
	enum rf_backend be;       /* RF_BE_NONE: none */
	bool enforced;            /* the backend enforces it on this kernel */
	unsigned int layers;      /* RF_LAYER_* */
	enum rf_plan_note note;   /* why not, or what it does not cover */
	enum rf_plan_observed observed;
	int reason;               /* RF_NOTE_REFUSED: index in rf_plan.reasons */
};

/* What the plan asks of the launcher beyond the BPF maps. */
struct rf_plan_install {
	bool landlock;            /* build and apply a Landlock ruleset */
	bool landlock_fs;         /* it handles files + exec */
	bool landlock_net;        /* TCP connect ports (ABI 4+) */
	bool landlock_scope_unix; /* abstract unix scoping (ABI 6+) */
	bool landlock_scope_signal;
	int landlock_abi;
	bool seccomp_boundary;    /* the process-boundary filter */
	bool seccomp_notify;      /* its refusals answered by the supervisor's listener
				   * and published by it, not seen at sys_exit */
	bool seccomp_allowlist;   /* the syscalls policy in a filter ("alert": only with
				   * the listener, which lets its calls through) */
	/* What the boundary filter closes where no BPF-LSM program does:
	 * routing-header socket options while the network is confined, and
	 * other processes' scheduling and limits. */
	bool seccomp_net_opts;
	bool seccomp_task_targets;
	/* Landlock's holes the boundary filter closes (files, exec on landlock):
	 * chmod/chown/utimes and the xattr writes (only with no write rule),
	 * inode-flag ioctls, memfds that are not MFD_NOEXEC_SEAL. */
	bool seccomp_fs_meta;
	bool seccomp_fs_ioctl;
	bool seccomp_memfd_noexec;
	/* The rest of Landlock's metadata hole (files, enforce, write rules):
	 * every mount of the child's namespace read-only but the write rules'
	 * own trees, so chmod/chown/utimes/xattrs fail with EROFS outside them. */
	bool ro_tree;
	/* memory.deny_write_execute: prctl(PR_SET_MDWE) where the kernel has
	 * it, else the boundary filter's W^X rules. */
	bool mdwe;
	bool seccomp_wx;
	/* network.unix on the cgroup hooks with files on Landlock: write rules
	 * that hold an allowed unix name make no sockets nor symlinks
	 * (policy__unix_name_in_write), so none is renamed, linked or
	 * symlinked onto the name. */
	bool landlock_unix_names;
	/* ...and with the write rules' own mounts (ro_tree): each directory
	 * on the way to an allowed unix name that a rename could replace is
	 * bound onto itself in the child's namespace (run/unixpin.h), so
	 * rename and rmdir of it fail (EBUSY); one absent at start cannot be,
	 * and keeps the gap unix.rename-dir (decided at start, not here). */
	bool unix_pins;
	/* exec on Landlock: the observe programs kill a process whose program
	 * is the dynamic loader itself (RF_SB_OBSERVE_LOADER). */
	bool loader_kill;
	uint32_t lsm_flags;       /* RF_SB_LSM_*: classes the BPF-LSM programs judge */
	bool keep_caps;           /* test-only --keep-caps */
};

/* One limit of the policy and the backend that holds it. */
struct rf_limit_plan {
	bool set;                 /* the policy gives it */
	uint64_t value;           /* as written (scratch: size_mb) */
	enum rf_backend be;
	bool enforced;
	int reason;               /* refused: index in rf_plan.reasons, else -1 */
};

/* A class is refused at most once (limits once per limit), --require
 * adds one per backend. */
#define RF_PLAN_MAX_REASONS (2 * RF_CLASS_MAX + RF_LIMIT_MAX + RF_BE_MAX)

/* Why /tmp is private or shared (files.tmp and its default). */
enum rf_tmp_why {
	RF_TMP_WHY_WRITE = 0,     /* files.write reaches /tmp itself: private */
	RF_TMP_WHY_NO_WRITE,      /* it does not (or files is unrestricted): shared */
	RF_TMP_WHY_POLICY,        /* files.tmp says which */
	RF_TMP_WHY_SCRATCH,       /* limits.scratch is /tmp: that tmpfs is the private one */
	RF_TMP_WHY_CWD,           /* the default would be private, but the command starts
				   * below /tmp, among its files there: shared (prepare.c) */
	RF_TMP_WHY_MAX,
};

/* What of the host's shared places the command sees. Always its own PID
 * namespace with its own /proc (hidepid=ptraceable) and a private
 * /dev/shm; /tmp as decided here. */
struct rf_plan_private {
	bool tmp;                 /* an empty tmpfs over /tmp */
	enum rf_tmp_why tmp_why;
};

struct rf_plan {
	struct rf_class_plan c[RF_CLASS_MAX];
	struct rf_plan_private priv;
	struct rf_plan_install install;
	struct rf_limit_plan limits[RF_LIMIT_MAX];  /* the limits class, per limit */
	unsigned int prefer;      /* the --prefer mask it was compiled with */
	enum rf_lsm_state lsm_state;
	bool ok;                  /* every required class has a backend */
	bool observe_off;         /* --no-observe: nothing inferred from syscalls */
	bool stdio_unix;          /* a unix socket made outside is on fd 0-2 */
	uint64_t gaps;            /* 1 << enum rf_gap: what the chosen backends leave open */
	struct rf_plan_reason reasons[RF_PLAN_MAX_REASONS];
	int n_reasons;
};

/* --require / --prefer: bit masks of 1u << enum rf_backend. */
struct rf_plan_opts {
	unsigned int require;
	unsigned int prefer;
	bool keep_caps;           /* test-only: the child keeps its capabilities */
	bool strict;              /* --strict: a plan with known gaps is refused */
	bool no_observe;          /* --no-observe: no syscall tracepoint for this run */
	bool stdio_unix;          /* a unix socket made outside is on fd 0-2 */
};

/* Pure: no I/O. Fills plan from the policy, the probed capabilities and
 * the user's --require/--prefer (opts may be NULL). */
void plan__compile(const struct rf_policy *policy, const struct rf_caps *caps,
		   const struct rf_plan_opts *opts, struct rf_plan *ret_plan);

/* Landlock's audit log could not be read after all (the socket refused):
 * its file and exec classes fall back to the inferred observation. */
void plan__landlock_unlogged(struct rf_plan *plan, const struct rf_caps *caps);

/* A refusal found after planning (e.g. a Landlock entry that cannot be
 * expressed): the class loses its backend, the plan is no longer ok.
 * detail may be NULL. */
void plan__refuse(struct rf_plan *plan, enum rf_class c, enum rf_plan_why code, int param,
		  const char *detail);

/* A limit refused after planning (the scratch directory is missing): the
 * limit and its class are no longer enforced, the plan no longer ok. */
void plan__refuse_limit(struct rf_plan *plan, enum rf_limit l, enum rf_plan_why code,
			int param, const char *detail);

/* plan_flags.c: the sandbox's flags in the kernel's map. */
/* The observe programs' syscall tracepoints are attached for this plan's
 * sandbox (they then run for every task on the host). Pure. */
bool plan__tracepoints(const struct rf_plan *plan);
/* The observe programs' exec tracepoint (sched_process_exec: once per exec
 * of every task on the host) is attached for this plan's sandbox: the
 * loader kill. Pure. */
bool plan__exec_tracepoint(const struct rf_plan *plan);

#define RF_OBSERVE_FLAGS (RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_ACCESS | \
			  RF_SB_OBSERVE_LOADER)

/* A class whose backend records nothing itself (Landlock, seccomp) and
 * which the policy confines: its failed syscalls are observed. */
bool plan__observed_class(const struct rf_plan *plan, enum rf_class c);

/* Can the sandbox reach a unix peer outside, so that the ledger counts its
 * unix bytes: any name, a listed one, every one in audit mode, or a unix
 * socket made outside on fd 0-2 (its bytes leave whatever the policy). */
bool plan__unix_reach(const struct rf_plan *plan, const struct rf_policy *policy);

/* rf_sandbox.flags (RF_SB_*) for a sandbox of this plan: the classes the
 * BPF-LSM judges, audit mode, an unconfined network.connect or unix, and
 * what the observe programs watch (RF_OBSERVE_FLAGS: failed path syscalls
 * where Landlock records nothing, the boundary's refusals where no
 * listener answers them). observing false (the observe programs are not
 * pinned, or a test turned them off): none of RF_OBSERVE_FLAGS. Pure; asked
 * again after plan__landlock_unlogged. */
uint32_t plan__sandbox_flags(const struct rf_plan *plan, const struct rf_policy *policy,
			     bool observing);

/* The backend that holds limit l (one per limit, whatever the kernel). */
enum rf_backend plan__limit_backend(enum rf_limit l);

/* plan_text.c: the plan as text, only here. */
/* The backend as printed, "landlock-abi7"; "" for none. */
void plan__backend_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len);
/* "kernel", "inferred", "inferred-audit", "kernel-audit"; "" for RF_OBSV_NONE. */
const char *plan__observed_text(enum rf_plan_observed o);
/* "capabilities; landlock-abi7 (...)"; "" for none. */
void plan__layers_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len);
void plan__note_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len);
/* Refusal i as "class: why" (or "--require: why"). */
void plan__reason_text(const struct rf_plan *plan, int i, char *buf, size_t len);
/* {"ok":..,"classes":{..},"reasons":[..]}; NULL on allocation failure. */
json_t *plan__to_json(const struct rf_plan *plan);

#endif
