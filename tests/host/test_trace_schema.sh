#!/usr/bin/env bash
# Check the JSON schemas against what the code really produces:
#   - schemas/examples/*.json against schemas/policy.schema.json;
#   - every line of traces written by real runs (enforce, audit, refused,
#     --require bpf-lsm, monitor thresholds, command not found, not
#     executable, killed by a signal, network unrestricted, network omitted,
#     a wall-clock and an output limit reached, the connection ledger
#     (network.flow, sandbox.exit's byte totals) and an egress_bytes budget
#     reached, a memory limit refused where
#     the cgroup2 hierarchy has no memory controller,
#     a DNS name, more denials than the sample limit; where the kernel has
#     them: Landlock files/exec with an approximated entry, a command
#     outside the exec list, the Landlock TCP-port layer (--prefer
#     landlock), a seccomp syscalls allowlist, and a child whose
#     landlock_restrict_self fails)
#     against schemas/trace.schema.json, plus the ordering rules the schema
#     cannot express (seq, first/last event, counts) and each run's outcome;
#   - the plan printed by `ringfence check` against the schema's "plan";
#   - registry entries (/run/ringfence/sandboxes/*.json) against
#     schemas/registry.schema.json: written by lib/registry.c directly (no
#     root) and copied from live runs with and without the policy's monitor
#     and syscalls sections, plus mutated entries the schema must refuse;
#   - kernel.deny lines for every op of bpf/rf_abi.h (network, unix, file,
#     exec, process), formatted by supervisor/observe/trace.c from synthetic events,
#     and wrongly paired class/op/reason/destination lines the schema must
#     refuse (no root, no BPF-LSM needed);
#   - optionally (RF_TRACE_SCHEMA_VM=1), traces of real BPF-LSM runs made in
#     the test VM (tests/vm/run.sh), printed to its console and validated here.
#
# Usage: tests/host/test_trace_schema.sh BUILD_DIR     (e.g. build)
# Needs: BUILD_DIR/ringfence and BUILD_DIR/tests/tools/{rf-net,rf-fs,rf-sys}
#        built, BUILD_DIR/supervisor/observe/trace.o, BUILD_DIR/librf.a and a C compiler (CC, default cc),
#        Debian's python3-jsonschema (PYTHON, default /usr/bin/python3); for
#        the VM part BUILD_DIR/tests/vm/{rf-lsm,rf-lsmctl} and what
#        tests/vm/run.sh needs (VM_CACHE as there). The VM part writes
#        BUILD_DIR/vm-console.log like every tests/vm/run.sh run.
# The runs need root; without root only the policy examples and the
# generated kernel.deny lines are checked.
# Every connection attempted goes to loopback or to a unix socket name.
set -euo pipefail

cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
NET=$BUILD/tests/tools/rf-net
FS=$BUILD/tests/tools/rf-fs
SYS=$BUILD/tests/tools/rf-sys
DNS=$BUILD/tests/tools/rf-dns
PYTHON=${PYTHON:-/usr/bin/python3}

fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

if ! "$PYTHON" -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
	echo "FAIL: $PYTHON cannot import jsonschema with draft 2020-12 support" >&2
	echo "      (Debian 12: apt-get install -y python3-jsonschema)" >&2
	exit 1
fi

# validate.py SCHEMA [DEF] FILE...: one JSON document per line (.jsonl) or
# per file (anything else); DEF validates against #/$defs/DEF instead.
VALIDATE=$(mktemp /tmp/rf-schema-XXXXXX.py)
WORK=$(mktemp -d /tmp/rf-trace-test-XXXXXX)
trap 'rm -rf "$WORK" "$VALIDATE"' EXIT
cat > "$VALIDATE" <<'EOF'
import json, sys
from jsonschema import Draft202012Validator

schema_path, files = sys.argv[1], sys.argv[2:]
schema = json.load(open(schema_path))
Draft202012Validator.check_schema(schema)
if files and files[0].startswith("def="):
    name = files.pop(0)[4:]
    schema = {"$schema": schema["$schema"], "$defs": schema["$defs"],
              "$ref": "#/$defs/" + name}
v = Draft202012Validator(schema)
bad = 0
for f in files:
    docs = ([(i + 1, l) for i, l in enumerate(open(f)) if l.strip()]
            if f.endswith(".jsonl") else [(0, open(f).read())])
    for line, text in docs:
        for e in v.iter_errors(json.loads(text)):
            bad += 1
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"  {f}:{line}: {where}: {e.message[:300]}")
sys.exit(1 if bad else 0)
EOF

# ---- policy examples (no privileges needed) ----
for f in schemas/examples/*.json; do
	if out=$("$PYTHON" "$VALIDATE" schemas/policy.schema.json "$f"); then
		ok "policy schema accepts $f"
	else
		not_ok "policy schema rejects $f"; echo "$out"
	fi
done

# ---- kernel.deny: every op, reason and destination shape of trace.c ----
# The BPF-LSM records cannot be produced on a host without BPF-LSM, so a
# small program formats one synthetic struct rf_event per op (the values the
# BPF programs put there) with the supervisor's own trace.c (trace__emit,
# trace__event_json): every line must match the schema, and lines that break
# the class/op/reason/destination pairing must not.
TRACE_O=$BUILD/supervisor/observe/trace.o
CC=${CC:-cc}
if [ ! -f "$TRACE_O" ]; then
	not_ok "kernel.deny shapes: $TRACE_O missing (make build)"
else
	mkdir -p "$WORK/gen"
	cat > "$WORK/gen/deny.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "sysnames.h"
#include "observe/trace.h"

static struct rf_trace *t;
static unsigned long long seq;

static void emit(unsigned class, unsigned op, unsigned reason, unsigned verdict,
		 void (*fill)(struct rf_event *, const void *), const void *arg)
{
	struct rf_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts_boot_ns = 1000000000ULL;
	ev.cgroup_id = 4242;
	ev.seq = seq++;
	ev.kind = RF_EV_DECISION;
	ev.pid = ev.tid = 100;
	ev.class = class;
	ev.op = op;
	ev.reason = reason;
	ev.verdict = verdict;
	strcpy(ev.comm, "rf-gen");
	if (fill)
		fill(&ev, arg);
	trace__emit(t, "kernel.deny", trace__event_json(&ev));
}

/* An inferred record (observe.bpf.c, matched by the supervisor). */
static void emit_inf(unsigned class, unsigned op, unsigned reason, unsigned verdict,
		     const char *sys, const char *backend,
		     void (*fill)(struct rf_event *, const void *), const void *arg)
{
	struct rf_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts_boot_ns = 1000000000ULL;
	ev.cgroup_id = 4242;
	ev.seq = seq++;
	ev.kind = RF_EV_DECISION;
	ev.pid = ev.tid = 100;
	ev.class = class;
	ev.op = op;
	ev.reason = reason;
	ev.verdict = verdict;
	ev.flags = RF_EVF_INFERRED | RF_EVF_SYSCALL;
	ev.syscall = (unsigned short)sysnames__nr(sys);
	strcpy(ev.comm, "rf-gen");
	if (fill)
		fill(&ev, arg);
	trace__emit(t, "kernel.deny", trace__deny_json(&ev, backend));
}

struct fileargs { const char *path; unsigned need, have; };
static void file(struct rf_event *ev, const void *a)
{
	const struct fileargs *f = a;

	ev->path_len = strlen(f->path);
	memcpy(ev->path, f->path, ev->path_len);
	ev->need = f->need;
	ev->have = f->have;
}
struct procargs { unsigned target, arg; const char *path; };
static void proc(struct rf_event *ev, const void *a)
{
	const struct procargs *p = a;

	ev->target_pid = p->target;
	ev->arg = p->arg;
	if (p->path) {
		ev->path_len = strlen(p->path);
		memcpy(ev->path, p->path, ev->path_len);
	}
}
/* the syscalls profile's record: the listener's first call of a number */
static void sysc(struct rf_event *ev, const void *a)
{
	ev->syscall = (unsigned short)sysnames__nr(a);
	ev->flags = RF_EVF_SYSCALL | RF_EVF_LISTENER;
}
struct netargs { unsigned family, port, protocol; unsigned char addr[16]; const char *path; unsigned n; };
static void net(struct rf_event *ev, const void *a)
{
	const struct netargs *n = a;

	ev->family = n->family;
	ev->port = n->port;
	ev->protocol = n->protocol;
	memcpy(ev->addr, n->addr, 16);
	if (n->path) {
		memcpy(ev->path, n->path, n->n);
		ev->path_len = n->n;
	}
}

int main(int argc, char **argv)
{
	const unsigned D = RF_VERDICT_DENIED, A = RF_VERDICT_AUDITED;
	const unsigned R = RF_ACC_READ, W = RF_ACC_WRITE, X = RF_ACC_EXEC;
	static const unsigned write_ops[] = {
		RF_OP_UNLINK, RF_OP_MKDIR, RF_OP_RMDIR, RF_OP_MKNOD, RF_OP_CREATE,
		RF_OP_SYMLINK, RF_OP_LINK, RF_OP_RENAME, RF_OP_TRUNCATE, RF_OP_CHMOD,
		RF_OP_CHOWN, RF_OP_UTIMES, RF_OP_SETXATTR, RF_OP_REMOVEXATTR, RF_OP_INODE_IOCTL,
	};
	struct netargs n4 = { AF_INET, 1, 6, { 127, 0, 0, 1 }, NULL, 0 };
	struct netargs n6 = { AF_INET6, 9, 17, { [15] = 1 }, NULL, 0 };
	struct netargs meta = { AF_INET, 80, 6, { 169, 254, 169, 254 }, NULL, 0 };
	struct netargs raw = { AF_INET, 0, 255 | (3 << 16), { 0 }, NULL, 0 };
	struct netargs ping = { AF_INET6, 0, 58 | (2 << 16), { 0 }, NULL, 0 };
	struct netargs u1 = { AF_UNIX, 0, 1, { 0 }, "/run/x.sock", 11 };
	struct netargs u2 = { AF_UNIX, 0, 2, { 0 }, "@abstract", 9 };
	struct netargs u3 = { AF_UNIX, 0, 5, { 0 }, "rel/../x", 8 };
	struct netargs u4 = { AF_UNIX, 0, 1, { 0 }, "", 0 };
	struct netargs u5 = { AF_UNIX, 0, 3, { 0 }, "@nul\0inside", 11 };
	size_t i;

	if (argc != 2 || trace__open(argv[1], "t-gen-0123abcd", &t))
		return 1;
	/* network (cgroup programs) */
	emit(RF_CLASS_NET, RF_OP_CONNECT4, RF_REASON_PORT, D, net, &n4);
	emit(RF_CLASS_NET, RF_OP_CONNECT6, RF_REASON_NO_RULE, D, net, &n6);
	emit(RF_CLASS_NET, RF_OP_SENDMSG4, RF_REASON_SENSITIVE, A, net, &meta);
	emit(RF_CLASS_NET, RF_OP_SENDMSG6, RF_REASON_NO_RULE, D, net, &n6);
	emit(RF_CLASS_NET, RF_OP_SOCK_CREATE, RF_REASON_PROTOCOL, D, net, &raw);
	emit(RF_CLASS_NET, RF_OP_SOCK_CREATE, RF_REASON_PROTOCOL, D, net, &ping);
	/* unix: cgroup programs and BPF-LSM */
	emit(RF_CLASS_UNIX, RF_OP_CONNECT_UNIX, RF_REASON_BAD_PATH, D, net, &u3);
	emit(RF_CLASS_UNIX, RF_OP_SENDMSG_UNIX, RF_REASON_NO_RULE, D, net, &u2);
	emit(RF_CLASS_UNIX, RF_OP_UNIX_CONNECT_LSM, RF_REASON_NO_RULE, D, net, &u1);
	emit(RF_CLASS_UNIX, RF_OP_UNIX_SEND_LSM, RF_REASON_NO_RULE, A, net, &u5);
	emit(RF_CLASS_UNIX, RF_OP_UNIX_CONNECT_LSM, RF_REASON_TOO_LONG, D, net, &u4);
	/* file: file_open by mode, every write-class hook */
	emit(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_NO_RULE, D, file,
	     &(struct fileargs){ "/secret/s", R, 0 });
	emit(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_ACCESS, D, file,
	     &(struct fileargs){ "/data/a", R | W, R });
	emit(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_ACCESS, A, file,
	     &(struct fileargs){ "/data/\x01odd", W, R | X });
	emit(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_TOO_LONG, D, file,
	     &(struct fileargs){ "", R, 0 });
	emit(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_BAD_PATH, D, file,
	     &(struct fileargs){ "/memfd:x (deleted)", R, 0 });
	for (i = 0; i < sizeof(write_ops) / sizeof(write_ops[0]); i++)
		emit(RF_CLASS_FILE, write_ops[i], i % 2 ? RF_REASON_ACCESS : RF_REASON_NO_RULE,
		     i % 3 ? D : A, file, &(struct fileargs){ "/data/victim", W, i % 2 ? R : 0 });
	/* BPF-LSM: a socket, symlink or directory put at an allowed unix name
	 * or on its way (unix.rebind) */
	emit(RF_CLASS_FILE, RF_OP_MKNOD, RF_REASON_UNIX_NAME, D, file,
	     &(struct fileargs){ "/run/x.sock", W, 0 });
	emit(RF_CLASS_FILE, RF_OP_RENAME, RF_REASON_UNIX_NAME, A, file,
	     &(struct fileargs){ "/run", W, 0 });
	emit(RF_CLASS_FILE, RF_OP_UTIMES, RF_REASON_BAD_PATH, D, file,
	     &(struct fileargs){ "", W, 0 });
	/* exec */
	emit(RF_CLASS_EXEC, RF_OP_EXEC, RF_REASON_NO_RULE, D, file,
	     &(struct fileargs){ "/denied/sh", X, 0 });
	emit(RF_CLASS_EXEC, RF_OP_EXEC, RF_REASON_BAD_PATH, D, file,
	     &(struct fileargs){ "/memfd:busybox (deleted)", X, 0 });
	emit(RF_CLASS_EXEC, RF_OP_MMAP_EXEC, RF_REASON_ACCESS, D, file,
	     &(struct fileargs){ "/data/a", X, R | W });
	emit(RF_CLASS_EXEC, RF_OP_MPROTECT_EXEC, RF_REASON_ACCESS, A, file,
	     &(struct fileargs){ "/data/a", X, R });
	/* the process boundary */
	emit(RF_CLASS_PROCESS, RF_OP_BPF, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 5, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_PTRACE, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 0x12, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_KILL, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 15, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_KILL, RF_REASON_BOUNDARY, A, proc, &(struct procargs){ 77, 0, NULL });
	/* issue 13's process boundary under BPF-LSM: outside targets, SIGIO, routing */
	emit(RF_CLASS_PROCESS, RF_OP_SETNICE, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 10, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_SETIOPRIO, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 0x6000, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_SETSCHEDULER, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_SETRLIMIT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 7, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_SIGIO, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 77, 9, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_ROUTE_SOCKOPT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 41 << 16 | 57, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_ROUTE_CMSG, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 41 << 16 | 57, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_ROUTE_PACKET, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 43, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_SOCK_RECEIVE, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 2, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_MOUNT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0xc0ed0000u, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_MOVE_MOUNT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_UMOUNT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 2, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_PIVOT_ROOT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_CHROOT, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_USERNS, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_CGROUP_WRITE, RF_REASON_BOUNDARY, D, proc,
	     &(struct procargs){ 0, 0, "/sys/fs/cgroup/other/cgroup.procs" });
	emit(RF_CLASS_PROCESS, RF_OP_CGROUP_WRITE, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_CLONE_INTO_CGROUP, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 0, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_PSEUDO_FS_WRITE, RF_REASON_BOUNDARY, D, proc,
	     &(struct procargs){ 0, RF_OP_UNLINK, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_PSEUDO_FS_WRITE, RF_REASON_BOUNDARY, A, proc,
	     &(struct procargs){ 0, RF_OP_MKDIR, NULL });
	emit(RF_CLASS_PROCESS, RF_OP_MKNOD, RF_REASON_BOUNDARY, D, proc, &(struct procargs){ 0, 020644, NULL });
	/* inferred: Landlock (file, exec) and the seccomp boundary (process) */
	emit_inf(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_NO_RULE, D, "openat", "landlock-abi7",
		 file, &(struct fileargs){ "/etc/shadow", R, 0 });
	emit_inf(RF_CLASS_FILE, RF_OP_CREATE, RF_REASON_ACCESS, D, "openat", "landlock-abi7",
		 file, &(struct fileargs){ "/data/new", W, R });
	emit_inf(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_REASON_NO_RULE, A, "open", "landlock-abi7",
		 file, &(struct fileargs){ "/home/u/x", R, 0 });
	emit_inf(RF_CLASS_FILE, RF_OP_RENAME, RF_REASON_NO_RULE, D, "renameat2", "landlock-abi7",
		 file, &(struct fileargs){ "/data/old", W, 0 });
	emit_inf(RF_CLASS_EXEC, RF_OP_EXEC, RF_REASON_NO_RULE, D, "execve", "landlock-abi7",
		 file, &(struct fileargs){ "/usr/lib64/ld-linux-x86-64.so.2", X, 0 });
	/* outside a syscalls profile: refused (deny) or let through (alert) */
	emit(RF_CLASS_SYSCALLS, RF_OP_SYSCALL, RF_REASON_NO_RULE, D, sysc, "getcpu");
	emit(RF_CLASS_SYSCALLS, RF_OP_SYSCALL, RF_REASON_NO_RULE, A, sysc, "uname");
	/* a seccomp hole rule's refusal, answered by the listener */
	emit_inf(RF_CLASS_EXEC, RF_OP_MEMFD_CREATE, RF_REASON_BOUNDARY, D, "memfd_create", "seccomp",
		 file, &(struct fileargs){ "", X, 0 });
	emit_inf(RF_CLASS_FILE, RF_OP_CHMOD, RF_REASON_BOUNDARY, D, "fchmod", "seccomp",
		 file, &(struct fileargs){ "", W, 0 });
	emit_inf(RF_CLASS_PROCESS, RF_OP_PTRACE, RF_REASON_BOUNDARY, D, "ptrace", "seccomp", proc,
		 &(struct procargs){ 1, 16, NULL });
	emit_inf(RF_CLASS_PROCESS, RF_OP_BPF, RF_REASON_BOUNDARY, D, "bpf", "seccomp", proc,
		 &(struct procargs){ 0, 0, NULL });
	emit_inf(RF_CLASS_PROCESS, RF_OP_USERNS, RF_REASON_BOUNDARY, D, "unshare", "seccomp", proc,
		 &(struct procargs){ 0, 0x10000000, NULL });
	{
		static const struct { unsigned op; const char *sys; } boundary[] = {
			{ RF_OP_MOUNT, "mount" }, { RF_OP_UMOUNT, "umount2" },
			{ RF_OP_MOVE_MOUNT, "move_mount" }, { RF_OP_PIVOT_ROOT, "pivot_root" },
			{ RF_OP_SETNS, "setns" }, { RF_OP_KEYCTL, "keyctl" }, { RF_OP_KEXEC, "kexec_load" },
			{ RF_OP_MODULE, "init_module" }, { RF_OP_PERF_EVENT, "perf_event_open" },
			{ RF_OP_PROCESS_VM, "process_vm_readv" }, { RF_OP_USERFAULTFD, "userfaultfd" },
			{ RF_OP_IO_URING, "io_uring_setup" }, { RF_OP_NAMESPACE, "unshare" },
			{ RF_OP_TTY_IOCTL, "ioctl" }, { RF_OP_PERSONALITY, "personality" },
		};

		for (i = 0; i < sizeof(boundary) / sizeof(boundary[0]); i++)
			emit_inf(RF_CLASS_PROCESS, boundary[i].op, RF_REASON_BOUNDARY, D,
				 boundary[i].sys, "seccomp", proc, &(struct procargs){ 7, 0x5412, NULL });
	}
	/* what a build with another ABI could send */
	emit(RF_CLASS_MAX + 2, 99, 99, D, NULL, NULL);
	trace__close(t);
	return 0;
}
EOF
	if ! out=$("$CC" -std=gnu11 -D_GNU_SOURCE -Wall -Werror -Ibpf -Ilib -Isupervisor -o "$WORK/gen/deny" \
		"$WORK/gen/deny.c" "$TRACE_O" "$BUILD/librf.a" -ljansson 2>&1) || ! "$WORK/gen/deny" "$WORK/gen/deny.jsonl"; then
		not_ok "kernel.deny shapes: the generator builds and runs"; echo "$out"
	elif out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json "$WORK/gen/deny.jsonl"); then
		ok "trace schema accepts trace.c's kernel.deny for every op ($(wc -l < "$WORK/gen/deny.jsonl") lines)"
	else
		not_ok "trace schema rejects trace.c's kernel.deny lines"; echo "$out"
	fi
	# Every op trace.c names (rf_abi.h's enum rf_op) appears above.
	if [ -s "$WORK/gen/deny.jsonl" ] && out=$("$PYTHON" - "$WORK/gen/deny.jsonl" bpf/rf_abi.h <<'EOF'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
# the X(NAME, value, "name") rows of RF_OPS(X), which makes enum rf_op
ops_list = re.search(r"^#define RF_OPS\(X\)(.*?)\n\n", open(sys.argv[2]).read(), re.M | re.S)
# dns_query is the DNS gate's record on the monitor's ring buffer only
# (RF_EVF_DNS, never a sample): the trace has the gate's dns.deny instead
rows = re.findall(r"\bX\((\w+), \d+, \"", ops_list.group(1)) if ops_list else []
n_ops = len([r for r in rows if r != "DNS_QUERY"])
ops = {l["op"] for l in lines} - {"unknown"}
if len(ops) != n_ops:
    sys.exit(f"{len(ops)} ops generated, rf_abi.h has {n_ops}")
EOF
	); then
		ok "kernel.deny shapes cover every op of rf_abi.h"
	else
		not_ok "kernel.deny shapes cover every op of rf_abi.h"; echo "$out"
	fi
	# Strict: each change below breaks one pairing and must be refused.
	if [ -s "$WORK/gen/deny.jsonl" ] && out=$("$PYTHON" - schemas/trace.schema.json "$WORK/gen/deny.jsonl" <<'EOF'
import copy, json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open(sys.argv[1])))
lines = [json.loads(l) for l in open(sys.argv[2])]
def first(**kw):
    return copy.deepcopy(next(l for l in lines if all(l[k] == x for k, x in kw.items())))
bad = []
def refused(name, line):
    if v.is_valid(line):
        bad.append(name)
l = first(op="open", reason="no-rule"); l["destination"]["rule"] = ["read"]; refused("rule without access-not-allowed", l)
l = first(op="open", reason="access-not-allowed"); l["destination"]["rule"] = None; refused("access-not-allowed without rule", l)
l = first(op="open"); l["destination"]["need"] = ["exec"]; refused("open needing exec", l)
l = first(op="open"); l["destination"]["need"] = ["write", "read"]; refused("access bits out of order", l)
l = first(op="unlink"); l["destination"]["need"] = ["read"]; refused("unlink needing read", l)
l = first(op="exec"); l["destination"]["need"] = ["read"]; refused("exec needing read", l)
l = first(op="open"); l["class"] = "exec"; refused("open in the exec class", l)
l = first(op="open"); del l["destination"]["need"]; refused("file destination without need", l)
l = first(op="open"); l["destination"]["path"] = "/" + "a" * 247; refused("file path over 247 bytes", l)
l = first(op="open"); l["destination"] = first(op="connect4")["destination"]; refused("file with an inet destination", l)
l = first(op="kill"); l["reason"] = "no-rule"; refused("process op with no-rule", l)
l = first(op="kill"); del l["destination"]["signal"]; refused("kill without signal", l)
l = first(op="kill"); l["destination"]["ptrace_mode"] = 2; refused("kill with ptrace_mode", l)
l = first(op="ptrace"); l["destination"] = {}; refused("ptrace with no target", l)
l = first(op="chroot"); l["destination"] = {"path": "/w"}; refused("chroot with a path", l)
l = first(op="pseudo_fs_write"); l["destination"]["operation"] = "open"; refused("pseudo_fs_write of open", l)
l = first(op="mknod", **{"class": "process"}); l["destination"] = first(op="unlink")["destination"]; refused("device mknod with a file destination", l)
l = first(op="bpf"); l["class"] = "file"; refused("bpf in the file class", l)
l = first(op="unix_stream_connect"); l["class"] = "network"; refused("unix op in the network class", l)
l = first(op="unix_stream_connect"); l["reason"] = "access-not-allowed"; refused("unix with access-not-allowed", l)
l = first(op="connect4"); l["reason"] = "protocol-not-allowed"; refused("connect4 with protocol-not-allowed", l)
l = first(op="sock_create"); l["destination"] = first(op="connect4")["destination"]; refused("sock_create with an address", l)
l = first(op="connect4"); l["op"] = "unknown"; refused("unknown op in a known class", l)
l = first(op="unknown"); l["destination"] = {"path": "/x"}; refused("unknown class with a destination", l)
l = first(op="connect4"); del l["backend"]; refused("kernel.deny without backend", l)
l = first(op="connect4"); del l["attribution"]; refused("kernel.deny without attribution", l)
l = first(op="connect4"); l["attribution"] = "inferred"; refused("inferred network line", l)
l = first(op="open"); l["backend"] = "seccomp"; refused("kernel file line from seccomp", l)
l = first(op="setns"); l["backend"] = "landlock-abi7"; refused("inferred process line from landlock", l)
l = first(op="setns"); l["attribution"] = "kernel"; l["backend"] = "bpf-lsm"; refused("setns as a bpf-lsm record", l)
l = first(op="setns"); del l["destination"]["syscall"]; refused("inferred process line without its syscall", l)
l = first(op="exec", attribution="inferred"); l["backend"] = "bpf-lsm"; refused("inferred exec line from bpf-lsm", l)
for name in bad:
    print("  accepted: " + name)
sys.exit(1 if bad else 0)
EOF
	); then
		ok "trace schema refuses kernel.deny lines that pair class, op, reason and destination wrongly"
	else
		not_ok "trace schema accepts wrongly paired kernel.deny lines"; echo "$out"
	fi
fi

# ---- the registry file (lib/registry.c) against schemas/registry.schema.json ----
# Entries written by lib/registry itself into a scratch directory (no root):
# one with every policy section, one with none; then copies of each
# accepted, mutated one key at a time, must be refused. The live files of
# real runs are checked further down.
LIBRF=$BUILD/librf.a
mkdir -p "$WORK/genreg"
cat > "$WORK/genreg/gen.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "registry.h"

int main(int argc, char **argv)
{
	static char *allow[] = { "read", "write", "exit_group" };
	struct rf_registry_entry e = {
		.sandbox = "t-genreg-0123abcd", .policy_id = "t-genreg", .mode = "audit",
		.cgroup_path = "/sys/fs/cgroup/ringfence/t-genreg-0123abcd", .cgroup_id = 4242,
		.pin_set = "0123456789abcdef",
		.supervisor_pid = 100, .supervisor_start = 5555, .child_pid = 101,
		.started = "2026-12-01T12:00:00.123456789Z",
		.monitor = { .present = true, .burst_count = { true, 5 },
			     .burst_window_ms = { true, 100 }, .cpu_percent = { true, 250 },
			     .memory_mb = { true, 900 }, .pids = { true, 64 } },
		.syscalls = { .present = true, .alert = true, .allow = allow, .n_allow = 3 },
	};
	struct rf_registry_entry plain = e;

	if (argc != 2)
		return 2;
	memset(e.digest, 'a', 64);
	snprintf(plain.sandbox, sizeof(plain.sandbox), "t-genplain-0123abcd");
	memcpy(plain.digest, e.digest, sizeof(e.digest));
	memset(&plain.monitor, 0, sizeof(plain.monitor));
	plain.monitor.present = true;
	memset(&plain.syscalls, 0, sizeof(plain.syscalls));
	plain.child_pid = 0;
	return registry__add_in(argv[1], &e) || registry__add_in(argv[1], &plain);
}
EOF
if [ ! -f "$LIBRF" ]; then
	not_ok "registry entries: $LIBRF missing (make build)"
elif ! out=$("$CC" -std=gnu11 -D_GNU_SOURCE -Wall -Werror -Ilib -o "$WORK/genreg/gen" \
		"$WORK/genreg/gen.c" "$LIBRF" -ljansson 2>&1) || ! "$WORK/genreg/gen" "$WORK/genreg"; then
	not_ok "registry entries: the generator builds and runs"; echo "$out"
elif out=$("$PYTHON" "$VALIDATE" schemas/registry.schema.json "$WORK"/genreg/*.json); then
	ok "registry schema accepts lib/registry's entries with and without policy sections"
else
	not_ok "registry schema rejects lib/registry's entries"; echo "$out"
fi
# refused_registry FILE...: each file is accepted; every mutation of it is not.
refused_registry() {
	"$PYTHON" - schemas/registry.schema.json "$@" <<'EOF'
import copy, json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open(sys.argv[1])))
bad = []
for f in sys.argv[2:]:
    base = json.load(open(f))
    if not v.is_valid(base):
        bad.append(f"{f}: not accepted to begin with")
        continue
    def refused(name, change):
        e = copy.deepcopy(base)
        change(e)
        if v.is_valid(e):
            bad.append(f"{f}: accepted {name}")
    refused("an unknown key", lambda e: e.update(extra=1))
    refused("cgroup_id as a string", lambda e: e.update(cgroup_id=str(e["cgroup_id"])))
    refused("cgroup_id 0", lambda e: e.update(cgroup_id=0))
    refused("a negative pid", lambda e: e.update(pid=-1))
    refused("no sandbox", lambda e: e.pop("sandbox"))
    refused("no monitor", lambda e: e.pop("monitor"))
    refused("a sandbox name without its suffix", lambda e: e.update(sandbox=e["policy_id"]))
    refused("mode kill", lambda e: e.update(mode="kill"))
    refused("a short digest", lambda e: e.update(policy_sha256="ab"))
    refused("started without nanoseconds", lambda e: e.update(started="2026-12-01T12:00:00Z"))
    refused("an unknown monitor key", lambda e: e["monitor"].update(burst=1))
    refused("deny_burst without window_ms", lambda e: e["monitor"].update(deny_burst={"count": 5}))
    refused("memory_mb as a string", lambda e: e["monitor"].update(memory_mb="900"))
    refused("syscalls without on_violation", lambda e: e.update(syscalls={"allow": ["read"]}))
    refused("an empty allow list", lambda e: e.update(syscalls={"allow": [], "on_violation": "deny"}))
    refused("on_violation kill", lambda e: e.update(syscalls={"allow": ["read"], "on_violation": "kill"}))
    refused("a number in allow", lambda e: e.update(syscalls={"allow": [1], "on_violation": "deny"}))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}
if [ -f "$WORK/genreg/t-genreg-0123abcd.json" ] &&
   out=$(refused_registry "$WORK"/genreg/*.json); then
	ok "registry schema refuses mutated entries (unknown keys, wrong types, missing keys)"
else
	not_ok "registry schema accepts mutated entries"; echo "${out:-}"
fi

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: trace checks need root (BPF, cgroups)"
	exit "$fail"
fi
for f in "$RF" "$NET" "$FS" "$SYS"; do
	[ -x "$f" ] || { echo "FAIL: $f missing (make build $BUILD/tests/tools/{rf-net,rf-fs,rf-sys})" >&2; exit 1; }
done

# What this kernel offers decides which fallback runs are possible.
"$RF" probe > "$WORK/probe.json" 2> /dev/null || true
LL_ABI=$("$PYTHON" -c 'import json, sys
b = json.load(open(sys.argv[1]))["backends"]
print(b["landlock"].get("abi", 0) if b["landlock"]["ok"] else 0)' "$WORK/probe.json" 2> /dev/null || echo 0)
SECCOMP=$("$PYTHON" -c 'import json, sys
print(int(json.load(open(sys.argv[1]))["backends"]["seccomp"]["ok"]))' "$WORK/probe.json" 2> /dev/null || echo 0)
# bpf-lsm: this build's LSM programs load here (the planner gives it the
# process class). The runs below are written for hosts without it, where
# every class falls back; the optional VM section covers BPF-LSM runs.
LSM=$("$PYTHON" -c 'import json, sys
print(int(json.load(open(sys.argv[1]))["classes"]["process"]["backend"] == "bpf-lsm"))' "$WORK/probe.json" 2> /dev/null || echo 0)
echo "# landlock ABI $LL_ABI, seccomp $SECCOMP, bpf-lsm $LSM"

# ---- real runs ----
pol() { printf '%s\n' "$2" > "$WORK/$1.json"; }
pol enforce '{"version":1,"id":"t-enforce","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9","[::1]:9"],"unix":["/run/rf-trace-test/","@rf-trace-test"]}}'
pol audit '{"version":1,"id":"t-audit","mode":"audit","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"],"unix":[]}}'
# A "deny" syscalls allowlist in audit mode: refused on every host (files
# and exec omitted are no longer refused where Landlock enforces them).
pol refused '{"version":1,"id":"t-refused","mode":"audit","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":[],"unix":[]},"syscalls":{"allow":["read"]}}'
# The supervisor's limits: each run ends with limit.exceeded (exit 137).
pol wall '{"version":1,"id":"t-wall","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","limits":{"wall_seconds":1,"scratch":{"path":"/tmp","size_mb":1}}}'
pol output '{"version":1,"id":"t-output","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","limits":{"output_bytes":100}}'
# memory_mb: refused where the cgroup2 hierarchy has no memory controller.
pol cgmem '{"version":1,"id":"t-cgmem","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","limits":{"memory_mb":64}}'
# The connection ledger (issue 22): datagrams to 127.0.0.1:9 (nothing need
# listen), once within and once past an egress budget.
pol ledger '{"version":1,"id":"t-ledger","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"]}}'
pol egress '{"version":1,"id":"t-egress","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"]},"limits":{"egress_bytes":1000}}'
pol unrestricted '{"version":1,"id":"t-unres","files":"unrestricted","exec":"unrestricted","network":"unrestricted"}'
pol omitted '{"version":1,"id":"t-omitted","files":"unrestricted","exec":"unrestricted"}'
pol monitor '{"version":1,"id":"t-monitor","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","monitor":{"pids":3,"deny_burst":{"count":5,"window_ms":100}}}'
pol name '{"version":1,"id":"t-name","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["localhost:9"],"unix":"unrestricted","dns":"once"}}'
# The DNS gate against a dnsmasq on 127.0.0.1:5396 (started below).
pol gate '{"version":1,"id":"t-gate","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["gate.test:9"],"unix":"unrestricted",
  "dns":{"upstream":["127.0.0.1:5396"],"rebind_allow":["127.79.0.0/16"]}}}'
# Landlock: Debian 12 is merged-/usr, so ld.so and the libraries are under
# /usr/lib/ (exec: ld.so needs EXECUTE). $WORK/missing/ does not exist: with
# "approximate" it is dropped and listed as the plan's approximation.
chmod 0755 "$WORK"
mkdir -p "$WORK/in" "$WORK/out"
chmod 0777 "$WORK/out"
echo in > "$WORK/in/a"; echo secret > "$WORK/secret"; chmod 0644 "$WORK/in/a" "$WORK/secret"
pol landlock '{"version":1,"id":"t-landlock","approximate":true,
  "files":{"read":["/usr/lib/","/etc/","'"$WORK"'/in/","'"$WORK"'/missing/"],"write":["'"$WORK"'/out/"]},
  "exec":["/usr/lib/","'"$FS"'"],"network":{"connect":[],"unix":[]}}'
# unix names below the write rule (on the cgroup hooks): out/p is pinned,
# out/gone/ absent at start (the plan's unix_pins, gap unix.rename-dir)
mkdir -p "$WORK/out/p"
pol pins '{"version":1,"id":"t-pins",
  "files":{"read":["/usr/lib/","/etc/"],"write":["'"$WORK"'/out/"]},
  "exec":["/usr/lib/","'"$FS"'"],"network":{"connect":[],"unix":["'"$WORK"'/out/p/s","'"$WORK"'/out/gone/"]}}'
pol layer '{"version":1,"id":"t-layer","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"],"unix":[]}}'
pol syscalls '{"version":1,"id":"t-syscalls","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","syscalls":{"allow":["read","write","close","openat","newfstatat",
  "fstat","mmap","mprotect","munmap","brk","arch_prctl","set_tid_address","set_robust_list",
  "rseq","prlimit64","pread64","access","exit_group","getrandom","futex","getpid","ioctl"]}}'
printf '#!/bin/sh\n' > "$WORK/not-executable"; chmod 0644 "$WORK/not-executable"

# Runs ringfence under 16 Landlock layers (signal scoping only, which leaves
# the supervisor's own work alone): the kernel's maximum, so the child's
# landlock_restrict_self fails with E2BIG and the command never runs.
cat > "$WORK/nest.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint64 * 3)(0, 0, 2)   # handled fs, handled net, scoped: signal
for _ in range(16):
    fd = libc.syscall(444, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if fd < 0 or libc.syscall(446, fd, 0) < 0:
        sys.exit("nest.py: landlock: " + os.strerror(ctypes.get_errno()))
    os.close(fd)
os.execv(sys.argv[1], sys.argv[1:])
EOF

# run NAME WANT_EXIT POLICY CMD...: trace in $WORK/NAME.jsonl. RUN_OPTS: more
# ringfence options; RUN_PREFIX: a command to start ringfence with.
RUN_OPTS=() RUN_PREFIX=()
run() {
	local name=$1 want=$2 policy=$3 rc=0
	shift 3
	"${RUN_PREFIX[@]}" "$RF" run -q "${RUN_OPTS[@]}" --policy "$WORK/$policy.json" \
		--trace "$WORK/$name.jsonl" -- "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
	if [ "$rc" = "$want" ]; then
		ok "run $name exits $rc"
	else
		not_ok "run $name exits $rc, expected $want"; sed 's/^/  /' "$WORK/$name.err"
	fi
	RUN_OPTS=() RUN_PREFIX=()
}

run enforce 0 enforce "$NET" tcp 127.0.0.1 9 tcp 127.0.0.1 1 udp 127.0.0.1 1 udpconn 127.0.0.1 1 \
	tcp ::ffff:127.0.0.1 1 tcp ::1 1 udp ::1 1 unix /run/rf-trace-test/a unix /nonexistent \
	unix @other unixdgram /run/x unix rel/path unix /run/rf-trace-test/../x ping4 raw4
run audit 0 audit "$NET" tcp 127.0.0.1 1 udp 127.0.0.1 1 unix /nonexistent
run refused 126 refused "$NET" tcp 127.0.0.1 1
run notfound 127 enforce /nonexistent/command
run notexec 126 enforce "$WORK/not-executable"
run signal 143 enforce /bin/sh -c 'kill -TERM $$'
run unrestricted 3 unrestricted /bin/sh -c 'exit 3'
run omitted 0 omitted "$NET" tcp 127.0.0.1 1 unix @x
run name 0 name "$NET" tcp 127.0.0.1 9
if [ -x /usr/sbin/dnsmasq ]; then
	/usr/sbin/dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
		--listen-address=127.0.0.1 -p 5396 --pid-file= --log-facility=/dev/null \
		--host-record=gate.test,127.79.0.1,30 --host-record=nope.test,127.79.0.2,30 &
	dnsmasq_pid=$!
	# listening before the run (a fixed 0.3 s was too short on a loaded CI
	# host: the gate's query found nobody and the trace had no dns.query)
	for _ in $(seq 100); do
		grep -q ':1514 ' /proc/net/udp && break
		sleep 0.05
	done
	run gate 0 gate "$DNS" udp 192.0.2.53 53 gate.test udp 192.0.2.53 53 nope.test \
		connect 127.79.0.1 9 connect 127.79.0.2 9
	kill "$dnsmasq_pid"; wait "$dnsmasq_pid" 2> /dev/null || true
else
	echo "# skipped: DNS gate run (needs dnsmasq: apt-get install dnsmasq-base)"
fi
run burst 0 enforce "$NET" burst 300 127.0.0.1 1
# monitor thresholds are detection only: accepted, never enforced.
run monitor 0 monitor /bin/sh -c 'exit 0'
# Its scratch is /tmp: started from "/", since the tree (this script's
# directory) may lie below /tmp, where such a run is refused on purpose.
RUN_PREFIX=(env -C /); run wall 137 wall /bin/sh -c 'sleep 30 & sleep 30'
run output 137 output yes
run ledger 0 ledger "$NET" udpsend 127.0.0.1 9 3 100 tcp 127.0.0.1 8
run egress 137 egress "$NET" udpsend 127.0.0.1 9 20 100
if grep -qw memory "$(findmnt -n -o TARGET -t cgroup2 | sed -n 1p)/cgroup.controllers" 2> /dev/null; then
	echo "# skipped: memory_mb refusal run (this host's cgroup2 has the memory controller)"
else
	run cgmem 126 cgmem /bin/true
fi
# --require bpf-lsm: refused where this build's LSM programs do not load.
RUN_OPTS=(--require bpf-lsm); run require $([ "$LSM" = 1 ] && echo 0 || echo 126) enforce "$NET" tcp 127.0.0.1 9
if [ "$LL_ABI" -ge 3 ]; then
	# uid 0: the read-only tree, not DAC, refuses the write outside (EROFS)
	RUN_OPTS=(--user root)
	run landlock 0 landlock "$FS" read "$WORK/in/a" read "$WORK/secret" \
		write "$WORK/out/x" write "$WORK/in/a"
	run execdenied 126 landlock /usr/bin/true
	# uid 0: the checkout (rf-fs) may lie below a 0700 directory (mktemp -d)
	RUN_OPTS=(--user root)
	run pins 0 pins "$FS" read /etc/hostname
else
	echo "# skipped: Landlock files/exec runs (need Landlock ABI 3+, have $LL_ABI)"
fi
if [ "$LL_ABI" -ge 4 ]; then
	RUN_OPTS=(--prefer landlock); run layer 0 layer "$NET" tcp 127.0.0.1 1 udp 127.0.0.1 1
else
	echo "# skipped: Landlock TCP-port layer run (needs Landlock ABI 4+, have $LL_ABI)"
fi
if [ "$SECCOMP" = 1 ] && [ "$(uname -m)" = x86_64 ]; then
	run syscalls 0 syscalls "$SYS" getpid uname
else
	echo "# skipped: seccomp syscalls run (needs seccomp and x86-64 syscall names)"
fi
if [ "$LL_ABI" -ge 6 ]; then
	RUN_PREFIX=("$PYTHON" "$WORK/nest.py"); run setup 126 unrestricted /usr/bin/true
else
	echo "# skipped: child setup failure run (needs Landlock ABI 6+, have $LL_ABI)"
fi

# The loopback denial is what everything else rests on.
if grep -qx 'tcp 127.0.0.1:1 EPERM' "$WORK/enforce.out" &&
   grep -qx 'tcp 127.0.0.1:1 ECONNREFUSED' "$WORK/audit.out"; then
	ok "enforce denies, audit allows 127.0.0.1:1"
else
	not_ok "127.0.0.1:1: enforce/audit outcome unexpected"
	sed 's/^/  enforce: /' "$WORK/enforce.out"; sed 's/^/  audit: /' "$WORK/audit.out"
fi

traces=("$WORK"/*.jsonl)
if out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json "${traces[@]}"); then
	ok "trace schema accepts all $(cat "${traces[@]}" | wc -l) lines of ${#traces[@]} traces"
else
	not_ok "trace schema rejects lines"; echo "$out"
fi

# What the schema cannot say: order, seq, counts, the outcome of each run.
if out=$("$PYTHON" - "$WORK" "$LL_ABI" "$SECCOMP" "$LSM" <<'EOF'
import json, sys, os
work, ll_abi, seccomp, lsm = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"
def load(n):
    return [json.loads(l) for l in open(os.path.join(work, n + ".jsonl"))]
def has(n):
    return os.path.exists(os.path.join(work, n + ".jsonl"))
def result(n, op):
    """The tool's answer for one operation line, e.g. result(n, "read /x")."""
    for l in open(os.path.join(work, n + ".out")):
        if l.startswith(op + " "):
            return l[len(op) + 1:].strip()
    return None
def event(t, name):
    return next(e for e in t if e["event"] == name)
bad = []
def check(cond, msg):
    if not cond:
        bad.append(msg)
refused = ["refused", "cgmem"] + ([] if lsm else ["require"])
limited = {"wall": "wall_seconds", "output": "output_bytes", "egress": "egress_bytes"}
for n in ["enforce", "audit", "refused", "require", "notfound", "notexec", "signal",
          "unrestricted", "omitted", "name", "gate", "burst", "monitor",
          "landlock", "execdenied", "layer", "syscalls", "setup", "wall", "output", "cgmem",
          "ledger", "egress"]:
    if not has(n):
        continue
    t = load(n)
    ev = [e["event"] for e in t]
    check([e["seq"] for e in t] == list(range(len(t))), f"{n}: seq not 0..{len(t)-1}")
    check(len({e["sandbox"] for e in t}) == 1, f"{n}: more than one sandbox name")
    check(ev[0] == "sandbox.plan", f"{n}: first event {ev[0]}")
    if n in refused:
        check(ev == ["sandbox.plan"] and not t[0]["plan"]["ok"]
              and t[0]["plan"]["reasons"], f"{n}: {ev}")
        continue
    # Child-side backends and layers say whether the child applied them.
    for cname, c in t[2]["classes"].items():
        child = c["backend"] in ("seccomp",) or (c["backend"] or "").startswith("landlock-")
        check(("installed" in c) == (child or "layers" in c), f"{n}: {cname}: installed {c}")
    check(ev[1:3] == ["network.decision", "sandbox.configure"], f"{n}: {ev[:3]}")
    check(ev[-1] == "sandbox.exit" and ev.count("sandbox.exit") == 1, f"{n}: last {ev[-1]}")
    # The ledger's last network.flow lines (final) come right before
    # sandbox.exit, one per destination; interval ones (not final) earlier.
    nf = 0
    while len(ev) > nf + 1 and ev[-2 - nf] == "network.flow":
        nf += 1
    check(all(e["final"] for e in t[len(t) - 1 - nf:-1]), f"{n}: final flows")
    check(all(not e["final"] for e in t[:len(t) - 1 - nf] if e["event"] == "network.flow"),
          f"{n}: final flows not last")
    check(t[-1].get("flows", nf) == nf, f"{n}: sandbox.exit flows {t[-1].get('flows')} != {nf}")
    ev = ev[:len(ev) - 1 - nf] + ev[-1:]
    if n in limited:
        # A limit ends the run: its event right before sandbox.exit, named there.
        check(ev[-2] == "limit.exceeded" and ev.count("limit.exceeded") == 1, f"{n}: {ev}")
        le = t[len(t) - 2 - nf]
        check(le["limit"] == limited[n] == t[-1].get("limit"), f"{n}: limit {le}")
        # egress: the refused sendto may end the command before the kill
        # (status 0); the run still exits 137 as the budget's
        check(t[-1]["exit_code"] == 137 and (t[-1]["signal"] == 9 or n == "egress"),
              f"{n}: exit {t[-1]}")
        ev = ev[:-2] + ev[-1:]
    else:
        check("limit.exceeded" not in ev and "limit" not in t[-1], f"{n}: limit in {ev}")
    check(all(x in ("kernel.deny", "dns.query", "dns.deny", "network.flow") for x in ev[3:-1]),
          f"{n}: {ev[3:-1]}")
    x, every = t[-1], [e for e in t if e["event"] == "kernel.deny"]
    # The kernel's own records (exact counts) apart from the inferred ones.
    # (the syscalls profile's lines are the listener's, not among them)
    deny = [d for d in every if d["attribution"] == "kernel" and d["class"] != "syscalls"]
    check(all(d["backend"] == "seccomp" for d in every if d["class"] == "syscalls"),
          f"{n}: syscalls lines from seccomp")
    inferred = [d for d in every if d["attribution"] == "inferred"]
    if "denials_total" in x:
        check(x["denials_in_trace"] == len(deny), f"{n}: denials_in_trace")
        check(x["denials_total"] == sum(x["denials"].values()), f"{n}: denials_total")
        check(x["denials_not_in_trace"] == x["denials_total"] - len(deny), f"{n}: not_in_trace")
        ks = [d["kernel_seq"] for d in deny]
        # inferred records take sample slots too (kept or not in the trace)
        if not x["denials_inferred_total"] and not x["inferred_not_policy"]:
            check(ks == list(range(len(deny))), f"{n}: kernel_seq")
        else:
            check(ks == sorted(set(ks)), f"{n}: kernel_seq increasing")
        check(len([d for d in inferred if d["verdict"] == "denied"]) ==
              x["denials_inferred_total"], f"{n}: denials_inferred_total")
        check(sum(x["denials_inferred"].values()) == x["denials_inferred_total"],
              f"{n}: denials_inferred")
        check(all(d["backend"] in ("cgroup-sock-addr", "bpf-lsm") for d in deny),
              f"{n}: kernel backends")
        cg = t[2]["cgroup"]["id"]
        check(all(d["cgroup_id"] == cg for d in every), f"{n}: cgroup_id")
e = load("enforce")
d = [x for x in e if x["event"] == "kernel.deny"]
check({x["verdict"] for x in d} == {"denied"}, "enforce: verdicts")
ops = {"connect4", "sendmsg4", "connect_unix", "sendmsg_unix"}
if os.path.exists("/proc/net/if_inet6"):
    ops |= {"connect6", "sendmsg6"}
check({x["op"] for x in d} >= ops, f"enforce: ops {sorted({x['op'] for x in d})}")
check({x["reason"] for x in d} >= {"port-not-allowed", "no-rule", "unresolved-path"},
      "enforce: reasons")
check(any(r.startswith("syscalls: audit mode") for r in load("refused")[0]["plan"]["reasons"]),
      "refused: no syscalls reason")
if has("cgmem"):
    check(any(r.startswith("limits: memory_mb: cgroup-v2-memory cannot be enforced here: the "
                           "memory controller is not in the cgroup2 hierarchy")
              for r in load("cgmem")[0]["plan"]["reasons"]), "cgmem: no controller reason")
# The ledger: three 100-byte datagrams to 127.0.0.1:9, exactly; the refused
# connect leaves no flow. The budget: at most 1000 bytes sent, the rest
# refused (sendto EPERM), the run ended by egress_bytes.
lf = [x for x in load("ledger") if x["event"] == "network.flow"]
check(len(lf) == 1 and lf[0]["dst"] == "127.0.0.1:9" and lf[0]["proto"] == "udp"
      and lf[0]["bytes_sent"] == 300 and lf[0]["connections"] == 1 and lf[0]["loopback"],
      f"ledger: flows {lf}")
check(load("ledger")[-1]["bytes_sent"] == 300, "ledger: sandbox.exit bytes_sent")
eg = load("egress")
check(eg[-1]["bytes_sent"] == 1000 and event(eg, "limit.exceeded")["threshold"] == 1000,
      f"egress: {eg[-1]}")
check(result("egress", "udpsend 127.0.0.1:9") in (None, "ok=10 EPERM"), "egress: udpsend")
check(event(load("output"), "limit.exceeded")["delivered"] == 100
      and os.path.getsize(os.path.join(work, "output.out")) == 100, "output: not 100 bytes")
check(lsm or any(r.startswith("--require: bpf-lsm") for r in load("require")[0]["plan"]["reasons"]),
      "require: no --require reason")
p = e[2]["classes"]["process"]
check(p["backend"] == ("bpf-lsm" if lsm else "seccomp" if seccomp else "capabilities") and p["enforced"]
      and p.get("installed") is True, f"enforce: process {p}")
m = load("monitor")[0]["plan"]["classes"]["monitor"]
check(m["backend"] == "ringfence-monitor" and not m["required"] and not m["enforced"],
      f"monitor: {m}")
a = load("audit")
check({x["verdict"] for x in a if x["event"] == "kernel.deny"} == {"audited"}, "audit: verdicts")
check(a[2]["mode"] == "audit" and "audit_note" in a[2], "audit: configure")
check(load("notfound")[-1].get("failed_stage") == "exec" and load("notfound")[-1]["exit_code"] == 127,
      "notfound: exit event")
check(load("notexec")[-1].get("failed_stage") == "exec", "notexec: exit event")
s = load("signal")[-1]
check(s["signal"] == 15 and s["status"] is None and s["exit_code"] == 143, "signal: exit event")
u = load("unrestricted")
check(u[1]["connect"] == "unrestricted" and u[1]["unix_mode"] == "unrestricted", "unrestricted: decision")
check(u[-1]["status"] == 3, "unrestricted: status")
o = load("omitted")
check(o[1]["connect"] == "deny-all" and o[-1]["denials"]["network"] == 1
      and o[-1]["denials"]["unix"] == 1, "omitted: deny-all")
nm = load("name")[1]["destinations"][0]
check(nm["kind"] == "name" and "127.0.0.1" in nm["enforced_addresses"], f"name: {nm}")
check(load("name")[1]["dns"] == "once", "name: dns once")
if has("gate"):
    g = load("gate")
    check(g[1]["dns"] == "gate" and g[1]["destinations"][0]["enforced_addresses"] == [],
          f"gate: decision {g[1]}")
    q = [x for x in g if x["event"] == "dns.query"]
    dn = [x for x in g if x["event"] == "dns.deny"]
    check(len(q) == 1 and q[0]["granted"] == [{"address": "127.79.0.1", "ttl": 30}],
          f"gate: dns.query {q}")
    check(len(dn) == 1 and dn[0]["name"] == "nope.test" and dn[0]["reason"] == "name-not-allowed",
          f"gate: dns.deny {dn}")
    check(result("gate", "connect 127.79.0.1:9") in ("ECONNREFUSED", "ok")
          and result("gate", "connect 127.79.0.2:9") == "EPERM", "gate: connects")
b = load("burst")[-1]
check(b["denials_total"] == 300 and b["denials_in_trace"] == b["sample_limit"] == 256
      and b["denials_not_in_trace"] == 44, f"burst: {b}")
if has("pins"):
    plan = load("pins")[0]["plan"]
    up = plan.get("unix_pins")
    gaps = [g["gap"] for g in plan["gaps"]]
    if plan["classes"]["unix"]["backend"] == "cgroup-sock-addr":
        check(up == {"pinned": [f"{work}/out/p"], "private": [],
                     "unpinned": [{"path": f"{work}/out/gone", "why": "absent at start"}]}
              and "unix.rename-dir" in gaps, f"pins: unix_pins {up}, gaps {gaps}")
    else:
        check(up is None and "unix.rename-dir" not in gaps, f"pins: bpf-lsm {up} {gaps}")
if has("landlock"):
    t, be = load("landlock"), f"landlock-abi{ll_abi}"
    plan, cf = t[0]["plan"], t[2]
    for c in ("file", "exec"):
        check(plan["classes"][c]["backend"] == be and cf["classes"][c]["backend"] == be
              and cf["classes"][c]["enforced"] and cf["classes"][c]["installed"],
              f"landlock: {c} {cf['classes'][c]}")
    ap = [x["entry"] for x in plan.get("approximations", [])]
    check(ap == ["$.files.read[3]"], f"landlock: plan approximations {ap}")
    # fs_rules: 3 read entries (the 4th dropped), 1 write, 2 exec.
    check(cf["landlock"]["approximations"] == plan.get("approximations")
          and cf["landlock"]["abi"] == ll_abi and cf["landlock"]["fs_rules"] == 6,
          f"landlock: configure {cf['landlock']}")
    check(result("landlock", f"read {work}/in/a") == "ok"
          and result("landlock", f"read {work}/secret") == "EACCES"
          and result("landlock", f"write {work}/out/x") == "ok"
          # outside the write rules the tree is read-only (file.attr): EROFS
          and result("landlock", f"write {work}/in/a") == "EROFS",
          "landlock: " + open(os.path.join(work, "landlock.out")).read())
    # Landlock records nothing: its refusals are inferred, exactly these two.
    inf = sorted((d["class"], d["op"], d["destination"]["path"]) for d in t
                 if d["event"] == "kernel.deny")
    check(inf == [("file", "open", f"{work}/in/a"), ("file", "open", f"{work}/secret")]
          and all(d["backend"] == be and d["attribution"] == "inferred"
                  for d in t if d["event"] == "kernel.deny"), f"landlock: inferred {inf}")
    check(t[-1]["denials"]["file"] == 0 and t[-1]["denials_inferred"]["file"] == 2
          and t[-1]["denials_attribution"]["file"] == "inferred", f"landlock: exit {t[-1]}")
    x = load("execdenied")[-1]
    check(x.get("failed_stage") == "exec" and x["exit_code"] == 126
          and x["error"] == "Permission denied", f"execdenied: {x}")
if has("layer"):
    t = load("layer")
    nw = t[2]["classes"]["network"]
    check(nw["backend"] == "cgroup-sock-addr" and nw["installed"]
          and nw["layers"].startswith(f"landlock-abi{ll_abi} (TCP"), f"layer: network {nw}")
    check(t[2]["landlock"]["handled_net"] == 2 and t[2]["landlock"]["net_rules"] == 1,
          f"layer: {t[2]['landlock']}")
    # Landlock refuses the TCP port first (EACCES, unrecorded); UDP is the
    # cgroup program's (EPERM, recorded).
    check(result("layer", "tcp 127.0.0.1:1") == "EACCES"
          and result("layer", "udp 127.0.0.1:1") == "EPERM", "layer: outcome")
    check(t[-1]["denials"]["network"] == 1 and t[-1]["denials_in_trace"] == 1,
          f"layer: denials {t[-1]['denials']}")
if has("syscalls"):
    t = load("syscalls")
    s = t[2]["classes"]["syscalls"]
    check(t[0]["plan"]["classes"]["syscalls"]["backend"] == "seccomp" and s["installed"]
          and t[2]["seccomp"]["allowlist"] and t[2]["seccomp"]["boundary"], f"syscalls: {s}")
    check(result("syscalls", "getpid") == "ok" and result("syscalls", "uname") == "EPERM",
          "syscalls: outcome")
if has("setup"):
    t = load("setup")
    p, x = t[2]["classes"]["process"], t[-1]
    check(p["installed"] is False and p["enforced"] is False, f"setup: process {p}")
    check(x.get("failed_stage") == "setup" and x["exit_code"] == 126, f"setup: {x}")
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
EOF
); then
	ok "trace order, seq and counts"
else
	not_ok "trace order, seq and counts"; echo "$out"
fi

# `ringfence check` prints the plan document that sandbox.plan embeds.
rc=0; "$RF" check --policy "$WORK/enforce.json" > "$WORK/check-ok.plan" 2>/dev/null || rc=$?
[ "$rc" = 0 ] && ok "check of a runnable policy exits 0" || not_ok "check of a runnable policy exits $rc"
rc=0; "$RF" check --policy "$WORK/refused.json" > "$WORK/check-refused.plan" 2>/dev/null || rc=$?
[ "$rc" = 126 ] && ok "check of a refused policy exits 126" || not_ok "check of a refused policy exits $rc"
plans=("$WORK/check-ok.plan" "$WORK/check-refused.plan")
# Limits: the per-limit backends, and (where the controller is missing) a
# refused limit with its reason.
for l in wall cgmem; do
	[ -f "$WORK/$l.jsonl" ] || continue
	rc=0; (cd / && "$RF" check --policy "$WORK/$l.json") > "$WORK/check-$l.plan" 2>/dev/null || rc=$?
	want=$([ "$l" = wall ] && echo 0 || echo 126)
	if [ "$rc" = "$want" ] && grep -q '"limits": {' "$WORK/check-$l.plan"; then
		ok "check of limits ($l) exits $rc and lists each limit's backend"
	else
		not_ok "check of limits ($l) exits $rc, expected $want"
	fi
	plans+=("$WORK/check-$l.plan")
done
if [ "$LL_ABI" -ge 3 ]; then
	rc=0; "$RF" check --policy "$WORK/landlock.json" > "$WORK/check-landlock.plan" 2>/dev/null || rc=$?
	if [ "$rc" = 0 ] && grep -q '"approximations"' "$WORK/check-landlock.plan"; then
		ok "check of an approximated Landlock policy exits 0 and lists the approximation"
	else
		not_ok "check of an approximated Landlock policy exits $rc"
	fi
	plans+=("$WORK/check-landlock.plan")
fi
if out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json def=plan "${plans[@]}"); then
	ok "check output matches the schema's plan"
else
	not_ok "check output does not match the schema's plan"; echo "$out"
fi

# ---- the registry files of live runs ----
# Each command copies its own registry entry while it runs (after a pause:
# the supervisor rewrites the entry with the command's pid once it runs).
mkdir -p "$WORK/reg"
chmod 0777 "$WORK/reg"
pol regfull '{"version":1,"id":"t-regfull","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","monitor":{"deny_burst":{"count":5,"window_ms":100},"cpu_percent":250,
  "memory_mb":900,"pids":64},"syscalls":{"allow":["read","write","exit_group"],"on_violation":"alert"}}'
pol regplain '{"version":1,"id":"t-regplain","files":"unrestricted","exec":"unrestricted"}'
COPY_ENTRY='sleep 0.5; cp /run/ringfence/sandboxes/"$1"-*.json "$0"'
run regfull 0 regfull /bin/sh -c "$COPY_ENTRY" "$WORK/reg/" t-regfull
run regplain 0 regplain /bin/sh -c "$COPY_ENTRY" "$WORK/reg/" t-regplain
regs=("$WORK"/reg/t-reg*.json)
if [ "${#regs[@]}" != 2 ] || [ ! -e "${regs[0]}" ]; then
	not_ok "live registry entries: the runs copied 2 entries (got ${#regs[@]})"
elif out=$("$PYTHON" "$VALIDATE" schemas/registry.schema.json "${regs[@]}"); then
	ok "registry schema accepts the live entries of runs with and without monitor thresholds and a syscalls profile"
else
	not_ok "registry schema rejects live registry entries"; echo "$out"
fi
if [ -e "${regs[0]}" ] && out=$(refused_registry "${regs[@]}"); then
	ok "registry schema refuses mutated live entries"
else
	not_ok "registry schema accepts mutated live entries"; echo "${out:-}"
fi
# What the schema cannot say: each entry is its run's, with the policy's
# sections as written.
if out=$("$PYTHON" - "$WORK" <<'EOF'
import glob, json, os, sys
w = sys.argv[1]
bad = []
def check(cond, msg):
    if not cond:
        bad.append(msg)
for n in ["regfull", "regplain"]:
    f = glob.glob(os.path.join(w, "reg", f"t-{n}-*.json"))
    t = [json.loads(l) for l in open(os.path.join(w, n + ".jsonl"))]
    if len(f) != 1 or not t:
        check(False, f"{n}: entry {f}, trace of {len(t)} lines")
        continue
    e = json.load(open(f[0]))
    check(e["sandbox"] == t[0]["sandbox"] and e["policy_id"] == "t-" + n, f"{n}: names {e}")
    check(e["cgroup_path"].endswith("/" + e["sandbox"]), f"{n}: cgroup_path {e['cgroup_path']}")
    check(e["pid"] > 0 and e["supervisor_pid"] > 0 and e["pid"] != e["supervisor_pid"],
          f"{n}: pids {e['pid']} {e['supervisor_pid']}")
    check(not os.path.exists("/run/ringfence/sandboxes/" + e["sandbox"] + ".json"),
          f"{n}: the entry outlived the run")
full = json.load(open(glob.glob(os.path.join(w, "reg", "t-regfull-*.json"))[0]))
check(full["monitor"] == {"deny_burst": {"count": 5, "window_ms": 100}, "cpu_percent": 250,
                          "memory_mb": 900, "pids": 64}, f"regfull: monitor {full['monitor']}")
check(full["syscalls"] == {"allow": ["read", "write", "exit_group"], "on_violation": "alert"},
      f"regfull: syscalls {full.get('syscalls')}")
plain = json.load(open(glob.glob(os.path.join(w, "reg", "t-regplain-*.json"))[0]))
check(plain["monitor"] == {} and "syscalls" not in plain, f"regplain: {plain}")
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
EOF
); then
	ok "live registry entries: names, pids, the policy's monitor and syscalls sections, removed after the run"
else
	not_ok "live registry entries: content"; echo "$out"
fi

# ---- optional: traces of real BPF-LSM runs, from the test VM ----
# RF_TRACE_SCHEMA_VM=1 boots the test VM (tests/vm/run.sh, Debian's 6.1
# cloud kernel with BPF-LSM; about a minute under TCG) with one suite
# written here: real `ringfence run --trace` sandboxes whose file, exec,
# unix and process classes are bpf-lsm (enforce, audit, --keep-caps,
# --require bpf-lsm), plus rf-lsmctl for the boundary records ringfence's
# own mount namespace makes unreachable (cgroupfs, bpffs). The guest prints
# every trace line to the console; they are validated here. Needs
# BUILD/tests/vm/{rf-lsm,rf-lsmctl} (make vmtest builds them).
if [ "${RF_TRACE_SCHEMA_VM:-0}" != 1 ]; then
	echo "# skipped: traces of BPF-LSM runs in the VM (RF_TRACE_SCHEMA_VM=1 runs them)"
elif [ ! -x "$BUILD/tests/vm/rf-lsm" ] || [ ! -x "$BUILD/tests/vm/rf-lsmctl" ]; then
	not_ok "VM traces: $BUILD/tests/vm/rf-lsm and rf-lsmctl are built (make vmtest builds them)"
else
	mkdir -p "$WORK/vmsuite" "$WORK/vm"
	cat > "$WORK/vmsuite/trace-schema.sh" <<'EOF'
#!/bin/sh
# Written by tests/host/test_trace_schema.sh: BPF-LSM runs whose traces the
# host validates. Lines: "# trace RUN JSON", "# deny lsmctl JSON", "# plan
# check TEXT", "# out RUN TEXT".
. "$GUEST/lib/tap.sh"
T=$VMTOOLS/rf-lsm
W=$(mktemp -d /tmp/ts.XXXXXX)
mkdir -p /data/empty /secret /w /denied /tmp/ts-mnt /sys/fs/cgroup/ts-other
echo a > /data/a; echo s > /secret/s; echo d > /data/victim
cp /usr/bin/busybox /denied/sh; chmod 755 /denied/sh
# A path longer than the matcher holds (247 bytes).
A40=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
LONG=/w/long/$A40$A40/$A40$A40/$A40$A40
mkdir -p "$LONG"; LONG=$LONG/file; echo long > "$LONG"
# Yama runs before the BPF-LSM: leave ptrace to the LSM.
echo 0 > /proc/sys/kernel/yama/ptrace_scope 2> /dev/null
sleep 1000 &
OUTSIDE=$!
"$T" listen /tmp/ts-no.sock listen_abstract ts-noabs dgram_bind /tmp/ts-nod.sock > /dev/null 2>&1
policy() { # FILE MODE
	cat > "$1" << P
{"version": 1, "id": "vm-trace", "mode": "$2",
 "files": {"read": ["/data/", "/usr/", "/rf/", "/etc/", "/proc/", "/dev/"], "write": ["/w/"]},
 "exec": ["/usr/", "/rf/"],
 "network": {"connect": [], "unix": ["@ts-okabs"]}}
P
}
policy "$W/enforce.json" enforce
policy "$W/audit.json" audit
FILES="read /secret/s write /data/a create /data/new mkdir /data/newdir rmdir /data/empty \
 unlink /data/victim symlink /x /data/sym link /secret/s /w/hard rename /data/a /w/a2 \
 truncate /data/victim chmod /data/victim chown /data/victim utimes /data/victim \
 mkfifo /data/fifo mknod_dev /w/null read $LONG procfd /secret/s"
EXEC="exec /denied/sh execveat_memfd /usr/bin/busybox mmap_exec /data/a mprotect_exec /data/a"
UNIX="unix /tmp/ts-no.sock unix_abstract ts-noabs unixdgram /tmp/ts-nod.sock"
run() { # NAME WANT_EXIT RINGFENCE-ARGS... -- CMD...
	name=$1 want=$2
	shift 2
	rc=0
	"$RINGFENCE" run -q --trace "$W/$name.trace" "$@" > "$W/$name.out" 2> "$W/$name.err" || rc=$?
	if [ "$rc" = "$want" ] && [ -s "$W/$name.trace" ]; then
		pass "trace-schema: run $name exits $rc"
	else
		fail "trace-schema: run $name exits $rc, expected $want" "stderr:"
		show "$W/$name.err"
	fi
	sed "s/^/# trace $name /" "$W/$name.trace" 2> /dev/null
	sed "s/^/# out $name /" "$W/$name.out"
}
# A sandbox has a PID namespace of its own: the one process outside it that
# it can name is the namespace's init (PID 1, outside its cgroup).
run enforce 0 --policy "$W/enforce.json" -- /bin/sh -c "$T $FILES; $T $EXEC; $T $UNIX; $T kill 1 procmem 1"
export RINGFENCE_TEST_KEEP_CAPS=1
run keepcaps 0 --keep-caps --policy "$W/enforce.json" -- /bin/sh -c \
	"$T bpf ptrace 1 mount /tmp/ts-mnt unshare_user chroot /w clone_into_cgroup /sys/fs/cgroup/ts-other"
unset RINGFENCE_TEST_KEEP_CAPS
run audit 0 --policy "$W/audit.json" -- /bin/sh -c "$T read /secret/s exec /denied/sh $UNIX kill 1 procmem 1 unshare_user"
run require 0 --require bpf-lsm --policy "$W/enforce.json" -- /bin/true
# cgroupfs and bpffs stay writable for rf-lsmctl's root command (ringfence
# makes cgroup2 read-only and detaches bpffs first).
rc=0
"$VMTOOLS/rf-lsmctl" -t "$W/lsmctl.deny" "$W/enforce.json" -- "$T" \
	cgroup_write /sys/fs/cgroup/ts-other/cgroup.procs mkdir /sys/fs/bpf/ts-x \
	> "$W/lsmctl.out" 2>&1 || rc=$?
[ "$rc" = 0 ] && pass "trace-schema: rf-lsmctl ran" || fail "trace-schema: rf-lsmctl ran" "exit $rc"
sed "s/^/# deny lsmctl /" "$W/lsmctl.deny" 2> /dev/null
sed "s/^/# out lsmctl /" "$W/lsmctl.out"
rmdir /sys/fs/bpf/ts-x 2> /dev/null
rc=0
"$RINGFENCE" check --policy "$W/enforce.json" > "$W/check.plan" 2> /dev/null || rc=$?
[ "$rc" = 0 ] && pass "trace-schema: check exits 0" || fail "trace-schema: check exits 0" "exit $rc"
sed "s/^/# plan check /" "$W/check.plan"
kill $OUTSIDE 2> /dev/null
for p in $(pgrep -f "$T listen" 2> /dev/null); do kill "$p" 2> /dev/null; done
finish
EOF
	rc=0
	VM_SUITE_DIR=$WORK/vmsuite VM_CACHE=${VM_CACHE:-$BUILD/vm} tests/vm/run.sh "$BUILD" trace-schema \
		> "$WORK/vm/console.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		ok "VM traces: the guest runs passed ($(grep -c '^ok - ' "$WORK/vm/console.out") checks)"
	else
		not_ok "VM traces: the guest runs failed (run.sh exit $rc)"
		grep -v '^# \(trace\|deny\|plan\|out\) ' "$WORK/vm/console.out" | sed 's/^/  /'
	fi
	# Split the console into trace files; rf-lsmctl's decisions become full
	# kernel.deny lines (the fields trace__emit adds).
	"$PYTHON" - "$WORK/vm" <<'EOF'
import json, os, re, sys
d = sys.argv[1]
out, plan, seq = {}, [], 0
for line in open(os.path.join(d, "console.out")):
    m = re.match(r"# (trace|deny|plan) (\S+) ?(.*)$", line.rstrip("\n"))
    if not m:
        continue
    kind, name, text = m.groups()
    if kind == "plan":
        plan.append(text)
    elif kind == "deny":
        o = json.loads(text)
        o.update(ts=o["kernel_ts"], seq=seq, sandbox="vm-lsmctl-00000000", event="kernel.deny")
        seq += 1
        out.setdefault("lsmctl", []).append(json.dumps(o))
    else:
        out.setdefault(name, []).append(text)
for name, lines in out.items():
    open(os.path.join(d, name + ".jsonl"), "w").write("\n".join(lines) + "\n")
if plan:
    open(os.path.join(d, "check.plan"), "w").write("\n".join(plan) + "\n")
EOF
	vm_traces=("$WORK"/vm/*.jsonl)
	if [ ! -e "${vm_traces[0]}" ]; then
		not_ok "VM traces: the guest printed traces"
	elif out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json "${vm_traces[@]}") &&
		{ [ ! -f "$WORK/vm/check.plan" ] ||
		  out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json def=plan "$WORK/vm/check.plan"); }; then
		ok "trace schema accepts all $(cat "${vm_traces[@]}" | wc -l) lines of ${#vm_traces[@]} VM traces and the VM's check output"
	else
		not_ok "trace schema rejects VM trace lines"; echo "$out"
	fi
	if out=$("$PYTHON" - "$WORK/vm" <<'EOF'
import json, os, sys
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + ".jsonl")
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
bad = []
def check(cond, msg):
    if not cond:
        bad.append(msg)
seen = set()
for n in ["enforce", "keepcaps", "audit", "require"]:
    t = load(n)
    check(t, f"{n}: no trace")
    if not t:
        continue
    deny = [e for e in t if e["event"] == "kernel.deny"]
    seen |= {(e["class"], e["op"]) for e in deny}
    cf = next(e for e in t if e["event"] == "sandbox.configure")
    for c in ("file", "exec", "unix", "process"):
        k = cf["classes"][c]
        check(k["backend"] == "bpf-lsm" and "attach" in k, f"{n}: {c} {k}")
    x = t[-1]
    check(x["event"] == "sandbox.exit" and x["denials_in_trace"] == len(deny)
          and x["denials_total"] == len(deny), f"{n}: exit {x}")
    check(("keep_caps_note" in cf) == (n == "keepcaps"), f"{n}: keep_caps_note")
    verdicts = {e["verdict"] for e in deny}
    check(verdicts <= ({"audited"} if n == "audit" else {"denied"}), f"{n}: verdicts {verdicts}")
check(load("enforce") and "seccomp" in load("enforce")[2]["classes"]["process"].get("layers", ""),
      "enforce: process layers")
seen |= {(e["class"], e["op"]) for e in load("lsmctl")}
want = {("file", o) for o in ["open", "create", "mkdir", "rmdir", "unlink", "symlink", "link",
                               "rename", "truncate", "chmod", "chown", "utimes", "mknod"]}
want |= {("exec", o) for o in ["exec", "mmap_exec", "mprotect_exec"]}
want |= {("unix", o) for o in ["unix_stream_connect", "unix_may_send"]}
want |= {("process", o) for o in ["bpf", "ptrace", "kill", "mount", "userns_create", "chroot",
                                  "clone_into_cgroup", "mknod", "cgroup_write", "pseudo_fs_write"]}
check(want <= seen, f"ops never recorded: {sorted(want - seen)}")
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
EOF
	); then
		ok "VM traces: bpf-lsm classes, counts, verdicts, and every file/exec/unix/process op the guest tried is recorded"
	else
		not_ok "VM traces: bpf-lsm classes, counts and ops"; echo "$out"
	fi
fi

exit "$fail"
