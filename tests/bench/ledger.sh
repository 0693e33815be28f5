#!/bin/bash
# make bench (connection ledger part, issue 22): what the ledger's counting
# in the cgroup_skb programs costs, in a sandbox with vs. without its
# rf_ledger entry (RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_NO_LEDGER=1: the
# programs still run, find no entry and count nothing):
#   - loopback bulk TCP upload throughput (tests/tools/rf-net bulk, to an
#     rf-net sink outside the sandbox), MB/s;
#   - loopback connect rate (tests/bench/rf-bench connect to a closed
#     allowed port: SYN out, RST in), ns per connect;
#   - unix connect rate (rf-bench uconnect to an allowed socket bound
#     outside, not listening: the cgroup connect_unix hook counts it, the
#     kernel refuses it), ns per connect.
# ROUNDS rounds, with and without interleaved; min/median/max of each and
# the ratio of the medians (cost with / cost without). Target <= 1.03:
# PASS or MISS (docs/benchmarks.md).
# BENCH_CPU=1: CPU time instead of wall time (a host shared with other
# work): the uploader's CPU ns per MB (on loopback its process runs the
# stack for its packets, both directions) and rf-bench --cpu's connect.
set -euo pipefail
BUILD=${1:-build}
RF=$(realpath "$BUILD/ringfence")
NET=$(realpath "$BUILD/tests/tools/rf-net")
B=$(realpath "$BUILD/tests/bench/rf-bench")
ROUNDS=${BENCH_ROUNDS:-7}
BYTES=${BENCH_LEDGER_BYTES:-1000000000}   # per bulk upload
N=${BENCH_LEDGER_N:-20000}                # connects per round
PORT=18396          # the sink
CLOSED=18397        # allowed, nothing listens
USOCK=/tmp/rf-bench-ledger-$$.sock   # allowed, bound, not listening
TARGET=1.03
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for b in "$RF" "$NET" "$B"; do [ -x "$b" ] || { echo "bench: $b not built" >&2; exit 1; }; done
tmp=$(mktemp -d)
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp" "$USOCK"' EXIT
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$USOCK"
cat > "$tmp/policy.json" <<EOJ
{"version":1,"id":"bench-ledger","files":"unrestricted","exec":"unrestricted",
 "network":{"connect":["127.0.0.1:$PORT","127.0.0.1:$CLOSED"],"unix":["$USOCK"]}}
EOJ

"$NET" sink 127.0.0.1 "$PORT" $((2 * ROUNDS + 1)) > "$tmp/sink.out" &
spid=$!
sleep 0.2
without() { RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_NO_LEDGER=1 "$RF" run -q --policy "$tmp/policy.json" -- "$@"; }
with() { "$RF" run -q --policy "$tmp/policy.json" -- "$@"; }
with "$NET" bulk 127.0.0.1 "$PORT" 1000000 > /dev/null   # warm: programs pinned

CPU=${BENCH_CPU:-}
F=4 ULABEL="loopback TCP upload (MB/s)" CLABEL="TCP connect, closed port (ns)" ULABEL2="unix connect, refused (ns)"
if [ -n "$CPU" ]; then
	F=5 ULABEL="loopback TCP upload (CPU ns/MB)" CLABEL="TCP connect, closed port (CPU ns)" ULABEL2="unix connect, refused (CPU ns)"
fi
bw=() bo=() cw=() co=() uw=() uo=()
for ((i = 0; i < ROUNDS; i++)); do
	bo+=("$(without "$NET" bulk 127.0.0.1 "$PORT" "$BYTES" | awk -v f=$F '{print $f}')")
	bw+=("$(with "$NET" bulk 127.0.0.1 "$PORT" "$BYTES" | awk -v f=$F '{print $f}')")
	co+=("$(without "$B" ${CPU:+--cpu} connect 127.0.0.1 "$CLOSED" "$N" | awk '{print $2}')")
	cw+=("$(with "$B" ${CPU:+--cpu} connect 127.0.0.1 "$CLOSED" "$N" | awk '{print $2}')")
	uo+=("$(without "$B" ${CPU:+--cpu} uconnect "$USOCK" "$N" | awk '{print $2}')")
	uw+=("$(with "$B" ${CPU:+--cpu} uconnect "$USOCK" "$N" | awk '{print $2}')")
done
wait "$spid" || true
spid=

stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {printf "%s %s %s", v[1], v[int((NR+1)/2)], v[NR]}'; }
verdict() { awk -v r="$1" -v t="$TARGET" 'BEGIN{print (r <= t) ? "PASS" : "MISS"}'; }
read -r bo1 bo2 bo3 <<< "$(stats "${bo[@]}")"
read -r bw1 bw2 bw3 <<< "$(stats "${bw[@]}")"
read -r co1 co2 co3 <<< "$(stats "${co[@]}")"
read -r cw1 cw2 cw3 <<< "$(stats "${cw[@]}")"
read -r uo1 uo2 uo3 <<< "$(stats "${uo[@]}")"
read -r uw1 uw2 uw3 <<< "$(stats "${uw[@]}")"
# cost ratios: throughput inverted (time per byte), connect ns as they are
if [ -n "$CPU" ]; then
	br=$(awk -v a="$bw2" -v b="$bo2" 'BEGIN{printf "%.3f", a/b}')
else
	br=$(awk -v a="$bo2" -v b="$bw2" 'BEGIN{printf "%.3f", a/b}')
fi
cr=$(awk -v a="$cw2" -v b="$co2" 'BEGIN{printf "%.3f", a/b}')
ur=$(awk -v a="$uw2" -v b="$uo2" 'BEGIN{printf "%.3f", a/b}')
echo "ringfence bench: connection ledger ($(uname -r), $(nproc) CPUs, $ROUNDS rounds interleaved, min/median/max)"
printf '%-34s %-26s %-26s %7s %s\n' "" "without ledger" "with ledger" "cost" "target <= $TARGET"
printf '%-34s %-26s %-26s %7s %s\n' "$ULABEL" "$bo1/$bo2/$bo3" "$bw1/$bw2/$bw3" "x$br" "$(verdict "$br")"
printf '%-34s %-26s %-26s %7s %s\n' "$CLABEL" "$co1/$co2/$co3" "$cw1/$cw2/$cw3" "x$cr" "$(verdict "$cr")"
printf '%-34s %-26s %-26s %7s %s\n' "$ULABEL2" "$uo1/$uo2/$uo3" "$uw1/$uw2/$uw3" "x$ur" "$(verdict "$ur")"
