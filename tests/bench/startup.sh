#!/bin/bash
# make bench: start-up and idle supervisors, side by side (issue 15).
#   - `ringfence run --policy P -- /bin/true` (10 rules) vs bare /bin/true,
#     bubblewrap (read-only root) and `unshare -m`, interleaved rounds;
#     targets: run <= bare + 5 ms, and run faster than bwrap;
#   - run start-up with 1 vs N live sandboxes (default 500; target: ratio
#     <= 1.1): 1 live, then N, then 1 again, so a drift of the host over
#     the measurement shows as a gap between the two 1-live batches;
#   - an idle supervisor: wakeups/s over 10 s (target 0) and RSS (<= 2 MB).
# Prints min/median/max and PASS/MISS; asserts nothing (benchmarks inform).
# Runs sandboxes: take /tmp/rf-host.lock around it on a shared host.
set -euo pipefail
BUILD=${1:-build}
RF=$BUILD/ringfence
ROUNDS=${BENCH_ROUNDS:-30}
LIVE=${BENCH_LIVE:-500}
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
# The supervisors are this shell's children: killed and reaped here (PID 1
# may not reap orphans).
stop() { local p; for p in "$@"; do kill "$p" 2>/dev/null || true; done; for p in "$@"; do wait "$p" 2>/dev/null || true; done; }
cleanup() { stop "${pids[@]}"; rm -rf "$tmp"; }
trap cleanup EXIT

python3 - > "$tmp/p10.json" <<'PY'
import json
conn = ["127.0.0.1:18399"] + ["10.0.0.%d:443" % i for i in range(1, 10)]
print(json.dumps({"version": 1, "id": "startup10", "files": "unrestricted",
                  "exec": "unrestricted", "network": {"connect": conn, "unix": []}}))
PY
python3 - > "$tmp/idle.json" <<'PY'
import json
print(json.dumps({"version": 1, "id": "idle", "files": "unrestricted",
                  "exec": "unrestricted", "network": "unrestricted"}))
PY

# One timing in ms of "$@" (output discarded).
# In microseconds, from bash's clock (no date process in the measurement).
ms() {
	local t0=${EPOCHREALTIME/./} t1
	"$@" >/dev/null 2>&1 || true
	t1=${EPOCHREALTIME/./}
	echo $((t1 - t0))
}
stats() { sort -n | awk '{v[NR]=$1} END {printf "%.2f %.2f %.2f\n", v[1]/1000, v[int((NR+1)/2)]/1000, v[NR]/1000}'; }
verdict() { if awk "BEGIN{exit !($1)}"; then echo PASS; else echo MISS; fi; }

have_bwrap=0; command -v bwrap >/dev/null && have_bwrap=1
run=(); bare=(); bw=(); un=()
for ((i = 0; i < ROUNDS; i++)); do
	bare+=("$(ms /bin/true)")
	run+=("$(ms "$RF" run -q --policy "$tmp/p10.json" -- /bin/true)")
	[ $have_bwrap = 1 ] && bw+=("$(ms bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all -- /bin/true)")
	un+=("$(ms unshare -m /bin/true)")
done
read -r bmin bmed bmax < <(printf '%s\n' "${bare[@]}" | stats)
read -r rmin rmed rmax < <(printf '%s\n' "${run[@]}" | stats)
read -r umin umed umax < <(printf '%s\n' "${un[@]}" | stats)
# Per round, against its own neighbours (the host's load moves between
# rounds): run - bare in ms, and run / bwrap.
diffs=() ratios=()
for ((i = 0; i < ROUNDS; i++)); do
	diffs+=("$((run[i] - bare[i]))")
	[ $have_bwrap = 1 ] && ratios+=("$(awk "BEGIN{printf \"%d\", ${run[i]} * 1000 / ${bw[i]}}")")
done
read -r dmin dmed dmax < <(printf '%s\n' "${diffs[@]}" | stats)
echo "startup ($ROUNDS interleaved rounds, ms min/median/max)"
printf '  bare /bin/true      %6s %6s %6s\n' "$bmin" "$bmed" "$bmax"
printf '  ringfence run (10)  %6s %6s %6s\n' "$rmin" "$rmed" "$rmax"
printf '  unshare -m          %6s %6s %6s\n' "$umin" "$umed" "$umax"
if [ $have_bwrap = 1 ]; then
	read -r wmin wmed wmax < <(printf '%s\n' "${bw[@]}" | stats)
	printf '  bwrap               %6s %6s %6s\n' "$wmin" "$wmed" "$wmax"
fi
printf '  run - bare, per round (ms)   %6s %6s %6s: %s (target: median <= +5 ms)\n' \
	"$dmin" "$dmed" "$dmax" "$(verdict "$dmed <= 5")"
if [ $have_bwrap = 1 ]; then
	read -r qmin qmed qmax < <(printf '%s\n' "${ratios[@]}" | stats)
	printf '  run / bwrap, per round       %6s %6s %6s: %s (target: median < 1)\n' \
		"$qmin" "$qmed" "$qmax" "$(verdict "$qmed < 1")"
else
	echo "  bwrap: not installed (apt-get install bubblewrap): MISS (not measured)"
fi
# BENCH_STARTUP_ONLY=1: the table above alone (a quick before/after).
[ "${BENCH_STARTUP_ONLY:-0}" = 1 ] && exit 0

# Start-up with 1 and with LIVE sleeping sandboxes (their supervisors idle).
live_count() { "$RF" status 2>/dev/null | awk 'NR > 1 && $2 == "live"' | wc -l; }
start_live() { # n: start n more, wait until the registry lists them all
	local k want=$(( ${#pids[@]} + $1 )) t
	for ((k = 0; k < $1; k++)); do
		"$RF" run -q --policy "$tmp/idle.json" -- sleep 3600 >/dev/null 2>&1 &
		pids+=($!)
	done
	for ((t = 0; t < 600; t++)); do
		[ "$(live_count)" -ge "$want" ] && break
		sleep 0.5
	done
	sleep 1
}
batch() { # n -> n timings of a 10-rule run (a failed run is counted in $tmp/failed)
	local k t0 t1
	for ((k = 0; k < $1; k++)); do
		t0=${EPOCHREALTIME/./}
		"$RF" run -q --policy "$tmp/p10.json" -- /bin/true >/dev/null 2>&1 || echo >> "$tmp/failed"
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done
}
start_live 1
one=($(batch $(( (ROUNDS + 1) / 2 ))))
start_live $((LIVE - 1))
n_live=$(live_count)
many=($(batch "$ROUNDS"))
stop "${pids[@]:1}"
pids=("${pids[0]}")
one+=($(batch $(( (ROUNDS + 1) / 2 ))))
read -r omin omed omax < <(printf '%s\n' "${one[@]}" | stats)
read -r mmin mmed mmax < <(printf '%s\n' "${many[@]}" | stats)
[ -e "$tmp/failed" ] && echo "  WARNING: $(wc -l < "$tmp/failed") of the timed runs failed: the ratio is void"
echo "start-up with live sandboxes (ms min/median/max; 1 live before and after $LIVE)"
printf '  1 live              %6s %6s %6s\n' "$omin" "$omed" "$omax"
printf '  %-3d live (%3d seen) %6s %6s %6s   ratio %.2f: %s (target <= 1.1)\n' "$LIVE" "$n_live" \
	"$mmin" "$mmed" "$mmax" "$(echo "$mmed / $omed" | bc -l)" "$(verdict "$mmed / $omed <= 1.1")"

# One of them: wakeups over 10 s (context switches of every thread) and RSS.
sup=${pids[0]}
sw() { cat /proc/"$sup"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
a=$(sw); sleep 10; b=$(sw)
rss=$(awk '/VmRSS/ {print $2}' /proc/"$sup"/status)
echo "idle supervisor"
printf '  wakeups/s           %.1f: %s (target 0)\n' "$(echo "($b - $a) / 10" | bc -l)" "$(verdict "$b - $a == 0")"
printf '  RSS                 %d kB: %s (target <= 2048 kB)\n' "$rss" "$(verdict "$rss <= 2048")"
