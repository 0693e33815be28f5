#!/usr/bin/env bash
# Check the two JSON schemas against what the code really produces:
#   - schemas/examples/*.json against schemas/policy.schema.json;
#   - every line of traces written by real runs (enforce, audit, refused,
#     --require bpf-lsm, monitor thresholds, command not found, not
#     executable, killed by a signal, network unrestricted, network omitted,
#     a DNS name, more denials than the sample limit; where the kernel has
#     them: Landlock files/exec with an approximated entry, a command
#     outside the exec list, the Landlock TCP-port layer (--prefer
#     landlock), a seccomp syscalls allowlist, and a child whose
#     landlock_restrict_self fails)
#     against schemas/trace.schema.json, plus the ordering rules the schema
#     cannot express (seq, first/last event, counts) and each run's outcome;
#   - the plan printed by `ringfence check` against the schema's "plan".
#
# Usage: tests/host/test_trace_schema.sh BUILD_DIR     (e.g. build)
# Needs: BUILD_DIR/ringfence and BUILD_DIR/tests/tools/{rf-net,rf-fs,rf-sys}
#        built, Debian's python3-jsonschema (PYTHON, default /usr/bin/python3).
# The runs need root; without root only the policy examples are checked.
# Every connection attempted goes to loopback or to a unix socket name.
set -euo pipefail

cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
NET=$BUILD/tests/tools/rf-net
FS=$BUILD/tests/tools/rf-fs
SYS=$BUILD/tests/tools/rf-sys
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
echo "# landlock ABI $LL_ABI, seccomp $SECCOMP"

# ---- real runs ----
pol() { printf '%s\n' "$2" > "$WORK/$1.json"; }
pol enforce '{"version":1,"id":"t-enforce","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9","[::1]:9"],"unix":["/run/rf-trace-test/","@rf-trace-test"]}}'
pol audit '{"version":1,"id":"t-audit","mode":"audit","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"],"unix":[]}}'
# limits have no backend in this build: refused on every host (files and
# exec omitted are no longer refused where Landlock enforces them).
pol refused '{"version":1,"id":"t-refused","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":[],"unix":[]},"limits":{"pids":5}}'
pol unrestricted '{"version":1,"id":"t-unres","files":"unrestricted","exec":"unrestricted","network":"unrestricted"}'
pol omitted '{"version":1,"id":"t-omitted","files":"unrestricted","exec":"unrestricted"}'
pol monitor '{"version":1,"id":"t-monitor","files":"unrestricted","exec":"unrestricted",
  "network":"unrestricted","monitor":{"pids":3,"deny_burst":{"count":5,"window_ms":100}}}'
pol name '{"version":1,"id":"t-name","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["localhost:9"],"unix":"unrestricted"}}'
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
run burst 0 enforce "$NET" burst 300 127.0.0.1 1
# monitor thresholds are detection only: accepted, never enforced.
run monitor 0 monitor /bin/sh -c 'exit 0'
# bpf-lsm enforces nothing in this build: refused whatever the kernel has.
RUN_OPTS=(--require bpf-lsm); run require 126 enforce "$NET" tcp 127.0.0.1 9
if [ "$LL_ABI" -ge 3 ]; then
	run landlock 0 landlock "$FS" read "$WORK/in/a" read "$WORK/secret" \
		write "$WORK/out/x" write "$WORK/in/a"
	run execdenied 126 landlock /usr/bin/true
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
if out=$("$PYTHON" - "$WORK" "$LL_ABI" "$SECCOMP" <<'EOF'
import json, sys, os
work, ll_abi, seccomp = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
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
refused = ["refused", "require"]
for n in ["enforce", "audit", "refused", "require", "notfound", "notexec", "signal",
          "unrestricted", "omitted", "name", "burst", "monitor",
          "landlock", "execdenied", "layer", "syscalls", "setup"]:
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
    check(all(x == "kernel.deny" for x in ev[3:-1]), f"{n}: {ev[3:-1]}")
    x, deny = t[-1], [e for e in t if e["event"] == "kernel.deny"]
    if "denials_total" in x:
        check(x["denials_in_trace"] == len(deny), f"{n}: denials_in_trace")
        check(x["denials_total"] == sum(x["denials"].values()), f"{n}: denials_total")
        check(x["denials_not_in_trace"] == x["denials_total"] - len(deny), f"{n}: not_in_trace")
        check([d["kernel_seq"] for d in deny] == list(range(len(deny))), f"{n}: kernel_seq")
        cg = t[2]["cgroup"]["id"]
        check(all(d["cgroup_id"] == cg for d in deny), f"{n}: cgroup_id")
e = load("enforce")
d = [x for x in e if x["event"] == "kernel.deny"]
check({x["verdict"] for x in d} == {"denied"}, "enforce: verdicts")
ops = {"connect4", "sendmsg4", "connect_unix", "sendmsg_unix"}
if os.path.exists("/proc/net/if_inet6"):
    ops |= {"connect6", "sendmsg6"}
check({x["op"] for x in d} >= ops, f"enforce: ops {sorted({x['op'] for x in d})}")
check({x["reason"] for x in d} >= {"port-not-allowed", "no-rule", "unresolved-path"},
      "enforce: reasons")
check(any(r.startswith("limits: ") for r in load("refused")[0]["plan"]["reasons"]),
      "refused: no limits reason")
check(any(r.startswith("--require: bpf-lsm") for r in load("require")[0]["plan"]["reasons"]),
      "require: no --require reason")
p = e[2]["classes"]["process"]
check(p["backend"] == ("seccomp" if seccomp else "capabilities") and p["enforced"]
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
b = load("burst")[-1]
check(b["denials_total"] == 300 and b["denials_in_trace"] == b["sample_limit"] == 256
      and b["denials_not_in_trace"] == 44, f"burst: {b}")
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
          and result("landlock", f"write {work}/in/a") == "EACCES",
          "landlock: " + open(os.path.join(work, "landlock.out")).read())
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

exit "$fail"
