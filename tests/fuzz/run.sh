#!/bin/bash
# Run every libFuzzer harness (BUILD/fuzz/fuzz_*) over its seed corpus
# (tests/fuzz/corpus/NAME/) and then on mutations, under ASan+UBSan, and
# print one TAP line per harness.
#   tests/fuzz/run.sh BUILD           short: 10 s each (make test); new
#                                     inputs go to a scratch folder
#   tests/fuzz/run.sh BUILD SECONDS   longer (make fuzz); new inputs are
#                                     kept in BUILD/fuzz/corpus/NAME/
# A crash, leak, timeout or broken invariant is "not ok" and its input is
# saved as BUILD/fuzz/artifacts/NAME-crash-* (add it to the corpus as a
# regression seed once fixed).
set -uo pipefail
BUILD=${1:-build}
SECONDS_EACH=${2:-10}
KEEP=${2:+1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/tests/fuzz/corpus
ART=$BUILD/fuzz/artifacts
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

names=()
for c in "$CORPUS"/*/; do names+=("$(basename "$c")"); done
echo "1..${#names[@]}"
mkdir -p "$ART"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
for n in "${names[@]}"; do
	bin=$BUILD/fuzz/fuzz_$n
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz_$n: not built ($bin; make fuzz builds it)"
		failed=1
		continue
	fi
	if [ -n "$KEEP" ]; then new=$BUILD/fuzz/corpus/$n; else new=$scratch/$n; fi
	mkdir -p "$new"
	log=$scratch/$n.log
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$ART/$n-" "$new" "$CORPUS/$n" >"$log" 2>&1 &
	wait $! # (not in the foreground: no "Aborted" line from bash)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	seeds=$(find "$CORPUS/$n" -type f | wc -l)
	if [ "$rc" = 0 ]; then
		echo "ok - fuzz_$n: $seeds seeds and ${runs:-?} runs in ${SECONDS_EACH} s, no crash"
	else
		echo "not ok - fuzz_$n: exit $rc after ${runs:-?} runs"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:|artifact_prefix|Test unit written|.*runtime error)' "$log" |
			head -20 | sed 's/^/# /'
		failed=1
	fi
done
exit $failed
