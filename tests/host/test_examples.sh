#!/usr/bin/env bash
# Every policy in schemas/examples is run here, and `check` is a faithful
# dry run of `run`:
#   - each example is listed below with what it needs; an example not
#     listed fails the test. `check` must pass on this host, except where
#     the example needs a backend this host lacks: then check must refuse
#     it naming exactly that (the VM suite tests/vm/guest/examples.sh
#     checks it where the backend exists);
#   - the jobs the examples describe are run for real: the Python data job
#     computes its output and cannot read /etc/passwd or connect anywhere,
#     the compiler run builds a program and cannot write outside build/,
#     the CI job reaches its mirror's address and port only and writes only
#     its workspace, demo and audit run;
#   - check and run of the same policy exit alike with the same message:
#     several invalid entries (all listed, 125), an unknown variable (125),
#     a DNS name that does not resolve (126), a symlink entry (the target
#     named), "/usr" without its '/' (told to write "/usr/").
# Needs root (BPF, cgroups) and BUILD_DIR/tests/tools/rf-net; hold
# /tmp/rf-host.lock on a shared host.
# Usage: tests/host/test_examples.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
NET=$BUILD/tests/tools/rf-net  # copied below $W: ci-job gets a private /tmp
EX=$(pwd)/schemas/examples
fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
show()   { sed 's/^/#   /' "$1" | head -"${2:-12}"; }

if [ "$(id -u)" != 0 ]; then
	echo "ok - skipped: not root (check and run need BPF and cgroups)"
	exit 0
fi
# Not under /tmp: the examples' scratch tmpfs covers /tmp, but a working
# directory under the host's /tmp would stay reachable (and writable) as ".".
W=$(mktemp -d /var/tmp/rf-examples-XXXXXX)
chmod 755 "$W"
# ci-job writes /tmp/, so it gets a private /tmp: a checkout below /tmp
# (CI's) would be hidden from it, the tool with it.
cp "$NET" "$W/rf-net" && NET=$W/rf-net
trap 'rm -rf "$W"' EXIT

# ---- every example: what it needs, check on this host ----
# NAME: "host" (check passes here) or the limits it needs; those are
# refused here exactly when the probe says the controller is missing.
declare -A needs=(
	[demo]=host [audit]=host [ci-job]=host [python-data]=host [compiler]=host
	[agent-tool]="memory_mb pids cpu_percent"
)
mkdir -p "$W/job/data" "$W/job/out" "$W/job/build"
"$RF" probe > "$W/probe.json" 2> /dev/null
for f in "$EX"/*.json; do
	name=$(basename "$f" .json)
	if [ -z "${needs[$name]+x}" ]; then
		not_ok "example $name is listed in tests/host/test_examples.sh with what it needs"
		continue
	fi
	(cd "$W/job" && "$RF" check --policy "$f") > "$W/check.out" 2> "$W/check.err"
	rc=$?
	if [ "${needs[$name]}" = host ]; then
		if [ $rc = 0 ]; then ok "check $name passes on this host"
		else not_ok "check $name passes on this host (exit $rc)"; show "$W/check.err"; fi
		continue
	fi
	# Refused here for the limits it needs, each named, and for nothing else.
	missing=()
	for l in ${needs[$name]}; do
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if "reason" in d["classes"]["limits"][sys.argv[2]] else 1)' "$W/probe.json" "$l" &&
			missing+=("$l")
	done
	if [ ${#missing[@]} = 0 ] && [ $rc = 0 ]; then
		ok "check $name passes on this host (it has ${needs[$name]})"
	elif [ ${#missing[@]} -gt 0 ] && [ $rc = 126 ] &&
	     [ "$(grep -c '^ringfence:   - ' "$W/check.err")" = ${#missing[@]} ] &&
	     for l in "${missing[@]}"; do grep -q "limits: $l: " "$W/check.err" || exit 1; done; then
		ok "check $name is refused here only for ${missing[*]} (tests/vm/guest/examples.sh checks it with them)"
	else
		not_ok "check $name: exit $rc, missing here: ${missing[*]:-none}"
		show "$W/check.err"
	fi
done

# ---- the jobs, for real ----
# run NAME POLICY CMD...: in $W/job, output in $W/NAME.{out,err}, exit in rc
run() {
	local name=$1 policy=$2
	shift 2
	(cd "$W/job" && "$RF" run -q --policy "$policy" -- "$@") > "$W/$name.out" 2> "$W/$name.err"
	rc=$?
}

printf 'a,b\n1,2\n3,4\n' > "$W/job/data/in.csv"
run python "$EX/python-data.json" /usr/bin/python3 -c '
import csv, socket
rows = list(csv.reader(open("data/in.csv")))
open("out/sum.txt", "w").write(str(sum(int(r[0]) for r in rows[1:])))
for what, f in (("read /etc/passwd", lambda: open("/etc/passwd").read()),
                ("write data/x", lambda: open("data/x", "w")),
                ("connect 127.0.0.1:9", lambda: socket.create_connection(("127.0.0.1", 9), 2))):
    try:
        f(); print(what, "ok")
    except PermissionError:
        print(what, "EPERM/EACCES")
    except OSError as e:  # EROFS: the read-only tree outside the write rules
        print(what, "EPERM/EACCES" if e.errno == 30 else e)
'
if [ $rc = 0 ] && [ "$(cat "$W/job/out/sum.txt" 2> /dev/null)" = 4 ] &&
   grep -q '^read /etc/passwd EPERM/EACCES$' "$W/python.out" &&
   grep -q '^write data/x EPERM/EACCES$' "$W/python.out" &&
   grep -q '^connect 127.0.0.1:9 EPERM/EACCES$' "$W/python.out"; then
	ok "python-data: the job writes out/sum.txt; reading /etc/passwd, writing data/ and connecting are denied"
else
	not_ok "python-data job (exit $rc)"; show "$W/python.out"; show "$W/python.err"
fi

printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' > "$W/job/hello.c"
run cc "$EX/compiler.json" gcc -O2 -o build/hello hello.c
if [ $rc = 0 ] && [ "$("$W/job/build/hello")" = hello ]; then
	ok "compiler: gcc builds build/hello inside the sandbox"
else
	not_ok "compiler: gcc builds build/hello (exit $rc)"; show "$W/cc.err"
fi
run cc-out "$EX/compiler.json" gcc -O2 -o hello hello.c
if [ $rc != 0 ] && [ ! -e "$W/job/hello" ] && grep -Eq "Permission denied|Read-only file system" "$W/cc-out.err"; then
	ok "compiler: an output outside build/ is denied"
else
	not_ok "compiler: an output outside build/ is denied (exit $rc)"; show "$W/cc-out.err"
fi

# The mirror's address as the supervisor resolves it (getent: the same
# resolver library); UDP connect() is judged without waiting for a peer.
mirror=$(getent ahostsv4 deb.debian.org | awk 'NR == 1 { print $1 }')
if [ -z "$mirror" ]; then
	not_ok "ci-job: deb.debian.org resolves on this host (check passed above?)"
else
	# The job looks the mirror up first: through its DNS gate, which opens
	# the addresses it answers with (a connect by address alone is denied).
	run ci "$EX/ci-job.json" sh -c 'echo built > artifact && getent ahostsv4 deb.debian.org > lookup.txt && "$1" udpconn "$2" 443 udpconn "$2" 22 tcp 127.0.0.1 9; echo x > /etc/rf-ci-job-test' _ "$NET" "$mirror"
	if grep -q "^udpconn $mirror:443 ok" "$W/ci.out" && grep -q "^udpconn $mirror:22 EPERM" "$W/ci.out" &&
	   grep -q "^tcp 127.0.0.1:9 EPERM" "$W/ci.out" && [ "$(cat "$W/job/artifact")" = built ] &&
	   [ ! -e /etc/rf-ci-job-test ] && grep -Eq "Permission denied|Read-only file system" "$W/ci.err"; then
		ok "ci-job: the mirror ($mirror) on 443 only, the workspace writable, /etc not"
	else
		not_ok "ci-job (exit $rc)"; show "$W/ci.out"; show "$W/ci.err"
	fi
	rm -f /etc/rf-ci-job-test
fi

run demo "$EX/demo.json" "$NET" tcp 127.0.0.1 18081
if [ $rc = 0 ] && grep -q "^tcp 127.0.0.1:18081 EPERM" "$W/demo.out"; then
	ok "demo: a port outside the allowlist is denied"
else
	not_ok "demo (exit $rc)"; show "$W/demo.out"; show "$W/demo.err"
fi
run audit "$EX/audit.json" "$NET" tcp 127.0.0.1 18081
if [ $rc = 0 ] && ! grep -q "EPERM" "$W/audit.out"; then
	ok "audit: the same connection is recorded, not denied"
else
	not_ok "audit (exit $rc)"; show "$W/audit.out"; show "$W/audit.err"
fi

# ---- check and run agree ----
# parity NAME WANT_RC PATTERN POLICY_JSON [N]: check and run exit WANT_RC
# and print the same error lines, one matching PATTERN (and N listed
# entries or reasons, "ringfence:   - " lines; default 1).
parity() {
	local name=$1 want=$2 pat=$3 n=${5:-1} crc rrc
	printf '%s\n' "$4" > "$W/p.json"
	(cd "$W/job" && "$RF" check --policy "$W/p.json") > /dev/null 2> "$W/c.err"
	crc=$?
	(cd "$W/job" && "$RF" run -q --policy "$W/p.json" -- /bin/true) > /dev/null 2> "$W/r.err"
	rrc=$?
	if [ $crc = "$want" ] && [ $rrc = "$want" ] && cmp -s "$W/c.err" "$W/r.err" &&
	   grep -qE -- "$pat" "$W/c.err" && [ "$(grep -c '^ringfence:   - ' "$W/c.err")" = "$n" ]; then
		ok "check and run agree: $name (exit $want)"
	else
		not_ok "check and run agree: $name (check $crc, run $rrc, want $want)"
		echo "# check:"; show "$W/c.err"; echo "# run:"; show "$W/r.err"
	fi
}
H='"version": 1, "id": "p", "network": "unrestricted"'
parity "every invalid entry listed" 125 '3 invalid entries' \
	"{$H, \"files\": {\"read\": [\"usr/\"]}, \"exec\": [\"/a/../b\"], \"colour\": 1}" 3
parity "unknown variable" 125 'unknown variable "\$\{USER\}"' \
	"{$H, \"files\": \"unrestricted\", \"exec\": [\"\${USER}/bin/\"]}" 0
# Resolved at start only with "dns": "once"; under the DNS gate (the
# default) a name is looked up when the command asks for it.
parity "a DNS name that does not resolve (dns once)" 126 'rf-no-such-host.invalid' \
	'{"version": 1, "id": "p", "files": "unrestricted", "exec": "unrestricted",
	  "network": {"connect": ["rf-no-such-host.invalid:443"], "unix": [], "dns": "once"}}' 0
parity "a symlink entry names its target" 126 'is a symlink to "/usr/bin/dash".*write "/usr/bin/dash"' \
	"{$H, \"files\": \"unrestricted\", \"exec\": [\"/bin/sh\"]}"
parity "/usr without its slash" 126 '"/usr": is a directory.*write "/usr/"' \
	"{$H, \"files\": {\"read\": [\"/usr\"]}, \"exec\": \"unrestricted\"}"
parity "every Landlock entry at once" 126 '\(2 reasons\)' \
	"{$H, \"files\": {\"read\": [\"/usr\"]}, \"exec\": [\"/bin/sh\"]}" 2
parity "a variable shown resolved" 126 "\"$W/job/nope/\": does not exist" \
	"{$H, \"files\": {\"read\": [\"\${PWD}/nope/\"]}, \"exec\": \"unrestricted\"}"

# The trace shows the resolved paths.
printf '%s\n' "{$H, \"files\": {\"read\": [\"/usr/\", \"/etc/\", \"\${PWD}/data/\"]}, \"exec\": \"unrestricted\"}" > "$W/v.json"
(cd "$W/job" && "$RF" run -q --policy "$W/v.json" --trace "$W/v.trace" -- /bin/true) 2> "$W/v.err"
rc=$?
if [ $rc = 0 ] && grep -q "\"policy_variables\":{\"PWD\":\"$W/job\"}" "$W/v.trace"; then
	ok "variables: the trace shows \${PWD} resolved"
else
	not_ok "variables: the trace shows \${PWD} resolved (exit $rc)"; show "$W/v.err"
	grep -o '"policy_variables".\{60\}' "$W/v.trace" | head -3
fi
exit $fail
