#!/bin/sh
# The BPF-LSM benchmark. On the host: `tests/bench/vm-lsm.sh BUILD` boots the
# test VM (Debian's 6.1 cloud kernel, qemu TCG) with this file as its only
# suite. In the guest it measures, side by side in one run, medians of
#   - open()+close() of a cached file,
#   - fork+execve+wait of a static binary (busybox true),
#   - a loopback TCP connect() to a closed port,
# unconfined and in a sandbox under a 10-rule and a 100,000-rule policy
# (files, exec and network confined; BENCH_BIG_RULES), and prints the
# ratios, PASS/MISS of 100,000 vs 10 rules against x1.10. It asserts
# nothing. Under TCG every number is slow; the ratios are what to read.
if [ ! -d /rf/guest ]; then
	# ---- host ----
	set -eu
	BUILD=${1:-build}
	ROOT=$(cd "$(dirname "$0")/../.." && pwd)
	VM_SUITE_DIR=$ROOT/tests/bench VM_TIMEOUT=${VM_TIMEOUT:-900} \
		"$ROOT/tests/vm/run.sh" "$BUILD" vm-lsm | sed -n 's/^# //p; /^vm: /p; /^not ok/p'
	exit 0
fi

# ---- guest ----
. "$GUEST/lib/tap.sh"
B=$VMTOOLS/rf-lsmbench
PORT=18399
W=$(mktemp -d /tmp/bench.XXXXXX)
N_OPEN=${BENCH_OPEN:-11000}
N_CONN=${BENCH_CONNECT:-5500}
N_EXEC=${BENCH_EXEC:-110}
mkdir -p /bench/d7
echo x > /bench/d7/f7

policy() { # FILE ID NRULES (awk: a shell loop of 100,000 is minutes under TCG)
	awk -v id="$2" -v n="$3" -v port="$PORT" 'BEGIN {
		printf "{\"version\": 1, \"id\": \"%s\", \"files\": {\"read\": [\"/usr/\", \"/rf/\", \"/etc/\", \"/proc/\", \"/dev/\", \"/bench/d7/f7\"", id
		for (i = 6; i < n; i++) printf ", \"/bench/d%d/f%d\"", i % 100, i
		printf "], \"write\": []}, \"exec\": [\"/usr/\", \"/rf/\"], "
		printf "\"network\": {\"connect\": [\"127.0.0.1:%d\"", port
		for (i = 1; i < n; i++) printf ", \"10.%d.%d.%d:443\"", int(i / 65536) % 256, int(i / 256) % 256, i % 256
		printf "], \"unix\": []}}\n"
	}' > "$1"
}
# 10 rules per class (files, exec paths, network) and BIG (100,000).
BIG=${BENCH_BIG_RULES:-100000}
policy "$W/p10.json" bench10 10
policy "$W/pbig.json" benchbig "$BIG"

RUNNER=${LSM_RUNNER:-}
if [ -z "$RUNNER" ]; then
	if "$RINGFENCE" run -q --policy "$W/p10.json" -- "$B" open /bench/d7/f7 11 > /dev/null 2>&1; then
		RUNNER=ringfence
	else
		RUNNER=lsmctl
	fi
fi
sandboxed() { # POLICY CMD...
	pol=$1
	shift
	if [ "$RUNNER" = ringfence ]; then
		"$RINGFENCE" run -q --policy "$pol" -- "$@"
	else
		"$VMTOOLS/rf-lsmctl" "$pol" -- "$@" 2> /dev/null
	fi
}

med3() { sort -n | sed -n 2p; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

measure() { # LABEL ARGS...: three interleaved rounds, the median of each
	label=$1
	shift
	f= a= b=
	for _ in 1 2 3; do
		f="$f $("$B" "$@" | awk '{print $2}')"
		a="$a $(sandboxed "$W/p10.json" "$B" "$@" | awk '{print $2}')"
		b="$b $(sandboxed "$W/pbig.json" "$B" "$@" | awk '{print $2}')"
	done
	f=$(printf '%s\n' $f | med3)
	a=$(printf '%s\n' $a | med3)
	b=$(printf '%s\n' $b | med3)
	r=$(ratio "$b" "$a")
	printf '# %-32s %10s %10s %12s %7s %8s %8s %s\n' "$label" "$f" "$a" "$b" "$(ratio "$a" "$f")" \
		"$(ratio "$b" "$f")" "$r" "$(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 1.10) ? "PASS" : "MISS" }')"
}

note "ringfence BPF-LSM bench: $(uname -r), $(nproc) CPU(s), qemu TCG, runner $RUNNER; medians of 3 rounds"
sandboxed "$W/p10.json" /bin/true > /dev/null 2>&1 # warm: programs loaded and pinned
printf '# %-32s %10s %10s %12s %7s %8s %8s\n' "per call" "unconfined" "10 rules" "$BIG rules" "x10" "x$BIG" \
	"big/10"
note "(big/10: the per-hook cost at $BIG rules over 10 rules, target <= 1.10)"
measure "open+close cached file (ns)" open /bench/d7/f7 "$N_OPEN"
measure "execve static binary (us)" exec "$N_EXEC" /usr/bin/busybox true
measure "loopback connect refused (ns)" connect "$PORT" "$N_CONN"
pass "bench: ran (ratios above, nothing asserted)"
finish
