#!/bin/sh
# Where a run's time goes under BPF-LSM, in guest time (issue 25; not part
# of make bench, a tool for a before/after): on the host
# `tests/bench/vm-profile.sh BUILD` boots the test VM once per kernel of
# VM_KERNELS (default "6.1 7.3"; 7.3 with the bpf LSM), guest time from
# instruction counts as vm-lsm.sh does. In the guest: medians of 5 runs of
# `run -- /bin/true` (10 network rules), git status and tar of a 300-file
# tree under learned policies, each against bare; RINGFENCE_TIMINGS step
# medians; per BPF program runs and mean ns over one run of each workload
# in a sandbox and bare (kernel.bpf_stats_enabled, set in the guest only);
# with VM_EXTRA_BINS=/usr/bin/strace also the syscalls of one run by count
# and by time (strace -f -T: every call inflated, the counts exact).
# Asserts nothing.
# vm-needs: workloads bench-workloads
if [ ! -d /rf/guest ]; then
	set -eu
	. "$(dirname "$0")/bench-lib.sh"
	vm_bench_boot "${1:-build}" vm-profile 900 ""
	exit 0
fi

. "$GUEST/lib/tap.sh"
W=$(mktemp -d /tmp/wl.XXXXXX)
chmod 755 "$W"
export HOME=/root PATH=/usr/bin:/bin LANG=C
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$W/repo" "$W/out"
. "$GUEST/bench-lib.sh"
wl_repo "$W/repo" || note "git: the repository could not be made"
chmod -R a+rX "$W"
cat > "$W/p10.json" << P
{"version":1,"id":"startup10","files":"unrestricted","exec":"unrestricted",
 "network":{"connect":["127.0.0.1:18399","10.0.0.1:443","10.0.0.2:443","10.0.0.3:443",
 "10.0.0.4:443","10.0.0.5:443","10.0.0.6:443","10.0.0.7:443","10.0.0.8:443","10.0.0.9:443"],"unix":[]}}
P
# git refuses a repository another uid owns: root's here, so --user root
cd "$W/repo" && "$RINGFENCE" learn -q --user root --out "$W/gitst.json" --verify -- git status --porcelain \
	> /dev/null 2>&1 || note "learn: git status failed"
cd "$W" && "$RINGFENCE" learn -q --out "$W/tar.json" --verify -- tar cf "$W/out/t.tar" -C "$W" repo \
	> /dev/null 2>&1 || note "learn: tar failed"
cd /
mmm() { sort -n | awk '{ v[NR] = $1 } END { printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
runs() { # LABEL CMD...: 5 runs, guest us min/median/max
	l=$1
	shift
	s= i=0
	while [ $i -lt 5 ]; do
		s="$s $("$VMTOOLS/rf-time" "$@")"
		i=$((i + 1))
	done
	note "$(printf '%-28s' "$l") us $(printf '%s\n' $s | mmm)"
}
note "ringfence profile: $(uname -r), guest time (instruction counts)"
runs "bare /bin/true" /bin/true
runs "run /bin/true (10 rules)" "$RINGFENCE" run -q --policy "$W/p10.json" -- /bin/true
cd "$W/repo"
runs "bare git status" git status --porcelain
runs "run git status" "$RINGFENCE" run -q --user root --policy "$W/gitst.json" -- git status --porcelain
cd "$W"
runs "bare tar" tar cf "$W/out/t.tar" -C "$W" repo
runs "run tar" "$RINGFENCE" run -q --policy "$W/tar.json" -- tar cf "$W/out/t.tar" -C "$W" repo
cd /
: > "$W/tim"
i=0
while [ $i -lt 5 ]; do
	RINGFENCE_TIMINGS=1 "$RINGFENCE" run -q --policy "$W/p10.json" -- /bin/true 2>> "$W/tim" > /dev/null
	i=$((i + 1))
done
note "RINGFENCE_TIMINGS of run /bin/true, medians of 5 (ms):"
awk '/timing: (step|undo) / { k = $3 " " $4; sub(/:$/, "", k); v = $(NF - 1)
	if (!(k in n)) ord[++m] = k; a[k, ++n[k]] = v }
	END { for (j = 1; j <= m; j++) { k = ord[j]; c = n[k]
		for (x = 1; x <= c; x++) s[x] = a[k, x]
		for (x = 1; x <= c; x++) for (y = x + 1; y <= c; y++)
			if (s[y] + 0 < s[x] + 0) { t = s[x]; s[x] = s[y]; s[y] = t }
		printf "#   %-24s %s\n", k, s[int((c + 1) / 2)] } }' "$W/tim"
grep 'timing: probe' "$W/tim" | tail -n 1 | sed 's/^ringfence: timing: /#   /'
stats() { # LABEL CMD...: BPF programs run by one CMD
	l=$1
	shift
	"$VMTOOLS/rf-progstats" > "$W/ps0" 2> /dev/null
	"$@" > /dev/null 2>&1
	"$VMTOOLS/rf-progstats" > "$W/ps1" 2> /dev/null
	note "BPF programs, $l (runs, total ns, mean ns):"
	awk 'NR == FNR { c[$1] = $2; t[$1] = $3; next }
		{ dc = $2 - c[$1]; dt = $3 - t[$1]
		  if (dc > 0) printf "#   %-24s %7d %10d %6d\n", $1, dc, dt, dt / dc }' "$W/ps0" "$W/ps1"
}
if echo 1 > /proc/sys/kernel/bpf_stats_enabled 2> /dev/null; then
	cd "$W/repo"
	stats "run git status" "$RINGFENCE" run -q --policy "$W/gitst.json" -- git status --porcelain
	stats "bare git status" git status --porcelain
	cd "$W"
	stats "run tar" "$RINGFENCE" run -q --policy "$W/tar.json" -- tar cf "$W/out/t.tar" -C "$W" repo
	stats "bare tar" tar cf "$W/out/t.tar" -C "$W" repo
	cd /
	echo 0 > /proc/sys/kernel/bpf_stats_enabled
fi
if command -v strace > /dev/null; then
	strace -f -T -o "$W/st" "$RINGFENCE" run -q --policy "$W/p10.json" -- /bin/true
	note "syscalls of one run /bin/true (strace -f -T; count, ms):"
	awk '/<[0-9.]+>$/ { t = $NF; gsub(/[<>]/, "", t); l = $0; sub(/^[0-9]+ +/, "", l); n = l
		if (l ~ /^<\.\.\. /) { sub(/^<\.\.\. /, "", n); sub(/ resumed.*/, "", n) } else sub(/\(.*/, "", n)
		if (n == "bpf" && match(l, /BPF_[A-Z_]+/)) n = "bpf:" substr(l, RSTART, RLENGTH)
		tot[n] += t; c[n]++ }
		END { for (k in tot) printf "#   %-34s %4d %8.3f\n", k, c[k], tot[k] * 1000 }' "$W/st" |
		sort -k4 -rn | head -n 25
	note "  $(grep -c '<[0-9.]*>$' "$W/st") calls in all"
fi
pass "profile: ran (figures above, nothing asserted)"
finish
