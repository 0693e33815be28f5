// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdbool.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "names.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* A table indexed by an enum covers every value below its bound. */
#define COVERS(table, max) _Static_assert(N_OF(table) == (max), #table " covers its enum")

#define NAME_OF_(name, value, str) [value] = str,

static const char *const class_names[] = { RF_CLASSES(NAME_OF_) };
COVERS(class_names, RF_CLASS_MAX);

const enum rf_class names__class_order[] = {
	RF_CLASS_FILE, RF_CLASS_EXEC, RF_CLASS_NET, RF_CLASS_UNIX,
	RF_CLASS_PROCESS, RF_CLASS_LIMITS, RF_CLASS_SYSCALLS, RF_CLASS_MONITOR,
};
COVERS(names__class_order, RF_CLASS_MAX);

static const char *const op_names[] = {
	[0] = "unknown",              /* no operation has value 0 */
	RF_OPS(NAME_OF_)
};
COVERS(op_names, RF_OP_MAX);

/* Sparse: the operations whose rf_event.arg means something. */
static const char *const op_arg_names[] = {
	[RF_OP_KILL] = "signal", [RF_OP_PTRACE] = "ptrace_mode", [RF_OP_BPF] = "bpf_cmd",
	[RF_OP_MOUNT] = "flags", [RF_OP_UMOUNT] = "flags", [RF_OP_MKNOD] = "mode",
	[RF_OP_SETNICE] = "nice", [RF_OP_SETIOPRIO] = "ioprio", [RF_OP_SETRLIMIT] = "resource",
	[RF_OP_SIGIO] = "signal", [RF_OP_ROUTE_SOCKOPT] = "level_optname",
	[RF_OP_ROUTE_CMSG] = "level_type", [RF_OP_SOCK_RECEIVE] = "socket_family",
};

/* Sparse: what rf_event.arg holds in an inferred record (observe.bpf.c
 * keeps the refused syscall's argument, not the LSM hook's). */
static const char *const op_syscall_arg_names[] = {
	[RF_OP_PTRACE] = "request", [RF_OP_BPF] = "bpf_cmd", [RF_OP_MOUNT] = "flags",
	[RF_OP_UMOUNT] = "flags", [RF_OP_USERNS] = "flags", [RF_OP_NAMESPACE] = "flags",
	[RF_OP_SETNS] = "nstype", [RF_OP_KEYCTL] = "operation",
	[RF_OP_TTY_IOCTL] = "ioctl_cmd", [RF_OP_PERSONALITY] = "persona",
	[RF_OP_SETNICE] = "nice", [RF_OP_SETIOPRIO] = "ioprio", [RF_OP_SETRLIMIT] = "resource",
	[RF_OP_ROUTE_SOCKOPT] = "level_optname",
};

static const char *const reason_names[] = {
	[0] = "unknown",
	RF_REASONS(NAME_OF_)
};
COVERS(reason_names, RF_REASON_MAX);

static const char *const stat_names[] = { RF_STATS(NAME_OF_) };
COVERS(stat_names, RF_STAT_MAX);

/* [0] is not sent; counted as a denial. */
static const char *const verdict_names[] = {
	[0] = "denied", [RF_VERDICT_DENIED] = "denied", [RF_VERDICT_AUDITED] = "audited",
};
COVERS(verdict_names, RF_VERDICT_MAX);

/* Sparse: the protocols a socket of the sandbox can name. */
static const char *const proto_names[] = {
	[IPPROTO_ICMP] = "icmp", [IPPROTO_TCP] = "tcp", [IPPROTO_UDP] = "udp",
	[IPPROTO_ICMPV6] = "icmpv6", [IPPROTO_SCTP] = "sctp", [IPPROTO_UDPLITE] = "udplite",
	[IPPROTO_RAW] = "raw", [IPPROTO_MPTCP] = "mptcp",
};

static const char *const sock_type_names[] = {
	[SOCK_STREAM] = "stream", [SOCK_DGRAM] = "dgram", [SOCK_SEQPACKET] = "seqpacket",
};

static const char *const backend_names[] = {
	[RF_BE_NONE] = "",                    [RF_BE_CGROUP_SOCK_ADDR] = "cgroup-sock-addr",
	[RF_BE_BPF_LSM] = "bpf-lsm",          [RF_BE_LANDLOCK] = "landlock",
	[RF_BE_SECCOMP] = "seccomp",          [RF_BE_CAPABILITIES] = "capabilities",
	[RF_BE_MONITOR] = "ringfence-monitor",
	[RF_BE_CGROUP_MEMORY] = "cgroup-v2-memory",
	[RF_BE_CGROUP_PIDS] = "cgroup-v2-pids",
	[RF_BE_CGROUP_CPU] = "cgroup-v2-cpu",
	[RF_BE_SUPERVISOR] = "supervisor",
	[RF_BE_TMPFS] = "tmpfs",
};
COVERS(backend_names, RF_BE_MAX);

static const char *const request_names[] = {
	[RF_REQ_ABSENT] = "absent",             [RF_REQ_DENY_ALL] = "deny-all",
	[RF_REQ_ALLOWLIST] = "allowlist",       [RF_REQ_UNRESTRICTED] = "unrestricted",
	[RF_REQ_SET] = "set",                   [RF_REQ_IMPLICIT] = "implicit",
};
COVERS(request_names, RF_REQ_MAX);

/* The policy's field names: the trace's limit.exceeded and the plan use them. */
static const char *const limit_names[] = {
	[RF_LIMIT_MEMORY] = "memory_mb",
	[RF_LIMIT_PIDS] = "pids",
	[RF_LIMIT_CPU] = "cpu_percent",
	[RF_LIMIT_WALL] = "wall_seconds",
	[RF_LIMIT_OUTPUT] = "output_bytes",
	[RF_LIMIT_SCRATCH] = "scratch",
	[RF_LIMIT_EGRESS] = "egress_bytes",
	[RF_LIMIT_DISK_WRITE] = "disk_write_mb",
};
COVERS(limit_names, RF_LIMIT_MAX);

/* Entry v of a table of n, or dflt past its end or on a hole. */
static const char *pick(const char *const *table, size_t n, uint32_t v, const char *dflt)
{
	return v < n && table[v] ? table[v] : dflt;
}

#define PICK(table, v, dflt) pick(table, N_OF(table), v, dflt)

/* names__WHAT(v): entry v of table, or dflt. */
#define NAMES_FN(what, type, table, dflt) \
	const char *names__##what(type v) { return PICK(table, (uint32_t)v, dflt); }

NAMES_FN(class, uint32_t, class_names, "unknown")
NAMES_FN(op, uint32_t, op_names, "unknown")
NAMES_FN(op_arg, uint32_t, op_arg_names, NULL)
NAMES_FN(op_syscall_arg, uint32_t, op_syscall_arg_names, NULL)
NAMES_FN(reason, uint32_t, reason_names, "unknown")
NAMES_FN(verdict, uint32_t, verdict_names, "denied")
NAMES_FN(stat, uint32_t, stat_names, "unknown")
NAMES_FN(proto, uint32_t, proto_names, NULL)
NAMES_FN(sock_type, uint32_t, sock_type_names, "other")
NAMES_FN(backend, enum rf_backend, backend_names, "?")
NAMES_FN(request, enum rf_request, request_names, "?")
NAMES_FN(limit, enum rf_limit, limit_names, "unknown")

/* The monitor only reports: it is no backend one can require. */
static bool backend_choosable(int b)
{
	return b != RF_BE_NONE && b != RF_BE_MONITOR;
}

const char *names__backend_choice(unsigned int i)
{
	int b;

	for (b = 0; b < RF_BE_MAX; b++)
		if (backend_choosable(b) && !i--)
			return backend_names[b];
	return NULL;
}

enum rf_backend names__backend_by_name(const char *name)
{
	int b;

	for (b = 0; b < RF_BE_MAX; b++)
		if (backend_choosable(b) && !strcmp(name, backend_names[b]))
			return b;
	return RF_BE_NONE;
}
