#!/bin/bash
# make bench (connection ledger, unix bytes; issue 22): what the socket
# length tracepoints cost a process on the host that is in no sandbox,
# while they are attached (a sandbox with a ledger is live: here
# `ringfence run -- sleep`) vs. not (no sandbox live). rf-bench usend: a
# send and a receive of 64 bytes over a unix datagram socketpair (two
# tracepoint hits; a socket no sandbox keyed has no storage), CPU ns per
# pair (the calling thread's: a shared host's other load does not count).
# ROUNDS rounds interleaved; the medians and their ratio. Needs the host
# lock (no other sandbox live: the baseline must have none attached).
set -euo pipefail
BUILD=${1:-build}
RF=$(realpath "$BUILD/ringfence")
B=$(realpath "$BUILD/tests/bench/rf-bench")
ROUNDS=${BENCH_ROUNDS:-7}
N=${BENCH_UNIX_N:-300000}
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for b in "$RF" "$B"; do [ -x "$b" ] || { echo "bench: $b not built" >&2; exit 1; }; done
tmp=$(mktemp -d)
rpid=
trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
cat > "$tmp/policy.json" <<EOJ
{"version":1,"id":"bench-ubytes","files":"unrestricted","exec":"unrestricted","network":{"connect":[],"unix":["/run/rf-bench-none.sock"]}}
EOJ
attached() { ls /sys/fs/bpf/ringfence/*/obs_rf_obs_unix_sent > /dev/null 2>&1; }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
"$RF" run -q --policy "$tmp/policy.json" -- /bin/true   # warm: programs pinned
if attached; then
	echo "bench: the unix byte tracepoints are attached with no sandbox of ours live (another run?)" >&2
	exit 1
fi
off=() on=()
for ((i = 0; i < ROUNDS; i++)); do
	off+=("$("$B" --cpu usend "$N" | awk '{print $2}')")
	"$RF" run -q --policy "$tmp/policy.json" -- sleep 600 &
	rpid=$!
	k=0
	while ! attached && [ $((k += 1)) -le 100 ]; do sleep 0.05; done
	attached || { echo "bench: the tracepoints were not attached for a live sandbox" >&2; exit 1; }
	on+=("$("$B" --cpu usend "$N" | awk '{print $2}')")
	kill "$rpid"
	wait "$rpid" 2> /dev/null || true
	rpid=
	k=0
	while attached && [ $((k += 1)) -le 100 ]; do sleep 0.05; done
done
mo=$(median "${off[@]}") mw=$(median "${on[@]}")
echo "unix send+recv pair of a host process, CPU ns (median of $ROUNDS): no sandbox $mo [${off[*]}], a ledgered sandbox live $mw [${on[*]}], ratio $(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%.3f", a / b}')"
