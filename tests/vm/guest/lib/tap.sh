# Sourced by the guest suites (busybox sh). Each check prints one line:
#   ok - NAME
#   not ok - NAME: REASON
# /init counts those lines; a suite's exit status only matters when it
# reports no failure (then a non-zero status counts as one).
FAILED=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; FAILED=$((FAILED + 1)); }
note() { echo "# $*"; }
# Print a file's lines as "# " notes (for the reason of a failure).
show() { [ -s "$1" ] && sed 's/^/#   /' "$1"; return 0; }
finish() { exit $((FAILED > 0)); }

# probe_field JSON BACKEND FIELD: the raw JSON value of
# .backends[BACKEND][FIELD] in `ringfence probe` output (pretty-printed, one
# member a line), or nothing. A change of that layout makes checks fail,
# never pass.
probe_field() {
	awk -v want="$2" -v field="$3" '
		/^  "backends": \{$/ { inb = 1; next }
		inb && /^  \}/ { inb = 0 }
		inb && /^    "[^"]*": \{$/ { cur = $1; gsub(/[":]/, "", cur); next }
		inb && cur == want && index($0, "      \"" field "\": ") == 1 {
			v = substr($0, length("      \"" field "\": ") + 1)
			sub(/,$/, "", v)
			print v
		}' "$1"
}
