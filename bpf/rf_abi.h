/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one kernel/user ABI of ringfence. Shared by the BPF programs and user
 * space: fixed-width fields, explicit enum values, no pointers. Bump
 * RF_ABI_VERSION whenever a map layout or an event changes; pinned
 * objects from another ABI are never reused.
 */
#ifndef RF_ABI_H
#define RF_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RF_ABI_VERSION 9

#define RF_MAX_PORT_RANGES 32   /* merged, sorted, disjoint ranges per prefix */
#define RF_UNIX_PATH_MAX 108    /* sizeof(sockaddr_un.sun_path) */
#define RF_UNIX_KEY_LEN (1 + RF_UNIX_PATH_MAX + 1) /* kind + name + terminator */
/* File paths (rf_paths): the LPM data (cgroup id + path) must stay within
 * the kernel's 256-byte LPM limit, so paths up to RF_PATH_MAX bytes. */
#define RF_PATH_KEY_LEN 248
#define RF_PATH_MAX (RF_PATH_KEY_LEN - 1) /* bytes of a path, without terminator */
#define RF_EVENT_PATH_LEN 256            /* rf_event.path */
#define RF_COMM_LEN 16
#define RF_SAMPLE_LIMIT_DEFAULT 256 /* denial records kept per sandbox */
/* In audit mode (learn): every decision of a build of a few files, whose
 * rerun would not repeat them (make finds its work done). */
#define RF_SAMPLE_LIMIT_AUDIT 16384
/* Live sandboxes on a host: rf_sandboxes and every outer per-sandbox map. */
#define RF_MAX_SANDBOXES 4096
/* Per-sandbox maps (net4, net6, unix, paths) hold up to this many keys
 * each: a policy needing more is refused by check and run. */
#define RF_SB_MAX_KEYS 262144
/*
 * The per-sandbox inner maps come from a pool of slots (bpf/rf_sbmap.bpf.h):
 * slot i is index i of every outer map, filled once with inner maps of one
 * size class. Class c holds RF_SB_CLASS_KEYS(c) policy keys per map (the
 * network maps RF_SB_GRANT_ROOM more, for grants made while it runs); a
 * policy takes the smallest class it fits.
 */
#define RF_SB_CLASSES 3
#define RF_SB_CLASS_KEYS(c) ((c) == 0 ? 1024 : (c) == 1 ? 16384 : RF_SB_MAX_KEYS)
#define RF_SB_GRANT_ROOM 1024

/*
 * Enforcement classes: the one class enum of ringfence. The first
 * RF_CLASS_KERNEL_MAX are judged and counted by the kernel (ABI: values
 * fixed, rf_sandbox.denials[]); the rest exist only in the plan.
 * X(NAME, value, its name in plans, traces and reports): lib/names.c
 * builds its table from this list.
 */
#define RF_CLASSES(X)                                                                   \
	/* judged and counted by the kernel */                                          \
	X(NET, 0, "network") X(UNIX, 1, "unix") X(FILE, 2, "file")                      \
	X(EXEC, 3, "exec") X(PROCESS, 4, "process")                                     \
	/* in the plan only */                                                          \
	X(LIMITS, 5, "limits") X(SYSCALLS, 6, "syscalls") X(MONITOR, 7, "monitor")

#define RF_CLASS_ENUM_(name, value, str) RF_CLASS_##name = value,
enum rf_class {
	RF_CLASSES(RF_CLASS_ENUM_)
	RF_CLASS_KERNEL_MAX = 5,
	RF_CLASS_MAX = 8,
};

/*
 * The hook that made a decision (ABI: values fixed, rf_event.op).
 * X(NAME, value, its name in traces and reports): lib/names.c builds its
 * table from this list.
 */
#define RF_OPS(X)                                                                       \
	X(CONNECT4, 1, "connect4")                                                      \
	X(CONNECT6, 2, "connect6")                                                      \
	X(SENDMSG4, 3, "sendmsg4")                                                      \
	X(SENDMSG6, 4, "sendmsg6")                                                      \
	X(CONNECT_UNIX, 5, "connect_unix")                                              \
	X(SENDMSG_UNIX, 6, "sendmsg_unix")                                              \
	X(SOCK_CREATE, 7, "sock_create")                                                \
	/* BPF-LSM (lsm.bpf.c) */                                                       \
	X(FILE_OPEN, 8, "open")                 /* file_open, by the open mode */       \
	X(EXEC, 9, "exec")                      /* execve: opening the binary or a #!   \
						 * interpreter, bprm_check_security     \
						 * (each #! level) */                   \
	X(MMAP_EXEC, 10, "mmap_exec")           /* mmap_file with PROT_EXEC */          \
	X(MPROTECT_EXEC, 11, "mprotect_exec")   /* file_mprotect with PROT_EXEC */      \
	X(UNLINK, 12, "unlink")                                                         \
	X(MKDIR, 13, "mkdir")                                                           \
	X(RMDIR, 14, "rmdir")                                                           \
	X(MKNOD, 15, "mknod")                   /* device nodes, fifos, sockets */      \
	X(CREATE, 16, "create")                 /* open(O_CREAT) of a new regular file */ \
	X(SYMLINK, 17, "symlink")                                                       \
	X(LINK, 18, "link")                     /* path: the source or the new name */  \
	X(RENAME, 19, "rename")                 /* path: the old or the new name */     \
	X(TRUNCATE, 20, "truncate")                                                     \
	X(CHMOD, 21, "chmod")                                                           \
	X(CHOWN, 22, "chown")                                                           \
	X(UTIMES, 23, "utimes")                 /* inode_setattr: times only */         \
	X(UNIX_CONNECT_LSM, 24, "unix_stream_connect") /* the peer's bound name */      \
	X(UNIX_SEND_LSM, 25, "unix_may_send")   /* datagram connect/send */             \
	X(BPF, 26, "bpf")                       /* arg: the bpf() command */            \
	X(PTRACE, 27, "ptrace")                 /* target_pid; arg: PTRACE_MODE_* */    \
	X(KILL, 28, "kill")                     /* target_pid; arg: the signal */       \
	X(MOUNT, 29, "mount")                                                           \
	X(MOVE_MOUNT, 30, "move_mount")                                                 \
	X(UMOUNT, 31, "umount")                                                         \
	X(PIVOT_ROOT, 32, "pivot_root")                                                 \
	X(CHROOT, 33, "chroot")                                                         \
	X(USERNS, 34, "userns_create")          /* a new user namespace */              \
	X(CGROUP_WRITE, 35, "cgroup_write")     /* write open of a cgroupfs file */     \
	X(CLONE_INTO_CGROUP, 36, "clone_into_cgroup") /* clone3(CLONE_INTO_CGROUP) */   \
	X(PSEUDO_FS_WRITE, 37, "pseudo_fs_write") /* create/remove/rename in cgroupfs   \
						   * or bpffs */                        \
	/* The seccomp boundary's refusals, seen by observe.bpf.c at sys_exit   \
	 * (the names of the syscalls that the ops above do not already name). */       \
	X(SETNS, 38, "setns")                                                           \
	X(KEYCTL, 39, "keyctl")                 /* keyctl, add_key, request_key */      \
	X(KEXEC, 40, "kexec")                   /* kexec_load, kexec_file_load */       \
	X(MODULE, 41, "kernel_module")          /* init_module, finit_module,           \
						 * delete_module */                     \
	X(PERF_EVENT, 42, "perf_event_open")                                            \
	X(PROCESS_VM, 43, "process_vm")         /* process_vm_readv/writev,             \
						 * pidfd_getfd */                       \
	X(USERFAULTFD, 44, "userfaultfd")                                               \
	X(IO_URING, 45, "io_uring")             /* io_uring_setup, _enter, _register */ \
	X(NAMESPACE, 46, "namespace_create")    /* unshare/clone with a namespace flag  \
						 * but CLONE_NEWUSER */                 \
	X(TTY_IOCTL, 47, "tty_ioctl")           /* ioctl TIOCSTI, TIOCLINUX */          \
	X(PERSONALITY, 48, "personality")                                               \
	/* BPF-LSM, issue 13 (the process boundary): other processes' scheduling and  \
	 * limits (target_pid), signals through file ownership, routing options on    \
	 * inet sockets while the network is confined */                               \
	X(SETNICE, 49, "setnice")               /* arg: the nice value */               \
	X(SETIOPRIO, 50, "setioprio")           /* arg: the I/O priority */             \
	X(SETSCHEDULER, 51, "setscheduler")     /* sched_set*, sched_setaffinity */     \
	X(SETRLIMIT, 52, "setrlimit")           /* prlimit64; arg: the resource */      \
	X(SIGIO, 53, "sigio")                   /* F_SETOWN/F_NOTIFY; arg: the signal */ \
	X(ROUTE_SOCKOPT, 54, "route_sockopt")   /* arg: level << 16 | optname */        \
	X(ROUTE_CMSG, 55, "route_cmsg")         /* sendmsg; arg: level << 16 | type */  \
	X(ROUTE_PACKET, 56, "route_packet")     /* cgroup_skb/egress (net.bpf.c): arg   \
						 * 43 (IPv6 routing header) or          \
						 * 0x10800 (IPv4 options) */ \
	/* The DNS gate (supervisor/dnsgate/dnsgate.c) through rf_dns_note: a query it  \
	 * refused, or an answer it dropped; path: the name */                  \
	X(DNS_QUERY, 57, "dns_query") \
	/* Metadata writes judged as writes of the file's path (h13b). */               \
	X(SETXATTR, 58, "setxattr")             /* POSIX ACLs included */               \
	X(REMOVEXATTR, 59, "removexattr")       /* POSIX ACLs included */               \
	X(INODE_IOCTL, 60, "inode_ioctl")       /* FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR.. */ \
	X(MEMFD_CREATE, 61, "memfd_create")     /* seccomp: without MFD_NOEXEC_SEAL */ \
	/* A call outside the policy's syscalls profile, answered by the          \
	 * supervisor's seccomp listener (notify.c); syscall: its number */        \
	X(SYSCALL, 62, "syscall")                                                       \
	/* BPF-LSM: a socket made outside the sandbox, handed in (file_receive) */      \
	X(SOCK_RECEIVE, 63, "sock_receive")     /* arg: the socket's family */

#define RF_OP_ENUM_(name, value, str) RF_OP_##name = value,
enum rf_op {
	RF_OPS(RF_OP_ENUM_)
	RF_OP_MAX = 64,                 /* bound for name tables, never sent */
};

enum rf_verdict {
	RF_VERDICT_DENIED = 1,  /* the kernel refused the operation */
	RF_VERDICT_AUDITED = 2, /* audit mode: would have been denied, allowed */
	RF_VERDICT_MAX = 3,
};

/*
 * Why a decision went the way it did (ABI: values fixed, rf_event.reason).
 * X(NAME, value, its name in traces and reports): lib/names.c builds its
 * table from this list.
 */
#define RF_REASONS(X)                                                                   \
	X(NO_RULE, 1, "no-rule")                /* no allowlist entry covers it */      \
	X(PORT, 2, "port-not-allowed")          /* address covered, port not */         \
	/* link-local/metadata needs an exact entry */                                  \
	X(SENSITIVE, 3, "link-local-or-metadata-needs-exact-entry")                     \
	X(BAD_PATH, 4, "unresolved-path")       /* unix path with . / .. / // or        \
						 * relative */                          \
	X(TOO_LONG, 5, "too-long")              /* does not fit the matcher: denied */  \
	X(PROTOCOL, 6, "protocol-not-allowed")  /* socket type/protocol outside TCP/UDP */ \
	X(ACCESS, 7, "access-not-allowed")      /* a rule covers the path, not with     \
						 * this access */                       \
	X(BOUNDARY, 8, "process-boundary")      /* the process boundary: never from a   \
						 * sandbox */                           \
	X(INTERNAL, 9, "no-memory")             /* no scratch memory: denied, never     \
						 * allowed */                           \
	X(DNS_NAME, 10, "name-not-allowed")     /* no network.connect name matches */   \
	X(DNS_REBIND, 11, "private-address-for-name") /* an allowed name answered with  \
						 * loopback, link-local, metadata or a  \
						 * private range (dropped) */ \
	X(LOADER, 12, "dynamic-loader-as-program") /* the ELF loader run as the   \
						 * program (`ld.so FILE`): killed */    \
	X(UNIX_NAME, 13, "allowed-unix-name")   /* a socket, symlink or directory  \
						 * put at (or on the way to) an allowed \
						 * network.unix pathname (BPF-LSM) */

#define RF_REASON_ENUM_(name, value, str) RF_REASON_##name = value,
enum rf_reason {
	RF_REASONS(RF_REASON_ENUM_)
	RF_REASON_MAX = 14,
};

/* rf_paths value and rf_event.need/have: access bits. */
enum rf_access {
	RF_ACC_READ = 1u << 0,
	RF_ACC_WRITE = 1u << 1,         /* create, remove, rename, link, truncate, chmod, ... */
	RF_ACC_EXEC = 1u << 2,          /* execve, PROT_EXEC mappings */
};

/* struct rf_sandbox.flags */
enum rf_sandbox_flags {
	RF_SB_AUDIT = 1u << 0,           /* record, never deny */
	RF_SB_NET_UNRESTRICTED = 1u << 1, /* network.connect not confined */
	RF_SB_UNIX_UNRESTRICTED = 1u << 2,/* network.unix not confined */
	/* BPF-LSM (lsm.bpf.c): which classes its programs judge for this
	 * sandbox. A class without its flag is left to another backend. */
	RF_SB_LSM_FILES = 1u << 3,       /* files.read/write: file_open, path_* */
	RF_SB_LSM_EXEC = 1u << 4,        /* exec: bprm_check, mmap/mprotect PROT_EXEC */
	RF_SB_LSM_UNIX = 1u << 5,        /* network.unix: socket_connect, sendmsg */
	RF_SB_LSM_PROCESS = 1u << 6,     /* bpf, ptrace, signals, mounts, userns, cgroup moves */
	/* observe.bpf.c: which failed (or, audit, successful) syscalls of this
	 * sandbox to report. Its records are inferred (RF_EVF_INFERRED): the
	 * kernel's verdict came from Landlock or seccomp, which record nothing. */
	RF_SB_OBSERVE_PATHS = 1u << 7,   /* path syscalls failing EACCES/EPERM (Landlock) */
	RF_SB_OBSERVE_BOUNDARY = 1u << 8,/* the seccomp boundary's syscalls failing EPERM */
	RF_SB_OBSERVE_ACCESS = 1u << 9,  /* audit: path syscalls that succeeded, too */
	/* exec on Landlock: a program that is the dynamic loader itself is
	 * killed at exec (sched_process_exec), a real decision, not inferred */
	RF_SB_OBSERVE_LOADER = 1u << 10,
	/* BPF-LSM, network.unix with pathnames: no socket, symlink, link or
	 * rename of one made at an allowed name (or a directory on its way)
	 * from this sandbox, so no outside client that connects to the name
	 * reaches the sandbox (unix.rebind) */
	RF_SB_LSM_UNIX_NAMES = 1u << 11,
};

/* rf_sandboxes: cgroup id -> per-sandbox state. */
struct rf_sandbox {
	__u32 flags;
	__u32 sample_limit;             /* 0: use RF_SAMPLE_LIMIT_DEFAULT */
	__u64 deny_seq;                 /* next sample slot, atomically bumped */
	__u64 denials[RF_CLASS_KERNEL_MAX]; /* exact totals, atomically bumped */
	__u32 state;                    /* enum rf_sandbox_state, set by the kernel */
	__u32 slot1;                    /* its pool slot + 1, written with the entry
					 * (rf_sbmap.bpf.h; 0: ask rf_sb_slots) */
};

/* struct rf_sandbox.state */
enum rf_sandbox_state {
	/* Set at the first execve inside the sandbox: from then on the
	 * process boundary holds. Before it only ringfence's own launcher
	 * runs there (it makes its mount namespace private, ...). */
	RF_SBS_ARMED = 1u << 0,
};

/* rf_slots[i].state: user space's bookkeeping of pool slot i (written
 * under RF_RUN_DIR/slots.lock, supervisor/sbmaps.c). */
enum rf_slot_state {
	RF_SLOT_EMPTY = 0,      /* no inner maps in the outer maps at i */
	RF_SLOT_FREE = 1,       /* inner maps in place, empty: ready to hand out */
	RF_SLOT_OWNED = 2,      /* sandbox cgid's */
	RF_SLOT_DIRTY = 3,      /* given back, its maps not emptied yet */
	RF_SLOT_BUSY = 4,       /* being filled into the outer maps or emptied by
				 * process pid (started at start): DIRTY once it is gone */
};

/* rf_slots: pool slot -> who has it. The programs read cgid only: a
 * sandbox's rules are looked up in slot i only while rf_slots[i].cgid is
 * its own cgroup id (cgroup ids are never reused), so a lookup that raced
 * with a slot's return and reuse gets no rules. */
struct rf_slot {
	__u64 cgid;                     /* RF_SLOT_OWNED: the owner; else 0 */
	__u32 state;                    /* enum rf_slot_state */
	__u32 class;                    /* size class, RF_SB_CLASS_KEYS */
	__u64 start;                    /* RF_SLOT_BUSY: the process's start time */
	__u32 pid;                      /* RF_SLOT_BUSY: the process */
	__u32 _pad;
};

/* rf_slot_maps: pool slot -> the ids of its inner maps, by kind (user
 * space's only). Reading an outer map of maps from user space waits for an
 * RCU grace period on older kernels (6.1: ~12 ms each, as every write does
 * everywhere), so a run finds its slot's maps here instead. 0: not known. */
#define RF_SB_KINDS_MAX 8
struct rf_slot_maps {
	__u32 id[RF_SB_KINDS_MAX];
};

/* rf_sb_slots: sandbox cgroup id -> its slot (a plain hash: writing it
 * waits for nothing, unlike an outer map of maps). */
struct rf_sb_slot {
	__u32 slot;
	__u32 class;
};

/* LPM keys: the cgroup id is always fully matched (64 bits of prefix). */
struct rf_net4_key {
	__u32 prefixlen;                /* 64 + CIDR bits */
	__u64 cgroup_id;
	__u8 addr[4];                   /* network byte order */
} __attribute__((packed));

struct rf_net6_key {
	__u32 prefixlen;                /* 64 + CIDR bits */
	__u64 cgroup_id;
	__u8 addr[16];
} __attribute__((packed));

struct rf_port_range {
	__u16 lo;
	__u16 hi;                       /* inclusive, host byte order */
};

/* struct rf_ports.flags */
enum rf_ports_flags {
	RF_PORTS_EXACT_HOST = 1u << 0,  /* a /32 or /128 named exactly */
};

/*
 * Value of an LPM entry: the union of the port ranges of every policy
 * entry whose prefix covers this one (user space precomputes it so the
 * longest match is the whole answer), sorted for a binary search.
 */
struct rf_ports {
	__u32 flags;
	__u32 n;
	struct rf_port_range r[RF_MAX_PORT_RANGES];
};

/* Kind byte that starts a unix key. */
enum rf_unix_kind {
	RF_UNIX_PATHNAME = 1,
	RF_UNIX_ABSTRACT = 2,
	/* A directory on the way to a pathname rule (exact entries; kept for
	 * RF_SB_LSM_UNIX_NAMES, never matched by a peer's name) */
	RF_UNIX_ANCESTOR = 3,
};

/*
 * unix LPM key: kind, name bytes, then a 0 terminator for an exact
 * entry; a subtree entry stops before the terminator.
 */
struct rf_unix_key {
	__u32 prefixlen;                /* 64 + 8 * bytes of data[] matched */
	__u64 cgroup_id;
	__u8 data[RF_UNIX_KEY_LEN];
} __attribute__((packed));

/*
 * rf_paths LPM key: the resolved path, then a 0 terminator for an exact
 * entry; a subtree entry ends with its '/'. Lookups always carry the
 * terminator, so "/data/" matches "/data/x" but not "/dataset".
 */
struct rf_path_key {
	__u32 prefixlen;                /* 64 + 8 * bytes of path[] matched */
	__u64 cgroup_id;
	__u8 path[RF_PATH_KEY_LEN];
} __attribute__((packed));

/* rf_samples key: the first sample_limit denials of each sandbox. */
struct rf_sample_key {
	__u64 cgroup_id;
	__u64 seq;
};

enum rf_event_kind {
	RF_EV_DECISION = 1,     /* struct rf_event */
	RF_EV_DNS = 2,          /* struct rf_dns_record (the DNS gate, every query) */
	RF_EV_FLOW = 3,         /* struct rf_flow_record (the supervisor, a flow's end) */
};

/* One recorded decision: a sample in rf_samples and a ring-buffer record. */
struct rf_event {
	__u64 ts_boot_ns;               /* bpf_ktime_get_boot_ns() */
	__u64 cgroup_id;
	__u64 seq;                      /* per-sandbox sequence number */
	__u32 kind;                     /* enum rf_event_kind */
	__u32 pid;                      /* thread group id */
	__u32 tid;
	__u32 uid;
	__u32 class;                    /* enum rf_class */
	__u32 op;                       /* enum rf_op */
	__u32 verdict;                  /* enum rf_verdict */
	__u32 reason;                   /* enum rf_reason */
	__u16 family;                   /* AF_INET, AF_INET6, AF_UNIX */
	__u16 port;                     /* host byte order */
	__u32 protocol;                 /* IPPROTO_* or socket type for unix */
	__u8 addr[16];                  /* network byte order */
	char comm[RF_COMM_LEN];
	__u32 path_len;                 /* bytes of path[] used (unix, file, exec) */
	__u16 flags;                    /* enum rf_event_flags */
	__u16 syscall;                  /* RF_EVF_SYSCALL: the syscall number */
	char path[RF_EVENT_PATH_LEN];   /* abstract names start with '@' */
	__u32 need;                     /* enum rf_access the operation needed */
	__u32 have;                     /* enum rf_access the matching rule grants */
	__u32 target_pid;               /* ptrace, kill: the other process */
	__u32 arg;                      /* signal, bpf cmd, ptrace mode, mount flags */
};

/* struct rf_event.flags */
enum rf_event_flags {
	RF_EVF_INFERRED = 1u << 0,      /* observe.bpf.c: a syscall failed (or, with
					 * RF_EVF_ACCESS, succeeded); not the deciding
					 * backend's own record, never in rf_sandbox.denials */
	RF_EVF_ACCESS = 1u << 1,        /* a successful access (audit observation) */
	RF_EVF_SYSCALL = 1u << 2,       /* .syscall holds the syscall number */
	RF_EVF_DIRFD = 1u << 3,         /* a relative path: target_pid holds the dirfd
					 * (AT_FDCWD: the cwd) it is relative to */
	RF_EVF_ERRNO_EPERM = 1u << 4,   /* failed with EPERM (else EACCES) */
	RF_EVF_DNS = 1u << 5,           /* the DNS gate's record (rf_dns_note): user space
					 * judged it; never counted in rf_sandbox.denials,
					 * never a sample (the supervisor traces it itself) */
	RF_EVF_LISTENER = 1u << 6,      /* a refusal the supervisor's seccomp listener
					 * answered (notify.c): rf_obs_verdict numbers it
					 * and keeps it as a sample, as a hook would */
	RF_EVF_UNEXPECTED = 1u << 7,    /* an allowed open outside monitor.files, seen
					 * by the supervisor's fanotify watch (filewatch.c)
					 * and sent through rf_dns_note with RF_EVF_ACCESS:
					 * class FILE, op open or exec, need its access
					 * bits; never a denial, never a sample */
};

/* ====================================================================
 * The DNS gate (supervisor/dnsgate/dnsgate.c, net.bpf.c's steering block). A
 * sandbox with an rf_dns_gates entry has its DNS (UDP and TCP to port 53,
 * any address) steered to the gate's listeners by connect4/6 and
 * sendmsg4/6; recvmsg4/6 give replies the source the client wrote.
 * ==================================================================== */
#define RF_DNS_PORT 53

/* rf_dns_gates: sandbox cgroup id -> where its gate listens. */
struct rf_dns_gate {
	__u8 addr4[4];                  /* IPv4 listener, network byte order */
	__u16 port4;                    /* host byte order */
	__u16 port6;                    /* 0: no IPv6 listener (v6 DNS goes to v4-mapped addr4) */
	__u8 addr6[16];                 /* IPv6 listener */
};

/* What the gate did with one query (rf_dns_record.verdict). */
enum rf_dns_verdict {
	RF_DNS_ANSWERED = 1,            /* forwarded, the upstream's answer relayed */
	RF_DNS_REFUSED = 2,             /* no network.connect name allows it: REFUSED */
	RF_DNS_FAILED = 3,              /* SERVFAIL/FORMERR of the gate's own (overload,
					 * no upstream answered, a malformed question) */
	RF_DNS_AUDITED = 4,             /* audit mode: no entry allows it, forwarded */
	RF_DNS_VERDICT_MAX = 5,
};

#define RF_DNS_RECORD_NAME_LEN 256      /* a DNS name is at most 253 characters */
#define RF_DNS_NO_SUFFIX 0xffff         /* rf_dns_record.suffix_off: no entry matched */

/*
 * One query the DNS gate answered or refused, on the pinned events ring
 * buffer (kind RF_EV_DNS) through rf_dns_note, for ringfence-monitor's
 * DNS Activity stream and its tunnelling detector. The header (time,
 * cgroup, seq, kind) sits where rf_event's does, and the record is exactly
 * as large, so rf_dns_note carries both kinds with one context size.
 */
struct rf_dns_record {
	__u64 ts_boot_ns;               /* set by rf_dns_note */
	__u64 cgroup_id;
	__u64 seq;                      /* the gate's query number in this run */
	__u32 kind;                     /* RF_EV_DNS */
	__u32 pid;                      /* the supervisor (its gate thread answers) */
	__u32 verdict;                  /* enum rf_dns_verdict */
	__u32 reason;                   /* enum rf_reason: REFUSED (DNS_NAME), or
					 * DNS_REBIND when private answers were dropped */
	__u16 qtype;                    /* the question's type (1 A, 28 AAAA, ...) */
	__u16 rcode;                    /* the reply's rcode as the client got it */
	__u16 protocol;                 /* IPPROTO_UDP, IPPROTO_TCP (the client's) */
	__u16 name_len;                 /* bytes of name[] used */
	__u16 suffix_off;               /* name + suffix_off: the name of the entry that
					 * matched ("*.example.com" -> "example.com");
					 * RF_DNS_NO_SUFFIX: none */
	__u16 family;                   /* of addr: AF_INET, AF_INET6, 0 (no address) */
	__u16 n_granted;                /* addresses the answer opened */
	__u16 n_dropped;                /* private addresses dropped (rebinding) */
	__u32 ttl;                      /* of the first granted address (s) */
	__u32 latency_us;               /* query received -> reply sent */
	__u8 addr[16];                  /* the first granted address, network order */
	char name[RF_DNS_RECORD_NAME_LEN]; /* the question, lower case, no trailing dot */
	__u8 _reserved[40];             /* to rf_event's size: zero */
};

/* rf_dns_orig: socket cookie -> the destination the client wrote. */
struct rf_dns_orig {
	__u8 addr[16];                  /* IPv4 in addr[0..3]; for IPv6 sockets as written */
	__u16 port;                     /* host byte order */
	__u16 family;                   /* AF_INET, AF_INET6 */
	__u32 _pad;
};

/* ====================================================================
 * The connection ledger (net.bpf.c's cgroup_skb programs, issue 22): per
 * sandbox, per destination, what was allowed to pass, counted in payload
 * bytes (IP packet length minus its IP and TCP/UDP headers; TCP counts a
 * sequence number once, so retransmissions are not counted twice). Read
 * and deleted by the supervisor at the end of the run, read by the monitor
 * while it runs.
 * ==================================================================== */

/* struct rf_flow_key.flags */
enum rf_flow_flags {
	RF_FLOW_INBOUND = 1u << 0,      /* accepted (TCP) or received first (UDP): port is
					 * the sandbox's own, addr the peer's */
	RF_FLOW_LOOPBACK = 1u << 1,     /* 127/8, ::1, ::ffff:127/104 */
	/* a unix peer whose payload bytes are counted: user space's, from its
	 * sandbox's RF_LEDGER_UNIX_BYTES (ledger__mark_unix_bytes) */
	RF_FLOW_UNIX_BYTES = 1u << 2,
	/* a unix peer by its origin (user space's, from rf_unix_flow_key.origin;
	 * RF_UNIX_ORIGIN_ACCEPT is RF_FLOW_INBOUND) */
	RF_FLOW_UNIX_PEER = 1u << 3,
	RF_FLOW_UNIX_UNNAMED = 1u << 4,
};

/* rf_flows key: one destination of one sandbox. */
struct rf_flow_key {
	__u64 cgroup_id;
	__u8 addr[16];                  /* network byte order; IPv4 in addr[0..3] */
	__u16 port;                     /* host byte order */
	__u8 family;                    /* AF_INET, AF_INET6 */
	__u8 proto;                     /* IPPROTO_TCP, IPPROTO_UDP */
	__u32 flags;                    /* enum rf_flow_flags */
};

/* rf_flows value: atomics, bumped by the programs. */
struct rf_flow {
	__u64 connections;              /* TCP: sockets; UDP: a socket's first datagram
					 * to or from this peer */
	__u64 bytes_sent;
	__u64 bytes_received;
	__u64 first_ns;                 /* bpf_ktime_get_boot_ns() */
	__u64 last_ns;
};

/* struct rf_ledger.flags */
enum rf_ledger_flags {
	RF_LEDGER_EXCEEDED = 1u << 0,   /* a send was dropped: egress_budget reached */
	/* set by the supervisor: the unix byte programs (the socket length
	 * tracepoints, or before 6.7 the fexit programs) are attached for
	 * this sandbox, its unix peers' bytes are counted */
	RF_LEDGER_UNIX_BYTES = 1u << 1,
	/* set by the supervisor with RF_LEDGER_UNIX_BYTES on 6.7+ where fexit
	 * programs attach: a connect()'s socket is keyed for its bytes by
	 * observe.bpf.c's fexit programs once the connect succeeded, not by
	 * the cgroup hook before its outcome (a refused connect makes no
	 * socket storage) */
	RF_LEDGER_UNIX_KEY_LATE = 1u << 2,
};

/* rf_ledger: sandbox cgroup id -> its totals (exact whatever rf_flows
 * could hold) and its egress budget. Made by the supervisor before the
 * command runs; a sandbox without one is not counted. */
struct rf_ledger {
	__u64 egress_budget;            /* payload bytes it may send over IP; 0: none */
	__u64 bytes_sent;
	__u64 bytes_received;
	__u64 flows_lost;               /* packets counted in the totals only: rf_flows full */
	__u64 dropped_bytes;            /* payload refused by the budget (retries included) */
	__u32 flags;                    /* enum rf_ledger_flags */
	__u32 flows_made;               /* 1 once the programs made an rf_flows entry
					 * of this sandbox (set before the entry): 0
					 * means none, and the supervisor's end skips
					 * walking rf_flows (65,536 buckets a walk) */
};

/* rf_unix_flows key: one unix peer of one sandbox, by the name the
 * sandbox gave connect() or sendto() (the cgroup unix hooks, Linux 6.7+,
 * before the kernel resolves it; before 6.7 observe.bpf.c's fexit
 * programs, from the same address). Counted: connections (connect calls,
 * and datagrams sent to a name); the payload bytes of the sockets so
 * opened where observe.bpf.c's unix byte programs are attached
 * (RF_FEAT_UNIX_BYTES, RF_LEDGER_UNIX_BYTES), else 0. */
#define RF_UNIX_FLOW_NAME 112
struct rf_unix_flow_key {
	__u64 cgroup_id;
	__u16 len;                      /* bytes of name[] */
	__u8 type;                      /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	__u8 abstract;                  /* 1: an abstract name (its leading NUL not kept) */
	__u8 origin;                    /* enum rf_unix_origin */
	__u8 _pad[3];
	__u8 name[RF_UNIX_FLOW_NAME];   /* zero past len */
};

/* rf_unix_flow_key.origin: how the sandbox came by the socket. The ones
 * but CONNECT are keyed by observe.bpf.c at a socket's first payload byte
 * in a sandbox (rf_ledger_unix_own.bpf.h): one connection each. */
enum rf_unix_origin {
	RF_UNIX_ORIGIN_CONNECT = 0,     /* its connect() or sendto(): the peer's name */
	RF_UNIX_ORIGIN_ACCEPT,          /* the socket's own name: a connection its
					 * listener accepted, its bound datagram socket */
	RF_UNIX_ORIGIN_PEER,            /* connected, not by it (passed in with
					 * SCM_RIGHTS, inherited): the peer's name */
	RF_UNIX_ORIGIN_UNNAMED,         /* no name either end: a socketpair */
	RF_UNIX_ORIGIN_MAX,
};

/* rf_unix_sk: socket storage of a unix socket of a sandbox, written by
 * the cgroup unix hooks (before 6.7: the fexit programs) once the policy
 * let its connect() or sendto() through; its bytes count into the flow
 * of that name. */
struct rf_unix_sk {
	struct rf_unix_flow_key conn;   /* connect(): the peer of unaddressed sends */
	struct rf_unix_flow_key to;     /* the name of the last addressed send */
	__u8 has_conn, has_to;
	__u8 to_next;                   /* the next send is the addressed one */
	__u8 _pad[5];
};

/* rf_flow_names: which name the DNS gate opened an address for. */
#define RF_FLOW_NAME_LEN 256
struct rf_flow_name_key {
	__u64 cgroup_id;
	__u8 addr[16];
	__u32 family;
	__u32 _pad;
};

struct rf_flow_name {
	char name[RF_FLOW_NAME_LEN];    /* NUL-terminated; the name the gate answered */
};

/*
 * A flow's final totals for ringfence-monitor (kind RF_EV_FLOW, through
 * rf_dns_note like the DNS gate's records): written by the supervisor at
 * the end of the run, before it deletes the sandbox's rf_flows entries,
 * so the monitor, which reads rf_flows on an interval, gets the exact last
 * counts. The header sits where rf_event's does; as large as rf_event.
 */
struct rf_flow_record {
	__u64 ts_boot_ns;               /* set by rf_dns_note */
	__u64 cgroup_id;
	__u64 seq;                      /* the flow's number in this run's report */
	__u32 kind;                     /* RF_EV_FLOW */
	__u32 final;                    /* 1: the run ended (always, today) */
	struct rf_flow_key key;
	struct rf_flow flow;
	char name[RF_FLOW_NAME_LEN];    /* the DNS gate's name for key.addr, or "" */
	__u8 _reserved[16];             /* to rf_event's size: zero */
};

/* ====================================================================
 * observe.bpf.c: sys_enter/sys_exit of sandboxed tasks, for the classes
 * Landlock and seccomp enforce (they keep no record of their own).
 * ==================================================================== */
#define RF_OBS_SYSCALL_MAX 512          /* syscall numbers described */

/* rf_obs_syscalls[nr]: what to capture of one syscall (filled by user
 * space from the names, so the numbers are this architecture's). Argument
 * positions are 1-based; 0: none. */
struct rf_obs_syscall {
	__u8 op;                        /* enum rf_op; 0: not observed */
	__u8 class;                     /* enum rf_class */
	__u8 path;                      /* the path argument */
	__u8 path2;                     /* a second path (rename, link) */
	__u8 dirfd;                     /* the path's directory fd */
	__u8 dirfd2;
	__u8 arg;                       /* kept in rf_event.arg (flags, cmd, mode) */
	__u8 target;                    /* kept in rf_event.target_pid */
};

/* struct rf_obs_syscall.class also carries: */
#define RF_OBS_ARG_HOW 0x80             /* .arg points to struct open_how: its flags */

/* rf_observe: sandbox cgroup id -> what observe.bpf.c counted for it. */
struct rf_obs_sandbox {
	__u64 inferred[RF_CLASS_KERNEL_MAX]; /* failed syscalls queued (candidates), by class */
	__u64 access_seq;               /* next rf_obs_access slot (failures and accesses) */
	__u64 access_lost;              /* rf_obs_access full: a candidate not kept */
	__u64 scratch_lost;             /* no task scratch memory: a failed call not seen */
};

/*
 * rf_stats: host-wide per-CPU counters (sum over CPUs; ABI: values fixed).
 * X(NAME, value, its name in traces and reports): lib/names.c builds its
 * table from this list.
 */
#define RF_STATS(X)                                                                     \
	X(RINGBUF_LOST, 0, "ringbuf_lost")      /* a record not on the ring buffer: full */ \
	X(SAMPLE_LOST, 1, "sample_lost")        /* a sample not kept: rf_samples full */ \
	X(DECISIONS, 2, "decisions")            /* decisions published */               \
	/* no per-task scratch memory (task storage allocation failed): the LSM's       \
	 * decision counted without a record, or a syscall not observed */             \
	X(SCRATCH_LOST, 3, "scratch_lost")                                              \
	/* a unix socket's ledger key not stored (socket storage allocation             \
	 * failed): its bytes land in another flow of its sandbox, or in none */        \
	X(UNIX_KEY_LOST, 4, "unix_key_lost")                                            \
	/* a sandboxed call the observe programs saw fail while the sandbox had no      \
	 * rf_observe entry (being removed, or lost): not reported */                   \
	X(OBSERVE_UNKEYED, 5, "observe_unkeyed")

#define RF_STAT_ENUM_(name, value, str) RF_STAT_##name = value,
enum rf_stat {
	RF_STATS(RF_STAT_ENUM_)
	RF_STAT_MAX = 6,
};

/* rf_meta[0]: identifies the build that loaded the pinned objects. */
enum rf_meta_features {
	RF_FEAT_INET = 1u << 0,         /* connect4/6, sendmsg4/6, sock_create */
	RF_FEAT_UNIX = 1u << 1,         /* connect_unix, sendmsg_unix */
	RF_FEAT_LSM = 1u << 2,          /* lsm.bpf.c: files, exec, unix, process */
	RF_FEAT_OBSERVE = 1u << 3,      /* observe.bpf.c: sys_enter/sys_exit */
	/* Not a part: the kernel refused connect_unix/sendmsg_unix when the
	 * set was loaded (before 6.7), which no later run needs to ask again. */
	RF_FEAT_NO_UNIX = 1u << 4,
	/* observe.bpf.c's unix byte programs loaded (tp_btf/sock_send_length,
	 * sock_recv_length on 6.7+; fexit on af_unix's functions before):
	 * unix payload bytes counted while a ledgered sandbox is live
	 * (RF_OBS_UNIX_BYTES) */
	RF_FEAT_UNIX_BYTES = 1u << 5,
};

struct rf_meta {
	__u32 abi_version;
	__u32 features;                 /* enum rf_meta_features attached */
	__u8 build_id[32];              /* sha256 of the BPF object */
};

/* ====================================================================
 * ringfence-monitor (bpf/monitor.bpf.c <-> monitor/). Its own programs
 * and maps, loaded by the monitor and never pinned: the supervisor
 * never reads them, and enforcement does not depend on them.
 * ==================================================================== */

#define RF_MON_SYSCALL_MAX 512          /* syscall numbers tracked per sandbox */
#define RF_MON_SYSCALL_WORDS (RF_MON_SYSCALL_MAX / 64)
#define RF_MON_PATH_LEN 128             /* bytes of an exec'd filename kept */

/* struct rf_mon_acct.flags */
enum rf_mon_acct_flags {
	RF_MON_ACCT_ARMED = 1u << 0,    /* the sandbox exec'd its command: its syscalls count */
	RF_MON_ACCT_AUTO = 1u << 1,     /* made by the kernel side (a child of the ringfence
					 * cgroup seen before its registry entry) */
};

/*
 * rf_mon_acct: sandbox cgroup id -> what the kernel side counts. Written
 * by the programs (atomics); user space only creates entries (BPF_NOEXIST)
 * and deletes them.
 */
struct rf_mon_acct {
	__u64 flags;                    /* enum rf_mon_acct_flags */
	__u64 cpu_ns;                   /* on-CPU time of its tasks (sched_switch) */
	__s64 procs;                    /* live processes (thread groups) */
	__s64 procs_peak;               /* most live processes during epoch peak_epoch */
	__u64 peak_epoch;
	__u64 forks;
	__u64 execs;
	__u64 exits;
	__u64 syscalls_seen;            /* distinct syscall numbers seen */
	__u64 seen[RF_MON_SYSCALL_WORDS]; /* bit nr: syscall nr seen since armed */
};

/* rf_mon_procs: tgid -> resident memory of one sandboxed process. */
struct rf_mon_proc {
	__u64 cgroup_id;                /* its sandbox */
	__u64 rss_bytes;                /* file + anon + shmem pages (rss_stat) */
	__u64 ts_ns;                    /* bpf_ktime_get_ns() of the update */
};

/* rf_mon_oncpu (per-CPU, one slot): the sandbox whose task runs now. */
struct rf_mon_oncpu {
	__u64 since_ns;                 /* bpf_ktime_get_ns() at switch-in */
	__u64 cgroup_id;                /* 0: not a sandboxed task */
};

enum rf_mon_event_kind {
	RF_MON_EV_SYSCALL = 1,          /* first call of nr in this sandbox, at its return
					 * (sys_exit: calls seccomp refused included; exit
					 * and exit_group, which never return, at sys_enter) */
	RF_MON_EV_FORK = 2,             /* a new process pid, child of ppid */
	RF_MON_EV_EXEC = 3,             /* pid exec'd path */
	RF_MON_EV_EXIT = 4,             /* the last thread of pid exited (code) */
};

/* One record on the monitor's own ring buffer. */
struct rf_mon_event {
	__u64 ts_boot_ns;               /* bpf_ktime_get_boot_ns() */
	__u64 cgroup_id;                /* the sandbox */
	__u32 kind;                     /* enum rf_mon_event_kind */
	__u32 pid;                      /* thread group id */
	__u32 tid;
	__u32 ppid;                     /* parent's thread group id */
	__u32 uid;
	__s32 nr;                       /* syscall number (SYSCALL) */
	__s32 code;                     /* exit_code (EXIT) */
	__u32 path_len;                 /* bytes of path[] used (EXEC) */
	__s64 ret;                      /* SYSCALL: its return value (-errno when it
					 * failed; 0 for exit/exit_group) */
	char comm[RF_COMM_LEN];
	char path[RF_MON_PATH_LEN];
};

/* rf_mon_stats: per-CPU counters of the monitor's programs. */
enum rf_mon_stat {
	RF_MON_STAT_RINGBUF_LOST = 0,   /* bpf_ringbuf_reserve failed */
	RF_MON_STAT_ACCT_FULL = 1,      /* rf_mon_acct full: a sandbox not counted */
	RF_MON_STAT_PROCS_FULL = 2,     /* rf_mon_procs full: a process's memory not counted */
	RF_MON_STAT_SYSCALL_RANGE = 3,  /* syscall nr outside 0..RF_MON_SYSCALL_MAX-1 */
	RF_MON_STAT_EVENTS = 4,         /* records submitted */
	RF_MON_STAT_MAX                 /* the number of counters */
};

/* ====================================================================
 * The layout both compilers must agree on (clang -target bpf with
 * vmlinux.h, gcc in user space): a changed size or offset fails the build
 * on both sides instead of misreading a map. Sizes follow from the
 * constants above; change a struct, then these, then RF_ABI_VERSION.
 * ==================================================================== */
#define RF_ABI_SIZE(type, size) _Static_assert(sizeof(struct type) == (size), \
					       "struct " #type " size")
#define RF_ABI_OFF(type, field, off) \
	_Static_assert(__builtin_offsetof(struct type, field) == (off), \
		       "struct " #type "." #field " offset")
/* The kernel's LPM_DATA_SIZE_MAX: bytes of an LPM key after prefixlen. */
#define RF_ABI_LPM_DATA_MAX 256

/* The counters are bumped with 64-bit atomics: 8-byte aligned. */
RF_ABI_OFF(rf_sandbox, deny_seq, 8);
RF_ABI_OFF(rf_sandbox, denials, 16);
/* denials[RF_CLASS_KERNEL_MAX]: the five kernel-counted classes (56 = 16 + 5 * 8). */
RF_ABI_OFF(rf_sandbox, state, 56);
RF_ABI_SIZE(rf_sandbox, 64);

/* Packed LPM keys: 4-byte prefixlen, 8-byte cgroup id, then the data the
 * prefix length counts (64 bits of cgroup id + the bits of the data). */
RF_ABI_OFF(rf_net4_key, cgroup_id, 4);
RF_ABI_OFF(rf_net4_key, addr, 12);
RF_ABI_SIZE(rf_net4_key, 12 + 4);
RF_ABI_OFF(rf_net6_key, cgroup_id, 4);
RF_ABI_OFF(rf_net6_key, addr, 12);
RF_ABI_SIZE(rf_net6_key, 12 + 16);
RF_ABI_OFF(rf_unix_key, cgroup_id, 4);
RF_ABI_OFF(rf_unix_key, data, 12);
RF_ABI_SIZE(rf_unix_key, 12 + RF_UNIX_KEY_LEN);
RF_ABI_OFF(rf_path_key, cgroup_id, 4);
RF_ABI_OFF(rf_path_key, path, 12);
RF_ABI_SIZE(rf_path_key, 12 + RF_PATH_KEY_LEN);
_Static_assert(sizeof(struct rf_path_key) - 4 <= RF_ABI_LPM_DATA_MAX,
	       "rf_path_key fits the kernel's LPM limit");
_Static_assert(sizeof(struct rf_unix_key) - 4 <= RF_ABI_LPM_DATA_MAX,
	       "rf_unix_key fits the kernel's LPM limit");

RF_ABI_SIZE(rf_port_range, 4);
RF_ABI_OFF(rf_ports, r, 8);
RF_ABI_SIZE(rf_ports, 8 + 4 * RF_MAX_PORT_RANGES);
RF_ABI_OFF(rf_sample_key, seq, 8);
RF_ABI_SIZE(rf_sample_key, 16);

/* rf_event: a sample value and a ring-buffer record. No implicit padding
 * after the 16-bit pair; path 8-aligned; a multiple of 8 in all. */
RF_ABI_OFF(rf_event, seq, 16);
RF_ABI_OFF(rf_event, kind, 24);
RF_ABI_OFF(rf_event, family, 56);
RF_ABI_OFF(rf_event, protocol, 60);
RF_ABI_OFF(rf_event, addr, 64);
RF_ABI_OFF(rf_event, comm, 80);
RF_ABI_OFF(rf_event, path_len, 80 + RF_COMM_LEN);
RF_ABI_OFF(rf_event, path, 88 + RF_COMM_LEN);
RF_ABI_OFF(rf_event, need, 88 + RF_COMM_LEN + RF_EVENT_PATH_LEN);
RF_ABI_SIZE(rf_event, 88 + RF_COMM_LEN + RF_EVENT_PATH_LEN + 16);
_Static_assert(sizeof(struct rf_event) % 8 == 0, "rf_event: 8-byte multiple");

RF_ABI_OFF(rf_event, flags, 84 + RF_COMM_LEN);
RF_ABI_SIZE(rf_obs_syscall, 8);
RF_ABI_SIZE(rf_obs_sandbox, 8 * (RF_CLASS_KERNEL_MAX + 3));

RF_ABI_SIZE(rf_slot, 32);
RF_ABI_SIZE(rf_slot_maps, 32);
RF_ABI_OFF(rf_slot, start, 16);
RF_ABI_SIZE(rf_sb_slot, 8);

RF_ABI_SIZE(rf_dns_gate, 24);
RF_ABI_OFF(rf_dns_gate, addr6, 8);
RF_ABI_SIZE(rf_dns_orig, 24);
/* rf_dns_record: rf_event's header and size (rf_dns_note copies either). */
RF_ABI_OFF(rf_dns_record, seq, 16);
RF_ABI_OFF(rf_dns_record, kind, 24);
RF_ABI_OFF(rf_dns_record, addr, 64);
RF_ABI_OFF(rf_dns_record, name, 80);
RF_ABI_SIZE(rf_dns_record, 80 + RF_DNS_RECORD_NAME_LEN + 40);
_Static_assert(sizeof(struct rf_dns_record) == sizeof(struct rf_event),
	       "rf_dns_record: rf_event's size");

RF_ABI_OFF(rf_meta, build_id, 8);
RF_ABI_SIZE(rf_meta, 8 + 32);

RF_ABI_SIZE(rf_flow_key, 32);
RF_ABI_OFF(rf_flow_key, port, 24);
RF_ABI_SIZE(rf_flow, 40);
RF_ABI_SIZE(rf_ledger, 48);
RF_ABI_SIZE(rf_flow_name_key, 32);
RF_ABI_SIZE(rf_unix_flow_key, 128);
RF_ABI_SIZE(rf_unix_sk, 264);
RF_ABI_OFF(rf_flow_record, key, 32);
_Static_assert(sizeof(struct rf_flow_record) == sizeof(struct rf_event),
	       "rf_flow_record: rf_event's size");

/* ringfence-monitor */
RF_ABI_OFF(rf_mon_acct, seen, 72);
RF_ABI_SIZE(rf_mon_acct, 72 + 8 * RF_MON_SYSCALL_WORDS);
RF_ABI_SIZE(rf_mon_proc, 24);
RF_ABI_SIZE(rf_mon_oncpu, 16);
RF_ABI_OFF(rf_mon_event, ret, 48);
RF_ABI_OFF(rf_mon_event, comm, 56);
RF_ABI_OFF(rf_mon_event, path, 56 + RF_COMM_LEN);
RF_ABI_SIZE(rf_mon_event, 56 + RF_COMM_LEN + RF_MON_PATH_LEN);

#endif /* RF_ABI_H */
