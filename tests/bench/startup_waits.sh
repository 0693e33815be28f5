#!/bin/bash
# Start-up and the kernel's waits on a run's path (issue 25), quiet and
# loaded: `ringfence run -q --policy P -- /bin/true` (10 network rules) vs
# bubblewrap and bare /bin/true, interleaved rounds (min/median/max), then
# one run's RINGFENCE_TIMINGS steps and the runs' syscalls by time
# (strace -f -T, aggregated by name) and the hand-offs between processes
# (perf's sched tracepoints: blocking switches, wake-ups, new tasks), with
# PASS/MISS against issue 25's targets. "loaded":
# the same with both CPUs kept busy by two shell loops (killed at the end).
#   tests/bench/startup_waits.sh [BUILD] [quiet|loaded|both]
# Runs sandboxes: take the host lock around it on a shared host.
set -euo pipefail
BUILD=${1:-build}
MODE=${2:-both}
RF=$BUILD/ringfence
ROUNDS=${BENCH_ROUNDS:-20}
STRACE_RUNS=${BENCH_STRACE_RUNS:-5}
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
tmp=$(mktemp -d)
busy=()
stop_busy() { local p; for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${busy[@]}"; do wait "$p" 2>/dev/null || true; done; busy=(); }
trap 'stop_busy; rm -rf "$tmp"' EXIT

python3 - > "$tmp/p10.json" <<'PY'
import json
conn = ["127.0.0.1:18399"] + ["10.0.0.%d:443" % i for i in range(1, 10)]
print(json.dumps({"version": 1, "id": "startup10", "files": "unrestricted",
                  "exec": "unrestricted", "network": {"connect": conn, "unix": []}}))
PY

ms() {
	local t0=${EPOCHREALTIME/./} t1
	"$@" >/dev/null 2>&1 || true
	t1=${EPOCHREALTIME/./}
	echo $((t1 - t0))
}
stats() { sort -n | awk '{v[NR]=$1} END {printf "%.2f %.2f %.2f", v[1]/1000, v[int((NR+1)/2)]/1000, v[NR]/1000}'; }
verdict() { if awk "BEGIN{exit !($1)}"; then echo PASS; else echo MISS; fi; }

# Scheduler events per run of "$@": blocking switches (a task of the run
# slept), all switches, wake-ups and new tasks made by the run's tasks
# (perf's sched tracepoints over ROUNDS runs, minus as many /bin/true).
# Structure, not timing: each wake-up of another task waits for a CPU on a
# busy host.
sched_events() {
	local a b
	ev() { perf stat -x, -e sched:sched_switch --filter 'prev_state & 3' \
		-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new -- \
		bash -c 'for ((i = 0; i < '"$ROUNDS"'; i++)); do "$@" >/dev/null 2>&1; done' x "$@" \
		2>&1 | cut -d, -f1 | tr '\n' ' '; }
	a=$(ev "$@") && b=$(ev /bin/true) || { echo "(perf stat failed)"; return; }
	awk -v n="$ROUNDS" -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ")
		printf "blocking %.2f, switches %.2f, wake-ups %.2f, new tasks %.2f\n",
		(x[1] - y[1]) / n, (x[2] - y[2]) / n, (x[3] - y[3]) / n, (x[4] - y[4]) / n }'
}

measure() {
	local label=$1 i run=() bw=() bare=()
	"$RF" run -q --policy "$tmp/p10.json" -- /bin/true >/dev/null 2>&1 || true  # load, warm
	for ((i = 0; i < ROUNDS; i++)); do
		bare+=("$(ms /bin/true)")
		run+=("$(ms "$RF" run -q --policy "$tmp/p10.json" -- /bin/true)")
		bw+=("$(ms bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true)")
	done
	local r b maps
	r=$(printf '%s\n' "${run[@]}" | stats)
	b=$(printf '%s\n' "${bw[@]}" | stats)
	echo "== $label ($ROUNDS rounds, ms min/median/max)"
	echo "ringfence run: $r"
	echo "bwrap:         $b"
	echo "bare:          $(printf '%s\n' "${bare[@]}" | stats)"
	echo "target: run median <= bwrap median: $(verdict "$(echo "$r" | cut -d' ' -f2) <= $(echo "$b" | cut -d' ' -f2)")"
	if command -v perf >/dev/null; then
		echo "-- scheduler events per run ($ROUNDS runs): the hand-offs between processes"
		echo "ringfence run: $(sched_events "$RF" run -q --policy "$tmp/p10.json" -- /bin/true)"
		echo "bwrap:         $(sched_events bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true)"
	fi
	echo "-- RINGFENCE_TIMINGS of one run (steps over 0.5 ms, the maps steps, the pool):"
	RINGFENCE_TIMINGS=1 "$RF" run -q --policy "$tmp/p10.json" -- /bin/true 2>"$tmp/t" >/dev/null || true
	awk '/timing:/ { v = $(NF-1) + 0; if (v >= 0.5 || / maps|pool|emptied/) print }' "$tmp/t"
	maps=$(awk '/timing: (step|undo) maps:/ { if ($(NF-1) + 0 > m) m = $(NF-1) + 0 } END { print m + 0 }' "$tmp/t")
	echo "target: step/undo maps (the grace periods) <= 1 ms: $(verdict "$maps <= 1")"
	echo "-- syscalls by time, per run over $STRACE_RUNS runs (strace -f -T): mounts,"
	echo "   namespaces, cgroups and bpf always, the rest when a call took over 0.5 ms:"
	for ((i = 0; i < STRACE_RUNS; i++)); do
		strace -f -T -qq -e signal=none -o "$tmp/st.$i" \
			"$RF" run -q --policy "$tmp/p10.json" -- /bin/true >/dev/null 2>&1 || true
	done
	cat "$tmp"/st.* | awk -v runs="$STRACE_RUNS" '
	/<[0-9.]+>$/ {
		t = $NF; gsub(/[<>]/, "", t); line = $0; sub(/^[0-9]+ +/, "", line)
		name = line
		if (line ~ /^<\.\.\. /) { sub(/^<\.\.\. /, "", name); sub(/ resumed.*/, "", name) }
		else sub(/\(.*/, "", name)
		if (name == "bpf" && match(line, /BPF_[A-Z_]+/)) name = "bpf:" substr(line, RSTART, RLENGTH)
		if (name !~ /mount|unshare|clone|rmdir|mkdir|setns|pivot|^bpf/ && t < 0.0005) next
		tot[name] += t; n[name]++; if (t > mx[name]) mx[name] = t
	}
	END { for (k in tot) printf "%-28s %5.1f calls %8.3f ms (max %.3f)\n", k, n[k] / runs,
		tot[k] * 1000 / runs, mx[k] * 1000 }' | sort -k4 -rn | head -20
	rm -f "$tmp"/st.*
}

if [ "$MODE" != loaded ]; then measure quiet; fi
if [ "$MODE" != quiet ]; then
	for _ in 1 2; do sh -c 'while :; do :; done' & busy+=($!); done
	measure "loaded (2 busy loops)"
	stop_busy
fi
