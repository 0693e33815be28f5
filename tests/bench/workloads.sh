#!/bin/bash
# Real workloads under ringfence vs bare, bubblewrap and firejail (issue 25),
# quiet and loaded, interleaved rounds (min/median/max of per-round ratios):
#   gcc-c     gcc -O2 -c of one C file (a short tool call)
#   make-j2   a 30-file C project, make -j2 (cleaned, untimed, before each)
#   python    python3 -c 'import json, sqlite3, ssl, email, http.client'
#   git-st    git status in a repository of 3,000 files
#   git-log   git log -p of the same repository (40 commits)
#   tar       tar cf of a 3,000-file tree into the work directory
# Each runs under a policy `ringfence learn --verify` wrote for it (files,
# exec and network confined; what the workload did, nothing else), on this
# host's backends (here: Landlock + seccomp + the cgroup hooks).
# bubblewrap: read-only root, the work directory bound writable, every
# namespace unshared. firejail (if installed): --noprofile --net=none.
# Targets (PASS/MISS): ringfence/bare median <= 1.05, ringfence/bwrap <= 1.00.
#   tests/bench/workloads.sh [BUILD] [quiet|loaded|both]
# Runs sandboxes: take the host lock around it on a shared host.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
MODE=${2:-both}
RF=$BUILD/ringfence
ROUNDS=${BENCH_ROUNDS:-7}
ONLY=${BENCH_WORKLOADS:-gcc-c make-j2 python git-st git-log tar}
PY=/usr/bin/python3    # Debian's, whatever python3 the caller's PATH finds
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
W=$(mktemp -d /tmp/rf-workloads.XXXXXX)
chmod 755 "$W"
busy=()
stop_busy() { local p; for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${busy[@]}"; do wait "$p" 2>/dev/null || true; done; busy=(); }
trap 'stop_busy; rm -rf "$W"' EXIT

# ---- the work: sources, a project, a repository, a tree ----
mkdir -p "$W/repo" "$W/out"
. "$(dirname "$0")/bench-lib.sh"
wl_sources "$W" 30
"$PY" - "$W/repo" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(30):
    os.makedirs(f"{root}/d{d:02}", exist_ok=True)
    for f in range(100):
        with open(f"{root}/d{d:02}/f{f:03}.txt", "w") as fh:
            fh.write(f"file {d} {f}\n" * 20)
PY
(
	cd "$W/repo"
	export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
	git init -q . && git add -A && git commit -qm init
	for i in $(seq 1 39); do
		echo "change $i" >> "$(printf 'd%02d/f%03d.txt' $((i % 30)) $((i % 10)))"
		git commit -qam "change $i"
	done
)
chmod -R a+rX "$W"

# ---- the workloads: name -> directory and command ----
declare -A DIR CMD
DIR[gcc-c]=$W/c;      CMD[gcc-c]="gcc -O2 -c -o $W/c/h.o $W/c/h.c"
DIR[make-j2]=$W/proj; CMD[make-j2]="make -s -j2"
DIR[python]=$W;       CMD[python]="$PY -c 'import json, sqlite3, ssl, email, http.client'"
DIR[git-st]=$W/repo;  CMD[git-st]="git status --porcelain"
DIR[git-log]=$W/repo; CMD[git-log]="git log -p"
DIR[tar]=$W;          CMD[tar]="tar cf $W/out/t.tar -C $W repo/d00 repo/d01 repo/d02 repo/d03 repo/d04 repo/d05 repo/d06 repo/d07 repo/d08 repo/d09 repo/d10 repo/d11 repo/d12 repo/d13 repo/d14 repo/d15 repo/d16 repo/d17 repo/d18 repo/d19 repo/d20 repo/d21 repo/d22 repo/d23 repo/d24 repo/d25 repo/d26 repo/d27 repo/d28 repo/d29"
# git refuses a repository another uid owns (safe.directory): root's
# repository here, so git runs as root (--user root), not as the dynamic uid
# a run by root gets by default (learn says so when it is left out).
declare -A RFU=([git-st]="--user root" [git-log]="--user root")
prep() { # untimed, before each timing: make starts from clean
	[ "$1" != make-j2 ] || make -s -C "$W/proj" clean > /dev/null
}

have_fj=0; command -v firejail > /dev/null && have_fj=1
# One timing in microseconds (bash's clock; output discarded). $1: how.
t_us() {
	local how=$1 wl=$2 t0 t1
	prep "$wl"
	cd "${DIR[$wl]}"
	t0=${EPOCHREALTIME/./}
	case $how in
	bare) eval "${CMD[$wl]}" > /dev/null 2>&1 ;;
	rf) eval "\"$RF\" run -q ${RFU[$wl]:-} --no-observe --policy \"$W/$wl.json\" -- ${CMD[$wl]}" > /dev/null 2>&1 ;;
	rfo) eval "\"$RF\" run -q ${RFU[$wl]:-} --policy \"$W/$wl.json\" -- ${CMD[$wl]}" > /dev/null 2>&1 ;;
	bwrap) eval "bwrap --ro-bind / / --dev /dev --proc /proc --bind \"$W\" \"$W\" --unshare-all \
		--die-with-parent --chdir \"${DIR[$wl]}\" -- ${CMD[$wl]}" > /dev/null 2>&1 ;;
	fj) eval "firejail --quiet --noprofile --net=none -- ${CMD[$wl]}" > /dev/null 2>&1 ;;
	esac || echo "bench: $how $wl failed" >&2
	t1=${EPOCHREALTIME/./}
	cd /
	echo $((t1 - t0))
}
stats() { sort -g | awk '{v[NR]=$1} END {printf "%.3f %.3f %.3f", v[1], v[int((NR+1)/2)], v[NR]}'; }
verdict() { if awk "BEGIN{exit !($1)}"; then echo PASS; else echo MISS; fi; }

# ---- learn each workload's policy (audit mode, then --verify enforcing) ----
learned=()
for wl in $ONLY; do
	prep "$wl"
	cd "${DIR[$wl]}"
	if eval "\"$RF\" learn -q ${RFU[$wl]:-} --out \"$W/$wl.json\" --verify -- ${CMD[$wl]}" > /dev/null 2> "$W/$wl.learn"; then
		learned+=("$wl")
	else
		echo "bench: learn failed for $wl: $(tail -n 2 "$W/$wl.learn" | tr '\n' ' ')" >&2
	fi
	cd /
done

measure() { # label
	local wl i how r
	echo "== workloads, $1 ($(uname -r), $(nproc) CPUs, $ROUNDS interleaved rounds;"
	echo "   ratios per round against bare, min/median/max; ms: medians)"
	printf '%-8s %8s %9s %9s %9s %9s   %-23s %-23s %-23s %s\n' workload bare-ms rf-ms \
		rf+obs-ms bwrap-ms firejail rf/bare rf+observe/bare bwrap/bare verdicts
	for wl in "${learned[@]}"; do
		declare -A T=()
		t_us rf "$wl" > /dev/null  # warm: caches, the pinned set
		for ((i = 0; i < ROUNDS; i++)); do
			for how in bare rf rfo bwrap $([ $have_fj = 1 ] && echo fj); do
				T[$how]+="$(t_us $how "$wl") "
			done
		done
		ratio() { paste <(printf '%s\n' ${T[$1]}) <(printf '%s\n' ${T[bare]}) |
			awk '{printf "%.4f\n", $1 / $2}' | stats; }
		med() { printf '%s\n' ${T[$1]} | stats | awk '{printf "%.1f", $2 / 1000}'; }
		local rb ob wb rw
		rb=$(ratio rf); ob=$(ratio rfo); wb=$(ratio bwrap)
		rw=$(paste <(printf '%s\n' ${T[rf]}) <(printf '%s\n' ${T[bwrap]}) |
			awk '{printf "%.4f\n", $1 / $2}' | stats)
		printf '%-8s %8s %9s %9s %9s %9s   %-23s %-23s %-23s %s\n' "$wl" "$(med bare)" \
			"$(med rf)" "$(med rfo)" "$(med bwrap)" \
			"$([ $have_fj = 1 ] && med fj || echo -)" "$rb" "$ob" "$wb" \
			"rf/bare<=1.05 $(verdict "$(echo "$rb" | cut -d' ' -f2) <= 1.05"), rf/bwrap $(echo "$rw" | cut -d' ' -f2)<=1 $(verdict "$(echo "$rw" | cut -d' ' -f2) <= 1.00")"
		unset T
	done
	for wl in $ONLY; do
		[[ " ${learned[*]} " == *" $wl "* ]] || echo "$wl: MISS (no learned policy: see above)"
	done
}

echo "rf: ringfence run --no-observe under the learned policy; rf+observe: the same, observed (the default)"
[ $have_fj = 1 ] || echo "firejail: not installed (make deps installs it)"
if [ "$MODE" = quiet ] || [ "$MODE" = both ]; then
	measure "quiet (the host as it is)"
fi
if [ "$MODE" = loaded ] || [ "$MODE" = both ]; then
	for ((i = 0; i < $(nproc); i++)); do (while :; do :; done) & busy+=($!); done
	measure "loaded ($(nproc) CPUs kept busy by shell loops)"
	stop_busy
fi
