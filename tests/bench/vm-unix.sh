#!/bin/sh
# The unix ledger's cost in the VM (guest time from instruction counts:
# another load on the host moves no figure). On the host:
# `tests/bench/vm-unix.sh BUILD` boots the test VM once per kernel of
# VM_KERNELS (default "6.1 7.3": 6.1 counts unix bytes with the fexit
# programs on af_unix's functions, 7.3 with the cgroup unix hooks and the
# socket length tracepoints) with this file as its only suite. In the guest,
# BENCH_ROUNDS interleaved rounds (default 5), the median per call of:
#   - a host process's send+receive of 64 bytes over a unix datagram
#     socketpair (rf-bench usend: the programs run, find no socket storage),
#     no sandbox live vs a counted sandbox live (the programs attached);
#   - a host process's refused unix connect (rf-bench uconnect), no
#     sandbox live vs a counted sandbox live (6.7+ with trampolines: the
#     fexit programs that key a connect's socket once it succeeded run,
#     find it failed);
#   - a sandbox's unix connect to an allowed socket bound outside and not
#     listening (rf-bench uconnect: ECONNREFUSED, counted as a connection),
#     with vs without its ledger entry (RINGFENCE_TEST_NO_LEDGER).
# Prints min/median/max of the per-round ratios; asserts nothing.
# BENCH_PROGSTATS=1: then the connect once more each way with
# kernel.bpf_stats_enabled (set in the guest only): runs and mean ns of
# each program that ran (what the rest of the difference is: the kernel's
# own work for the ledger, e.g. freeing socket storage).
if [ ! -d /rf/guest ]; then
	# ---- host ----
	set -eu
	. "$(dirname "$0")/bench-lib.sh"
	b=$(realpath "${1:-build}/tests/bench/rf-bench")
	VM_EXTRA_BINS="$b" vm_bench_boot "${1:-build}" vm-unix 600 \
		"rf.bench_rounds=${BENCH_ROUNDS:-5} rf.bench_bin=$b rf.bench_progstats=${BENCH_PROGSTATS:-0}"
	exit 0
fi

# ---- guest ----
. "$GUEST/lib/tap.sh"
ROUNDS=5 B= PROGSTATS=0
for w in $(cat /proc/cmdline); do
	case $w in
		rf.bench_rounds=*) ROUNDS=${w#rf.bench_rounds=} ;;
		rf.bench_bin=*) B=${w#rf.bench_bin=} ;;
		rf.bench_progstats=*) PROGSTATS=${w#rf.bench_progstats=} ;;
	esac
done
N_SEND=${BENCH_USEND:-20000}
N_CONN=${BENCH_UCONNECT:-5000}
W=$(mktemp -d /tmp/bench.XXXXXX)
U=$W/bound.sock
# bound, listened on and closed: the name stays, a connect gets ECONNREFUSED
"$TOOLS/rf-net" userve "$U" 0 > /dev/null 2>&1
printf '{"version":1,"id":"bench-unix","files":"unrestricted","exec":"unrestricted","network":{"connect":[],"unix":["%s"]}}\n' \
	"$U" > "$W/pol.json"
run() { "$RINGFENCE" run -q --policy "$W/pol.json" -- "$@"; }
attached() { ls /sys/fs/bpf/ringfence/*/obs_rf_obs_unix_* 2> /dev/null | grep -q /obs_rf_obs_unix_; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f", a / b; else print "-" }'; }
mmm() {
	sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
val() { awk '{ print $2 }'; }

note "unix ledger bench: $(uname -r), $ROUNDS interleaved rounds, qemu TCG, guest time"
[ -x "$B" ] || { fail "bench: rf-bench" "not in the guest ($B)"; finish; }
run /bin/true > /dev/null 2>&1 # warm: programs loaded and pinned
r=1 so= sw= xs= co= cw= xc= ho= hw= xh=
while [ $r -le "$ROUNDS" ]; do
	a=$("$B" usend "$N_SEND" | val)
	ha=$("$B" uconnect "$U" "$N_CONN" | val)
	run sleep 600 & rp=$!
	k=0
	while ! attached && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
	[ $r = 1 ] && note "unix byte programs attached: $(ls /sys/fs/bpf/ringfence/*/ | sed -n 's/^obs_rf_obs_unix_//p' | tr '\n' ' ')"
	b=$("$B" usend "$N_SEND" | val)
	hb=$("$B" uconnect "$U" "$N_CONN" | val)
	kill $rp; wait $rp 2> /dev/null
	while attached && [ $k -lt 200 ]; do sleep 0.1; k=$((k + 1)); done
	c=$(RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_NO_LEDGER=1 run "$B" uconnect "$U" "$N_CONN" | val)
	d=$(run "$B" uconnect "$U" "$N_CONN" | val)
	so="$so $a" sw="$sw $b" xs="$xs $(ratio "$b" "$a")"
	ho="$ho $ha" hw="$hw $hb" xh="$xh $(ratio "$hb" "$ha")"
	co="$co $c" cw="$cw $d" xc="$xc $(ratio "$d" "$c")"
	r=$((r + 1))
done
m() { printf '%s\n' $1 | mmm; }
note "host process unix send+recv pair (ns): no sandbox $(m "$so"), counted sandbox live $(m "$sw"), ratio $(m "$xs")"
note "host process unix connect, refused (ns): no sandbox $(m "$ho"), counted sandbox live $(m "$hw"), ratio $(m "$xh")"
note "sandbox unix connect, refused (ns): no ledger $(m "$co"), ledger $(m "$cw"), ratio $(m "$xc")"
# Which program costs what per connect, each way.
if [ "$PROGSTATS" = 1 ] && echo 1 > /proc/sys/kernel/bpf_stats_enabled; then
	for CONFIG in noledger ledger; do
		"$VMTOOLS/rf-progstats" > "$W/ps0" 2> /dev/null
		if [ $CONFIG = ledger ]; then
			t=$(run "$B" uconnect "$U" "$N_CONN" | val)
		else
			t=$(RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_NO_LEDGER=1 run "$B" uconnect "$U" "$N_CONN" | val)
		fi
		"$VMTOOLS/rf-progstats" > "$W/ps1" 2> /dev/null
		note "progstats $CONFIG: connect $t ns"
		awk 'NR == FNR { c[$1] = $2; t[$1] = $3; next }
			{ dc = $2 - c[$1]; dt = $3 - t[$1]; if (dc > 0) printf "%d %s %d %.0f\n", dt, $1, dc, dt / dc }' \
			"$W/ps0" "$W/ps1" | sort -rn | head -n 8 |
			while read -r _ name cnt mean; do
				note "progstats $CONFIG: $name runs $cnt mean $mean ns"
			done
	done
	echo 0 > /proc/sys/kernel/bpf_stats_enabled
fi
pass "bench: ran (ratios above, nothing asserted)"
finish
