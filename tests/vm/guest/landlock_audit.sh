#!/bin/sh
# vm-kernels: 7.3
# Guest suite "landlock_audit": on Debian's 7.3 kernel booted without the
# bpf LSM (a fallback host: Landlock ABI 7 + seccomp, CONFIG_AUDIT and
# CONFIG_SECURITY_LANDLOCK_LOG), Landlock's own denial records reach the
# trace. Audit is switched on inside this guest only (rf-audit); with it,
# a denied read and a denied exec are kernel.deny lines in the kernel's
# word (attribution "kernel", backend landlock-abiN, N the kernel's ABI:
# 11 on 7.3.4), while the sandbox runs, with no syscall tracepoint attached
# anywhere (rf_obs_enter/rf_obs_exit: they would slow every task of the
# host) but the exec one (rf_obs_exec, once per exec), which kills `ld.so
# FILE`, and they reach a running ringfence-monitor's stream.
# With audit off the same run yields inferred lines, and the observe
# programs are attached while it runs.
. "$GUEST/lib/tap.sh"

W=/tmp/la
AUDIT=$VMTOOLS/rf-audit
LINKS=$VMTOOLS/rf-links
FS=$TOOLS/rf-fs
MON=$RF/ringfence-monitor
mkdir -p "$W/data" "$W/secret"
echo a > "$W/data/a"
echo s > "$W/secret/s"
mkfifo "$W/data/fifo"
cat > "$W/policy.json" << EOF
{"version":1,"id":"la",
 "files":{"read":["/usr/lib/","/usr/lib64/","/rf/tests/tools/","$W/data/"]},
 "exec":["/usr/lib/","/usr/lib64/","$FS"],
 "network":"unrestricted"}
EOF

case ",$(cat /sys/kernel/security/lsm 2> /dev/null)," in
	*,landlock,*bpf* | *,bpf,*) fail "lsm: landlock without bpf" "$(cat /sys/kernel/security/lsm)" ;;
	*,landlock,*) pass "lsm: landlock active, bpf not ($(cat /sys/kernel/security/lsm))" ;;
	*) fail "lsm: landlock without bpf" "$(cat /sys/kernel/security/lsm 2> /dev/null)" ;;
esac

# run NAME: the sandboxed reads and exec, then a read of a FIFO that holds
# the sandbox open until released; while it waits: the kernel.deny lines of
# both denials in the trace so far (up to 60 s) and the observe links on
# the host in $W/NAME.links. $W/NAME.{out,err,trace}
run() {
	rc=0
	"$RINGFENCE" run -q --policy "$W/policy.json" --trace "$W/$1.trace" -- \
		"$FS" read "$W/secret/s" read "$W/data/a" exec /usr/bin/busybox \
		read "$W/data/fifo" > "$W/$1.out" 2> "$W/$1.err" &
	rpid=$!
	i=0
	while [ "$(grep -c '"event":"kernel.deny"' "$W/$1.trace" 2> /dev/null)" != 2 ] &&
		[ $i -lt 300 ] && kill -0 $rpid 2> /dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
	"$LINKS" rf_obs_enter rf_obs_exit > "$W/$1.links" 2>&1
	"$LINKS" rf_obs_exec > "$W/$1.xlinks" 2>&1
	if [ "$(grep -c '"event":"kernel.deny"' "$W/$1.trace" 2> /dev/null)" = 2 ]; then
		pass "$1: both denials are in the trace while the sandbox runs"
	else
		fail "$1: both denials are in the trace while the sandbox runs" "after $i waits:"
		grep '"event":"kernel.deny"' "$W/$1.trace" | sed 's/^/#   /'
		missed=1
	fi
	echo go > "$W/data/fifo" &
	wpid=$!
	wait $rpid || rc=$?
	kill $wpid 2> /dev/null || true
	# what became of the missing candidate (inferred_not_policy, observed_lost)
	[ -z "${missed:-}" ] || grep '"event":"sandbox.exit"' "$W/$1.trace" | sed 's/^/#   exit: /'
	missed=
	if [ "$rc" = 0 ] && grep -q "^read $W/secret/s EACCES" "$W/$1.out" &&
	   grep -q "^read $W/data/a ok" "$W/$1.out" &&
	   grep -q "^exec /usr/bin/busybox EACCES" "$W/$1.out" &&
	   grep -q "^read $W/data/fifo ok" "$W/$1.out"; then
		pass "$1: the denied read and exec fail with EACCES, the allowed reads work"
	else
		fail "$1: the denied read and exec fail with EACCES, the allowed reads work" "exit $rc"
		show "$W/$1.out"
		show "$W/$1.err"
	fi
}

# observed NAME WANT: the plan says how file and exec denials are seen
observed() {
	pl=$(grep '"event":"sandbox.plan"' "$W/$1.trace")
	case $pl in
		*'"file":{'*'"observed":"'"$2"'"'*'"exec":{'*'"observed":"'"$2"'"'* | \
		*'"exec":{'*'"observed":"'"$2"'"'*'"file":{'*'"observed":"'"$2"'"'*)
			pass "$1: the plan says file and exec denials are observed $2" ;;
		*) fail "$1: the plan says file and exec denials are observed $2" "$pl" ;;
	esac
}

# decisions PATH: ringfence-monitor's recorded decisions naming PATH (its
# record is flushed every interval: up to 10 s)
decisions() {
	i=0
	while [ "$(grep '"type":"decision"' "$W/mon.rec" | grep -c "\"path\":\"$1\"")" = 0 ] &&
		[ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	grep '"type":"decision"' "$W/mon.rec" | grep -c "\"path\":\"$1\"" || true
}

# ---- a live ringfence-monitor, recording the decisions it is handed ----
"$MON" -q --record "$W/mon.rec" --output "$W/alerts.ndjson" --state "" --interval 200 \
	--cpu-percent 0 2> "$W/monitor.err" &
MON_PID=$!
i=0
while [ ! -e /run/ringfence/monitor.lock ] && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
sleep 1

# The kernel's Landlock ABI (7+ logs denials), as the probe found it.
"$RINGFENCE" probe > "$W/probe0.json" 2> /dev/null || true
ABI=$(sed -n 's/^ *"abi": \([0-9]*\),*$/\1/p' "$W/probe0.json" | head -n1)
if [ "${ABI:-0}" -ge 7 ]; then
	pass "probe: Landlock ABI $ABI (7+ logs denials)"
else
	fail "probe: Landlock ABI 7 or later" "abi '${ABI:-missing}'"
fi
BACKEND=landlock-abi${ABI:-0}

# lines NAME PATH ATTRIBUTION: kernel.deny lines of PATH with that attribution
lines() {
	grep '"event":"kernel.deny"' "$W/$1.trace" | grep "\"path\":\"$2\"" |
		grep -c "\"attribution\":\"$3\"" || true
}

# want NAME PATH ATTRIBUTION: exactly one such line, backend $BACKEND,
# and none with the other attribution
want() {
	other=kernel
	[ "$3" = kernel ] && other=inferred
	n=$(lines "$1" "$2" "$3")
	m=$(lines "$1" "$2" "$other")
	b=$(grep '"event":"kernel.deny"' "$W/$1.trace" | grep "\"path\":\"$2\"" |
		grep -c "\"backend\":\"$BACKEND\"" || true)
	if [ "$n" = 1 ] && [ "$m" = 0 ] && [ "$b" = 1 ]; then
		pass "$1: $2 denied once, attribution $3, backend $BACKEND, no $other line"
	else
		fail "$1: $2 denied once, attribution $3, backend $BACKEND, no $other line" \
			"$n $3, $m $other, $b $BACKEND"
		grep '"event":"kernel.deny"' "$W/$1.trace" | sed 's/^/#   /'
	fi
}

# ---- audit off (the default): inferred ----
st=$("$AUDIT" get 2>&1)
case $st in
	enabled=0*) pass "audit is off at boot ($st)" ;;
	*) fail "audit is off at boot" "$st" ;;
esac
run off
want off "$W/secret/s" inferred
want off /usr/bin/busybox inferred
observed off inferred
n=$(cat "$W/off.links")
if [ "$n" = 1 ]; then
	pass "off: the sys_exit program alone is attached while the sandbox runs (sys_enter: audit sandboxes only)"
else
	fail "off: the sys_exit program alone is attached while the sandbox runs" "links: $n"
fi
if grep '"event":"sandbox.exit"' "$W/off.trace" | grep -q '"landlock_audit"'; then
	fail "off: no landlock_audit counts without audit" "$(grep '"event":"sandbox.exit"' "$W/off.trace")"
else
	pass "off: no landlock_audit counts without audit"
fi

# ---- audit on (this guest only): the kernel's own records ----
st=$("$AUDIT" on 2>&1)
case $st in
	enabled=1*) pass "audit switched on in the guest ($st)" ;;
	*) fail "audit switched on in the guest" "$st" ;;
esac
"$RINGFENCE" probe > "$W/probe.json" 2> /dev/null || true
if grep -q "kernel audit is on: Landlock ABI $ABI logs its denials" "$W/probe.json"; then
	pass "probe: audit on, Landlock ABI $ABI logs its denials"
else
	fail "probe: audit on, Landlock ABI $ABI logs its denials" "$(grep -A3 '"audit"' "$W/probe.json")"
fi
run on
want on "$W/secret/s" kernel
want on /usr/bin/busybox kernel
observed on kernel-audit
n=$(cat "$W/on.links")
if [ "$n" = 0 ]; then
	pass "on: no syscall tracepoint (rf_obs_enter, rf_obs_exit) is attached anywhere while the sandbox runs"
else
	fail "on: no syscall tracepoint (rf_obs_enter, rf_obs_exit) is attached anywhere while the sandbox runs" "links: $n"
fi
n=$(cat "$W/on.xlinks")
if [ "$n" = 1 ]; then
	pass "on: the exec tracepoint alone (rf_obs_exec) is attached while the sandbox runs"
else
	fail "on: the exec tracepoint alone (rf_obs_exec) is attached while the sandbox runs" "links: $n"
fi
case $(grep '"event":"sandbox.plan"' "$W/on.trace") in
	*'"exec.loader"'*) fail "on: exec.loader is closed, not listed" "the plan lists it" ;;
	*'"syscall_tracepoints":false,"exec_tracepoint":true'*) pass "on: exec.loader is closed, not listed; the plan says only the exec tracepoint runs" ;;
	*) fail "on: exec.loader is closed, not listed; the plan says only the exec tracepoint runs" "$(grep -o '"observation":{[^}]*}' "$W/on.trace")" ;;
esac
# the loader run as the program, on a readable program the policy does not
# let it exec: killed at exec; the program run as itself works
LDSO=$(ls /lib64/ld-linux-*.so.* /lib/ld-linux*.so.* 2> /dev/null | head -n 1)
cp "$FS" "$W/data/fs-copy"
rc=0
"$RINGFENCE" run -q --policy "$W/policy.json" -- "$LDSO" "$W/data/fs-copy" read "$W/data/a" \
	> "$W/ldso.out" 2> "$W/ldso.err" || rc=$?
rc2=0
"$RINGFENCE" run -q --policy "$W/policy.json" -- "$FS" read "$W/data/a" > "$W/twin.out" 2>&1 || rc2=$?
if [ -n "$LDSO" ] && [ "$rc" = 137 ] && ! grep -q "^read" "$W/ldso.out" && [ "$rc2" = 0 ] &&
	grep -q "^read $W/data/a ok" "$W/twin.out"; then
	pass "on: \`$LDSO readable-program\` is killed at exec (137), the program run as itself works"
else
	fail "on: \`ld.so readable-program\` is killed at exec (137), the program run as itself works" \
		"loader '$LDSO' exit $rc, twin exit $rc2"
	show "$W/ldso.err"
fi
ex=$(grep '"event":"sandbox.exit"' "$W/on.trace")
case $ex in
	*'"file":"kernel-audit"'*'"exec":"kernel-audit"'* | *'"exec":"kernel-audit"'*'"file":"kernel-audit"'*)
		pass "on: sandbox.exit says file and exec denials come from the kernel's audit log" ;;
	*) fail "on: sandbox.exit says file and exec denials come from the kernel's audit log" "$ex" ;;
esac
case $ex in
	*'"complete":true'*'"missing":0'*) pass "on: the kernel's own denial count for the domain matches the records" ;;
	*) fail "on: the kernel's own denial count for the domain matches the records" "$ex" ;;
esac
case $ex in
	*'"denials_inferred_total":0'*) pass "on: nothing inferred" ;;
	*) fail "on: nothing inferred" "$ex" ;;
esac
for p in "$W/secret/s" /usr/bin/busybox; do
	n=$(decisions "$p")
	if [ "$n" -ge 1 ]; then
		pass "monitor: the kernel-logged denial of $p reached ringfence-monitor's stream"
	else
		fail "monitor: the kernel-logged denial of $p reached ringfence-monitor's stream" \
			"$(grep -c '"type":"decision"' "$W/mon.rec") decisions recorded"
		grep '"type":"decision"' "$W/mon.rec" | sed 's/^/#   /' | head -n 10
	fi
done
"$AUDIT" off > /dev/null 2>&1 || fail "audit switched off again" "rf-audit off failed"
kill $MON_PID 2> /dev/null || true
wait $MON_PID 2> /dev/null || true
finish
