#!/bin/sh
# tests/attack/run.sh [LIST...]: the attack suite. Each attempt of
# tests/attack/LIST.list (default: every list) is a line
#     ID POLICY -- CMD ARGS
# CMD a tool in $TOOLS (exit 0: the forbidden thing happened, 10: the kernel
# refused it, 3: not applicable on this kernel or filesystem (unconfined
# only: skipped), anything else: a setup error), POLICY a file in policies/.
# @W@ (the world: a fresh directory) and @TOOLS@ are replaced in the
# arguments and the policies. LIST.reset WORLD, when present, remakes the
# world before every run; LIST.setup WORLD runs once before the list (it
# may start helpers; their pids go to WORLD/pids, killed at the end).
# CMD "stdin=KIND" or "tty=ROWSxCOLS" first runs both commands under a
# wrapper: a socket made outside on fd 0 (rf-attack-net with-stdin), or a
# fresh pty as the caller's terminal (rf-attack-tty with-pty WORLD/tty).
#
# Each attempt runs unconfined first (it must succeed: the attack is real),
# then under `ringfence run --policy`. The plan of the policy lists the gaps
# of the backends actually used (`ringfence check`: "gaps"). An ID's gap key
# is its part before the first '/': an attempt must escape exactly when its
# policy's plan lists that key. IDs ending ".allowed" are allowed twins:
# they must work inside the sandbox too. With every list run, each gap a
# plan listed must have had an attempt.
#
# POSIX sh and busybox: runs on the host (run_all.sh) and in the VMs
# (tests/vm/guest/attack.sh). Prints "ok - " / "not ok - " lines and
#   # attack BACKENDS: blocked B of N, escaped E (all listed gaps), twins T
#
# Environment: RINGFENCE, TOOLS (required); ATTACK_SET=smoke runs only the
# IDs in tests/attack/smoke; ATTACK_LABEL names the machine in the notes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${RINGFENCE:?set RINGFENCE to the ringfence binary}" "${TOOLS:?set TOOLS to the tools folder}"
ATTACK_SET=${ATTACK_SET:-full}
ATTACK_LABEL=${ATTACK_LABEL:-$(uname -r)}

if [ "$(id -u)" != 0 ]; then
	echo "ok - attack: skipped, not root # SKIP"
	exit 0
fi
WORK=$(mktemp -d /tmp/rf-attack.XXXXXX) || exit 1
W=$WORK/world
mkdir -p "$W" "$WORK/policies" "$WORK/tools"
# The sandboxes run as a dynamic uid (root without --user): mktemp's 0700
# would refuse them the world and the tools for that alone.
chmod 755 "$WORK"
# The attempts' arguments are split at spaces (the lists' words): a copy of
# the tools at a path without any, wherever the build is.
cp "$TOOLS"/rf-* "$WORK/tools/" || exit 1
TOOLS=$WORK/tools
cleanup() {
	[ -f "$W/pids" ] && for p in $(cat "$W/pids"); do kill "$p" 2> /dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FAILED=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; FAILED=$((FAILED + 1)); }
note() { echo "# $*"; }
show() { [ -s "$1" ] && sed 's/^/#   /' "$1" | head -n 20; return 0; }
subst() { sed -e "s|@W@|$W|g" -e "s|@TOOLS@|$TOOLS|g"; }

# The policy file for NAME (substituted once) and its gap ids and
# backends, from `ringfence check` (pretty-printed JSON, one member a line).
policy() {
	p=$WORK/policies/$1.json
	if [ ! -f "$p" ]; then
		[ -f "$HERE/policies/$1.json" ] || return 1
		subst < "$HERE/policies/$1.json" > "$p"
		"$RINGFENCE" check --policy "$p" > "$p.plan" 2> "$p.err" || return 1
		sed -n 's/^ *"gap": "\([^"]*\)".*/\1/p' "$p.plan" > "$p.gaps"
		# The backends of the classes, for the notes.
		sed -n 's/^      "backend": "\([^"]*\)".*/\1/p' "$p.plan" | sort -u | tr '\n' '+' |
			sed 's/+$//' > "$p.backends"
		cat "$p.gaps" >> "$WORK/gaps.listed"
	fi
	echo "$p"
}

in_smoke() {
	[ "$ATTACK_SET" != smoke ] || grep -qx "$1" "$HERE/smoke"
}

# run_attempt LIST ID POLICY CMD...
run_attempt() {
	list=$1 id=$2 pol=$3
	shift 3
	wrap=
	case $1 in
		stdin=*) wrap="$TOOLS/rf-attack-net with-stdin ${1#stdin=} --"; shift ;;
		tty=*) size=${1#tty=}
		       wrap="$TOOLS/rf-attack-tty with-pty $W/tty ${size%x*} ${size#*x} --"; shift ;;
	esac
	tool=$1
	shift
	[ -x "$TOOLS/$tool" ] || { fail "$id" "no tool $TOOLS/$tool"; return; }
	key=${id%%/*}
	allowed=
	case $id in *.allowed) allowed=1 ;; esac
	reset() { [ ! -f "$HERE/$list.reset" ] || TOOLS=$TOOLS sh "$HERE/$list.reset" "$W"; }

	# 1. unconfined: the attack must be real. (The world exists before
	# the policy is checked: Landlock wants its paths.)
	if ! reset > "$WORK/out" 2>&1; then
		fail "$id" "$list.reset failed"
		show "$WORK/out"
		return
	fi
	if ! pf=$(policy "$pol"); then
		fail "$id" "policy $pol: ringfence check refused it"
		show "$WORK/policies/$pol.json.err"
		return
	fi
	rc=0
	(cd "$W" && $wrap "$TOOLS/$tool" "$@") > "$WORK/out" 2>&1 || rc=$?
	if [ "$rc" = 3 ]; then
		pass "$id: skipped, not applicable here ($(tail -n 1 "$WORK/out")) # SKIP"
		return
	fi
	if [ "$rc" != 0 ]; then
		fail "$id" "does not work unconfined (exit $rc): not a real attempt"
		show "$WORK/out"
		return
	fi
	# 2. in the sandbox.
	reset || { fail "$id" "$list.reset failed"; return; }
	rc=0
	(cd "$W" && $wrap "$RINGFENCE" run -q --policy "$pf" -- "$TOOLS/$tool" "$@") > "$WORK/out" 2>&1 ||
		rc=$?
	# ringfence refused to start with the outside socket on stdin
	case $wrap in *with-stdin*) [ "$rc" != 126 ] || rc=10 ;; esac
	case $rc in
		0) got=escaped ;;
		10 | 137 | 159) got=blocked ;;  # refused, or killed (SIGKILL, SIGSYS)
		*) fail "$id" "setup error in the sandbox (exit $rc)"; show "$WORK/out"; return ;;
	esac
	what=$(tail -n 1 "$WORK/out")
	if [ -n "$allowed" ]; then
		TWINS=$((TWINS + 1))
		if [ "$got" = escaped ]; then pass "$id: allowed, works ($what)"; else
			fail "$id" "the allowed twin was refused ($what)"; fi
		return
	fi
	echo "$key" >> "$WORK/gaps.tried"
	TOTAL=$((TOTAL + 1))
	if grep -qx "$key" "$pf.gaps"; then
		if [ "$got" = escaped ]; then
			ESCAPED=$((ESCAPED + 1))
			pass "$id: escapes, a listed gap ($what)"
		else
			BLOCKED=$((BLOCKED + 1))
			fail "$id" "blocked, but the plan lists gap $key ($what)"
		fi
	elif [ "$got" = escaped ]; then
		ESCAPED=$((ESCAPED + 1)) UNLISTED=$((UNLISTED + 1))
		fail "$id" "ESCAPES and the plan lists no gap $key ($what)"
	else
		BLOCKED=$((BLOCKED + 1))
		pass "$id: blocked ($what)"
	fi
}

TOTAL=0 BLOCKED=0 ESCAPED=0 UNLISTED=0 TWINS=0
: > "$WORK/gaps.listed"
: > "$WORK/gaps.tried"
if [ $# -eq 0 ]; then
	set -- $(cd "$HERE" && ls *.list | sed 's/\.list$//')
	all=1
else
	all=
fi
for list in "$@"; do
	list=${list%.list}
	f=$HERE/$list.list
	[ -f "$f" ] || { fail "attack: list $list" "no $f"; continue; }
	if [ -f "$HERE/$list.setup" ] && ! TOOLS=$TOOLS sh "$HERE/$list.setup" "$W"; then
		fail "attack: $list.setup" "failed"
		continue
	fi
	# Read the list on fd 3: the attempts keep stdin.
	while read -r id pol sep rest <&3; do
		case $id in '' | '#'*) continue ;; esac
		if [ "$sep" != "--" ] || [ -z "$rest" ]; then
			fail "$id" "$list.list: not 'ID POLICY -- CMD ARGS'"
			continue
		fi
		in_smoke "$id" || continue
		# shellcheck disable=SC2046 # the arguments are words, @W@ substituted
		run_attempt "$list" "$id" "$pol" $(echo "$rest" | subst)
	done 3< "$f"
done

# Every gap a plan listed was tried (only when every list ran in full).
if [ -n "$all" ] && [ "$ATTACK_SET" = full ]; then
	for g in $(sort -u "$WORK/gaps.listed"); do
		if grep -qx "$g" "$WORK/gaps.tried"; then
			pass "attack: gap $g has an attempt"
		else
			fail "attack: gap $g" "a plan lists it, no attempt tries it"
		fi
	done
fi
backends=$(for f in "$WORK"/policies/*.backends; do [ -f "$f" ] && tr '+' '\n' < "$f" && echo; done |
	sed '/^$/d' | sort -u | tr '\n' '+' | sed 's/+$//')
note "attack $ATTACK_LABEL ($backends, set $ATTACK_SET): blocked $BLOCKED of $TOTAL," \
	"escaped $ESCAPED ($UNLISTED not listed as gaps), allowed twins $TWINS"
exit $((FAILED > 0))
