#!/bin/bash
# make bench (DNS gate part): what the per-sandbox DNS gate (supervisor/
# dnsgate.c) adds to a lookup, and how many lookups one gate answers.
#   - latency: N sequential A lookups of one name over connected UDP
#     (tests/tools/rf-dns bench), p50 and p99, straight to a dnsmasq on
#     127.0.0.1 from outside every sandbox vs. from inside a sandbox whose
#     lookups the gate answers (steered from 192.0.2.53:53, forwarded to the
#     same dnsmasq, the answer's address granted before the reply leaves);
#   - throughput: P clients in one sandbox looking up at once, their
#     lookups per second summed (one gate, one thread), and the same
#     clients straight to dnsmasq for comparison.
# Each figure is the median of ROUNDS rounds (both sides back to back).
# PASS/MISS: the median against a target (docs/benchmarks.md says why).
set -euo pipefail
BUILD=${1:-build}
RF=$(realpath "$BUILD/ringfence")
D=$(realpath "$BUILD/tests/tools/rf-dns")
ROUNDS=${BENCH_ROUNDS:-5}
N=${BENCH_DNS_N:-3000}          # lookups per latency measurement
P=${BENCH_DNS_CLIENTS:-4}       # parallel clients for throughput
NP=${BENCH_DNS_NP:-2000}        # lookups per client
PORT=5398
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -x /usr/sbin/dnsmasq ] || { echo "bench: dnsmasq missing (apt-get install dnsmasq-base)" >&2; exit 1; }
for b in "$RF" "$D"; do [ -x "$b" ] || { echo "bench: $b not built" >&2; exit 1; }; done
tmp=$(mktemp -d)
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
t0=$(date +%s)

/usr/sbin/dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
	--listen-address=127.0.0.1 -p "$PORT" --pid-file= --log-facility=/dev/null \
	--host-record=bench.test,127.78.0.1,300 &
dpid=$!
for _ in $(seq 200); do grep -q "0100007F:$(printf %04X "$PORT") " /proc/net/udp && break; sleep 0.05; done
cat > "$tmp/policy.json" <<EOF
{"version":1,"id":"bench-dns","files":"unrestricted","exec":"unrestricted",
 "env":{"pass":["PATH"]},
 "network":{"connect":["bench.test:443"],
  "dns":{"upstream":["127.0.0.1:$PORT"],"rebind_allow":["127.78.0.0/16"]}}}
EOF

med() { sort -g | awk '{v[NR]=$1} END {printf "%.0f", NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# par.sh SERVER PORT: P clients at once, "qps fails" summed (runs in the sandbox too)
cat > "$tmp/par.sh" <<EOF
#!/bin/bash
for i in \$(seq $P); do "$D" bench "\$1" "\$2" bench.test $NP & done |
	awk '{q += \$5; sub("fails=", "", \$6); f += \$6} END {printf "%.0f %d\\n", q, f}'
EOF
chmod 755 "$tmp" "$tmp/par.sh"

: > "$tmp/direct"; : > "$tmp/gate"; : > "$tmp/pdirect"; : > "$tmp/pgate"
for r in $(seq "$ROUNDS"); do
	"$D" bench 127.0.0.1 "$PORT" bench.test "$N" >> "$tmp/direct"
	"$RF" run -q --policy "$tmp/policy.json" -- "$D" bench 192.0.2.53 53 bench.test "$N" >> "$tmp/gate"
	"$tmp/par.sh" 127.0.0.1 "$PORT" >> "$tmp/pdirect"
	"$RF" run -q --policy "$tmp/policy.json" -- "$tmp/par.sh" 192.0.2.53 53 >> "$tmp/pgate"
done
fails=$(awk '{sub("fails=", "", $6); f += $6} END {print f + 0}' "$tmp/direct" "$tmp/gate")
fails=$((fails + $(awk '{f += $2} END {print f + 0}' "$tmp/pdirect" "$tmp/pgate")))
d50=$(awk '{print $3}' "$tmp/direct" | med); d99=$(awk '{print $4}' "$tmp/direct" | med)
g50=$(awk '{print $3}' "$tmp/gate" | med); g99=$(awk '{print $4}' "$tmp/gate" | med)
dq=$(awk '{print $5}' "$tmp/direct" | med); gq=$(awk '{print $5}' "$tmp/gate" | med)
pd=$(awk '{print $1}' "$tmp/pdirect" | med); pg=$(awk '{print $1}' "$tmp/pgate" | med)

verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN{print ((op == "<=") ? v <= t : v >= t) ? "PASS" : "MISS"}'; }
echo
echo "DNS gate ($ROUNDS rounds, medians; $N sequential lookups, $P clients x $NP in parallel)"
printf '%-40s %9s %9s %9s  %-10s %s\n' "" "direct" "gate" "added" "target" ""
printf '%-40s %9s %9s %9s  %-10s %s\n' "  lookup latency p50 (us)" "$d50" "$g50" "$((g50 - d50))" \
	"<= +150" "$(verdict $((g50 - d50)) 150 '<=')"
printf '%-40s %9s %9s %9s  %-10s %s\n' "  lookup latency p99 (us)" "$d99" "$g99" "$((g99 - d99))" \
	"<= +1000" "$(verdict $((g99 - d99)) 1000 '<=')"
printf '%-40s %9s %9s %9s\n' "  one client, lookups/s" "$dq" "$gq" ""
printf '%-40s %9s %9s %9s  %-10s %s\n' "  $P clients, lookups/s (one gate)" "$pd" "$pg" "" \
	">= 5000" "$(verdict "$pg" 5000 '>=')"
echo "  failed lookups: $fails (every lookup must be answered NOERROR)"
echo "(direct: rf-dns to dnsmasq on 127.0.0.1:$PORT outside every sandbox; gate: the same from"
echo " a sandbox, steered from 192.0.2.53:53 to its gate, which forwards to that dnsmasq and"
echo " grants 127.78.0.1 before it answers; $(($(date +%s) - t0)) s)"
