#!/usr/bin/env bash
# Alerts against the official OCSF 1.3.0 schema (no root needed):
#   - with OCSF_SCHEMA_DIR (a checkout of github.com/ocsf/ocsf-schema at tag
#     1.3.0), the committed detection_finding-1.3.0.schema.json is compiled
#     again by gen_schema.py and must be identical;
#   - ringfence-monitor --replay over recording.py's input (every rule, every
#     kind of evidence) writes alerts; each must be valid against the
#     compiled OCSF schema (required attributes, profiles, types, enums and
#     their captions, constraints, type_uid) and schemas/alert.schema.json,
#     and may leave out only the recommended attributes listed (with the
#     reason) in recommended-absent.txt;
#   - records broken the ways the issue found them broken must be refused.
# Extra alert files (e.g. from live runs) can be given as arguments.
# Usage: tests/ocsf/run.sh BUILD_DIR [ALERTS.jsonl...]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [ALERTS...]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
shift
PYTHON=${PYTHON:-/usr/bin/python3}
DIR=tests/ocsf
SCHEMA=$DIR/detection_finding-1.3.0.schema.json
DNS_SCHEMA=$DIR/dns_activity-1.3.0.schema.json
NET_SCHEMA=$DIR/network_activity-1.3.0.schema.json
PROFILES="container datetime host security_control"
tmp=$(mktemp -d /tmp/rf-ocsf-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
check() { "$PYTHON" $DIR/check_alerts.py --project schemas/alert.schema.json \
	--absent-ok $DIR/recommended-absent.txt "$SCHEMA" "$@"; }

if [ -n "${OCSF_SCHEMA_DIR:-}" ]; then
	# shellcheck disable=SC2086
	"$PYTHON" $DIR/gen_schema.py "$OCSF_SCHEMA_DIR" detection_finding $PROFILES > "$tmp/gen.json"
	if cmp -s "$tmp/gen.json" "$SCHEMA"; then
		ok "the committed schema is what gen_schema.py compiles from $OCSF_SCHEMA_DIR"
	else
		not_ok "the committed schema differs from gen_schema.py's output for $OCSF_SCHEMA_DIR"
	fi
	# shellcheck disable=SC2086
	"$PYTHON" $DIR/gen_schema.py "$OCSF_SCHEMA_DIR" dns_activity $PROFILES > "$tmp/gen-dns.json"
	if cmp -s "$tmp/gen-dns.json" "$DNS_SCHEMA"; then
		ok "the committed DNS Activity schema is what gen_schema.py compiles"
	else
		not_ok "the committed DNS Activity schema differs from gen_schema.py's output"
	fi
	# shellcheck disable=SC2086
	"$PYTHON" $DIR/gen_schema.py "$OCSF_SCHEMA_DIR" network_activity $PROFILES > "$tmp/gen-net.json"
	if cmp -s "$tmp/gen-net.json" "$NET_SCHEMA"; then
		ok "the committed Network Activity schema is what gen_schema.py compiles"
	else
		not_ok "the committed Network Activity schema differs from gen_schema.py's output"
	fi
fi

"$PYTHON" $DIR/recording.py > "$tmp/rec.jsonl"
"$BUILD/ringfence-monitor" --replay "$tmp/rec.jsonl" --output "$tmp/alerts.jsonl" \
	--activity "$tmp/activity.jsonl"
rules=$("$PYTHON" -c 'import json,sys
print(" ".join(sorted({json.loads(l)["unmapped"]["rule"] for l in open(sys.argv[1])})))' \
	"$tmp/alerts.jsonl")
if [ "$rules" = "deny-burst dns-tunnel egress-volume failed-ops lost-events resource-spike table-shed unexpected-exec unexpected-file unexpected-syscall" ]
then ok "the replay raised every rule ($(wc -l < "$tmp/alerts.jsonl") records)"
else not_ok "the replay raised only: $rules"; fi
labelled=$("$PYTHON" -c 'import json,sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["unmapped"].get("sandbox") == "sb-net":
        md = r["metadata"]
        assert md["labels"] == ["job=ci-42", "tool.call=fetch 7"], md
        assert md["correlation_uid"] == "4bf92f3577b34da6a3ce929d0e0e4736", md
        n += 1
print(n)' "$tmp/alerts.jsonl")
if [ "$labelled" -gt 0 ]; then ok "labels and traceparent in all $labelled alerts of their sandbox"
else not_ok "no alert carries the sandbox's labels"; fi
if check "$tmp/alerts.jsonl" "$@"; then
	ok "every alert is a valid OCSF 1.3.0 Detection Finding and matches alert.schema.json"
else
	not_ok "alerts are not valid OCSF (errors above)"
fi

# The activity stream: every DNS record of the replay is a valid OCSF 1.3.0
# DNS Activity record (class 4003), its own schema compiled the same way.
check_dns() { "$PYTHON" $DIR/check_alerts.py --absent-ok $DIR/recommended-absent-dns.txt \
	"$DNS_SCHEMA" "$@"; }
n_dns=$(grep -c '"type":"dns"' "$tmp/rec.jsonl")
grep '"class_uid":4003' "$tmp/activity.jsonl" > "$tmp/act-dns.jsonl" || true
n_act=$(wc -l < "$tmp/act-dns.jsonl")
if [ "$n_act" = "$n_dns" ] && [ "$n_act" -gt 0 ]; then
	ok "one DNS Activity record per DNS record ($n_act)"
else
	not_ok "DNS Activity records: $n_act for $n_dns DNS records"
fi
if check_dns "$tmp/act-dns.jsonl"; then
	ok "every DNS activity record is a valid OCSF 1.3.0 DNS Activity"
else
	not_ok "DNS activity records are not valid OCSF (errors above)"
fi
# ... and every flow record a valid Network Activity (class 4001); the
# records of one flow add up to its last totals.
check_net() { "$PYTHON" $DIR/check_alerts.py --absent-ok $DIR/recommended-absent-net.txt \
	"$NET_SCHEMA" "$@"; }
n_flow=$(grep -c '"type":"flow"' "$tmp/rec.jsonl")
grep '"class_uid":4001' "$tmp/activity.jsonl" > "$tmp/act-net.jsonl" || true
n_net=$(wc -l < "$tmp/act-net.jsonl")
if [ "$n_net" = "$n_flow" ] && [ "$n_net" -gt 0 ] &&
   [ $((n_net + n_act)) = "$(wc -l < "$tmp/activity.jsonl")" ]; then
	ok "one Network Activity record per flow record ($n_net)"
else
	not_ok "Network Activity records: $n_net for $n_flow flow records"
fi
if check_net "$tmp/act-net.jsonl"; then
	ok "every flow record is a valid OCSF 1.3.0 Network Activity"
else
	not_ok "flow records are not valid OCSF (errors above)"
fi
if "$PYTHON" $DIR/check_flows.py "$tmp/act-net.jsonl"; then
	ok "each flow's records add up to its totals; the gate's name is the destination's hostname"
else
	not_ok "flow records do not add up to their totals"
fi
head -1 "$tmp/act-dns.jsonl" | sed 's/"type_uid":400306/"type_uid":400301/' > "$tmp/act.bad"
if check_dns "$tmp/act.bad" > /dev/null 2>&1; then
	not_ok "refused: a DNS Activity record whose type_uid is not class*100+activity"
else
	ok "refused: a DNS Activity record whose type_uid is not class*100+activity"
fi

# Each mutation breaks one OCSF rule the alerts once broke; both the
# official schema and the checker must notice.
mutate() { # name python-statement-on-r
	"$PYTHON" - "$tmp/alerts.jsonl" "$tmp/bad.jsonl" "$2" <<'EOF'
import json, sys
src, dst, stmt = sys.argv[1:]
out = []
for line in open(src):
    r = json.loads(line)
    ev = r["evidences"][0]
    exec(stmt)
    out.append(json.dumps(r))
open(dst, "w").write("\n".join(out) + "\n")
EOF
	check "$tmp/bad.jsonl" > "$tmp/bad.log" 2>&1 || true
	local n_ocsf n_own
	n_ocsf=$(grep -c ': OCSF: ' "$tmp/bad.log" || true)
	n_own=$(grep -c ': alert.schema.json: ' "$tmp/bad.log" || true)
	if [ "$n_ocsf" -gt 0 ] && [ "$n_own" -gt 0 ]; then
		ok "refused: $1 (OCSF: $n_ocsf errors, alert.schema.json: $n_own)"
	else
		not_ok "refused: $1 (OCSF: $n_ocsf errors, alert.schema.json: $n_own)"
	fi
}
mutate "no profiles in metadata"          'r["metadata"].pop("profiles")'
mutate "the datetime profile undeclared"  'r["metadata"]["profiles"].remove("datetime")'
mutate "no action_id (security_control)"  'r.pop("action_id")'
mutate "an evidence with only container"  'r["evidences"] = [{"container": {"uid": "x", "name": "x"}}]'
mutate "a process file without type_id"   'ev.get("process", {}).get("file", {}).pop("type_id", None); r["evidences"] = [{"process": {"pid": 1, "name": "a", "file": {"name": "a", "path": "/a"}}}]'
mutate "type_uid not class*100+activity" 'r["type_uid"] = 200409'
mutate "severity caption of another id"   'r["severity"] = "Fatal"'
mutate "an attribute OCSF does not have"  'r["sandbox"] = "x"'
mutate "device without type_id"           'r["device"].pop("type_id")'
exit $fail
