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

#define RF_ABI_VERSION 1

#define RF_MAX_PORT_RANGES 32   /* merged, sorted, disjoint ranges per prefix */
#define RF_UNIX_PATH_MAX 108    /* sizeof(sockaddr_un.sun_path) */
#define RF_UNIX_KEY_LEN (1 + RF_UNIX_PATH_MAX + 1) /* kind + name + terminator */
#define RF_COMM_LEN 16
#define RF_SAMPLE_LIMIT_DEFAULT 256 /* denial records kept per sandbox */

/* Enforcement classes, as counted by the kernel and named in the trace. */
enum rf_class {
	RF_CLASS_NET = 0,
	RF_CLASS_UNIX = 1,
	RF_CLASS_FILE = 2,
	RF_CLASS_EXEC = 3,
	RF_CLASS_PROCESS = 4,
	RF_CLASS_MAX = 5,
};

/* The hook that made a decision. */
enum rf_op {
	RF_OP_CONNECT4 = 1,
	RF_OP_CONNECT6 = 2,
	RF_OP_SENDMSG4 = 3,
	RF_OP_SENDMSG6 = 4,
	RF_OP_CONNECT_UNIX = 5,
	RF_OP_SENDMSG_UNIX = 6,
	RF_OP_SOCK_CREATE = 7,
};

enum rf_verdict {
	RF_VERDICT_DENIED = 1,  /* the kernel refused the operation */
	RF_VERDICT_AUDITED = 2, /* audit mode: would have been denied, allowed */
};

/* Why a decision went the way it did. */
enum rf_reason {
	RF_REASON_NO_RULE = 1,      /* no allowlist entry covers it */
	RF_REASON_PORT = 2,         /* address covered, port not */
	RF_REASON_SENSITIVE = 3,    /* link-local/metadata needs an exact entry */
	RF_REASON_BAD_PATH = 4,     /* unix path with . / .. / // or relative */
	RF_REASON_TOO_LONG = 5,     /* does not fit the matcher: denied */
	RF_REASON_PROTOCOL = 6,     /* socket type/protocol outside TCP/UDP */
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
};

/* rf_sandboxes: cgroup id -> per-sandbox state. */
struct rf_sandbox {
	__u32 flags;
	__u32 sample_limit;             /* 0: use RF_SAMPLE_LIMIT_DEFAULT */
	__u64 deny_seq;                 /* next sample slot, atomically bumped */
	__u64 denials[RF_CLASS_MAX];    /* exact totals, atomically bumped */
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

/* rf_samples key: the first sample_limit denials of each sandbox. */
struct rf_sample_key {
	__u64 cgroup_id;
	__u64 seq;
};

enum rf_event_kind {
	RF_EV_DECISION = 1,
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
	__u32 path_len;                 /* bytes of path[] used (unix) */
	__u32 _pad;
	char path[RF_UNIX_PATH_MAX];    /* abstract names start with '@' */
	__u8 _pad2[4];
};

/* rf_stats: per-CPU counters; sum over CPUs. */
enum rf_stat {
	RF_STAT_RINGBUF_LOST = 0,       /* bpf_ringbuf_reserve failed */
	RF_STAT_SAMPLE_LOST = 1,        /* rf_samples full */
	RF_STAT_DECISIONS = 2,          /* decisions recorded */
	RF_STAT_MAX = 3,
};

/* rf_meta[0]: identifies the build that loaded the pinned objects. */
enum rf_meta_features {
	RF_FEAT_INET = 1u << 0,         /* connect4/6, sendmsg4/6, sock_create */
	RF_FEAT_UNIX = 1u << 1,         /* connect_unix, sendmsg_unix */
};

struct rf_meta {
	__u32 abi_version;
	__u32 features;                 /* enum rf_meta_features attached */
	__u8 build_id[32];              /* sha256 of the BPF object */
};

#endif /* RF_ABI_H */
