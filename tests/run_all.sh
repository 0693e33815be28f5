#!/bin/bash
# make test: every suite, in order, then one closing line "N passed, N failed"
# (test cases, counted from each suite's own report). Exit non-zero if any
# suite failed or a suite did not report.
set -uo pipefail
# Root only: the host suites load BPF programs and make cgroups, the VM
# suites mknod and apt-get download their kernels; skipped they would pass
# without testing anything. --can-run: only this check (make test, first).
if [ "$(id -u)" != 0 ]; then
	echo "make test: needs root (the host suites load BPF programs and make cgroups, the VM suites mknod and download kernels); as a user: make unit unit-san fuzz" >&2
	exit 2
fi
[ "${1:-}" != --can-run ] || exit 0
# BUILD_DIR from the caller's directory; the suites run from the top of
# the tree, wherever it is (a path with spaces included).
BUILD_ABS=$(cd "${1:-build}" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.." || exit 2
export BUILD=$BUILD_ABS RINGFENCE=$BUILD_ABS/ringfence TOOLS=$BUILD_ABS/tests/tools
export EXAMPLES=$PWD/schemas/examples
# Some tests run tools as uid 65534 (nobody): a checkout below a directory
# others cannot enter (mktemp -d, a 0700 home) would fail them for that
# alone, so the tools then go to a copy nobody can reach.
TOOLS_COPY=
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TOOLS/rf-inspect" 2> /dev/null; then
	TOOLS_COPY=$(mktemp -d /tmp/ringfence-tools.XXXXXX)
	chmod 755 "$TOOLS_COPY"
	cp -a "$TOOLS"/. "$TOOLS_COPY"/ && chmod -R a+rX "$TOOLS_COPY"
	echo "note: uid 65534 cannot reach $TOOLS (a parent directory is private): the tests use a copy in $TOOLS_COPY"
	export TOOLS=$TOOLS_COPY
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1

passed=0 failed=0 broken=()
# A test program (not a compiler's .d dependency file).
prog() { [ -f "$1" ] && [ -x "$1" ] && [ "${1%.d}" = "$1" ]; }

# What a suite left running (this build's supervisors, reapers, monitors
# and their sandboxes) is killed and cleaned up after it, and counted as a
# failure of that suite: never of the next one, whose runs a live leftover
# would refuse. tests/leftovers.py says how.
SNAP=$(mktemp)
trap 'rm -f "$SNAP" "$TIMES"; [ -z "$TOOLS_COPY" ] || rm -rf "$TOOLS_COPY"' EXIT
leftovers() { # label [snapshot]: 0 when the suite left nothing live
	local out rc
	out=$(python3 "$HERE/leftovers.py" clean "$BUILD" "$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^left: /# left: /'
	return $rc
}

# Seconds per suite, for the closing list of the slowest (CI's budget).
TIMES=$(mktemp)
run() { # label command...
	local log rc p f label=$1 t0=$SECONDS
	log=$(mktemp)
	echo "== $label"
	shift
	python3 "$HERE/leftovers.py" snapshot "$BUILD" > "$SNAP"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if ! leftovers "$SNAP"; then
		echo "not ok - $label: left processes or sandboxes running (killed and removed above)" |
			tee -a "$log"
		rc="$rc, left sandboxes"
	fi
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	p=$((p + $(grep -c '^ok - ' "$log"))) f=$((f + $(grep -c '^not ok - ' "$log")))
	rm -f "$log"
	printf '%d\t%s\n' $((SECONDS - t0)) "$label" >> "$TIMES"
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$rc" != 0 ] || [ $((p + f)) = 0 ]; then broken+=("$label (exit $rc)"); fi
}

echo "== host: clean before the first suite"
if leftovers; then
	echo "ok - host: no sandbox or process of ringfence runs"
	passed=$((passed + 1))
else
	echo "not ok - host: clean before the first suite: see the lines above"
	failed=$((failed + 1)) broken+=("host: clean before the first suite")
fi
run "host: a suite's leftovers are found, killed and blamed (self-test)" \
	python3 "$HERE/leftovers.py" selftest "$BUILD"
run "build: ringfence-monitor links librf.a only" tests/build/check_monitor_link.sh "$BUILD"
run "build: doc links" tests/build/check_doc_links.sh
run "build: no import circles among files or rooms" tests/build/check_circles.py "$BUILD"
run "build: ARCHITECTURE.md's file map names every source; private headers stay private" tests/build/check_file_map.sh
run "build: the CLI table vs man pages, README and bash/zsh/fish completions" \
	tests/build/check_cli_docs.py "$BUILD"
for t in "$BUILD"/tests/unit/test_*; do prog "$t" && run "unit: ${t##*/}" "$t"; done
for t in "$BUILD"/san/tests/unit/test_*; do prog "$t" && run "unit under ASan+UBSan: ${t##*/}" "$t"; done
run "ocsf: alerts against the official OCSF 1.3.0 schema" tests/ocsf/run.sh "$BUILD"
run "sinks: syslog (private rsyslogd), OTLP and webhook receivers, spool, kill and restart" \
	tests/sinks/run.sh "$BUILD"
run "cli: messages (needs root, --help, --label, numbers, names)" tests/cli/messages.sh "$BUILD"
run "fuzz: parsers (libFuzzer, short)" tests/fuzz/run.sh "$BUILD"
for t in "$BUILD"/tests/bpf/test_*; do prog "$t" && run "bpf: ${t##*/}" "$t"; done
for t in "$BUILD"/tests/host/test_*; do prog "$t" && run "host: ${t##*/}" "$t"; done
run "host: trace and policy schemas" tests/host/test_trace_schema.sh "$BUILD"
run "host: every example policy, check/run parity" tests/host/test_examples.sh "$BUILD"
run "host: the OCI hook with podman and crun" tests/host/test_oci.sh "$BUILD"
run "pkg: make install, the Debian package, installed binaries" tests/pkg/run.sh "$BUILD"
run "host: attack suite (this host's backends)" env ATTACK_LABEL="host $(uname -r)" tests/attack/run.sh
# The VMs (qemu TCG, one CPU each). The 7.3 runs go in the background, one
# after the other (they share a kernel cache), while 6.1 runs here: CI's
# budget. Each keeps its own console log. The attack suite's smoke set
# only; the whole matrix is `make vmtest`.
vm73() {
	local c="${VM_CACHE73:-$BUILD/vm73}"
	echo "== vm: Debian 7.3 kernel without BPF-LSM, Landlock audit log (qemu)"
	env VM_KERNEL=7.3 VM_CACHE="$c" ATTACK_SET=smoke VM_LOG="$BUILD/vm73-console.log" \
		tests/vm/run.sh "$BUILD"
	local rc1=$?
	# and a newcomer's first `learn --verify` of gcc, git, python3, make
	# and tar under BPF-LSM (learn_newcomer, about 40 s)
	echo "== vm: Debian 7.3 kernel with BPF-LSM, attack smoke set, learn as a newcomer, monitor.files, the unix ledger (qemu)"
	env VM_KERNEL=7.3 VM_CACHE="$c" ATTACK_SET=smoke VM_LOG="$BUILD/vm73lsm-console.log" \
		VM_APPEND=lsm=lockdown,capability,landlock,yama,bpf \
		tests/vm/run.sh "$BUILD" attack backends learn_newcomer monitor_files ledger_unix
	local rc2=$?
	# The monitor under the shipped unit, systemd as PID 1 (6.1; about
	# 40 s alone): here, while the longer 6.1 run goes on, it costs make
	# test no wall time (the 6.1 kernel cache is only read by both).
	echo "== vm: ringfence-monitor under its systemd unit (qemu, systemd as PID 1)"
	env VM_SYSTEMD=1 VM_LOG="$BUILD/vm-systemd-console.log" tests/vm/run.sh "$BUILD" monitor_unit
	local rc3=$?
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$rc3" = 0 ]
}
vm73_log=$(mktemp)
vm73 > "$vm73_log" 2>&1 &
vm73_pid=$!
run "vm: Debian cloud kernel with BPF-LSM (qemu)" env VM_TIMEOUT="${VM_TIMEOUT:-600}" \
	ATTACK_SET=smoke tests/vm/run.sh "$BUILD"
wait "$vm73_pid"
vm73_rc=$?
run "vm: Debian 7.3 kernel, without and with BPF-LSM, and the monitor's unit under systemd (qemu, in parallel with 6.1)" \
	sh -c 'cat "$1"; exit "$2"' _ "$vm73_log" "$vm73_rc"
rm -f "$vm73_log"

echo
echo "# the slowest suites (s; the 7.3 VMs ran beside 6.1), of ${SECONDS} s in all:"
sort -rn "$TIMES" | head -n 8 | sed 's/^/#   /'
if [ ${#broken[@]} -gt 0 ]; then
	printf 'suite failed: %s\n' "${broken[@]}"
fi
echo "$passed passed, $failed failed"
[ ${#broken[@]} = 0 ] && [ "$failed" = 0 ]
