/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One table per naming concept: the names the trace, the alerts and the
 * CLI print for the kernel ABI's values (rf_abi.h) and for the planner's
 * backends and requests. Every printer derives its names from here.
 */
#ifndef RF_NAMES_H
#define RF_NAMES_H

#include <stdint.h>
#include "rf_abi.h"

/* Enforcement backends ringfence knows by name (--require, --prefer). */
enum rf_backend {
	RF_BE_NONE = 0,
	RF_BE_CGROUP_SOCK_ADDR,
	RF_BE_BPF_LSM,
	RF_BE_LANDLOCK,
	RF_BE_SECCOMP,
	RF_BE_CAPABILITIES,
	RF_BE_MONITOR,            /* detection only: never required or preferred */
	RF_BE_CGROUP_MEMORY,      /* limits: cgroup v2 controllers on the sandbox cgroup */
	RF_BE_CGROUP_PIDS,
	RF_BE_CGROUP_CPU,
	RF_BE_SUPERVISOR,         /* limits the supervisor itself holds (clock, output) */
	RF_BE_TMPFS,              /* limits.scratch: a sized tmpfs */
	RF_BE_MAX,
};

/* The policy's "limits", each with its own backend; named by its field. */
enum rf_limit {
	RF_LIMIT_MEMORY = 0,      /* memory_mb */
	RF_LIMIT_PIDS,            /* pids */
	RF_LIMIT_CPU,             /* cpu_percent */
	RF_LIMIT_WALL,            /* wall_seconds */
	RF_LIMIT_OUTPUT,          /* output_bytes */
	RF_LIMIT_SCRATCH,         /* scratch (size_mb) */
	RF_LIMIT_EGRESS,          /* egress_bytes: the ledger's budget (cgroup_skb) */
	RF_LIMIT_DISK_WRITE,      /* disk_write_mb: cgroup v2 io.stat, watched */
	RF_LIMIT_MAX,
};

/* What the policy asks of one class. */
enum rf_request {
	RF_REQ_ABSENT = 0,        /* nothing asked (limits, syscalls, monitor) */
	RF_REQ_DENY_ALL,          /* class omitted: deny everything */
	RF_REQ_ALLOWLIST,
	RF_REQ_UNRESTRICTED,      /* explicit opt-out: not confined */
	RF_REQ_SET,               /* limits/syscalls/monitor given */
	RF_REQ_IMPLICIT,          /* the process boundary: always */
	RF_REQ_MAX,
};

/* Out-of-range values name themselves "unknown" (or as noted). */
const char *names__class(uint32_t class);       /* "network", "file", ... */
const char *names__op(uint32_t op);             /* "connect4", "kill", ... */
const char *names__reason(uint32_t reason);     /* "no-rule", ... */
/* What rf_event.arg holds for op ("signal", "bpf_cmd", ...); NULL: nothing. */
/* The same for an inferred record (RF_EVF_INFERRED): the refused
 * syscall's argument. NULL when it has none. */
const char *names__op_syscall_arg(uint32_t op);
const char *names__op_arg(uint32_t op);
/* "denied" or "audited": anything but an audit record was a denial. */
const char *names__verdict(uint32_t verdict);
/* An rf_stats counter (enum rf_stat) as "ringbuf_lost", ... */
const char *names__stat(uint32_t stat);
/* An IP protocol number as "tcp", "udp", ...; NULL when it has no name. */
const char *names__proto(uint32_t proto);
/* A unix socket type (SOCK_STREAM, ...) as "stream", ...; "other". */
const char *names__sock_type(uint32_t type);
const char *names__backend(enum rf_backend b);  /* "" for RF_BE_NONE */
/* The backend of a --require/--prefer name, or RF_BE_NONE. */
enum rf_backend names__backend_by_name(const char *name);
/* The i-th of those names (the help and the completions list them from
 * here), NULL past the last. */
const char *names__backend_choice(unsigned int i);
const char *names__request(enum rf_request r);  /* "deny-all", ... */
const char *names__limit(enum rf_limit l);      /* "memory_mb", ...; "unknown" */

/* The order in which the plan and the trace list classes. */
extern const enum rf_class names__class_order[RF_CLASS_MAX];

#endif
