#!/bin/bash
# make bench (monitor part): ringfence-monitor's cost and capacity, side by
# side in one run; asserts nothing.
#   - sustained drain rate: denied connects from sandboxes in parallel while
#     the monitor drains the supervisor's ring buffer; events/s consumed,
#     events lost (the kernel's counter), and the monitor's CPU per event;
#   - per-syscall cost of the monitor's own programs (its sys_exit sensor)
#     on processes outside sandboxes, as ratios, next to the floor of any
#     syscall-tracepoint program;
#   - alert latency: cause -> first alert record in the output file;
#   - the drain with every sink on (--journal, --syslog, --otlp, --webhook)
#     and every receiver down: `monitor.sh BUILD sinks` runs it alone;
#   - the drain with the DNS gate's records, without and with --activity,
#     and with --activity and every sink on (the DNS Activity records go
#     to every sink's spool): `monitor.sh BUILD activity` runs it alone.
set -euo pipefail
BUILD=${1:-build}
RF=$BUILD/ringfence
MON=$BUILD/ringfence-monitor
NET=$BUILD/tests/tools/rf-net
LOAD=$BUILD/tests/tools/rf-load
BENCH=$BUILD/tests/bench/rf-bench
FLOOR=$BUILD/tests/bench/rf-tpfloor
FLOOD=$BUILD/tests/bench/rf-flood
N=${BENCH_N:-20000}          # denied connects per producer
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for b in "$RF" "$MON" "$NET" "$LOAD" "$BENCH" "$FLOOR" "$FLOOD"; do [ -x "$b" ] || { echo "bench: $b not built" >&2; exit 1; }; done
tmp=$(mktemp -d)
monpid=
holdpid=
cleanup() {
	[ -n "$monpid" ] && kill "$monpid" 2>/dev/null && wait "$monpid" 2>/dev/null || true
	[ -n "$holdpid" ] && kill "$holdpid" 2>/dev/null && wait "$holdpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

cat > "$tmp/deny.json" <<'EOF'
{"version":1,"id":"bench-deny","files":"unrestricted","exec":"unrestricted",
 "network":{"connect":[],"unix":[]},"monitor":{"deny_burst":{"count":1000000,"window_ms":1}}}
EOF
cat > "$tmp/plain.json" <<'EOF'
{"version":1,"id":"bench-plain","files":"unrestricted","exec":"unrestricted","network":"unrestricted"}
EOF
cat > "$tmp/burst.json" <<'EOF'
{"version":1,"id":"bench-burst","files":"unrestricted","exec":"unrestricted",
 "network":{"connect":[],"unix":[]},"monitor":{"deny_burst":{"count":10,"window_ms":1000}}}
EOF

metric() { # name{labels} from the textfile
	awk -v k="$1" '$1 == k {print $2}' "$tmp/metrics.prom" 2>/dev/null | tail -1
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

start_monitor() { # extra args
	rm -f "$tmp/status.json"
	"$MON" -q --output "$tmp/alerts.ndjson" --state "$tmp/state.json" --status "$tmp/status.json" \
		--metrics-file "$tmp/metrics.prom" --interval 200 --linger-ms 500 ${MONITOR_ARGS:-} "$@" &
	monpid=$!
	for _ in $(seq 100); do [ -e "$tmp/status.json" ] && return 0; sleep 0.05; done
	echo "bench: ringfence-monitor did not start" >&2; exit 1
}
stop_monitor() { kill -INT "$monpid"; wait "$monpid" || true; monpid=; }

echo "ringfence-monitor bench ($(uname -r), $(nproc) CPUs)"
echo

# Make sure the pinned set exists before anything is measured.
$RF run -q --policy "$tmp/plain.json" -- /bin/true

# `monitor.sh BUILD sinks`: only the drain with the sinks on (below).
if [ -z "${2:-}" ]; then
# ---- drain rate ------------------------------------------------------------
# Denied connects at a paced rate (rf-load deny-rate), one second per step,
# two producer sandboxes above 100k/s; the kernel's lost counter as the
# monitor reports it (lost_events_total{hop="kernel-decisions"}).
start_monitor
printf '%-26s %10s %10s %10s %8s %14s %14s\n' "drain (denied connects)" "offered/s" "achieved/s" "consumed" "lost" "mon CPU ns/ev" "capacity ev/s"
best=0
for RATE in 10000 25000 50000 75000 100000 150000 200000; do
	P=1; [ "$RATE" -gt 100000 ] && P=2
	sleep 0.5
	ev0=$(metric 'ringfence_monitor_events_total{source="decision"}'); ev0=${ev0:-0}
	lost0=$(metric 'ringfence_monitor_lost_events_total{hop="kernel-decisions"}'); lost0=${lost0:-0}
	cpu0=$(cpu_ticks "$monpid")
	pids=()
	for i in $(seq "$P"); do
		$RF run -q --policy "$tmp/deny.json" -- "$LOAD" deny-rate $((RATE / P)) 1000 9 > "$tmp/prod.$i" &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	sleep 0.6   # the metrics file catches up (written every 200 ms)
	ev1=$(metric 'ringfence_monitor_events_total{source="decision"}'); ev1=${ev1:-0}
	lost1=$(metric 'ringfence_monitor_lost_events_total{hop="kernel-decisions"}'); lost1=${lost1:-0}
	cpu1=$(cpu_ticks "$monpid")
	achieved=$(cat "$tmp"/prod.* | sed -n 's/.*achieved=\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
	rm -f "$tmp"/prod.*
	ev=$((ev1 - ev0)) lost=$((lost1 - lost0))
	per=$(awk -v c="$((cpu1 - cpu0))" -v hz="$(getconf CLK_TCK)" -v ev="$ev" 'BEGIN{ if (ev) printf "%.0f", c * 1e9 / hz / ev; else print 0 }')
	cap=$(awk -v p="$per" 'BEGIN{ if (p > 0) printf "%.0f", 1e9 / p; else print "-" }')
	printf '%-26s %10s %10s %10s %8s %14s %14s\n' "" "$RATE" "$achieved" "$ev" "$lost" "$per" "$cap"
	if [ "$lost" = 0 ] && [ "$achieved" -gt "$best" ]; then best=$achieved; fi
done
stop_monitor
echo "sustained drain rate with zero loss: $best events/s (the highest rate achieved with nothing"
echo "  lost. The supervisor's ring buffer (16 MiB) holds about 42,000 records: a monitor not"
echo "  scheduled for that long at that rate loses events. mon CPU ns/ev: the monitor's CPU time"
echo "  per event at clock-tick resolution; capacity = 1e9 / that, what one busy CPU drains)"
echo
fi

# ---- drain capacity ----------------------------------------------------------
# rf-flood writes decision records of a live sandbox straight into the
# pinned ring buffer from a BPF program (no syscall per record), paced, two
# seconds per step: what the monitor drains when the producer is not the
# limit. lost: records the ring buffer had no room for.
flood_start() { # policy
	$RF run -q --policy "$1" -- /usr/bin/sleep 600 &
	floodsb=$!
	cgid=
	for _ in $(seq 100); do
		cgid=$($RF status --json | python3 -c 'import json, sys
print(next((e["cgroup_id"] for e in json.load(sys.stdin) if e["supervisor_pid"] == int(sys.argv[1])), ""))' "$floodsb")
		[ -n "$cgid" ] && break
		sleep 0.05
	done
}
flood_stop() { kill -TERM "$floodsb" 2>/dev/null || true; wait "$floodsb" 2>/dev/null || true; }
flood_steps() { # label: the steps against the running monitor; fbest: the best drained/s
	printf '%-26s %10s %10s %10s %8s %14s\n' "$1" "offered/s" "achieved/s" "consumed" "lost" "mon CPU ns/ev"
	fbest=0
	for RATE in 250000 500000 1000000 1500000 2000000 3000000; do
		sleep 0.5
		ev0=$(metric 'ringfence_monitor_events_total{source="decision"}'); ev0=${ev0:-0}
		cpu0=$(cpu_ticks "$monpid")
		out=$("$FLOOD" "$cgid" "$RATE" 2000)
		sleep 0.6
		ev1=$(metric 'ringfence_monitor_events_total{source="decision"}'); ev1=${ev1:-0}
		cpu1=$(cpu_ticks "$monpid")
		achieved=$(echo "$out" | sed -n 's/.*achieved=\([0-9]*\).*/\1/p')
		lost=$(echo "$out" | sed -n 's/.*lost=\([0-9]*\).*/\1/p')
		ev=$((ev1 - ev0))
		per=$(awk -v c="$((cpu1 - cpu0))" -v hz="$(getconf CLK_TCK)" -v ev="$ev" 'BEGIN{ if (ev) printf "%.0f", c * 1e9 / hz / ev; else print 0 }')
		printf '%-26s %10s %10s %10s %8s %14s\n' "" "$RATE" "$achieved" "$ev" "$lost" "$per"
		# drained per second over the step's 2 s: what the monitor took off
		# the ring (the producer's own pacing may fall a few records short)
		drained=$((ev / 2))
		if [ "$lost" = 0 ] && [ "$drained" -gt "$fbest" ]; then fbest=$drained; fi
	done
}

# With every sink on and every receiver dead (nothing listens on the
# ports, no journald answers where none runs): the alerts go to the
# sinks' spools while the ring buffer drains. The flood's sandbox has a
# burst of 10 in 1 s: its denials are one deny-burst alert at a time, an
# update record every 100 ms keeps records flowing into the sinks.
sinks_bench() {
	local dead
	dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	flood_start "$tmp/burst.json"
	start_monitor --journal --syslog "tcp://127.0.0.1:$dead" --otlp "http://127.0.0.1:$dead" \
		--webhook "http://127.0.0.1:$dead/hook" --spool-dir "$tmp/spool" --sink-drain-ms 0 \
		--update-ms 100
	flood_steps "drain (flood, all sinks)"
	sq=0 ss=0 sd=0
	for k in journal syslog otlp webhook; do
		sq=$((sq + $(metric "ringfence_monitor_sink_records_queued_total{sink=\"$k\"}")))
		ss=$((ss + $(metric "ringfence_monitor_sink_records_total{sink=\"$k\",outcome=\"spooled\"}")))
		sd=$((sd + $(metric "ringfence_monitor_sink_records_total{sink=\"$k\",outcome=\"dropped\"}")))
	done
	stop_monitor
	flood_stop
	printf '%-40s %s events/s  >= 1000000 %s\n' "zero-loss drain rate, every sink on and down" "$fbest" \
		"$([ "$fbest" -ge 1000000 ] && echo PASS || echo MISS)"
	echo "  (the sinks: $sq records queued, $ss spooled, $sd dropped, over the 4 sinks; each sink"
	echo "  delivers from its own thread, so the drain only copies a record into each queue)"
	echo
}
if [ "${2:-}" = sinks ]; then   # tests/bench/monitor.sh BUILD sinks: this section alone
	sinks_bench
	exit 0
fi

if [ -z "${2:-}" ]; then
flood_start "$tmp/deny.json"
start_monitor
flood_steps "drain (flood)"
stop_monitor
flood_stop
printf '%-40s %s events/s  >= 1000000 %s\n' "zero-loss drain rate (flood, drained/s)" "$fbest" \
	"$([ "$fbest" -ge 1000000 ] && echo PASS || echo MISS)"
echo
sinks_bench
fi

# ---- drain capacity with the DNS gate's records ---------------------------------
# The same flood, every other batch of 256 the DNS gate's query records
# (rf_dns_record: the tunnelling detector's path), each batch a new name
# under flood.test; then again with --activity (a DNS Activity JSON line
# written per DNS record). consumed: decision + dns records.
records_in() { # decision + dns records the monitor consumed
	local d n
	d=$(metric 'ringfence_monitor_events_total{source="decision"}')
	n=$(metric 'ringfence_monitor_events_total{source="dns"}')
	echo $(( ${d:-0} + ${n:-0} ))
}
flood_mix() { # label, monitor args...
	local label=$1 best=0 RATE ev0 ev1 cpu0 cpu1 out achieved lost ev per drained
	shift
	start_monitor "$@"
	printf '%-26s %10s %10s %10s %8s %14s\n' "$label" "offered/s" "achieved/s" "consumed" "lost" "mon CPU ns/ev"
	for RATE in 500000 1000000 1500000 2000000; do
		sleep 0.5
		ev0=$(records_in)
		cpu0=$(cpu_ticks "$monpid")
		out=$("$FLOOD" "$cgid" "$RATE" 2000 mix)
		sleep 0.6
		ev1=$(records_in)
		cpu1=$(cpu_ticks "$monpid")
		achieved=$(echo "$out" | sed -n 's/.*achieved=\([0-9]*\).*/\1/p')
		lost=$(echo "$out" | sed -n 's/.*lost=\([0-9]*\).*/\1/p')
		ev=$((ev1 - ev0))
		per=$(awk -v c="$((cpu1 - cpu0))" -v hz="$(getconf CLK_TCK)" -v ev="$ev" 'BEGIN{ if (ev) printf "%.0f", c * 1e9 / hz / ev; else print 0 }')
		printf '%-26s %10s %10s %10s %8s %14s\n' "" "$RATE" "$achieved" "$ev" "$lost" "$per"
		drained=$((ev / 2))
		if [ "$lost" = 0 ] && [ "$drained" -gt "$best" ]; then best=$drained; fi
	done
	sq=0 ss=0 sd=0
	stop_monitor   # the metrics file is written once more at exit
	aq=$(metric 'ringfence_monitor_activity_records_total{outcome="queued"}')
	ar=$(metric 'ringfence_monitor_activity_records_total{outcome="rendered"}')
	ad=$(metric 'ringfence_monitor_activity_records_total{outcome="dropped"}')
	for k in journal syslog otlp webhook; do
		v=$(metric "ringfence_monitor_sink_records_queued_total{sink=\"$k\"}"); sq=$((sq + ${v:-0}))
		v=$(metric "ringfence_monitor_sink_records_total{sink=\"$k\",outcome=\"spooled\"}"); ss=$((ss + ${v:-0}))
		v=$(metric "ringfence_monitor_sink_records_total{sink=\"$k\",outcome=\"dropped\"}"); sd=$((sd + ${v:-0}))
	done
	printf '%-40s %s events/s  >= 1000000 %s\n' "zero-loss drain rate ($label)" "$best" \
		"$([ "$best" -ge 1000000 ] && echo PASS || echo MISS)"
	[ -n "$aq" ] && echo "  (activity records: ${aq} queued, ${ar:-0} rendered, ${ad:-0} dropped by the activity thread's ring)"
	[ "$sq" != 0 ] && echo "  (the sinks: $sq records queued, $ss spooled, $sd dropped, over the sinks on)"
	[ -s "$tmp/activity.ndjson" ] && echo "  (--activity: $(wc -l < "$tmp/activity.ndjson") lines written)"
	echo
}
activity_bench() {
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
flood_start "$tmp/deny.json"
flood_mix "flood, half DNS records"
flood_mix "flood, half DNS, --activity" --activity "$tmp/activity.ndjson"
rm -f "$tmp/activity.ndjson"
# every sink on and down, --activity too: the DNS Activity records go to
# --activity and into every sink's spool
flood_mix "flood, half DNS, --activity, all sinks" --activity "$tmp/activity.ndjson" \
	--journal --syslog "tcp://127.0.0.1:$dead" --otlp "http://127.0.0.1:$dead" \
	--webhook "http://127.0.0.1:$dead/hook" --sink-activity --spool-dir "$tmp/spool2" --sink-drain-ms 0
rm -rf "$tmp/activity.ndjson" "$tmp/spool2"
flood_stop
}
if [ "${2:-}" = activity ]; then   # monitor.sh BUILD activity: this section alone
	activity_bench
	exit 0
fi
activity_bench

# ---- per-syscall cost --------------------------------------------------------
# getppid of a process outside every sandbox (rf-bench's median of 15
# batches of its own CPU time), in interleaved rounds, each state back to
# back: nothing; the floor (rf-tpfloor: an EMPTY tp_btf sys_exit program,
# which sends every syscall of every task down the slow path); the monitor
# with no sandbox; a sandbox with a syscalls profile live, without and with
# the monitor (calls outside the profile come from the sandbox's seccomp
# listener: no sensor); the monitor with --record (its sys_exit sensor,
# attached for profile learning only).
ROUNDS=${BENCH_ROUNDS:-5}
PPID_N=${BENCH_PPID:-600000}
cat > "$tmp/prof.json" <<'EOF2'
{"version":1,"id":"bench-prof","files":"unrestricted","exec":"unrestricted","network":"unrestricted",
 "syscalls":{"on_violation":"alert","allow":["read","write","nanosleep","clock_nanosleep","exit_group"]}}
EOF2
ppid() { "$@" "$BENCH" --cpu getppid "$PPID_N" | awk '{print $2}'; }
hold() { $RF run -q --policy "$tmp/prof.json" -- /usr/bin/sleep 600 & holdpid=$!; sleep 0.5; }
unhold() { kill -TERM "$holdpid" 2>/dev/null || true; wait "$holdpid" 2>/dev/null || true; holdpid=; }
rec() { awk -v a="$2" -v b="$3" 'BEGIN{printf "%.4f\n", a/b}' >> "$tmp/$1.ratio"; echo "$2" >> "$tmp/$1.with"; echo "$3" >> "$tmp/$1.without"; }
for r in $(seq "$ROUNDS"); do
	none=$(ppid) floor=$(ppid "$FLOOR" --exit --)
	start_monitor; idle=$(ppid); hold; mon_prof=$(ppid); stop_monitor
	prof=$(ppid); unhold
	start_monitor --record "$tmp/rec.ndjson"; recd=$(ppid); stop_monitor; rm -f "$tmp/rec.ndjson"
	rec floor "$floor" "$none"
	rec idle "$idle" "$none"
	rec prof "$mon_prof" "$prof"
	rec record "$recd" "$none"
done
stats() { sort -g "$1" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
	printf "%.2f %.2f %.2f\n", v[1], m, v[NR]}'; }
median() { sort -g "$1" | awk '{v[NR]=$1} END {printf "%.0f", NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
row() { # label key target
	local lo m hi
	read -r lo m hi < <(stats "$tmp/$2.ratio")
	printf '%-40s %9s %9s   x%-5s x%-5s x%-5s  <= x%-5s %s\n' "$1" "$(median "$tmp/$2.without")" \
		"$(median "$tmp/$2.with")" "$lo" "$m" "$hi" "$3" \
		"$(awk -v m="$m" -v t="$3" 'BEGIN{print (m <= t) ? "PASS" : "MISS"}')"
}
printf '%-40s %9s %9s   %-6s %-6s %-6s  %-8s\n' "getppid outside sandboxes (ns, CPU)" "without" "with" "min" "median" "max" "target"
row "  floor: empty sys_exit vs nothing" floor 1.02
row "  monitor, no sandbox vs no monitor" idle 1.02
row "  monitor, profiled sandbox live vs none" prof 1.02
printf '%-40s %9s %9s   x%-5s x%-5s x%-5s  (opt-in, profile learning)\n' \
	"  monitor --record (sensor) vs nothing" "$(median "$tmp/record.without")" \
	"$(median "$tmp/record.with")" $(stats "$tmp/record.ratio")
echo "($ROUNDS interleaved rounds; per-round ratios min/median/max; PASS/MISS: the median."
echo " The floor is what any program on a syscall tracepoint costs every task: the monitor's"
echo " sys_exit sensor is attached only with --record; a profiled sandbox's calls outside its"
echo " profile reach the monitor from its supervisor's seccomp listener)"
echo

# ---- alert latency -------------------------------------------------------------
start_monitor
latency() { # label rule policy args...: ms from spawn to the first record of rule
	local label=$1 rule=$2 pol=$3; shift 3
	: > "$tmp/alerts.ndjson"
	python3 - "$tmp/alerts.ndjson" "$rule" "$RF" "$pol" "$@" <<'PY'
import json, subprocess, sys, time
out, rule, rf, pol, argv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
t0 = time.monotonic()
p = subprocess.Popen([rf, "run", "-q", "--policy", pol, "--"] + argv, stdout=subprocess.DEVNULL)
lat = None
while time.monotonic() - t0 < 10 and lat is None:
    for line in open(out):
        if line.endswith("\n") and json.loads(line)["unmapped"]["rule"] == rule:
            lat = (time.monotonic() - t0) * 1000
            break
    time.sleep(0.005)
p.wait()
print("%.0f" % lat if lat is not None else "none")
PY
}
printf '%-34s %s\n' "alert latency (ms, spawn -> record)" ""
printf '%-34s %s\n' "  deny burst (10 of 50 connects)" "$(latency burst deny-burst "$tmp/burst.json" "$NET" burst 50 127.0.0.1 9)"
cat > "$tmp/mem.json" <<'EOF'
{"version":1,"id":"bench-mem","files":"unrestricted","exec":"unrestricted","network":"unrestricted","monitor":{"memory_mb":32}}
EOF
printf '%-34s %s\n' "  memory over 32 MiB (sample 200ms)" "$(latency mem resource-spike "$tmp/mem.json" "$LOAD" mem 64 1500)"
stop_monitor
