#!/bin/sh
# The real-workload bench under BPF-LSM (issue 25). On the host:
# `tests/bench/vm-workloads.sh BUILD` boots the test VM (qemu TCG, guest
# time from instruction counts as tests/bench/vm-lsm.sh does) once per
# kernel of VM_KERNELS (default "6.1 7.3"; 7.3 booted with the bpf LSM).
# In the guest, each workload runs under the policy `ringfence learn
# --verify` wrote for it there (files, exec and network decided by the
# BPF-LSM programs), against bare, in BENCH_ROUNDS interleaved rounds
# (default 3): ratios per round as min/median/max and PASS/MISS of the
# median against x1.10. The workloads, smaller than the host's (one CPU
# under emulation): gcc -O2 -c of one file, make of a 4-file project with
# its link, python3 importing json, sqlite3, ssl, email and http.client,
# git status and git log -p in a 300-file repository, tar of it.
# vm-needs: workloads bench-workloads
if [ ! -d /rf/guest ]; then
	# ---- host ----
	set -eu
	. "$(dirname "$0")/bench-lib.sh"
	ARGS="rf.bench_rounds=${BENCH_ROUNDS:-3}"
	[ -z "${BENCH_WORKLOADS:-}" ] || ARGS="$ARGS rf.bench_only=$(echo "$BENCH_WORKLOADS" | tr ' ' ,)"
	vm_bench_boot "${1:-build}" vm-workloads 1500 "$ARGS"
	exit 0
fi

# ---- guest ----
. "$GUEST/lib/tap.sh"
ROUNDS=3 ONLY="gcc-c make python git-st git-log tar"
for w in $(cat /proc/cmdline); do
	case $w in
		rf.bench_rounds=*) ROUNDS=${w#rf.bench_rounds=} ;;
		rf.bench_only=*) ONLY=$(echo "${w#rf.bench_only=}" | tr , ' ') ;;
	esac
done
W=$(mktemp -d /tmp/wl.XXXXXX)
chmod 755 "$W"
export HOME=/root PATH=/usr/bin:/bin LANG=C
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
. "$GUEST/bench-lib.sh"
mkdir -p "$W/repo" "$W/out"
wl_sources "$W" 3
wl_repo "$W/repo" || note "git: the repository could not be made"
chmod -R a+rX "$W"

# name: directory, command
# git refuses a repository another uid owns (safe.directory): root's here,
# so git runs as root, not as the dynamic uid a run by root gets by default.
wl_user() { case $1 in git-st | git-log) echo --user root ;; esac; }
wl_dir() { case $1 in gcc-c) echo "$W/c" ;; make) echo "$W/proj" ;; git-st | git-log) echo "$W/repo" ;; *) echo "$W" ;; esac; }
wl_cmd() { # NAME: the workload's command line
	case $1 in
		gcc-c) echo gcc -O2 -c -o "$W/c/h.o" "$W/c/h.c" ;;
		make) echo make -s ;;
		python) echo /usr/bin/python3 -c "'import json, sqlite3, ssl, email, http.client'" ;;
		git-st) echo git status --porcelain ;;
		git-log) echo git log -p ;;
		tar) echo tar cf "$W/out/t.tar" -C "$W" repo ;;
	esac
}
prep() { [ "$1" != make ] || make -s -C "$W/proj" clean > /dev/null 2>&1; }
# t_us NAME [runner...]: the workload's microseconds in guest time
t_us() {
	n=$1
	shift
	prep "$n"
	cd "$(wl_dir "$n")" || return
	eval "\"$VMTOOLS/rf-time\" $* $(wl_cmd "$n")" || note "$n ${1:+under ringfence }failed" >&2
	cd /
}
mmm() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
	printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
note "ringfence workload bench: $(uname -r), $(nproc) CPU(s), qemu TCG, $ROUNDS interleaved rounds"
printf '# %-8s %12s %12s %20s %s\n' workload "bare (ms)" "ringfence" "rf/bare min/med/max" "<=1.10"
for n in $ONLY; do
	prep $n
	cd "$(wl_dir $n)" || continue
	if ! eval "\"$RINGFENCE\" learn -q $(wl_user $n) --out \"$W/$n.json\" --verify -- $(wl_cmd $n)" \
		> /dev/null 2> "$W/$n.learn"; then
		note "$n: learn: $(grep -v '^ringfence: ' "$W/$n.learn" | head -n 3 | tr '\n' ' ')"
		cd /
		note "$n: MISS (learn --verify failed)"
		continue
	fi
	cd /
	"$RINGFENCE" check --policy "$W/$n.json" 2> /dev/null | grep -q '"backend": "bpf-lsm"' ||
		note "$n: the learned policy's files or exec are not on bpf-lsm here"
	# warm, and the learned policy must run it from the start (make: clean)
	prep $n
	cd "$(wl_dir $n)" || continue
	if ! eval "\"$RINGFENCE\" run -q $(wl_user $n) --policy \"$W/$n.json\" -- $(wl_cmd $n)" \
		> /dev/null 2> "$W/$n.run"; then
		cd /
		note "$n: MISS (fails under its learned policy: $(tail -n 3 "$W/$n.run" | tr '\n' ' '))"
		continue
	fi
	cd /
	r=1 bare= rf= ratios=
	while [ $r -le "$ROUNDS" ]; do
		x=$(t_us $n) y=$(t_us $n "$RINGFENCE" run -q $(wl_user $n) --policy "$W/$n.json" --)
		bare="$bare $x" rf="$rf $y"
		ratios="$ratios $(awk -v a="$y" -v b="$x" 'BEGIN { printf "%.3f", a / b }')"
		r=$((r + 1))
	done
	med() { printf '%s\n' $1 | mmm | awk -F/ '{ printf "%.1f", $2 / 1000 }'; }
	m=$(printf '%s\n' $ratios | mmm)
	printf '# %-8s %12s %12s %20s %s\n' $n "$(med "$bare")" "$(med "$rf")" "$m" \
		"$(echo "$m" | awk -F/ '{ print ($2 <= 1.10) ? "PASS" : "MISS" }')"
done
pass "bench: ran (ratios above, nothing asserted)"
finish
