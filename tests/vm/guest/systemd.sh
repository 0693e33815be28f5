#!/bin/sh
# vm-kernels: systemd
# Guest suite "systemd" (VM_SYSTEMD=1 tests/vm/run.sh BUILD): PID 1 is the
# host's systemd (252) and this suite runs as its rf-suites.service, a unit
# without delegation. Where the sandbox cgroups go (supervisor/cgroups/cgplace.h):
#  - from a unit without Delegate=: a transient scope with Delegate=yes made
#    through systemd's D-Bus API (sd-bus), the sandbox below it, not at the
#    cgroup2 root; the scope is gone after the run;
#  - from a unit with Delegate=yes (a unit file run by systemctl): below the
#    unit's own cgroup, the supervisor in a leaf beside it;
# each time with the memory cap in force (memory.max, and a hog killed at
# it) and the network programs holding (allowed port ok, its neighbour
# EPERM) in the place systemd gave.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/systemd.XXXXXX)
ALLOWED=18391
OTHER=18392
CG='/sys/fs/cgroup$(grep ^0:: /proc/self/cgroup | cut -d: -f3)'
pol() { # ID
	printf '{"version":1,"id":"%s","files":"unrestricted","exec":"unrestricted","network":{"connect":["127.0.0.1:%s"],"unix":"unrestricted"},"limits":{"memory_mb":32}}\n' \
		"$1" "$ALLOWED" > "$W/$1.json"
}
probe_cmd="cat /proc/self/cgroup; cat $CG/memory.max; $TOOLS/rf-net tcp 127.0.0.1 $ALLOWED tcp 127.0.0.1 $OTHER"

if [ "$(cat /proc/1/comm)" = systemd ] && [ -d /run/systemd/system ]; then
	pass "PID 1 is systemd ($(systemctl --version | head -n1))"
else
	fail "PID 1 is systemd" "PID 1 is $(cat /proc/1/comm)"
fi
note "this suite runs in $(grep ^0:: /proc/self/cgroup)"

# A live monitor: it must find the sandboxes in the scopes (outside
# <cgroup2>/ringfence) and report the cap the hog below hits.
monpid=
if [ -x "$RF/ringfence-monitor" ]; then
	"$RF/ringfence-monitor" -q --interval 200 --linger-ms 500 --state "" \
		-o "$W/alerts.ndjson" 2> "$W/monitor.err" &
	monpid=$!
	sleep 3
fi

nc -ll -p "$ALLOWED" -e /bin/true &
ncpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$("$TOOLS/rf-net" tcp 127.0.0.1 "$ALLOWED")" = "tcp 127.0.0.1:$ALLOWED ok" ] && break
	sleep 1
done

# ---- check: the plan says a transient scope ----
pol sd-scope
"$RINGFENCE" check --policy "$W/sd-scope.json" > "$W/check.json" 2> "$W/check.err"
if grep -q '"how": "systemd-scope"' "$W/check.json"; then
	pass "check: the cgroup goes into a transient systemd scope"
else
	fail "check: the cgroup goes into a transient systemd scope" "plan:"
	show "$W/check.json"
	show "$W/check.err"
fi

# ---- a transient scope (this unit is not delegated) ----
"$RINGFENCE" run --policy "$W/sd-scope.json" --trace "$W/scope.jsonl" -- \
	/bin/sh -c "$probe_cmd; cat /proc/\$PPID/cgroup; sleep 4" > "$W/scope.out" 2> "$W/scope.err" &
rfpid=$!
# The scope exists from the run's cgroup-parent step to its end (start-up
# under TCG takes seconds): look while the run lasts.
unit= deleg=
while kill -0 "$rfpid" 2> /dev/null; do
	unit=$(systemctl list-units --plain --no-legend 'ringfence-*.scope' 2> /dev/null | awk '{ print $1 }' | head -n1)
	[ -n "$unit" ] && break
	sleep 0.2
done
[ -n "$unit" ] && deleg=$(systemctl show -p Delegate --value "$unit" 2> /dev/null)
rc=0
wait "$rfpid" || rc=$?
svcg=$(grep '^0::' "$W/scope.out" | tail -n1)
cgline=$(grep '^0::' "$W/scope.out" | head -n1)
note "scope: unit $unit Delegate=$deleg, supervisor in $svcg, sandbox in $cgline"
case "$unit" in
ringfence-sd-scope-*.scope) ok_unit=1 ;;
*) ok_unit= ;;
esac
name=${unit#ringfence-}
name=${name%.scope}
if [ "$rc" = 0 ] && [ -n "$ok_unit" ] && [ "$deleg" = yes ] &&
   [ "$cgline" = "0::/system.slice/$unit/ringfence/$name" ]; then
	pass "scope: the sandbox cgroup is inside the transient scope $unit (Delegate=yes), not at the root"
else
	fail "scope: the sandbox cgroup is inside a transient scope with Delegate=yes" \
		"exit $rc, unit '$unit' Delegate=$deleg, cgroup '$cgline'"
	show "$W/scope.err"
fi
if [ "$svcg" = "0::/system.slice/$unit/ringfence-supervisor" ]; then
	pass "scope: the supervisor sits in the scope's leaf ringfence-supervisor"
else
	fail "scope: the supervisor sits in the scope's leaf" "it was in '$svcg'"
fi
if [ "$(sed -n 2p "$W/scope.out")" = 33554432 ]; then
	pass "scope: memory_mb 32 holds below the scope (memory.max 33554432)"
else
	fail "scope: memory.max below the scope" "read '$(sed -n 2p "$W/scope.out")'"
fi
if grep -qx "tcp 127.0.0.1:$ALLOWED ok" "$W/scope.out" &&
   grep -qx "tcp 127.0.0.1:$OTHER EPERM" "$W/scope.out"; then
	pass "scope: the network programs hold there (:$ALLOWED ok, :$OTHER EPERM)"
else
	fail "scope: the network programs hold there" "rf-net printed:"
	show "$W/scope.out"
fi
if grep '"event":"sandbox.plan"' "$W/scope.jsonl" | grep -q '"how":"systemd-scope"'; then
	pass "scope: the trace's plan says systemd-scope"
else
	fail "scope: the trace's plan says systemd-scope" "trace:"
	show "$W/scope.jsonl"
fi
sleep 1
left=$(systemctl list-units --all --plain --no-legend 'ringfence-*.scope' 2> /dev/null | wc -l)
if [ "$left" = 0 ] && [ -z "$(ls /sys/fs/cgroup/system.slice | grep '^ringfence-')" ]; then
	pass "scope: gone after the run (no unit, no cgroup)"
else
	fail "scope: gone after the run" "$left units; $(ls /sys/fs/cgroup/system.slice | grep '^ringfence-' | tr '\n' ' ')"
fi

# a hog in the scope is killed at its cap
rc=0
"$RINGFENCE" run -q --policy "$W/sd-scope.json" --trace "$W/hog.jsonl" -- \
	dd if=/dev/zero of=/dev/null bs=128M count=1 > /dev/null 2> "$W/hog.err" || rc=$?
if [ "$rc" = 137 ] && grep '"event":"limit.exceeded"' "$W/hog.jsonl" | grep -q '"limit":"memory_mb"'; then
	pass "scope: a 128 MiB buffer is OOM-killed at memory_mb 32 (exit 137, limit.exceeded)"
else
	fail "scope: a memory hog is killed at memory_mb" "exit $rc"
	show "$W/hog.err"
fi

# ---- a unit with Delegate=yes: below its own cgroup ----
pol sd-deleg
rc=0
# A unit file (systemd-run wants dbus-daemon; systemctl talks to PID 1
# directly): Delegate=yes, and ringfence the only process in it (the
# script execs it).
printf '%s\n' "exec $RINGFENCE run --policy $W/sd-deleg.json --trace $W/deleg.jsonl -- /bin/sh -c '$probe_cmd; cat /proc/\$PPID/cgroup' > $W/deleg.out 2> $W/deleg.err" \
	> "$W/deleg.sh"
mkdir -p /run/systemd/system
printf '%s\n' '[Unit]' 'DefaultDependencies=no' '[Service]' 'Type=oneshot' 'Delegate=yes' \
	"ExecStart=/bin/sh $W/deleg.sh" > /run/systemd/system/rf-deleg.service
{ systemctl daemon-reload && systemctl start rf-deleg.service; } || rc=$?
cgline=$(grep '^0::' "$W/deleg.out" | head -n1)
note "delegated: sandbox in $cgline"
case "$cgline" in
0::/system.slice/rf-deleg.service/ringfence/sd-deleg-*) ok_cg=1 ;;
*) ok_cg= ;;
esac
if [ "$rc" = 0 ] && [ -n "$ok_cg" ]; then
	pass "delegated: the sandbox cgroup is below the unit's own (rf-deleg.service/ringfence/...)"
else
	fail "delegated: the sandbox cgroup is below the unit's own" "exit $rc, cgroup '$cgline'"
	show "$W/deleg.err"
fi
if [ "$(sed -n 2p "$W/deleg.out")" = 33554432 ] &&
   grep -qx "tcp 127.0.0.1:$ALLOWED ok" "$W/deleg.out" &&
   grep -qx "tcp 127.0.0.1:$OTHER EPERM" "$W/deleg.out" &&
   grep '"event":"sandbox.plan"' "$W/deleg.jsonl" | grep -q '"how":"delegated"'; then
	pass "delegated: memory.max 33554432, :$ALLOWED ok, :$OTHER EPERM, plan says delegated"
else
	fail "delegated: caps, network and plan" "output:"
	show "$W/deleg.out"
	show "$W/deleg.err"
fi

svline=$(grep '^0::' "$W/deleg.out" | tail -n1)
if [ "$svline" = "0::/system.slice/rf-deleg.service/ringfence-supervisor" ]; then
	pass "delegated: the supervisor, alone in the unit, moved to its leaf ringfence-supervisor"
else
	fail "delegated: the supervisor moved to a leaf" "it was in '$svline'"
fi

# ---- the monitor followed the sandbox in the scope ----
if [ -n "$monpid" ]; then
	sleep 1
	kill "$monpid" 2> /dev/null
	wait "$monpid" 2> /dev/null
fi
if grep '"resource":"memory_mb-cap"' "$W/alerts.ndjson" 2> /dev/null |
   grep '"policy_id":"sd-scope"' | grep -q '"cgroup_id":[1-9]'; then
	pass "monitor: the memory_mb cap held in a scope is a resource alert"
else
	fail "monitor: the memory_mb cap held in a scope is a resource alert" "alerts:"
	show "$W/alerts.ndjson"
	show "$W/monitor.err"
fi

# ---- nothing is left for gc ----
out=$("$RINGFENCE" gc 2>&1)
if [ -z "$out" ]; then
	pass "gc: nothing left by these runs"
else
	fail "gc: nothing left by these runs" "$out"
fi
# /init reads this suite's output through a pipe: nothing may keep it open
kill "$ncpid" 2> /dev/null
wait "$ncpid" 2> /dev/null
finish
