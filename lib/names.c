// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "names.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* A table indexed by an enum covers every value below its bound. */
#define COVERS(table, max) _Static_assert(N_OF(table) == (max), #table " covers its enum")

static const char *const class_names[] = {
	[RF_CLASS_NET] = "network",   [RF_CLASS_UNIX] = "unix",
	[RF_CLASS_FILE] = "file",     [RF_CLASS_EXEC] = "exec",
	[RF_CLASS_PROCESS] = "process", [RF_CLASS_LIMITS] = "limits",
	[RF_CLASS_SYSCALLS] = "syscalls", [RF_CLASS_MONITOR] = "monitor",
};
COVERS(class_names, RF_CLASS_MAX);

const enum rf_class names__class_order[] = {
	RF_CLASS_FILE, RF_CLASS_EXEC, RF_CLASS_NET, RF_CLASS_UNIX,
	RF_CLASS_PROCESS, RF_CLASS_LIMITS, RF_CLASS_SYSCALLS, RF_CLASS_MONITOR,
};
COVERS(names__class_order, RF_CLASS_MAX);

static const char *const op_names[] = {
	[0] = "unknown",              /* no operation has value 0 */
	[RF_OP_CONNECT4] = "connect4",
	[RF_OP_CONNECT6] = "connect6",
	[RF_OP_SENDMSG4] = "sendmsg4",
	[RF_OP_SENDMSG6] = "sendmsg6",
	[RF_OP_CONNECT_UNIX] = "connect_unix",
	[RF_OP_SENDMSG_UNIX] = "sendmsg_unix",
	[RF_OP_SOCK_CREATE] = "sock_create",
	[RF_OP_FILE_OPEN] = "open",
	[RF_OP_EXEC] = "exec",
	[RF_OP_MMAP_EXEC] = "mmap_exec",
	[RF_OP_MPROTECT_EXEC] = "mprotect_exec",
	[RF_OP_UNLINK] = "unlink",
	[RF_OP_MKDIR] = "mkdir",
	[RF_OP_RMDIR] = "rmdir",
	[RF_OP_MKNOD] = "mknod",
	[RF_OP_CREATE] = "create",
	[RF_OP_SYMLINK] = "symlink",
	[RF_OP_LINK] = "link",
	[RF_OP_RENAME] = "rename",
	[RF_OP_TRUNCATE] = "truncate",
	[RF_OP_CHMOD] = "chmod",
	[RF_OP_CHOWN] = "chown",
	[RF_OP_UTIMES] = "utimes",
	[RF_OP_UNIX_CONNECT_LSM] = "unix_stream_connect",
	[RF_OP_UNIX_SEND_LSM] = "unix_may_send",
	[RF_OP_BPF] = "bpf",
	[RF_OP_PTRACE] = "ptrace",
	[RF_OP_KILL] = "kill",
	[RF_OP_MOUNT] = "mount",
	[RF_OP_MOVE_MOUNT] = "move_mount",
	[RF_OP_UMOUNT] = "umount",
	[RF_OP_PIVOT_ROOT] = "pivot_root",
	[RF_OP_CHROOT] = "chroot",
	[RF_OP_USERNS] = "userns_create",
	[RF_OP_CGROUP_WRITE] = "cgroup_write",
	[RF_OP_CLONE_INTO_CGROUP] = "clone_into_cgroup",
	[RF_OP_PSEUDO_FS_WRITE] = "pseudo_fs_write",
};
COVERS(op_names, RF_OP_MAX);

/* Sparse: the operations whose rf_event.arg means something. */
static const char *const op_arg_names[] = {
	[RF_OP_KILL] = "signal", [RF_OP_PTRACE] = "ptrace_mode", [RF_OP_BPF] = "bpf_cmd",
	[RF_OP_MOUNT] = "flags", [RF_OP_UMOUNT] = "flags", [RF_OP_MKNOD] = "mode",
};

static const char *const reason_names[] = {
	[0] = "unknown",
	[RF_REASON_NO_RULE] = "no-rule",
	[RF_REASON_PORT] = "port-not-allowed",
	[RF_REASON_SENSITIVE] = "link-local-or-metadata-needs-exact-entry",
	[RF_REASON_BAD_PATH] = "unresolved-path",
	[RF_REASON_TOO_LONG] = "too-long",
	[RF_REASON_PROTOCOL] = "protocol-not-allowed",
	[RF_REASON_ACCESS] = "access-not-allowed",
	[RF_REASON_BOUNDARY] = "process-boundary",
	[RF_REASON_INTERNAL] = "no-memory",
};
COVERS(reason_names, RF_REASON_MAX);

static const char *const verdict_names[] = {
	[0] = "denied",               /* not sent; counted as a denial */
	[RF_VERDICT_DENIED] = "denied",
	[RF_VERDICT_AUDITED] = "audited",
};
COVERS(verdict_names, RF_VERDICT_MAX);

/* Sparse: the protocols a socket of the sandbox can name. */
static const char *const proto_names[] = {
	[IPPROTO_ICMP] = "icmp",      [IPPROTO_TCP] = "tcp",
	[IPPROTO_UDP] = "udp",        [IPPROTO_ICMPV6] = "icmpv6",
	[IPPROTO_SCTP] = "sctp",      [IPPROTO_UDPLITE] = "udplite",
	[IPPROTO_RAW] = "raw",        [IPPROTO_MPTCP] = "mptcp",
};

static const char *const sock_type_names[] = {
	[SOCK_STREAM] = "stream", [SOCK_DGRAM] = "dgram", [SOCK_SEQPACKET] = "seqpacket",
};

static const char *const backend_names[] = {
	[RF_BE_NONE] = "",
	[RF_BE_CGROUP_SOCK_ADDR] = "cgroup-sock-addr",
	[RF_BE_BPF_LSM] = "bpf-lsm",
	[RF_BE_LANDLOCK] = "landlock",
	[RF_BE_SECCOMP] = "seccomp",
	[RF_BE_CAPABILITIES] = "capabilities",
	[RF_BE_MONITOR] = "ringfence-monitor",
	[RF_BE_CGROUP_MEMORY] = "cgroup-v2-memory",
	[RF_BE_CGROUP_PIDS] = "cgroup-v2-pids",
	[RF_BE_CGROUP_CPU] = "cgroup-v2-cpu",
	[RF_BE_SUPERVISOR] = "supervisor",
	[RF_BE_TMPFS] = "tmpfs",
};
COVERS(backend_names, RF_BE_MAX);

static const char *const request_names[] = {
	[RF_REQ_ABSENT] = "absent",
	[RF_REQ_DENY_ALL] = "deny-all",
	[RF_REQ_ALLOWLIST] = "allowlist",
	[RF_REQ_UNRESTRICTED] = "unrestricted",
	[RF_REQ_SET] = "set",
	[RF_REQ_IMPLICIT] = "implicit",
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
};
COVERS(limit_names, RF_LIMIT_MAX);

/* Entry v of a table of n, or dflt past its end or on a hole. */
static const char *pick(const char *const *table, size_t n, uint32_t v, const char *dflt)
{
	return v < n && table[v] ? table[v] : dflt;
}

#define PICK(table, v, dflt) pick(table, N_OF(table), v, dflt)

const char *names__class(uint32_t class)
{
	return PICK(class_names, class, "unknown");
}

const char *names__op(uint32_t op)
{
	return PICK(op_names, op, "unknown");
}

const char *names__op_arg(uint32_t op)
{
	return PICK(op_arg_names, op, NULL);
}

const char *names__reason(uint32_t reason)
{
	return PICK(reason_names, reason, "unknown");
}

const char *names__verdict(uint32_t verdict)
{
	return PICK(verdict_names, verdict, "denied");
}

const char *names__proto(uint32_t proto)
{
	return PICK(proto_names, proto, NULL);
}

const char *names__sock_type(uint32_t type)
{
	return PICK(sock_type_names, type, "other");
}

const char *names__backend(enum rf_backend b)
{
	return PICK(backend_names, (uint32_t)b, "?");
}

enum rf_backend names__backend_by_name(const char *name)
{
	int b;

	/* The monitor only reports: it is no backend one can require. */
	for (b = 1; b < RF_BE_MAX; b++)
		if (b != RF_BE_MONITOR && !strcmp(name, backend_names[b]))
			return b;
	return RF_BE_NONE;
}

const char *names__request(enum rf_request r)
{
	return PICK(request_names, (uint32_t)r, "?");
}

const char *names__limit(enum rf_limit l)
{
	return PICK(limit_names, (uint32_t)l, "unknown");
}
