/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the detectors consume: one record per observation, with its own
 * timestamp. Live sources (ring buffers, registry, samplers) and --replay
 * produce the same records, so detectors run on virtual time only.
 */
#ifndef RF_MON_INPUT_H
#define RF_MON_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rf_abi.h"
#include "registry.h"

#define RF_MON_VERSION "0.1.0"
#define RF_SANDBOX_LEN 128
#define RF_POLICY_ID_LEN 64
#define RF_SYSCALL_NAME_LEN 32

enum rf_in_type {
	RF_IN_SANDBOX = 1,      /* a sandbox in the registry (new or changed) */
	RF_IN_SANDBOX_END = 2,  /* its registry entry went away */
	RF_IN_DECISION = 3,     /* a kernel decision (supervisor's ring buffer) */
	RF_IN_SYSCALL = 4,      /* first call of a syscall number in a sandbox */
	RF_IN_FORK = 5,
	RF_IN_EXEC = 6,
	RF_IN_EXIT = 7,
	RF_IN_PROC = 8,         /* a process already running when the sandbox was found */
	RF_IN_SAMPLE = 9,       /* resource sample of one sandbox */
	RF_IN_LOST = 10,        /* events lost on one hop since the last report */
	RF_IN_TICK = 11,        /* time passes (closes windows and alerts) */
	RF_IN_DNS = 12,         /* a query the DNS gate answered or refused */
	RF_IN_FLOW = 13,        /* a destination's counts since its previous record */
	RF_IN_MAX = 14,
};

/* Where events can be lost, in order along the path. */
enum rf_hop {
	RF_HOP_KERNEL_DECISIONS = 0, /* the supervisor's ring buffer (RF_STAT_RINGBUF_LOST) */
	RF_HOP_KERNEL_MONITOR = 1,   /* the monitor's ring buffer (RF_MON_STAT_RINGBUF_LOST) */
	RF_HOP_KERNEL_MAPS = 2,      /* the monitor's kernel maps at capacity */
	RF_HOP_MONITOR_TABLES = 3,   /* the monitor's own bounded tables */
	RF_HOP_OUTPUT = 4,           /* alert records the output queue could not take */
	RF_HOP_SINKS = 5,            /* records a sink's queue or spool could not take */
	RF_HOP_MAX = 6,
};

const char *rf_hop_name(uint32_t hop);
int rf_hop_parse(const char *name);

/* monitor.on_alert: what the live monitor does to the sandbox. */
enum rf_mon_response {
	RF_RESP_ALERT = 0,      /* nothing but the alert */
	RF_RESP_FREEZE = 1,     /* cgroup.freeze, left for inspection */
	RF_RESP_KILL = 2,       /* freeze, the process tree recorded, cgroup.kill */
};
/* "alert", "freeze", "kill"; parse: -1 for anything else ("" is alert) */
const char *rf_response_name(enum rf_mon_response r);
int rf_response_parse(const char *s);

/* A registry entry: identity, thresholds (0: absent, defaults apply),
 * syscall profile (sorted names). */
struct rf_sandbox_info {
	char sandbox[RF_SANDBOX_LEN];
	char policy_id[RF_POLICY_ID_LEN];
	char cgroup_path[512];
	uint64_t cgroup_id;
	uint32_t n_labels;
	char labels[RF_LABELS_MAX][RF_LABEL_LEN];   /* "key=value" */
	char traceparent[RF_TRACEPARENT_LEN];
	uint64_t burst_count, burst_window_ms;
	uint64_t cpu_percent, memory_mb, pids;
	uint64_t dns_names, dns_window_ms;  /* distinct names under one suffix */
	uint64_t dns_label_len;             /* longest label not alerted */
	uint64_t disk_write_mb;
	uint64_t egress_bytes, egress_window_ms;    /* bytes sent within a window */
	enum rf_mon_response on_alert;
	/* monitor.exec: the programs expected (sorted); has_exec: the policy
	 * names them (every other exec is an alert) */
	bool has_exec;
	char **exec;
	size_t n_exec;
	bool has_profile;
	bool alert_only;        /* syscalls.on_violation == "alert" */
	/* the registry's limit_exceeded: the cap that ended the run ("" none) */
	char cap_limit[24];
	char cap_unit[16];
	uint64_t cap_value, cap_threshold;
	char **allow;
	size_t n_allow;
};

void rf_sandbox_info_clear(struct rf_sandbox_info *si);
/* Deep copy; the allow list sorted. 0 or -ENOMEM. */
int rf_sandbox_info_copy(struct rf_sandbox_info *dst, const struct rf_sandbox_info *src);

/* SYSCALL, FORK, EXEC, EXIT, PROC */
struct rf_in_proc {
	uint32_t pid, tid, ppid, uid;
	int32_t nr;             /* SYSCALL */
	int32_t err;            /* SYSCALL: the errno its first call failed with, 0 when
				 * it succeeded or never returns (rf_syscall_errno) */
	int32_t code;           /* EXIT */
	char comm[RF_COMM_LEN + 1];
	char path[RF_MON_PATH_LEN + 1];     /* EXEC, PROC */
	char name[RF_SYSCALL_NAME_LEN];     /* SYSCALL: its name ("" unknown) */
	/* SYSCALL made from the supervisor's record (its seccomp listener
	 * answered the call, op "syscall"), not the sys_exit sensor's */
	bool listener;
	bool unknown;           /* ...and let through: how it ended is not known */
};

/* The errno a syscall's return value ret (sys_exit) says it failed with,
 * 0 when it did not fail. rt_sigreturn returns the interrupted context's
 * register, not an outcome of its own: always 0. */
int32_t rf_syscall_errno(const char *name, int64_t ret);
/* Refused: failed with EPERM or EACCES, as a seccomp filter, an LSM or a
 * permission check answers (the sandbox's boundary filter answers EPERM). */
bool rf_syscall_refused(int32_t err);

/* sample.src bits: which values came from cgroup v2 files. */
enum rf_sample_src {
	RF_SRC_CPU_CGROUP = 1u << 0,
	RF_SRC_MEM_CGROUP = 1u << 1,
	RF_SRC_PIDS_CGROUP = 1u << 2,
	RF_SRC_DISK_KNOWN = 1u << 3,   /* disk_write_bytes measured */
	RF_SRC_DISK_CGROUP = 1u << 4,  /* ...from io.stat (else /proc/PID/io) */
};

struct rf_in_sample {
	uint64_t cpu_ns;        /* cumulative on-CPU time */
	uint64_t mem_bytes;
	int64_t procs;          /* live processes now */
	int64_t procs_peak;     /* most during the period (>= procs) */
	uint32_t src;
	/* Caps hit, cumulative, from the cgroup's own files (0 where absent):
	 * memory.events max/oom_kill, pids.events max, cpu.stat nr_throttled;
	 * and the caps themselves (0: none): memory.max, pids.max, cpu.max as
	 * a percentage of one CPU. */
	uint64_t mem_max_events, oom_kills, pids_max_events, cpu_throttled;
	uint64_t mem_cap, pids_cap, cpu_cap_pct;
	/* Bytes its processes caused to be written to storage, cumulative:
	 * io.stat wbytes, else the sum of /proc/PID/io write_bytes of its
	 * live processes (which includes their reaped children's). */
	uint64_t disk_write_bytes;
};

struct rf_in_lost {
	uint32_t hop;           /* enum rf_hop */
	uint64_t count;         /* lost since the previous report */
	bool before_start;      /* lost while no monitor was running */
};

/* FLOW: one destination of one sandbox (the kernel's ledger, rf_flows):
 * its totals, and what of them is new since its previous FLOW record (the
 * records' deltas add up to the totals: nothing counted twice). */
struct rf_in_flow {
	struct rf_flow_key key;     /* key.cgroup_id: the sandbox */
	struct rf_flow total;       /* as the kernel counted it so far */
	uint64_t connections, bytes_sent, bytes_received;  /* new in this record */
	uint64_t since_ns;          /* where this record's interval starts (boot ns) */
	bool final;                 /* the run ended: the last record of this flow */
	char name[RF_FLOW_NAME_LEN];    /* the DNS gate's name for the address, or "" */
};

struct rf_input {
	uint64_t t_ns;          /* CLOCK_BOOTTIME nanoseconds */
	enum rf_in_type type;
	uint64_t cgroup_id;     /* the sandbox (0 for LOST, TICK) */
	union {
		const struct rf_sandbox_info *sb;   /* SANDBOX: borrowed for the call */
		struct rf_event decision;           /* DECISION: strings printable */
		struct rf_in_proc proc;
		struct rf_in_sample sample;
		struct rf_in_lost lost;
		struct rf_dns_record dns;           /* DNS: name NUL-terminated, printable */
		struct rf_in_flow flow;             /* FLOW: name printable */
	} u;
};

/* Kernel strings are bytes; the output is UTF-8 JSON: printable ASCII
 * kept, everything else '?'. dst holds n + 1 bytes. */
void rf_printable(char *dst, const char *src, size_t n);

#endif
