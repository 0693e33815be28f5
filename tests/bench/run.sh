#!/bin/bash
# make bench: side-by-side medians in one run, printed as ratios; asserts nothing.
#   - loopback connect() and UDP sendto() unconfined vs. in a sandbox with a
#     10-rule and a 10,000-rule network policy (the hook's cost per call);
#   - `ringfence run -- /bin/true` vs. `/bin/true` (the supervisor's start-up),
#     and the same run with limits (what setting limits adds at start-up).
set -euo pipefail
BUILD=${1:-build}
RF=$BUILD/ringfence
B=$BUILD/tests/bench/rf-bench
PORT=18399          # closed: connect() gets ECONNREFUSED after the hook
N=${BENCH_N:-30000}
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

policy() { # id nrules
	python3 - "$1" "$2" > "$tmp/$1.json" <<'PY'
import json, sys
pid, n = sys.argv[1], int(sys.argv[2])
conn = ["127.0.0.1:18399"] + ["10.%d.%d.%d:443" % (i >> 16 & 255, i >> 8 & 255, i & 255)
                              for i in range(1, n)]
print(json.dumps({"version": 1, "id": pid, "files": "unrestricted",
                  "exec": "unrestricted", "network": {"connect": conn, "unix": []}}))
PY
}
policy bench10 10
policy bench10k 10000
# bench10 with limits: the supervisor's and the scratch tmpfs everywhere,
# the cgroup controllers' too where this host's cgroup2 hierarchy has them.
limits_policy() { # out cgroup(0|1)
	python3 - "$tmp/bench10.json" "$2" > "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["id"] = "benchlim"
p["limits"] = {"wall_seconds": 60, "output_bytes": 1048576, "scratch": {"path": "/tmp", "size_mb": 16}}
if sys.argv[2] == "1":
    p["limits"].update(memory_mb=512, pids=64, cpu_percent=100)
print(json.dumps(p))
PY
}
limits_policy "$tmp/benchlimcg.json" 1
LIMITS_CG=0
$RF check --policy "$tmp/benchlimcg.json" > /dev/null 2>&1 && LIMITS_CG=1
limits_policy "$tmp/benchlim.json" "$LIMITS_CG"

med3() { sort -n | sed -n 2p; }

measure() { # label op: three interleaved rounds, the median of each column
	local free=() s10=() s10k=() i f a b
	for i in 1 2 3; do
		free+=($($B "$2" 127.0.0.1 $PORT "$N" | awk '{print $2}'))
		s10+=($($RF run -q --policy "$tmp/bench10.json" -- "$B" "$2" 127.0.0.1 $PORT "$N" | awk '{print $2}'))
		s10k+=($($RF run -q --policy "$tmp/bench10k.json" -- "$B" "$2" 127.0.0.1 $PORT "$N" | awk '{print $2}'))
	done
	f=$(printf '%s\n' "${free[@]}" | med3)
	a=$(printf '%s\n' "${s10[@]}" | med3)
	b=$(printf '%s\n' "${s10k[@]}" | med3)
	printf '%-28s %10s %14s %16s %8s %9s\n' "$1" "$f" "$a" "$b" \
		"$(awk -v a="$a" -v b="$f" 'BEGIN{printf "%.2f", a/b}')" \
		"$(awk -v a="$b" -v b="$f" 'BEGIN{printf "%.2f", a/b}')"
}

spawn_ms() { $B exec 21 "$@" | awk '{printf "%.1f", $2/1000}'; }

echo "ringfence bench ($(uname -r), $(nproc) CPUs, N=$N calls per batch set, medians)"
echo
printf '%-28s %10s %14s %16s %8s %9s\n' "per call (ns)" "unconfined" "10 rules" "10000 rules" "x10" "x10000"
measure "TCP connect+close (allowed)" connect
measure "UDP sendto (allowed)" udp
echo
$RF run -q --policy "$tmp/bench10.json" -- /bin/true   # warm: programs pinned
bare=$(spawn_ms /bin/true)
sb10=$(spawn_ms $RF run -q --policy "$tmp/bench10.json" -- /bin/true)
sb10k=$(spawn_ms $RF run -q --policy "$tmp/bench10k.json" -- /bin/true)
chk=$(spawn_ms $RF check --policy "$tmp/bench10.json")
printf '%-28s %10s %14s %16s\n' "start-up, median of 21 (ms)" "/bin/true" "run, 10 rules" "run, 10000 rules"
printf '%-28s %10s %14s %16s\n' "" "$bare" "$sb10" "$sb10k"
printf '%-28s %10s\n' "  check (parse+probe+plan)" "$chk"
echo "added by ringfence run: $(awk -v a="$sb10" -v b="$bare" 'BEGIN{printf "%.1f", a-b}') ms (10 rules), $(awk -v a="$sb10k" -v b="$bare" 'BEGIN{printf "%.1f", a-b}') ms (10000 rules)"
# Back to back, so both see the same host state.
base=$(spawn_ms $RF run -q --policy "$tmp/bench10.json" -- /bin/true)
lim=$(spawn_ms $RF run -q --policy "$tmp/benchlim.json" -- /bin/true)
printf '%-28s %10s %14s %8s\n' "start-up with limits (ms)" "without: $base" "with: $lim" \
	"$(awk -v a="$lim" -v b="$base" 'BEGIN{printf "x%.2f", a/b}')"
echo "  limits: wall_seconds, output_bytes, scratch$([ "$LIMITS_CG" = 1 ] && echo ", memory_mb, pids, cpu_percent" || echo " (memory/pids/cpu refused here: no controller in the cgroup2 hierarchy)"); ratio against the same run without limits"
