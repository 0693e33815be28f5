#!/usr/bin/env bash
# Check the two JSON schemas against what the code really produces:
#   - schemas/examples/*.json against schemas/policy.schema.json;
#   - every line of traces written by real runs (enforce, audit, refused,
#     command not found, not executable, killed by a signal, network
#     unrestricted, network omitted, a DNS name, more denials than the
#     sample limit) against schemas/trace.schema.json, plus the ordering
#     rules the schema cannot express (seq, first/last event, counts);
#   - the plan printed by `ringfence check` against the schema's "plan".
#
# Usage: tests/host/test_trace_schema.sh BUILD_DIR     (e.g. build)
# Needs: BUILD_DIR/ringfence and BUILD_DIR/tests/tools/rf-net built,
#        Debian's python3-jsonschema (PYTHON, default /usr/bin/python3).
# The runs need root; without root only the policy examples are checked.
# Every connection attempted goes to loopback or to a unix socket name.
set -euo pipefail

cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
NET=$BUILD/tests/tools/rf-net
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
for f in "$RF" "$NET"; do
	[ -x "$f" ] || { echo "FAIL: $f missing (make build $BUILD/tests/tools/rf-net)" >&2; exit 1; }
done

# ---- real runs ----
pol() { printf '%s\n' "$2" > "$WORK/$1.json"; }
pol enforce '{"version":1,"id":"t-enforce","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9","[::1]:9"],"unix":["/run/rf-trace-test/","@rf-trace-test"]}}'
pol audit '{"version":1,"id":"t-audit","mode":"audit","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["127.0.0.1:9"],"unix":[]}}'
pol refused '{"version":1,"id":"t-refused","exec":"unrestricted","network":{"connect":[],"unix":[]}}'
pol unrestricted '{"version":1,"id":"t-unres","files":"unrestricted","exec":"unrestricted","network":"unrestricted"}'
pol omitted '{"version":1,"id":"t-omitted","files":"unrestricted","exec":"unrestricted"}'
pol name '{"version":1,"id":"t-name","files":"unrestricted","exec":"unrestricted",
  "network":{"connect":["localhost:9"],"unix":"unrestricted"}}'
printf '#!/bin/sh\n' > "$WORK/not-executable"; chmod 0644 "$WORK/not-executable"

# run NAME WANT_EXIT POLICY CMD...: trace in $WORK/NAME.jsonl
run() {
	local name=$1 want=$2 policy=$3 rc=0
	shift 3
	"$RF" run -q --policy "$WORK/$policy.json" --trace "$WORK/$name.jsonl" -- "$@" \
		> "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
	if [ "$rc" = "$want" ]; then
		ok "run $name exits $rc"
	else
		not_ok "run $name exits $rc, expected $want"; sed 's/^/  /' "$WORK/$name.err"
	fi
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
if out=$("$PYTHON" - "$WORK" <<'EOF'
import json, sys, os
work = sys.argv[1]
def load(n):
    return [json.loads(l) for l in open(os.path.join(work, n + ".jsonl"))]
bad = []
def check(cond, msg):
    if not cond:
        bad.append(msg)
for n in ["enforce", "audit", "refused", "notfound", "notexec", "signal",
          "unrestricted", "omitted", "name", "burst"]:
    t = load(n)
    ev = [e["event"] for e in t]
    check([e["seq"] for e in t] == list(range(len(t))), f"{n}: seq not 0..{len(t)-1}")
    check(len({e["sandbox"] for e in t}) == 1, f"{n}: more than one sandbox name")
    check(ev[0] == "sandbox.plan", f"{n}: first event {ev[0]}")
    if n == "refused":
        check(ev == ["sandbox.plan"] and not t[0]["plan"]["ok"]
              and t[0]["plan"]["reasons"], f"{n}: {ev}")
        continue
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
if out=$("$PYTHON" "$VALIDATE" schemas/trace.schema.json def=plan "$WORK/check-ok.plan" "$WORK/check-refused.plan"); then
	ok "check output matches the schema's plan"
else
	not_ok "check output does not match the schema's plan"; echo "$out"
fi

exit "$fail"
