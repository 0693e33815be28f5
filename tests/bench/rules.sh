#!/bin/bash
# make bench (rules part): what each rule costs, at 10, 1,000, 10,000 and
# 100,000 rules, side by side in interleaved rounds; asserts nothing.
#   - start-up phases, timed by rf-rules with the supervisor's own code,
#     each repetition a fresh process (a start-up's first-time costs):
#     parse (the policy file), compile (map entries built, their fit
#     checked; file rules: their path entries), load (the sandbox's inner
#     maps created and filled), remove; for the file rules also landlock
#     (the Landlock ruleset built: open + fstat + landlock_add_rule each);
#   - the whole `ringfence run -- /bin/true` (wall time), network rules
#     (10.x.y.z:443 hosts) and file rules (read-only files under Landlock);
#   - per rule: (t(N) - t(10)) / (N - 10), target <= 1 us;
#   - per hook: loopback connect+close in a sandbox of 100,000 rules vs one
#     of 10 (rf-bench --cpu: the loop's own CPU time), target <= x1.10.
# Printed: min/median/max over the rounds and PASS/MISS of the median.
# Needs root; loads the pinned set (run it under the host lock).
set -euo pipefail
BUILD=${1:-build}
RF=$(realpath "$BUILD/ringfence")
B=$(realpath "$BUILD/tests/bench/rf-bench")
R=$(realpath "$BUILD/tests/bench/rf-rules")
ROUNDS=${BENCH_ROUNDS:-5}
REPS=${BENCH_REPS:-3}             # rf-rules processes per round (their median)
N_CONN=${BENCH_CONN:-20000}       # connect+close per hook measurement
SIZES="10 1000 10000 100000"
PORT=18399                        # closed: connect() gets ECONNREFUSED
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for b in "$RF" "$B" "$R"; do [ -x "$b" ] || { echo "bench: $b not built" >&2; exit 1; }; done
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/files"
python3 - "$tmp" $SIZES <<'PY'
import json, os, sys
tmp, sizes = sys.argv[1], [int(x) for x in sys.argv[2:]]
for n in sizes:
    conn = ["127.0.0.1:18399"] + ["10.%d.%d.%d:443" % (i >> 16 & 255, i >> 8 & 255, i & 255)
                                  for i in range(1, n)]
    json.dump({"version": 1, "id": "bench-net%d" % n, "files": "unrestricted",
               "exec": "unrestricted", "network": {"connect": conn, "unix": []}},
              open("%s/net%d.json" % (tmp, n), "w"))
# file rules: n existing files (read), Landlock on the host
m = max(sizes)
for i in range(m):
    d = "%s/files/d%d" % (tmp, i % 100)
    os.makedirs(d, exist_ok=True)
    open("%s/f%d" % (d, i), "w").close()
for n in sizes:
    rd = ["/usr/", "/etc/", "/proc/", "/dev/"] + \
         ["%s/files/d%d/f%d" % (tmp, i % 100, i) for i in range(max(0, n - 4))]
    json.dump({"version": 1, "id": "bench-files%d" % n, "files": {"read": rd, "write": []},
               "exec": "unrestricted", "network": "unrestricted"},
              open("%s/files%d.json" % (tmp, n), "w"))
PY

now_us() { date +%s%6N; }
run_us() { # policy -> wall time of ringfence run -- /bin/true
	local t0 t1
	t0=$(now_us)
	"$RF" run -q --policy "$1" -- /bin/true
	t1=$(now_us)
	echo $((t1 - t0))
}
rec() { echo "$2" >> "$tmp/$1"; }
phases() { # policy -> the median of each rf-rules column over REPS fresh processes
	local k i out
	out=$(for ((k = 0; k < REPS; k++)); do "$R" "$1" 1; done)
	for ((i = 1; i <= $(head -1 <<< "$out" | wc -w); i++)); do
		awk -v i="$i" '{print $i}' <<< "$out" | sort -g |
			awk '{v[NR] = $1} END {printf "%.0f ", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
	done
	echo
}
stats() { # file -> "min median max"
	sort -g "$1" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
		printf "%.2f %.2f %.2f\n", v[1], m, v[NR]}'
}

round() { # one round: every size once, the order reversed every other round
	local sizes=$SIZES n p c l rm ll
	[ $(($1 % 2)) = 0 ] && sizes=$(echo $SIZES | tr ' ' '\n' | tac | tr '\n' ' ')
	for n in $sizes; do
		read -r p c l rm ll < <(phases "$tmp/net$n.json")
		rec "parse.$n" "$p"; rec "compile.$n" "$c"; rec "load.$n" "$l"; rec "remove.$n" "$rm"
		read -r p c l rm ll < <(phases "$tmp/files$n.json")
		rec "files.parse.$n" "$p"; rec "files.compile.$n" "$c"; rec "files.landlock.$n" "$ll"
		rec "run.net.$n" "$(run_us "$tmp/net$n.json")"
		rec "run.files.$n" "$(run_us "$tmp/files$n.json")"
	done
	for n in 10 100000; do
		rec "conn.$n" "$("$RF" run -q --policy "$tmp/net$n.json" -- "$B" --cpu connect \
			127.0.0.1 $PORT "$N_CONN" | awk '{print $2}')"
	done
	paste "$tmp/conn.100000" "$tmp/conn.10" | tail -1 |
		awk '{printf "%.4f\n", $1 / $2}' >> "$tmp/conn.ratio"
}

# per-rule cost of key at size n against 10 rules, one value per round (us)
per_rule() { # key n
	paste "$tmp/$1.$2" "$tmp/$1.10" | awk -v n="$2" '{printf "%.3f\n", ($1 - $2) / (n - 10)}' \
		> "$tmp/$1.per.$2"
	stats "$tmp/$1.per.$2"
}
verdict() { awk -v m="$1" -v t="$2" 'BEGIN{print (m <= t) ? "PASS" : "MISS"}'; }

echo "rules bench ($(uname -r), $(nproc) CPUs, $ROUNDS interleaved rounds; min/median/max over rounds)"
"$RF" run -q --policy "$tmp/net10.json" -- /bin/true   # warm: this build's set is pinned
t0=$(date +%s)
for r in $(seq "$ROUNDS"); do round "$r"; done
echo
printf '%-30s' "phase medians (us)"; for n in $SIZES; do printf '%12s' "$n"; done; echo
for k in parse compile load remove run.net files.parse files.compile files.landlock run.files; do
	printf '%-30s' "  $k"
	for n in $SIZES; do printf '%12s' "$(stats "$tmp/$k.$n" | awk '{printf "%.0f", $2}')"; done
	echo
done
echo
printf '%-42s %8s %8s %8s  %-8s\n' "per rule over 10 rules (us)" min median max target
for k in parse compile load remove run.net files.parse files.compile files.landlock run.files; do
	for n in 1000 10000 100000; do
		read -r lo m hi < <(per_rule "$k" "$n")
		case $k in
		run.*) printf '%-42s %8s %8s %8s  <= 1.00  %s\n' "  $k at $n" "$lo" "$m" "$hi" \
			"$(verdict "$m" 1.0)" ;;
		*) printf '%-42s %8s %8s %8s\n' "  $k at $n" "$lo" "$m" "$hi" ;;
		esac
	done
done
echo
read -r lo m hi < <(stats "$tmp/conn.ratio")
printf '%-42s x%-7s x%-7s x%-7s  <= x1.10 %s\n' "connect+close, 100,000 vs 10 rules" "$lo" "$m" "$hi" \
	"$(verdict "$m" 1.10)"
printf '%-42s %s ns vs %s ns (medians)\n' "" "$(stats "$tmp/conn.100000" | awk '{print $2}')" \
	"$(stats "$tmp/conn.10" | awk '{print $2}')"
echo "(parse/compile/load/remove: network rules, files.*: file rules; rf-rules, the median of"
echo " $REPS processes each round;"
echo " run.*: wall time of \`ringfence run -q -- /bin/true\`; $(($(date +%s) - t0)) s)"
