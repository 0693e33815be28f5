#!/usr/bin/env bash
# What ringfence and ringfence-monitor tell a person (the cause must be
# named; the exact wording may change):
#   - not root: run, learn, gc, unload and the monitor say "needs root
#     (CAP_...)", check's reasons too, instead of the EPERM of the first step
#     that failed (run as nobody with setpriv; skipped without root);
#   - root without CAP_BPF: the missing capability is named;
#   - --help: each command's options with a line of text; every long
#     option of both binaries is in their --help;
#   - --label: invalid keys and values, repeats, too many: usage errors
#     naming the label; an invalid TRACEPARENT is said and not recorded;
#   - numbers as people read them: probe_ms with at most 3 decimals,
#     resource alerts in MiB; op and class names, never "op28", in alerts.
# Nothing here loads BPF or creates cgroups except `probe` as nobody, which
# can do neither.
# Usage: tests/cli/messages.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
MON=$BUILD/ringfence-monitor
PYTHON=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d /tmp/rf-msg-XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
# expect NAME WANT_RC PATTERN CMD...: exit status and a line matching PATTERN
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" "$tmp/out"; then
		ok "$name"
	else
		not_ok "$name (exit $rc, want $want; output:)"
		sed 's/^/#   /' "$tmp/out" | head -8
	fi
}

cat > "$tmp/policy.json" <<'EOF'
{"version": 1, "id": "msg", "files": "unrestricted", "exec": "unrestricted",
 "network": {"connect": ["127.0.0.1:9"], "unix": []}}
EOF
chmod 644 "$tmp/policy.json"

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	root_pat='needs root \(CAP_BPF, CAP_SYS_ADMIN\): running as uid 65534'
	expect "run as nobody: needs root, exit 126" 126 "run $root_pat" \
		"${nobody[@]}" "$RF" run --policy "$tmp/policy.json" -- /bin/true
	expect "learn as nobody: needs root" 126 "learn $root_pat" \
		"${nobody[@]}" "$RF" learn -- /bin/true
	expect "gc as nobody: needs root" 1 "gc $root_pat" "${nobody[@]}" "$RF" gc
	expect "unload as nobody: needs root" 1 "unload $root_pat" "${nobody[@]}" "$RF" unload
	expect "oci-hook as nobody: needs root, exit 126" 126 "oci-hook $root_pat" \
		"${nobody[@]}" "$RF" oci-hook
	expect "check as nobody: the refusal names root" 126 "network: .*$root_pat" \
		"${nobody[@]}" "$RF" check --policy "$tmp/policy.json"
	expect "monitor as nobody: needs root" 1 \
		'needs root \(CAP_BPF, CAP_PERFMON\): running as uid 65534' \
		"${nobody[@]}" "$MON" --output /dev/null
	if "${nobody[@]}" "$RF" check --policy "$tmp/policy.json" 2>&1 |
		grep -qE 'Permission denied|no cgroup2 to attach to'; then
		not_ok "check as nobody still blames EPERM or the cgroup"
	else
		ok "check as nobody: no bare Permission denied"
	fi
	# lint: the parser alone, for editors and CI: as nobody (no root, no
	# kernel), every invalid entry by its JSON path, "$schema" accepted
	cat > "$tmp/lint-bad.json" <<'EOF'
{"$schema": "https://ringfence.invalid/schemas/policy.schema.json", "version": 1, "id": "l",
 "files": {"read": ["relative"], "write": ["/a/../b"]}, "network": {"connect": ["1.2.3.4:99999"]},
 "bogus": 1}
EOF
	cat > "$tmp/lint-ok.json" <<'EOF'
{"$schema": "../schemas/policy.schema.json", "version": 1, "id": "l", "files": "unrestricted"}
EOF
	chmod 644 "$tmp/lint-bad.json" "$tmp/lint-ok.json"
	expect "lint as nobody: a valid policy with \$schema is ok" 0 "lint-ok.json: ok" \
		"${nobody[@]}" "$RF" lint "$tmp/lint-ok.json"
	"${nobody[@]}" "$RF" lint "$tmp/lint-bad.json" "$tmp/lint-ok.json" > "$tmp/lint.out" 2>&1
	rc=$?
	n=$(grep -cE 'lint-bad.json: \$\.(bogus|files\.read\[0\]|files\.write\[0\]|network\.connect\[0\]): ' "$tmp/lint.out")
	if [ "$rc" = 125 ] && [ "$n" = 4 ] && grep -q 'lint-ok.json: ok' "$tmp/lint.out"; then
		ok "lint as nobody: every invalid entry at once with its JSON path, exit 125"
	else
		not_ok "lint as nobody: exit $rc, $n of 4 errors"; sed 's/^/#   /' "$tmp/lint.out"
	fi
	# (exit 125: a file is invalid; pipefail would take it for the check's)
	"${nobody[@]}" "$RF" lint --json "$tmp/lint-bad.json" "$tmp/lint-ok.json" > "$tmp/lint.json" 2>/dev/null
	if "$PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [x["valid"] for x in r] == [False, True], r
assert sorted(e["path"] for e in r[0]["errors"]) == ["$.bogus", "$.files.read[0]",
    "$.files.write[0]", "$.network.connect[0]"], r[0]["errors"]
assert all(e["message"] for e in r[0]["errors"]) and r[1]["errors"] == []
' "$tmp/lint.json"; then ok "lint --json: one report a file, errors with path and message"
	else not_ok "lint --json"; fi
	expect "lint: an unreadable file is named, exit 125" 125 "nonexistent.json" \
		"${nobody[@]}" "$RF" lint /nonexistent.json
	expect "gc as root without CAP_BPF: names the capability" 1 \
		'gc needs root \(CAP_BPF, CAP_SYS_ADMIN\): CAP_BPF not effective' \
		setpriv --inh-caps=-bpf --bounding-set=-bpf "$RF" gc
	"${nobody[@]}" "$RF" probe > "$tmp/probe.json" 2> /dev/null
	if "$PYTHON" - "$tmp/probe.json" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read()
ms = re.findall(r'"probe_ms": ([0-9.eE+-]+)', text)
assert ms, "no probe_ms"
bad = [m for m in ms if "e" in m.lower() or len(m.split(".")[-1]) > 3]
assert not bad, bad
json.loads(text)
EOF
	then ok "probe_ms printed with at most 3 decimals"
	else not_ok "probe_ms printed with more than 3 decimals"; fi
else
	echo "# not root (or no setpriv): the unprivileged-user checks are skipped"
fi

# the OCI hook's input: the field named, exit 125, nothing made
if [ "$(id -u)" = 0 ]; then
	expect "oci-hook: a state without id names it, exit 125" 125 \
		'^ringfence: error: state on stdin: id: missing$' sh -c "echo '{}' | '$RF' oci-hook"
	mkdir -p "$tmp/bundle" && echo '{}' > "$tmp/bundle/config.json"
	cp "$tmp/policy.json" "$tmp/open.json" && chmod 666 "$tmp/open.json"
	expect "oci-hook: a policy file others may write is refused, exit 125" 125 \
		'error: annotations: run.ringfence.policy: .*open.json: must be a regular file owned by root and writable by root only' \
		sh -c "echo '{\"id\":\"x\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"$tmp/bundle\",\"annotations\":{\"run.ringfence.policy\":\"$tmp/open.json\"}}' | '$RF' oci-hook"
	expect "oci-hook: a bundle without config.json is named, exit 125" 125 \
		'error: /nonexistent/config.json: ' sh -c "echo '{\"id\":\"x\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"/nonexistent\"}' | '$RF' oci-hook"
fi
# oci-seccomp: a policy without a syscalls allowlist names the field
expect "oci-seccomp: a policy without syscalls names \$.syscalls, exit 125" 125 \
	'^ringfence: error: \$\.syscalls: missing: the policy lists no syscalls$' "$RF" oci-seccomp --policy "$tmp/policy.json"
printf '{"version":1,"id":"s","syscalls":{"allow":["read","nosuchcall"]}}\n' > "$tmp/sys.json"
expect "oci-seccomp: an unknown syscall names its entry, exit 125" 125 \
	'syscalls.allow\[1\]: unknown syscall "nosuchcall"' "$RF" oci-seccomp --policy "$tmp/sys.json"

# --help: per command, every option with its text
for c in run check learn probe status gc unload oci-hook oci-seccomp; do
	"$RF" "$c" --help > "$tmp/h.$c" 2>&1 || not_ok "$c --help exits non-zero"
done
grep -q -- '--label KEY=VALUE *a correlation label' "$tmp/h.run" &&
	grep -q -- '--trace FILE *write the JSON-lines trace' "$tmp/h.run" &&
	! grep -q -- '--json' "$tmp/h.run" && ok "run --help: run's options, each explained" ||
	not_ok "run --help"
grep -q -- '--json *JSON instead of a table' "$tmp/h.status" && ! grep -q -- '--trace' "$tmp/h.status" &&
	ok "status --help: its own option only" || not_ok "status --help"
# every option of the tables (tests/build/cli_dump prints them: the parsers'
# own) in the --help of its program
DUMP=$BUILD/tests/build/cli_dump
table_opts() { "$DUMP" "$1" | awk -F'\t' '$1 == "option" && $7 !~ /hidden/ { print $2 }'; }
"$RF" --help > "$tmp/h.all"
"$MON" --help > "$tmp/h.mon"
n_rf=$(table_opts ringfence | wc -l)
n_mon=$(table_opts ringfence-monitor | wc -l)
if [ "$n_rf" -gt 10 ] && [ "$n_mon" -gt 20 ]; then
	missing=$(table_opts ringfence | while read -r o; do grep -qE -- "$o\b" "$tmp/h.all" || echo "$o"; done)
	[ -z "$missing" ] && ok "ringfence --help names every option ($n_rf)" ||
		not_ok "ringfence --help lacks: $missing"
	missing=$(table_opts ringfence-monitor | while read -r o; do grep -qE -- "$o\b" "$tmp/h.mon" || echo "$o"; done)
	[ -z "$missing" ] && ok "ringfence-monitor --help explains every long option ($n_mon)" ||
		not_ok "ringfence-monitor --help lacks: $missing"
else
	not_ok "$DUMP lists only $n_rf and $n_mon options (is it built?)"
fi

# usage errors that name what is allowed
expect "an unknown --require backend: every accepted name is listed" 125 \
	'unknown backend "nosuch" \(cgroup-sock-addr, .*, tmpfs\)' \
	"$RF" check --require nosuch --policy "$tmp/policy.json"
expect "another command's option: the commands that take it are named" 125 \
	'--json is only for lint and status' "$RF" unload --json

# monitor.files: each bad entry named, one line, exit 125 (the policy's)
mf() { # NAME FILES-JSON
	printf '{"version":1,"id":"mf","files":"unrestricted","exec":"unrestricted","network":"unrestricted","monitor":{"files":%s}}\n' \
		"$2" > "$tmp/mf-$1.json"
}
mf rel '["/usr/","etc/hostname"]'
mf empty '[]'
mf num '[1]'
expect "monitor.files: a relative path is named, exit 125" 125 \
	'\$\.monitor\.files\[1\]: path must be absolute' "$RF" check --policy "$tmp/mf-rel.json"
expect "monitor.files: an empty list is named, exit 125" 125 \
	'\$\.monitor\.files: expected a non-empty array of absolute paths' \
	"$RF" check --policy "$tmp/mf-empty.json"
expect "monitor.files: a non-string is named, exit 125" 125 \
	'\$\.monitor\.files\[0\]: expected a string' "$RF" check --policy "$tmp/mf-num.json"

# --label and TRACEPARENT
expect "--label with an upper-case key: usage error naming it" 125 \
	'--label Job=x: the key must start' "$RF" run --label Job=x --policy "$tmp/policy.json" -- true
expect "--label without =: usage error" 125 '--label job: expected key=value' \
	"$RF" run --label job --policy "$tmp/policy.json" -- true
expect "--label with a control character: usage error" 125 'printable ASCII' \
	"$RF" run --label "job=a$(printf '\t')b" --policy "$tmp/policy.json" -- true
expect "--label twice with one key: usage error" 125 'given twice' \
	"$RF" run --label a=1 --label a=2 --policy "$tmp/policy.json" -- true
nine=(); for i in 1 2 3 4 5 6 7 8 9; do nine+=(--label "k$i=v"); done
expect "nine labels: usage error" 125 'at most 8 labels' \
	"$RF" run "${nine[@]}" --policy "$tmp/policy.json" -- true
expect "--label on check: usage error" 125 '--label is only for run' \
	"$RF" check --label a=1 --policy "$tmp/policy.json"
if [ "$(id -u)" = 0 ]; then
	# an invalid TRACEPARENT is said; the run stops at the policy (bad
	# file), before anything is created
	expect "an invalid TRACEPARENT is named and not recorded" 125 \
		'TRACEPARENT is not a W3C traceparent' \
		env TRACEPARENT=junk "$RF" run --policy /nonexistent.json -- true
fi

# alerts: op and class names, amounts in units people read
"$PYTHON" tests/ocsf/recording.py > "$tmp/rec.jsonl"
"$MON" --replay "$tmp/rec.jsonl" --output "$tmp/alerts.jsonl"
if grep -q 'most to process:kill' "$tmp/alerts.jsonl" && ! grep -qE ':op[0-9]+' "$tmp/alerts.jsonl"
then ok "alert messages name ops (process:kill), never op<N>"
else not_ok "alert messages lack op names"; fi
if grep -q 'memory at 200 MiB, above the threshold 64 MiB' "$tmp/alerts.jsonl"
then ok "memory alerts in MiB"
else not_ok "memory alerts not in MiB"; fi
exit $fail
